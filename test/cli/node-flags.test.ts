import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";

// The node flags the `weir` command runs the CLI with (packages/cli/bin/weir; BENCHMARKS.md,
// "V8 young generation size"): Weir's default young-generation size unless the user sets one.
const ROOT = resolve(import.meta.dirname, "../..");
const WEIR = join(ROOT, "bin/weir");
const DEFAULT_FLAGS = readFileSync(join(ROOT, "packages/cli/node-flags"), "utf8").trim();

/** Runs `weir bench` on a few events with `env` added; returns the node flags it reports. */
async function flagsOf(
  command: string,
  env: Record<string, string>,
): Promise<{ nodeFlags: string; nodeOptions: string }> {
  const child = spawn(
    command,
    ["bench", "nexmark", "--events", "1000", "--warmup", "0", "--query", "q1", "--json"],
    {
      env: { ...process.env, WEIR_NODE_OPTIONS: "", NODE_OPTIONS: "", ...env },
    },
  );
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d: Buffer) => {
    stdout += d.toString();
  });
  child.stderr.on("data", (d: Buffer) => {
    stderr += d.toString();
  });
  const code = await new Promise<number | null>((done) => child.on("close", done));
  expect(stderr).toBe("");
  expect(code).toBe(0);
  const r = JSON.parse(stdout) as { nodeFlags: string; nodeOptions: string };
  return { nodeFlags: r.nodeFlags, nodeOptions: r.nodeOptions };
}

describe.skipIf(!existsSync(join(ROOT, "packages/cli/dist/main.js")))("the weir command's node flags", () => {
  it("runs with Weir's default young-generation size", async () => {
    expect(DEFAULT_FLAGS).toMatch(/^--max-semi-space-size=\d+$/);
    expect(await flagsOf(WEIR, {})).toEqual({ nodeFlags: DEFAULT_FLAGS, nodeOptions: "" });
  }, 240_000);

  it("adds WEIR_NODE_OPTIONS after the default, and a semi-space size there replaces it", async () => {
    expect(await flagsOf(WEIR, { WEIR_NODE_OPTIONS: "--max-old-space-size=2048 --stack-size=2000" })).toEqual(
      {
        nodeFlags: `${DEFAULT_FLAGS} --max-old-space-size=2048 --stack-size=2000`,
        nodeOptions: "",
      },
    );
    expect(await flagsOf(WEIR, { WEIR_NODE_OPTIONS: "--max-semi-space-size=0" })).toEqual({
      nodeFlags: "--max-semi-space-size=0",
      nodeOptions: "",
    });
  }, 240_000);

  it("leaves the young generation to a NODE_OPTIONS that sizes it (a flag given to node would win over it)", async () => {
    expect(await flagsOf(WEIR, { NODE_OPTIONS: "--max_semi_space_size=8" })).toEqual({
      nodeFlags: "",
      nodeOptions: "--max_semi_space_size=8",
    });
    // A NODE_OPTIONS about something else keeps the default.
    expect(await flagsOf(WEIR, { NODE_OPTIONS: "--max-old-space-size=3000" })).toEqual({
      nodeFlags: DEFAULT_FLAGS,
      nodeOptions: "--max-old-space-size=3000",
    });
  }, 240_000);

  it("works through a symbolic link, as npm and pnpm link a package's bin", async () => {
    const link = join(mkdtempSync(join(tmpdir(), "weir-bin-")), "weir");
    symlinkSync(join(ROOT, "packages/cli/bin/weir"), link);
    const pkg = JSON.parse(readFileSync(join(ROOT, "packages/cli/package.json"), "utf8")) as {
      bin: Record<string, string>;
    };
    expect(pkg.bin.weir).toBe("./bin/weir");
    expect(await flagsOf(link, {})).toEqual({ nodeFlags: DEFAULT_FLAGS, nodeOptions: "" });
  }, 240_000);
});
