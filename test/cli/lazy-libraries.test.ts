import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { MAIN, testBundle } from "../support/bundle.js";

// The bundled CLI (scripts/bundle-cli.mjs, what bin/weir runs after `scripts/pnpm.sh build`),
// built here so that the shared build is left alone: it must load the libraries as lazily as the
// modules do (esbuild hoists no external import).
const { bundle: BUNDLE, entries } = testBundle("lazy");

/** The connector and metrics libraries `weir run` loads only when a job uses them. */
const LIBRARIES = ["apache-arrow", "pg", "kafkajs", "prom-client", "lmdb", "msgpackr"];

/**
 * Runs `weir run` of `sql` (the built CLI) and returns the packages of node_modules whose
 * CommonJS modules the process loaded (every library above is CommonJS, or loaded as its
 * CommonJS build), read from `require.cache` as the process exits.
 */
function loadedPackages(
  entry: string,
  sql: string,
): { code: number | null; stderr: string; packages: Set<string> } {
  const dir = mkdtempSync(join(tmpdir(), "weir-lazy-"));
  writeFileSync(join(dir, "in.jsonl"), '{"a":1,"b":"x"}\n{"a":2,"b":"y"}\n');
  writeFileSync(join(dir, "job.sql"), sql);
  const listing = join(dir, "modules.json");
  writeFileSync(
    join(dir, "record.cjs"),
    `process.on("exit", () => require("node:fs").writeFileSync(${JSON.stringify(listing)}, JSON.stringify(Object.keys(require.cache))));`,
  );
  const r = spawnSync(process.execPath, ["-r", join(dir, "record.cjs"), entry, "run", "job.sql"], {
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

describe.skipIf(!existsSync(MAIN)).each(entries)(
  "weir run loads a connector's libraries only when the job uses it: %s",
  (_what, entry) => {
    it("a file → blackhole job loads none of them", () => {
      const r = loadedPackages(
        entry,
        `${SOURCE}\nCREATE TABLE o (a INT, b STRING) WITH ('connector' = 'blackhole');\nINSERT INTO o SELECT a, b FROM t;\n`,
      );
      expect(r.stderr).toContain("2 changes written");
      expect(r.code).toBe(0);
      expect(LIBRARIES.filter((l) => r.packages.has(l))).toEqual([]);
    });

    it("a job writing an Arrow file loads apache-arrow (and still none of the others)", () => {
      const r = loadedPackages(
        entry,
        `${SOURCE}\nCREATE TABLE o (a INT, b STRING) WITH ('connector' = 'filesystem', 'path' = 'out.arrow', 'format' = 'arrow');\nINSERT INTO o SELECT a, b FROM t;\n`,
      );
      expect(r.code).toBe(0);
      expect(LIBRARIES.filter((l) => r.packages.has(l))).toEqual(["apache-arrow"]);
    });
  },
);

describe.skipIf(!existsSync(MAIN))("the bundled CLI", () => {
  it("points every external import and import.meta.url path at a file that exists", () => {
    const text = readFileSync(BUNDLE, "utf8");
    const paths = [
      ...[...text.matchAll(/\bimport\("(\.[^"]+)"\)/g)].map((m) => m[1]!),
      ...[...text.matchAll(/new URL\("([^"]+)", import\.meta\.url\)/g)].map((m) => m[1]!),
    ];
    // kafkajs's, lmdb's, msgpackr's and apache-arrow's requirers, pg's and pglite's imports, the
    // job page, package.json (nested URLs resolve from the inner one's file: checked as such).
    expect(paths.length).toBeGreaterThanOrEqual(8);
    for (const p of paths) expect(existsSync(new URL(p, `file://${BUNDLE}`)), p).toBe(true);
    const page = /new URL\("([^"]+)", new URL\("([^"]+)", import\.meta\.url\)\.href\)/.exec(
      text.slice(text.indexOf("job-page.html") - 200),
    );
    expect(page).not.toBeNull();
    expect(existsSync(new URL(page![1]!, new URL(page![2]!, `file://${BUNDLE}`)))).toBe(true);
  });

  it("answers as the modules do", () => {
    const run = (entry: string) => spawnSync(process.execPath, [entry, "--version"], { encoding: "utf8" });
    const a = run(MAIN);
    const b = run(BUNDLE);
    expect(a.status).toBe(0);
    expect(b.stdout).toBe(a.stdout);
    expect(b.status).toBe(a.status);
  });
});
