import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = resolve(import.meta.dirname, "../..");
const MAIN = join(ROOT, "packages/cli/dist/main.js");

/** The connector and metrics libraries `weir run` loads only when a job uses them. */
const LIBRARIES = ["apache-arrow", "pg", "kafkajs", "prom-client", "lmdb", "msgpackr"];

/**
 * Runs `weir run` of `sql` (the built CLI) and returns the packages of node_modules whose
 * CommonJS modules the process loaded (every library above is CommonJS, or loaded as its
 * CommonJS build), read from `require.cache` as the process exits.
 */
function loadedPackages(sql: string): { code: number | null; stderr: string; packages: Set<string> } {
  const dir = mkdtempSync(join(tmpdir(), "weir-lazy-"));
  writeFileSync(join(dir, "in.jsonl"), '{"a":1,"b":"x"}\n{"a":2,"b":"y"}\n');
  writeFileSync(join(dir, "job.sql"), sql);
  const listing = join(dir, "modules.json");
  writeFileSync(
    join(dir, "record.cjs"),
    `process.on("exit", () => require("node:fs").writeFileSync(${JSON.stringify(listing)}, JSON.stringify(Object.keys(require.cache))));`,
  );
  const r = spawnSync(process.execPath, ["-r", join(dir, "record.cjs"), MAIN, "run", "job.sql"], {
    cwd: dir,
    encoding: "utf8",
  });
  const files = JSON.parse(readFileSync(listing, "utf8")) as string[];
  const packages = new Set<string>();
  for (const f of files) {
    const m = /node_modules\/((?:@[^/]+\/)?[^/]+)\/(?!.*node_modules\/)/.exec(f);
    if (m) packages.add(m[1]!);
  }
  return { code: r.status, stderr: r.stderr, packages };
}

const SOURCE = `CREATE TABLE t (a INT, b STRING) WITH ('connector' = 'filesystem', 'path' = 'in.jsonl', 'format' = 'json');`;

describe.skipIf(!existsSync(MAIN))("weir run loads a connector's libraries only when the job uses it", () => {
  it("a file → blackhole job loads none of them", () => {
    const r = loadedPackages(
      `${SOURCE}\nCREATE TABLE o (a INT, b STRING) WITH ('connector' = 'blackhole');\nINSERT INTO o SELECT a, b FROM t;\n`,
    );
    expect(r.stderr).toContain("2 changes written");
    expect(r.code).toBe(0);
    expect(LIBRARIES.filter((l) => r.packages.has(l))).toEqual([]);
  });

  it("a job writing an Arrow file loads apache-arrow (and still none of the others)", () => {
    const r = loadedPackages(
      `${SOURCE}\nCREATE TABLE o (a INT, b STRING) WITH ('connector' = 'filesystem', 'path' = 'out.arrow', 'format' = 'arrow');\nINSERT INTO o SELECT a, b FROM t;\n`,
    );
    expect(r.code).toBe(0);
    expect(LIBRARIES.filter((l) => r.packages.has(l))).toEqual(["apache-arrow"]);
  });
});
