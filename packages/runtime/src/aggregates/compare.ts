/**
 * Ordering and equality of non-null SQL values of one type, as MIN/MAX, FIRST/LAST_VALUE and
 * LISTAGG need them. Numbers (all numeric, date and time types), bigints (DECIMAL unscaled values
 * of one scale), strings (by UTF-16 code unit — Flink compares UTF-8 bytes, which orders the same
 * except for characters outside the BMP), booleans (false < true), bytes (unsigned lexicographic),
 * arrays (element-wise, then by length).
 */
export function compareValues(a: unknown, b: unknown): number {
  if (typeof a === "number" || typeof a === "bigint" || typeof a === "string") {
    return a < (b as typeof a) ? -1 : a > (b as typeof a) ? 1 : 0;
  }
  if (typeof a === "boolean") return a === b ? 0 : a ? 1 : -1;
  if (a instanceof Uint8Array && b instanceof Uint8Array) {
    const n = Math.min(a.length, b.length);
    for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i] - b[i];
    return a.length - b.length;
  }
  if (Array.isArray(a) && Array.isArray(b)) {
    const n = Math.min(a.length, b.length);
    for (let i = 0; i < n; i++) {
      if (a[i] === null || b[i] === null) {
        if (a[i] !== b[i]) return a[i] === null ? -1 : 1;
        continue;
      }
      const c = compareValues(a[i], b[i]);
      if (c !== 0) return c;
    }
    return a.length - b.length;
  }
  throw new Error(`cannot order values of type ${Object.prototype.toString.call(a)}`);
}

export function valuesEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== "object" || typeof b !== "object") {
    return typeof a === "number" && Number.isNaN(a) && typeof b === "number" && Number.isNaN(b);
  }
  if (a instanceof Uint8Array || Array.isArray(a)) return compareValues(a, b) === 0;
  return false;
}
