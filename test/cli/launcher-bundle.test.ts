import { spawnSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";

// packages/cli/bin/weir runs the bundle (dist/weir.mjs) only while it is newer than every
// packages/*/dist/*.js and the last install (node_modules/.modules.yaml); else dist/main.js.
// Checked on a copy of the launcher in a tree of its own, whose two entries say which ran.
const ROOT = resolve(import.meta.dirname, "../..");

function tree(): {
  root: string;
  run: (env?: Record<string, string>) => string;
  age: (p: string, s: number) => void;
} {
  const root = mkdtempSync(join(tmpdir(), "weir-launcher-"));
  const cli = join(root, "packages/cli");
  mkdirSync(join(cli, "bin"), { recursive: true });
  mkdirSync(join(cli, "dist"), { recursive: true });
  mkdirSync(join(root, "packages/runtime/dist/state"), { recursive: true });
  mkdirSync(join(root, "node_modules"), { recursive: true });
  copyFileSync(join(ROOT, "packages/cli/bin/weir"), join(cli, "bin/weir"));
  copyFileSync(join(ROOT, "packages/cli/node-flags"), join(cli, "node-flags"));
  writeFileSync(join(cli, "dist/main.js"), 'console.log("modules");\n');
  writeFileSync(join(cli, "dist/weir.mjs"), 'console.log("bundle");\n');
  writeFileSync(join(root, "packages/runtime/dist/state/disk.js"), "\n");
  writeFileSync(join(root, "node_modules/.modules.yaml"), "\n");
  const now = Date.now() / 1000;
  const age = (p: string, s: number) => utimesSync(join(root, p), now - s, now - s);
  for (const p of [
    "packages/cli/dist/main.js",
    "packages/runtime/dist/state/disk.js",
    "node_modules/.modules.yaml",
  ])
    age(p, 100);
  age("packages/cli/dist/weir.mjs", 50);
  const run = (env: Record<string, string> = {}) => {
    const r = spawnSync("bash", [join(cli, "bin/weir")], {
      encoding: "utf8",
      env: { ...process.env, WEIR_NO_BUNDLE: "", ...env },
    });
    expect(r.stderr).toBe("");
    return r.stdout.trim();
  };
  return { root, run, age };
}

describe("the weir launcher and the bundled CLI", () => {
  it("runs the bundle while it is newer than every dist module and the last install", () => {
    expect(tree().run()).toBe("bundle");
  });

  it("runs dist/main.js once a module of any package is rebuilt after the bundle", () => {
    const t = tree();
    t.age("packages/runtime/dist/state/disk.js", 10);
    expect(t.run()).toBe("modules");
  });

  it("runs dist/main.js after an install newer than the bundle", () => {
    const t = tree();
    t.age("node_modules/.modules.yaml", 10);
    expect(t.run()).toBe("modules");
  });

  it("runs dist/main.js with WEIR_NO_BUNDLE set", () => {
    expect(tree().run({ WEIR_NO_BUNDLE: "1" })).toBe("modules");
  });
});
