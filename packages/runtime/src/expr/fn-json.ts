import type { DataType } from "@weir/planner";
import type { FnImpl } from "./call-site.js";

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

/**
 * A JSON number as its text. Flink reads JSON with Jackson (integers as long or BigInteger,
 * numbers with a fraction or an exponent as BigDecimal), so JSON_VALUE keeps every digit:
 * `9007199254740993` stays `9007199254740993`, `1.10` stays `1.10`, and `1e2` prints as Java's
 * `BigDecimal.toString` does, `1E+2`.
 */
class JsonNumber {
  constructor(
    readonly text: string,
    readonly integer: boolean,
  ) {}
  /** Java's BigInteger / BigDecimal `toString` of the number. */
  toString(): string {
    return this.integer ? canonicalInteger(this.text) : bigDecimalString(this.text);
  }
}

/** An object's members in document order; a repeated name keeps its last value (as Jackson). */
type JsonObject = Map<string, unknown>;

function canonicalInteger(text: string): string {
  // JSON has no leading zeros, so only "-0" differs from BigInteger's form
  return text === "-0" ? "0" : text;
}

/**
 * `new BigDecimal(text).toString()`: the unscaled digits and the scale; plain notation when the
 * scale is ≥ 0 and the adjusted exponent ≥ −6, scientific (`1.5E+3`, `1E-7`) otherwise.
 */
function bigDecimalString(text: string): string {
  const m = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(text);
  if (m === null) return text;
  const frac = m[3] ?? "";
  let digits = (m[2] + frac).replace(/^0+(?=\d)/, "");
  const scale = frac.length - Number(m[4] ?? "0");
  const negative = m[1] === "-" && /[1-9]/.test(digits);
  if (digits === "") digits = "0";
  const sign = negative ? "-" : "";
  const adjusted = -scale + (digits.length - 1);
  if (scale === 0) return sign + digits;
  if (scale > 0 && adjusted >= -6) {
    if (digits.length > scale)
      return `${sign}${digits.slice(0, digits.length - scale)}.${digits.slice(digits.length - scale)}`;
    return `${sign}0.${"0".repeat(scale - digits.length)}${digits}`;
  }
  const mantissa = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
  return `${sign}${mantissa}E${adjusted >= 0 ? "+" : ""}${adjusted}`;
}

const INVALID: unique symbol = Symbol("invalid JSON");

/**
 * Parses JSON as strictly as `JSON.parse` (whitespace, string escapes and number syntax of RFC
 * 8259, nothing after the value), keeping numbers as `JsonNumber` and objects as `Map`s.
 */
function parseJson(text: string): unknown {
  let i = 0;
  const n = text.length;
  const ws = () => {
    while (i < n) {
      const c = text.charCodeAt(i);
      if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) i++;
      else break;
    }
  };
  const fail = (): never => {
    throw INVALID;
  };
  const str = (): string => {
    const start = i; // at the opening quote
    i++;
    let escaped = false;
    for (;;) {
      if (i >= n) fail();
      const c = text.charCodeAt(i);
      if (c === 0x22) break;
      if (c < 0x20) fail();
      if (c === 0x5c) {
        escaped = true;
        i += 2;
      } else i++;
    }
    i++;
    if (!escaped) return text.slice(start + 1, i - 1);
    try {
      return JSON.parse(text.slice(start, i)) as string;
    } catch {
      return fail();
    }
  };
  const NUM = /-?(?:0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/y;
  const value = (): unknown => {
    ws();
    if (i >= n) fail();
    const c = text.charCodeAt(i);
    if (c === 0x7b) {
      i++;
      const obj: JsonObject = new Map();
      ws();
      if (text.charCodeAt(i) === 0x7d) {
        i++;
        return obj;
      }
      for (;;) {
        ws();
        if (text.charCodeAt(i) !== 0x22) fail();
        const key = str();
        ws();
        if (text.charCodeAt(i) !== 0x3a) fail();
        i++;
        const v = value();
        obj.set(key, v); // a repeated name keeps its first position and its last value (as Jackson)
        ws();
        const d = text.charCodeAt(i++);
        if (d === 0x7d) return obj;
        if (d !== 0x2c) fail();
      }
    }
    if (c === 0x5b) {
      i++;
      const arr: unknown[] = [];
      ws();
      if (text.charCodeAt(i) === 0x5d) {
        i++;
        return arr;
      }
      for (;;) {
        arr.push(value());
        ws();
        const d = text.charCodeAt(i++);
        if (d === 0x5d) return arr;
        if (d !== 0x2c) fail();
      }
    }
    if (c === 0x22) return str();
    if (text.startsWith("true", i)) {
      i += 4;
      return true;
    }
    if (text.startsWith("false", i)) {
      i += 5;
      return false;
    }
    if (text.startsWith("null", i)) {
      i += 4;
      return null;
    }
    NUM.lastIndex = i;
    const m = NUM.exec(text);
    if (m === null) return fail();
    i += m[0].length;
    return new JsonNumber(m[0], m[1] === undefined && m[2] === undefined);
  };
  try {
    const v = value();
    ws();
    return i === n ? v : INVALID;
  } catch (e) {
    if (e === INVALID) return INVALID;
    throw e;
  }
}

/** JSON text of a parsed value, compact, numbers as Jackson writes them (`1E+2`, `1.10`). */
function stringify(v: unknown): string {
  if (v === null) return "null";
  if (v instanceof JsonNumber) return v.toString();
  if (Array.isArray(v)) return `[${v.map(stringify).join(",")}]`;
  if (v instanceof Map) {
    const parts: string[] = [];
    for (const [k, x] of v) parts.push(`${JSON.stringify(k)}:${stringify(x)}`);
    return `{${parts.join(",")}}`;
  }
  return JSON.stringify(v);
}

/** The items a path selects (lax: a missing member selects nothing). */
function select(root: unknown, steps: readonly Step[]): unknown[] {
  let current: unknown[] = [root];
  for (const step of steps) {
    const next: unknown[] = [];
    for (const v of current) {
      if (v === null || typeof v !== "object" || v instanceof JsonNumber) continue;
      if ("wildcard" in step) {
        if (Array.isArray(v)) next.push(...v);
        else next.push(...(v as JsonObject).values());
      } else if ("index" in step) {
        if (Array.isArray(v) && step.index < v.length) next.push(v[step.index]);
      } else if (!Array.isArray(v) && (v as JsonObject).has(step.key)) {
        next.push((v as JsonObject).get(step.key));
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
  const root = parseJson(json);
  if (root === INVALID) return null;
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
      return (v) => {
        if (!(v instanceof JsonNumber) || !v.integer) return null;
        const n = Number(v.text);
        return n >= -2147483648 && n <= 2147483647 ? n : null;
      };
    case "DOUBLE":
      return (v) => (v instanceof JsonNumber ? Number(v.text) : null);
    default:
      return (v) => (typeof v === "string" ? v : v instanceof JsonNumber ? v.toString() : String(v));
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
        if (v === null || (typeof v === "object" && !(v instanceof JsonNumber))) return null;
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
        if (r.multi) return stringify(r.items);
        if (r.items.length === 0) return null;
        const v = r.items[0];
        return v !== null && typeof v === "object" && !(v instanceof JsonNumber) ? stringify(v) : null;
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
