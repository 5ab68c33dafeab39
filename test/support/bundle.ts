import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";
import { afterAll, beforeAll } from "vitest";

const ROOT = resolve(import.meta.dirname, "../..");
/** The CLI's modules (`tsc -b`). */
export const MAIN = join(ROOT, "packages/cli/dist/main.js");

/**
 * A bundle of the CLI built for this test file (scripts/bundle-cli.mjs) into a folder of its own
 * under packages/cli/dist (so that it resolves the workspace's node_modules as dist/weir.mjs
 * does), removed after the file; with the entries to run the CLI from, modules and bundle.
 */
export function testBundle(name: string): {
  readonly bundle: string;
  readonly entries: readonly (readonly [string, string])[];
} {
  const dir = join(ROOT, "packages/cli/dist", `.test-${name}-bundle-${process.pid}`);
  const bundle = join(dir, "weir.mjs");
  beforeAll(() => {
    if (!existsSync(MAIN)) return;
    mkdirSync(dir, { recursive: true });
    execFileSync(process.execPath, [join(ROOT, "scripts/bundle-cli.mjs"), "--outfile", bundle]);
  }, 120_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  return {
    bundle,
    entries: [
      ["the modules (dist/main.js)", MAIN],
      ["the bundle (dist/weir.mjs)", bundle],
    ],
  };
}
