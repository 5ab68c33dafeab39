import { createRequire } from "node:module";
import type * as A from "apache-arrow";

let arrowModule: typeof A | undefined;

/**
 * apache-arrow, loaded on first use: it is ~150 modules and about a tenth of a second of a
 * process's start-up, and only the filesystem connector's Arrow files use it. The CommonJS
 * build is loaded (synchronously, as the readers and writers are built in synchronous code).
 * Weir never mixes its objects with another copy's: the Arrow files' bytes are the interface.
 */
export function loadArrow(): typeof A {
  arrowModule ??= createRequire(import.meta.url)("apache-arrow") as typeof A;
  return arrowModule;
}

/**
 * The apache-arrow module's exports, resolved on first access (see {@link loadArrow}); the
 * Arrow modules use `Arrow.X` for values and `A.X` (a type-only import) for types.
 */
export const Arrow: typeof A = new Proxy({} as typeof A, {
  get: (_target, key) => Reflect.get(loadArrow(), key),
});
