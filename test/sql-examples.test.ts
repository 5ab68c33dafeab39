import { mkdtempSync, readdirSync, readFileSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { Engine, type Output } from "@weir/cli";
import { createConnectorRegistry } from "@weir/connectors";
import { describe, expect, it } from "vitest";

/**
 * Every `sql/*.sql` example runs to the end with exit code 0, from a working directory where
 * `sql/` is linked in (as `weir run sql/x.sql` from the repository root). `sql/nexmark/` needs
 * the Nexmark connector's data volume and is covered by its own tests; scripts that need a
 * server are only planned (`weir run --dry-run`).
 */

const ROOT = resolve(import.meta.dirname, "..");
const NEEDS_SERVERS = new Set(["revenue_minute_kafka_postgres.sql", "revenue_minute_two_layers.sql"]);

const scripts = readdirSync(join(ROOT, "sql"))
  .filter((f) => f.endsWith(".sql"))
  .sort();

/** The leading `--` comment block of a script, without the comment markers. */
function headerComment(source: string): string[] {
  const lines: string[] = [];
  for (const line of source.split("\n")) {
    if (!line.startsWith("--")) break;
    lines.push(line.replace(/^--\s?/, ""));
  }
  return lines;
}

async function run(
  file: string,
  dryRun: boolean,
  edit: (sql: string) => string = (s) => s,
): Promise<{ code: number; stderr: string }> {
  const dir = mkdtempSync(join(tmpdir(), "weir-sql-"));
  symlinkSync(join(ROOT, "sql"), join(dir, "sql"));
  const stderr: string[] = [];
  const quiet = { write: () => true };
  const out: Output = { out: () => undefined, err: (l) => stderr.push(l) };
  const engine = new Engine({ cwd: dir, out, connectors: createConnectorRegistry({ stdout: quiet }) });
  const code = await engine.runScript(edit(readFileSync(join(ROOT, "sql", file), "utf8")), {
    file: `sql/${file}`,
    dryRun,
    maxRuntimeMs: 30_000,
  });
  return { code, stderr: stderr.join("\n") };
}

describe("sql/ examples", () => {
  it("finds the examples", () => {
    expect(scripts.length).toBeGreaterThanOrEqual(8);
  });

  for (const file of scripts) {
    describe(file, () => {
      it("starts with a comment saying what it does and how to run it", () => {
        const header = headerComment(readFileSync(join(ROOT, "sql", file), "utf8"));
        expect(header.length, "a leading -- comment block").toBeGreaterThan(0);
        expect(header.some((l) => /^What:\s*\S/.test(l))).toBe(true);
        expect(header).toContain(`Run: weir run sql/${file}`);
      });

      if (NEEDS_SERVERS.has(file)) {
        it("--dry-run plans it and reports the servers it cannot reach", async () => {
          // Point it at a port where nothing listens: planning succeeds, reachability does not.
          const { code, stderr } = await run(file, true, (sql) =>
            sql.replace(
              /'properties\.bootstrap\.servers' = '[^']*'/,
              "'properties.bootstrap.servers' = '127.0.0.1:9'",
            ),
          );
          expect(code).toBe(1);
          expect(stderr).toMatch(/:\d+:\d+: error: table 'order_paid': \(kafka\) cannot reach it/);
        });
      } else {
        it("runs with exit code 0", async () => {
          const { code, stderr } = await run(file, false);
          expect(code, stderr).toBe(0);
          expect(stderr).toMatch(/^Job finished in /m);
        });
      }
    });
  }
});
