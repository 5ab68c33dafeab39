import type { DataType } from "@weir/planner";
import type { FnImpl } from "./callSite.js";

/**
 * JSON_VALUE / JSON_QUERY / JSON_EXISTS in lax mode with a JSONPath subset (jayway's, as Flink):
 * `$`, `.key`, `['key']`, `["key"]`, `[n]`, `[*]`, `.*`. Invalid JSON, an invalid path or a missing
 * item give NULL (Flink's default NULL ON EMPTY / NULL ON ERROR); a leading `lax`/`strict` is
 * accepted and both behave as lax.
 */

type Step = { readonly key: string } | { readonly index: number } | { readonly wildcard: true };
type Path = { readonly steps: readonly Step[]; readonly multi: boolean } | null;

const pathCache = new Map<string, Path>();

function parsePath(text: string): Path {
  let s = text.trim().replace(/^(lax|strict)\s+/i, "");
  if (!s.startsWith("$")) return null;
  s = s.slice(1);
  const steps: Step[] = [];
  while (s.length > 0) {
    let m: RegExpExecArray | null;
    if ((m = /^\.\*/.exec(s)) || (m = /^\[\*\]/.exec(s))) steps.push({ wildcard: true });
    else if ((m = /^\.([A-Za-z_$][\w$]*)/.exec(s))) steps.push({ key: m[1] });
    else if ((m = /^\[\s*'((?:[^'\\]|\\.)*)'\s*\]/.exec(s))) steps.push({ key: m[1].replace(/\\'/g, "'") });
    else if ((m = /^\[\s*"((?:[^"\\]|\\.)*)"\s*\]/.exec(s))) steps.push({ key: JSON.parse(`"${m[1]}"`) });
    else if ((m = /^\[\s*(\d+)\s*\]/.exec(s))) steps.push({ index: Number(m[1]) });
    else return null;
    s = s.slice(m[0].length);
  }
  return { steps, multi: steps.some((st) => "wildcard" in st) };
}

function cachedPath(text: string): Path {
  let p = pathCache.get(text);
  if (p === undefined) {
    p = parsePath(text);
    if (pathCache.size > 1000) pathCache.clear();
    pathCache.set(text, p);
  }
  return p;
}

/** The items a path selects (lax: a missing member selects nothing). */
function select(root: unknown, steps: readonly Step[]): unknown[] {
  let current: unknown[] = [root];
  for (const step of steps) {
    const next: unknown[] = [];
    for (const v of current) {
      if (v === null || typeof v !== "object") continue;
      if ("wildcard" in step) {
        if (Array.isArray(v)) next.push(...v);
        else next.push(...Object.values(v));
      } else if ("index" in step) {
        if (Array.isArray(v) && step.index < v.length) next.push(v[step.index]);
      } else if (!Array.isArray(v) && Object.hasOwn(v, step.key)) {
        next.push((v as Record<string, unknown>)[step.key]);
      }
    }
    current = next;
  }
  return current;
}

/**
 * `items`: what the path selects; `multi`: it has a wildcard; `prefixFound`: the steps before the
 * first wildcard select something (jayway: a missing member there is "not found", NULL, while a
 * wildcard's missing leaves just select nothing, `[]`).
 */
function evaluate(
  json: string,
  pathText: string,
): { items: unknown[]; multi: boolean; prefixFound: boolean } | null {
  const path = cachedPath(pathText);
  if (path === null) return null;
  let root: unknown;
  try {
    root = JSON.parse(json);
  } catch {
    return null;
  }
  const first = path.steps.findIndex((st) => "wildcard" in st);
  const prefixFound = first <= 0 || select(root, path.steps.slice(0, first)).length > 0;
  return { items: select(root, path.steps), multi: path.multi, prefixFound };
}

/**
 * Converts a scalar JSON item to the JSON_VALUE result type (RETURNING BOOLEAN, INT or DOUBLE, as
 * Flink supports): a JSON boolean, a JSON integer within INT's range, a JSON number. Another item
 * is an error, which the default NULL ON ERROR makes NULL (Flink's generated code fails the job on
 * such a mismatch with a ClassCastException instead).
 */
function returning(type: DataType): (v: unknown) => unknown {
  switch (type.kind) {
    case "BOOLEAN":
      return (v) => (typeof v === "boolean" ? v : null);
    case "INT":
      return (v) =>
        typeof v === "number" && Number.isInteger(v) && v >= -2147483648 && v <= 2147483647 ? v : null;
    case "DOUBLE":
      return (v) => (typeof v === "number" ? v : null);
    default:
      return (v) => (typeof v === "string" ? v : JSON.stringify(v));
  }
}

export const JSON_IMPLS: Record<string, FnImpl> = {
  JSON_VALUE: {
    gen: (c) => {
      const convert = returning(c.type);
      const f = (json: string, path: string) => {
        const r = evaluate(json, path);
        // a wildcard path selects a list (jayway), never a scalar: NULL, as Flink
        if (r === null || r.multi || r.items.length !== 1) return null;
        const v = r.items[0];
        if (v === null || typeof v === "object") return null;
        return convert(v);
      };
      return `${c.env(f)}(${c.args[0]}, ${c.args[1]})`;
    },
  },
  JSON_QUERY: {
    gen: (c) => {
      const f = (json: string, path: string) => {
        const r = evaluate(json, path);
        if (r === null || !r.prefixFound) return null;
        // a wildcard path gives the array of its matches, '[]' when nothing matches (as Flink)
        if (r.multi) return JSON.stringify(r.items);
        if (r.items.length === 0) return null;
        const v = r.items[0];
        return v !== null && typeof v === "object" ? JSON.stringify(v) : null;
      };
      return `${c.env(f)}(${c.args[0]}, ${c.args[1]})`;
    },
  },
  JSON_EXISTS: {
    gen: (c) => {
      const f = (json: string, path: string) => {
        const r = evaluate(json, path);
        // jayway reads a JSON null as absent: JSON_EXISTS('{"a": null}', '$.a') is FALSE in Flink
        return r === null ? false : r.items.some((v) => v !== null);
      };
      return `${c.env(f)}(${c.args[0]}, ${c.args[1]})`;
    },
  },
};
