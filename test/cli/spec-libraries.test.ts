import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";

// Every connector's spec (`packages/connectors/src/*/spec.ts`) is loaded by the planner's catalog
// and `weir check` whatever a job uses: a spec module must load no client library. Checked on the
// built modules (`tsc -b`), in a fresh process that imports every spec and nothing else.

const ROOT = resolve(import.meta.dirname, "../..");
const DIST = join(ROOT, "packages/connectors/dist");

/** The client libraries of the connectors and the state backend. */
const CLIENTS = [
  "kafkajs",
  "pg",
  "@electric-sql/pglite",
  "@electric-sql/pglite-socket",
  "apache-arrow",
  "lmdb",
];

/** `dist/<folder>/spec.js` of every folder that has one. */
function specModules(): string[] {
  return readdirSync(DIST, { withFileTypes: true })
    .filter((d) => d.isDirectory() && existsSync(join(DIST, d.name, "spec.js")))
    .map((d) => join(DIST, d.name, "spec.js"))
    .sort();
}

/**
 * The packages of node_modules a fresh node process loads while it imports `modules`: every ESM
 * resolution (a resolve hook logs them) and every CommonJS module (`require.cache` at exit).
 */
function loadedPackages(modules: readonly string[]): {
  status: number | null;
  stderr: string;
  packages: Set<string>;
} {
  const dir = mkdtempSync(join(tmpdir(), "weir-spec-libs-"));
  const log = join(dir, "resolved.txt");
  writeFileSync(
    join(dir, "hooks.mjs"),
    `import { appendFileSync } from "node:fs";
export async function resolve(specifier, context, next) {
  const r = await next(specifier, context);
  appendFileSync(${JSON.stringify(log)}, r.url + "\\n");
  return r;
}`,
  );
  writeFileSync(
    join(dir, "main.mjs"),
    `import { register, createRequire } from "node:module";
import { appendFileSync, writeFileSync } from "node:fs";
writeFileSync(${JSON.stringify(log)}, "");
register(${JSON.stringify(pathToFileURL(join(dir, "hooks.mjs")).href)});
for (const m of ${JSON.stringify(modules.map((m) => pathToFileURL(m).href))}) await import(m);
const cache = Object.keys(createRequire(import.meta.url).cache);
appendFileSync(${JSON.stringify(log)}, cache.map((f) => "file://" + f).join("\\n") + "\\n");
`,
  );
  const r = spawnSync(process.execPath, [join(dir, "main.mjs")], { encoding: "utf8" });
  const packages = new Set<string>();
  for (const url of readFileSync(log, "utf8").split("\n")) {
    const m = /node_modules\/((?:@[^/]+\/)?[^/]+)\/(?!.*node_modules\/)/.exec(url);
    if (m) packages.add(m[1]!);
  }
  return { status: r.status, stderr: r.stderr, packages };
}

describe.skipIf(!existsSync(join(DIST, "connectors.js")))("connector spec modules", () => {
  it("are one per connector folder and the formats'", () => {
    expect(specModules().map((m) => m.slice(DIST.length + 1))).toEqual([
      "blackhole/spec.js",
      "collect/spec.js",
      "datagen/spec.js",
      "filesystem/spec.js",
      "formats/spec.js",
      "kafka/spec.js",
      "nexmark/spec.js",
      "postgres/spec.js",
      "print/spec.js",
    ]);
  });

  it("load no client library", () => {
    const r = loadedPackages(specModules());
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
    expect(CLIENTS.filter((c) => r.packages.has(c))).toEqual([]);
  });

  it("sees a client library when a module loads one (CommonJS or ESM)", () => {
    const from = createRequire(join(ROOT, "packages/connectors/package.json"));
    const r = loadedPackages([
      from.resolve("kafkajs"),
      join(ROOT, "packages/connectors/node_modules/@electric-sql/pglite/dist/index.js"),
    ]);
    expect(r.status).toBe(0);
    expect(CLIENTS.filter((c) => r.packages.has(c))).toEqual(["kafkajs", "@electric-sql/pglite"]);
  });
});
