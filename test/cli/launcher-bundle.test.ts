import { spawnSync } from "node:child_process";
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  statSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";

// packages/cli/bin/weir runs the bundle (dist/weir.mjs) only while it is newer than every
// packages/*/dist/*.js and the last install (node_modules/.modules.yaml); else dist/main.js.
// A dist folder with tsc's .tsbuildinfo is judged by that file (tsc writes it after the
// package's modules: checked below with the real tsc); one without it, by a search of its *.js.
// Checked on a copy of the launcher in a tree of its own, whose two entries say which ran.
const ROOT = resolve(import.meta.dirname, "../..");
const TSC = join(ROOT, "node_modules/typescript/bin/tsc");

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

  it("judges a dist folder with a .tsbuildinfo by that file: a tsc build after the bundle runs dist/main.js", () => {
    const t = tree();
    writeFileSync(join(t.root, "packages/cli/dist/.tsbuildinfo"), "{}\n");
    writeFileSync(join(t.root, "packages/runtime/dist/.tsbuildinfo"), "{}\n");
    t.age("packages/cli/dist/.tsbuildinfo", 100);
    t.age("packages/runtime/dist/.tsbuildinfo", 100);
    expect(t.run()).toBe("bundle");
    // The price of not searching: a module written alone, by anything but tsc, is not looked at.
    t.age("packages/runtime/dist/state/disk.js", 10);
    expect(t.run()).toBe("bundle");
    t.age("packages/runtime/dist/.tsbuildinfo", 10);
    expect(t.run()).toBe("modules");
    t.age("packages/runtime/dist/.tsbuildinfo", 100);
    t.age("packages/cli/dist/.tsbuildinfo", 10);
    expect(t.run()).toBe("modules");
    t.age("packages/cli/dist/.tsbuildinfo", 100);
    t.age("node_modules/.modules.yaml", 10);
    expect(t.run()).toBe("modules");
  });
});

describe("tsc writes a project's .tsbuildinfo after its modules (what the launcher relies on)", () => {
  it.each([
    ["a clean build", "export const a: number = 1;\n"],
    ["a build with a type error (tsc still emits)", 'export const a: number = "x";\n'],
  ])(
    "%s",
    (_what, source) => {
      const dir = mkdtempSync(join(tmpdir(), "weir-tsc-"));
      mkdirSync(join(dir, "src/deep"), { recursive: true });
      writeFileSync(
        join(dir, "tsconfig.json"),
        JSON.stringify({
          extends: join(ROOT, "tsconfig.base.json"),
          compilerOptions: {
            rootDir: "src",
            outDir: "dist",
            tsBuildInfoFile: "dist/.tsbuildinfo",
            types: [],
          },
          include: ["src"],
        }),
      );
      writeFileSync(join(dir, "package.json"), '{"type": "module"}\n');
      writeFileSync(join(dir, "src/a.ts"), source);
      writeFileSync(join(dir, "src/deep/b.ts"), "export const b = 2;\n");
      const build = () => spawnSync(process.execPath, [TSC, "-b", dir], { encoding: "utf8" });
      const newest = () =>
        Math.max(...["dist/a.js", "dist/deep/b.js"].map((p) => statSync(join(dir, p)).mtimeMs));
      const info = () => statSync(join(dir, "dist/.tsbuildinfo")).mtimeMs;
      const first = build();
      expect(first.status, first.stdout).toBe(source.includes('"x"') ? 1 : 0);
      expect(info()).toBeGreaterThanOrEqual(newest());
      // A rebuild after one source changes: the module is rewritten, and the .tsbuildinfo after it.
      const before = info();
      writeFileSync(join(dir, "src/deep/b.ts"), "export const b = 3;\n");
      build();
      expect(readFileSync(join(dir, "dist/deep/b.js"), "utf8")).toContain("b = 3");
      expect(info()).toBeGreaterThanOrEqual(newest());
      expect(info()).toBeGreaterThan(before);
    },
    60_000,
  );
});
