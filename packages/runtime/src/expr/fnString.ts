import { createHash } from "node:crypto";
import type { CallSite, FnImpl } from "./callSite.js";
import { fnOf, keywordArg } from "./callSite.js";
import { ExpressionError } from "./errors.js";
import { cachedPattern, javaRegex, translateReplacement } from "./regex.js";

/**
 * String functions. Lengths and positions count Unicode code points, as Flink's UTF-8 strings do;
 * strings without surrogate pairs take the fast UTF-16 path.
 */

const SURROGATE = /[\uD800-\uDFFF]/;
const chars = (s: string): string[] => Array.from(s);
const charLength = (s: string) => (SURROGATE.test(s) ? chars(s).length : s.length);

/** Flink's `substringSQL`: 1-based; 0 acts as 1; a negative start counts from the end. */
function substring(s: string, pos: number, len?: number): string | null {
  if (len !== undefined && len < 0) return null;
  const cs = SURROGATE.test(s) ? chars(s) : null;
  const n = cs ? cs.length : s.length;
  let start = pos > 0 ? pos - 1 : pos < 0 ? n + pos : 0;
  const end = len === undefined ? n : Math.min(n, start + len);
  start = Math.max(start, 0);
  if (start >= end) return "";
  return cs ? cs.slice(start, end).join("") : s.slice(start, end);
}

function trimChars(s: string, set: string, leading: boolean, trailing: boolean): string {
  let a = 0;
  let b = s.length;
  if (leading) while (a < b && set.includes(s[a])) a++;
  if (trailing) while (b > a && set.includes(s[b - 1])) b--;
  return s.slice(a, b);
}

const trim: FnImpl = {
  gen: (c) => {
    const mode = keywordArg(c, 0);
    const leading = mode !== "TRAILING";
    const trailing = mode !== "LEADING";
    const [chars, str] = c.args.length === 3 ? [c.args[1], c.args[2]] : ['" "', c.args[1]];
    return `${c.env(trimChars)}(${str}, ${chars}, ${leading}, ${trailing})`;
  },
};

function position(needle: string, haystack: string, from = 1): number {
  if (from < 1) return 0;
  const idx = haystack.indexOf(needle, from - 1);
  return idx < 0 ? 0 : idx + 1;
}

function overlay(s: string, r: string, start: number, len?: number): string {
  const l = len ?? r.length;
  return substring(s, 1, start - 1)! + r + (substring(s, start + l) ?? "");
}

function regexpExtract(s: string, pattern: string, group = 1): string | null {
  const re = javaRegex(pattern);
  if (re === null || group < 0) return null;
  const m = re.exec(s);
  if (m === null || group >= m.length) return null;
  return m[group] ?? null;
}

function regexpReplace(s: string, pattern: string, replacement: string): string | null {
  const re = javaRegex(pattern, true);
  if (re === null) return null;
  return s.replace(re, translateReplacement(replacement));
}

function regexp(s: string, pattern: string): boolean | null {
  const re = javaRegex(pattern);
  return re === null ? null : re.test(s);
}

function splitIndex(s: string, sep: string, index: number): string | null {
  if (index < 0) return null;
  const parts = sep === "" ? s.split(/\s+/).filter((p) => p !== "") : s.split(sep);
  return index < parts.length ? parts[index] : null;
}

function pad(left: boolean) {
  return (s: string, len: number, fill: string): string | null => {
    if (len < 0 || fill === "") return null;
    const cs = chars(s);
    if (len <= cs.length) return cs.slice(0, len).join("");
    const f = chars(fill);
    const need = len - cs.length;
    let p = "";
    for (let i = 0; i < need; i++) p += f[i % f.length];
    return left ? p + s : s + p;
  };
}

/** First letter of each alphanumeric word upper case, the rest lower case (Flink's INITCAP). */
function initcap(s: string): string {
  let out = "";
  let start = true;
  for (const ch of s) {
    const alnum = /[\p{L}\p{N}]/u.test(ch);
    out += alnum ? (start ? ch.toUpperCase() : ch.toLowerCase()) : ch;
    start = !alnum;
  }
  return out;
}

