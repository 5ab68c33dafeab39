import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { MAIN, testBundle } from "../support/bundle.js";

// `weir: internal error:` prints the error's stack at the TypeScript sources (source-stack.ts),
// from the modules (dist/main.js, tsc's *.js.map) and from the bundle (dist/weir.mjs, whose map
// scripts/bundle-cli.mjs chains through them), built here into a folder of its own.
const ROOT = resolve(import.meta.dirname, "../..");
const { entries } = testBundle("stack");
const WEIR_TS = join(ROOT, "packages/cli/src/weir.ts");

describe.skipIf(!existsSync(MAIN)).each(entries)("an internal error's stack: %s", (_what, entry) => {
  it("names the .ts files under packages/ at the lines that threw, not the built JavaScript", () => {
    // No user input reaches an internal error (a bug); WEIR_TEST_INTERNAL_ERROR throws one from
    // weir.ts's internalErrorForTests.
    const r = spawnSync(process.execPath, [entry, "version"], {
      encoding: "utf8",
      env: { ...process.env, WEIR_TEST_INTERNAL_ERROR: "1" },
    });
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/^weir: internal error: Error: WEIR_TEST_INTERNAL_ERROR is set/);
    const frames = r.stderr.split("\n").filter((l) => /^\s+at /.test(l));
    // Each of Weir's frames is at a .ts file; none at the built JavaScript.
    expect(
      frames.filter((l) => /\/packages\/[a-z]+\/src\/[\w/.-]+\.ts:\d+:\d+\)?$/.test(l)).length,
    ).toBeGreaterThanOrEqual(2);
    expect(frames.filter((l) => /\.m?js:\d+:\d+\)?$/.test(l) && l.includes(ROOT))).toEqual([]);
    // The frame that threw is at the throw of internalErrorForTests in its source.
    const at = new RegExp(
      `at internalErrorForTests \\(${WEIR_TS.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")}:(\\d+):(\\d+)\\)$`,
    );
    const frame = frames.map((l) => at.exec(l)).find((m) => m !== null);
    expect(frame, r.stderr).toBeDefined();
    const line = readFileSync(WEIR_TS, "utf8").split("\n")[Number(frame![1]) - 1]!;
    expect(line.slice(Number(frame![2]) - 1)).toMatch(/^(throw )?new Error\("WEIR_TEST_INTERNAL_ERROR/);
  });

  it("bench --write-file into a missing directory is a clear error, not an internal one", () => {
    const missing = join(mkdtempSync(join(tmpdir(), "weir-stack-")), "no-such-dir", "events.jsonl");
    const r = spawnSync(
      process.execPath,
      [entry, "bench", "nexmark", "--events", "10", "--write-file", missing],
      { encoding: "utf8" },
    );
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(`weir: bench: cannot write --write-file ${missing}: ENOENT`);
    expect(r.stderr).toContain("create its directory");
    expect(r.stderr).not.toContain("internal error");
  });
});
