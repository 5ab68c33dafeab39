import { readFileSync } from "node:fs";

/** The version of `@weir/cli` (its package.json, one directory above `src/` and `dist/`). */
export const VERSION: string = (
  JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string }
).version;
