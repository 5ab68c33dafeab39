#!/usr/bin/env node
// Bundles the built CLI (packages/cli/dist/main.js and the @weir/* packages' dist modules it
// imports) into one ES module, packages/cli/dist/weir.mjs, which packages/cli/bin/weir runs when
// it is newer than every packages/*/dist/*.js (else the launcher runs dist/main.js). Loading ~280
// module files cost `weir run` ~0.2 CPU s of resolving and reading (BENCHMARKS.md, "Start-up:
// one bundled file for the CLI"); one file does not. Run after `tsc -b` (`scripts/pnpm.sh build`
// does both). Third-party libraries stay external, loaded from node_modules where they are first
// used, as before; each module's `import.meta.url` is rewritten to its own dist file's URL
// (relative to the bundle), so createRequire and the asset paths resolve as in the unbundled build.
// The bundle's source map (weir.mjs.map, without the sources' text) is chained through tsc's
// dist/*.js.map to the .ts files: packages/cli/src/source-stack.ts reads it when an internal
// error's stack is printed.
import { readFile } from "node:fs/promises";
import { isBuiltin } from "node:module";
import { dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
// --outfile PATH: write the bundle there instead (the tests bundle into a folder of their own).
const at = process.argv.indexOf("--outfile");
const OUT = at >= 0 ? resolve(process.argv[at + 1]) : join(ROOT, "packages/cli/dist/weir.mjs");
const PACKAGES = join(ROOT, "packages") + sep;

const rewriteMetaUrl = {
  name: "weir-import-meta-url",
  setup(b) {
    b.onLoad({ filter: /\.js$/ }, async (args) => {
      let text = await readFile(args.path, "utf8");
      if (args.path.startsWith(PACKAGES) && text.includes("import.meta.url")) {
        const rel = relative(dirname(OUT), args.path).split(sep).join("/");
        text = text.replaceAll("import.meta.url", `new URL(${JSON.stringify(rel)}, import.meta.url).href`);
      }
      return { contents: text, loader: "js" };
    });
  },
};

await build({
  entryPoints: [join(ROOT, "packages/cli/dist/main.js")],
  outfile: OUT,
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  sourcemap: "linked",
  sourcesContent: false,
  // Everything from node_modules but Weir's own workspace packages stays an import of its own.
  plugins: [
    rewriteMetaUrl,
    {
      // Third-party libraries stay external. An `import("pg")` is resolved at build time from
      // the importing module's own folder (pnpm gives each package only its own dependencies)
      // and kept as a relative path to that file, so it loads the same file as before; the
      // launcher runs the bundle only while it is newer than the last install, so the path holds.
      name: "weir-externals",
      setup(b) {
        b.onResolve({ filter: /^[^./]/ }, async (args) => {
          if (args.pluginData === "inner" || args.path.startsWith("@weir/") || isBuiltin(args.path))
            return undefined;
          const r = await b.resolve(args.path, {
            kind: args.kind,
            resolveDir: args.resolveDir,
            pluginData: "inner",
          });
          if (r.errors.length > 0) return { errors: r.errors };
          const rel = relative(dirname(OUT), r.path).split(sep).join("/");
          return { path: rel.startsWith(".") ? rel : `./${rel}`, external: true };
        });
      },
    },
  ],
  logLevel: "warning",
});
