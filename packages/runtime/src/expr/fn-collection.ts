import type { FnImpl } from "./call-site.js";
import { fnOf } from "./call-site.js";
import { ExpressionError } from "./errors.js";

/** ITEM: arrays are 1-based with NULL out of range; maps by key (NULL when absent). */
const item: FnImpl = {
  gen: (c) => {
    const [a, k] = c.args;
    if (c.argTypes[0].kind === "ARRAY")
      return `(${k} >= 1 && ${k} <= ${a}.length ? (${a}[${k} - 1] ?? null) : null)`;
    return `(${a}.get(${k}) ?? null)`;
  },
};

function cardinality(v: unknown[] | Map<unknown, unknown>): number {
  if (Array.isArray(v)) return v.length;
  return v.size;
}

function multisetSize(v: Map<unknown, number>): number {
  let n = 0;
  for (const c of v.values()) n += c;
  return n;
}

function element(v: unknown[]): unknown {
  if (v.length === 0) return null;
  if (v.length > 1) throw new ExpressionError("ELEMENT: the array has more than one element");
  return v[0] ?? null;
}

export const COLLECTION_IMPLS: Record<string, FnImpl> = {
  ARRAY: { strict: false, gen: (c) => `[${c.args.join(", ")}]` },
  ROW: { strict: false, gen: (c) => `[${c.args.join(", ")}]` },
  MAP: {
    strict: false,
    gen: (c) => {
      const pairs: string[] = [];
      for (let i = 0; i < c.args.length; i += 2) pairs.push(`[${c.args[i]}, ${c.args[i + 1]}]`);
      return `new Map([${pairs.join(", ")}])`;
    },
  },
  ITEM: item,
  CARDINALITY: {
    gen: (c) => `${c.env(c.argTypes[0].kind === "MULTISET" ? multisetSize : cardinality)}(${c.args[0]})`,
  },
  ELEMENT: fnOf(element),
};
