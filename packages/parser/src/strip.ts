/** Recursively removes the spans from a tree. */
export type WithoutSpans<T> = T extends readonly (infer E)[]
  ? WithoutSpans<E>[]
  : T extends object
    ? { [K in keyof T as K extends "span" ? never : K]: WithoutSpans<T[K]> }
    : T;

/**
 * A deep copy of `node` without `span` fields and without properties whose value is undefined, so
 * two parses of equivalent SQL compare equal with `toEqual`.
 */
export function stripSpans<T>(node: T): WithoutSpans<T> {
  return strip(node) as WithoutSpans<T>;
}

function strip(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(strip);
  if (v === null || typeof v !== "object") return v;
  const out: Record<string, unknown> = {};
  for (const [k, value] of Object.entries(v)) {
    if (k === "span" || value === undefined) continue;
    out[k] = strip(value);
  }
  return out;
}