const utf8 = new TextEncoder();
const bytesOf = (v: string | Uint8Array) => (typeof v === "string" ? utf8.encode(v) : v);

function digest(algorithm: string) {
  return (v: string | Uint8Array) => createHash(algorithm).update(bytesOf(v)).digest("hex");
}

function chr(n: number): string {
  if (n < 0) return "";
  return String.fromCharCode(n & 0xff);
}

/** LIKE / SIMILAR TO: a literal pattern is compiled once, at compile time. */
function patternMatch(kind: "like" | "similar"): FnImpl {
  return {
    gen: (c: CallSite) => {
      const escapeLit = c.literals[2];
      if (escapeLit !== undefined && escapeLit !== null && String(escapeLit).length !== 1) {
        throw new ExpressionError(`${c.fn}: the ESCAPE argument must be a single character`);
      }
      const pat = c.literals[1];
      if (typeof pat === "string" && (c.args.length < 3 || typeof escapeLit === "string")) {
        const re = cachedPattern(kind, pat, (escapeLit as string | undefined) ?? null);
        return `${c.env(re)}.test(${c.args[0]})`;
      }
      const f = (s: string, p: string, e?: string) => cachedPattern(kind, p, e ?? null).test(s);
      return `${c.env(f)}(${c.args.join(", ")})`;
    },
  };
}

export const STRING_IMPLS: Record<string, FnImpl> = {
  UPPER: fnOf((s: string) => s.toUpperCase()),
  LOWER: fnOf((s: string) => s.toLowerCase()),
  INITCAP: fnOf(initcap),
  REVERSE: fnOf((s: string) => chars(s).reverse().join("")),
  TRIM: trim,
  LTRIM: fnOf((s: string, set = " ") => trimChars(s, set, true, false)),
  RTRIM: fnOf((s: string, set = " ") => trimChars(s, set, false, true)),
  SUBSTRING: fnOf(substring),
  CONCAT: { gen: (c) => (c.args.length === 1 ? c.args[0] : `(${c.args.join(" + ")})`) },
  CONCAT_WS: {
    strict: false,
    gen: (c) => {
      const [sep, ...rest] = c.args;
      const f = (s: string | null, ...xs: (string | null)[]) => {
        if (s === null) return null;
        return xs.filter((x) => x !== null).join(s);
      };
      return `${c.env(f)}(${sep}, ${rest.join(", ")})`;
    },
  },
  CHAR_LENGTH: fnOf(charLength),
  POSITION: fnOf((needle: string, haystack: string) => position(needle, haystack)),
  LOCATE: fnOf(position),
  INSTR: fnOf((s: string, sub: string) => position(sub, s)),
  REPLACE: fnOf((s: string, from: string, to: string) => (from === "" ? s : s.split(from).join(to))),
  OVERLAY: fnOf(overlay),
  REGEXP: fnOf(regexp),
  REGEXP_EXTRACT: fnOf(regexpExtract),
  REGEXP_REPLACE: fnOf(regexpReplace),
  SPLIT_INDEX: fnOf(splitIndex),
  LPAD: fnOf(pad(true)),
  RPAD: fnOf(pad(false)),
  REPEAT: fnOf((s: string, n: number) => (n <= 0 ? "" : s.repeat(n))),
  MD5: fnOf(digest("md5")),
  SHA1: fnOf(digest("sha1")),
  SHA256: fnOf(digest("sha256")),
  TO_BASE64: fnOf((v: string | Uint8Array) => Buffer.from(bytesOf(v)).toString("base64")),
  FROM_BASE64: fnOf((s: string) => Buffer.from(s, "base64").toString("utf8")),
  ASCII: fnOf((s: string) => (s.length === 0 ? 0 : s.charCodeAt(0))),
  CHR: fnOf(chr),
  LEFT: fnOf((s: string, n: number) => (n <= 0 ? "" : chars(s).slice(0, n).join(""))),
  RIGHT: fnOf((s: string, n: number) => (n <= 0 ? "" : chars(s).slice(-n).join(""))),
  LIKE: patternMatch("like"),
  "SIMILAR TO": patternMatch("similar"),
};
