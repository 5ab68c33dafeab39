import { readFileSync } from "node:fs";
import { SourceMap, type SourceMapPayload, type SourceMapping } from "node:module";
import { fileURLToPath, pathToFileURL } from "node:url";

/**
 * An error's stack with each frame in a built file (the bundle dist/weir.mjs, or a dist/*.js
 * module) shown at its TypeScript source, as `node --enable-source-maps` shows it: the build
 * writes a source map beside each (tsc's *.js.map; scripts/bundle-cli.mjs's weir.mjs.map, chained
 * through them to the .ts files). The maps are read here, when a stack is printed, and not by
 * node as each module loads: --enable-source-maps would parse the bundle's map on every start
 * (and format every stack a connector or operator reads through it), and node maps only the
 * modules loaded after it is turned on. A frame without a readable map is left as it is.
 */
export function sourceStack(e: Error): string {
  const stack = e.stack ?? `${e.name}: ${e.message}`;
  const maps = new Map<string, Located | undefined>();
  return stack
    .split("\n")
    .map((line) => {
      const m = FRAME.exec(line);
      if (m === null) return line;
      const [, head, where, row, col, tail] = m as unknown as [
        string,
        string,
        string,
        string,
        string,
        string,
      ];
      let located = maps.get(where);
      if (!maps.has(where)) {
        located = sourceMapOf(where);
        maps.set(where, located);
      }
      if (located === undefined) return line;
      const entry = located.map.findEntry(Number(row) - 1, Number(col) - 1) as Partial<SourceMapping>;
      if (entry.originalSource === undefined || entry.originalLine === undefined) return line;
      const source = new URL(entry.originalSource, located.url);
      const path = source.protocol === "file:" ? fileURLToPath(source) : source.href;
      return `${head}${path}:${entry.originalLine + 1}:${(entry.originalColumn ?? 0) + 1}${tail}`;
    })
    .join("\n");
}

/** `    at fn (LOCATION:LINE:COLUMN)`, `    at [async ]LOCATION:LINE:COLUMN`; LOCATION a file URL or path. */
const FRAME = /^(\s+at (?:.+ \(|async )?)((?:file:\/\/)?\/[^():]+):(\d+):(\d+)(\)?)$/;

interface Located {
  map: SourceMap;
  /** The map's own URL, against which its sources resolve. */
  url: URL;
}

/** The source map a built file names in its last `//# sourceMappingURL=` comment, if readable. */
function sourceMapOf(where: string): Located | undefined {
  try {
    const file = where.startsWith("file://") ? new URL(where) : pathToFileURL(where);
    const text = readFileSync(file, "utf8");
    const m = /\/\/# sourceMappingURL=(\S+)\s*$/.exec(text.slice(-4096));
    if (m === null || m[1]!.startsWith("data:")) return undefined;
    const url = new URL(m[1]!, file);
    const payload = JSON.parse(readFileSync(url, "utf8")) as SourceMapPayload;
    const root = payload.sourceRoot ? new URL(payload.sourceRoot.replace(/\/?$/, "/"), url) : url;
    return { map: new SourceMap(payload), url: root };
  } catch {
    return undefined;
  }
}
