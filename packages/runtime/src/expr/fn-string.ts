import { createHash } from "node:crypto";
import type { CallSite, FnImpl } from "./call-site.js";
import { fnOf, keywordArg } from "./call-site.js";
import { ExpressionError } from "./errors.js";
import { cachedPattern, javaRegex } from "./regex.js";

/**
 * String functions. Lengths and positions count Unicode code points, as Flink's UTF-8 strings do;
 * strings without surrogate pairs take the fast UTF-16 path.
 */

const SURROGATE = /[\uD800-\uDFFF]/;
const chars = (s: string): string[] => Array.from(s);
const charLength = (s: string) => (SURROGATE.test(s) ? chars(s).length : s.length);

/**
 * Flink's `substringSQL`: 1-based; 0 acts as 1; a negative start counts from the end, and one
 * before the first character gives ''.
 */
function substring(s: string, pos: number, len?: number): string | null {
  if (len !== undefined && len < 0) return null;
  const cs = SURROGATE.test(s) ? chars(s) : null;
  const n = cs ? cs.length : s.length;
  const start = pos > 0 ? pos - 1 : pos < 0 ? n + pos : 0;
  if (start < 0 || start >= n) return "";
  const end = len === undefined || n - start < len ? n : start + len;
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

/**
 * Flink's POSITION/LOCATE (`BinaryStringData.indexOf` + 1, counting code points): an empty
 * needle is found at 1; a start below 1 searches from the beginning.
 */
function position(needle: string, haystack: string, from = 1): number {
  if (needle === "") return 1;
  const start = Math.max(from - 1, 0);
  if (!SURROGATE.test(haystack)) {
    const idx = haystack.indexOf(needle, start);
    return idx < 0 ? 0 : idx + 1;
  }
  const cs = chars(haystack);
  const unitStart = start >= cs.length ? haystack.length : cs.slice(0, start).join("").length;
  const idx = haystack.indexOf(needle, unitStart);
  return idx < 0 ? 0 : charLength(haystack.slice(0, idx)) + 1;
}

/**
 * Java's String.replace (literal, left to right, no overlaps): an empty target inserts the
 * replacement around every UTF-16 unit. `replaceAll` with a string pattern is that search; `$` in
 * a replacement string is a pattern there, so such a replacement goes through a function.
 */
function replace(s: string, from: string, to: string): string {
  if (from !== "") return to.includes("$") ? s.replaceAll(from, () => to) : s.replaceAll(from, to);
  return s === "" ? to : to + s.split("").join(to) + to;
}

/**
 * Flink's `SqlFunctionUtils.overlay`, over UTF-16 units as Java's String: a start below 1 or
 * past the end leaves s unchanged; otherwise s before start, then r, then s from start + len
 * (len defaults to r's length) when that is within s and len > 0.
 */
function overlay(s: string, r: string, start: number, len: number = r.length): string {
  if (start <= 0 || start > s.length) return s;
  const rest = start + len <= s.length && len > 0 ? s.slice(start - 1 + len) : "";
  return s.slice(0, start - 1) + r + rest;
}

/** Flink's regexpExtract: the first match's group `group`, 0 (the whole match) by default. */
function regexpExtract(s: string, pattern: string, group = 0): string | null {
  const re = javaRegex(pattern);
  if (re === null || group < 0) return null;
  const m = re.exec(s);
  if (m === null || group >= m.length) return null;
  return m[group] ?? null;
}

/** Flink's regexpReplace: the replacement is literal text (Matcher.quoteReplacement); invalid pattern → NULL. */
function regexpReplace(s: string, pattern: string, replacement: string): string | null {
  const re = javaRegex(pattern, true);
  if (re === null) return null;
  return s.replace(re, () => replacement);
}

/** Flink's regExp: an empty or invalid pattern is FALSE; else whether it matches anywhere. */
function regexp(s: string, pattern: string): boolean {
  if (pattern === "") return false;
  const re = javaRegex(pattern);
  return re === null ? false : re.test(s);
}

/** Java's Character.isWhitespace. */
const JAVA_WHITESPACE =
  /[\t\n\u000B\f\r\u001C-\u001F \u1680\u2000-\u2006\u2008-\u200A\u2028\u2029\u205F\u3000]/;

/**
 * Flink's SPLIT_INDEX: commons-lang `splitByWholeSeparatorPreserveAllTokens` (empty tokens kept,
 * an empty separator splits at each whitespace character, an empty string has no tokens).
 */
function splitIndex(s: string, sep: string, index: number): string | null {
  if (index < 0 || s === "") return null;
  if (sep === "") {
    const parts = s.split(JAVA_WHITESPACE);
    return index < parts.length ? parts[index] : null;
  }
  // Token `index` of `s.split(sep)` without building the others. The separators found are kept
  // for the next call on the same string and separator: SPLIT_INDEX(url, '/', 3), (url, '/', 4)...
  // of one row scan the string once.
  if (s !== splitMemo.s || sep !== splitMemo.sep) {
    splitMemo.s = s;
    splitMemo.sep = sep;
    splitMemo.starts.length = 1; // starts[0] = 0
    splitMemo.complete = false;
  }
  const starts = splitMemo.starts;
  while (starts.length <= index + 1 && !splitMemo.complete) {
    const at = s.indexOf(sep, starts[starts.length - 1]);
    if (at < 0) splitMemo.complete = true;
    else starts.push(at + sep.length);
  }
  if (index >= starts.length) return null;
  // starts has no entry after `index` only when no separator follows: the token runs to the end.
  return index + 1 < starts.length
    ? s.slice(starts[index], starts[index + 1] - sep.length)
    : s.slice(starts[index]);
}

/**
 * splitIndex's last string and separator: `starts[k]` is where token k begins (after k
 * separators), as far as scanned; `complete` once no further separator exists.
 */
const splitMemo: { s: string | null; sep: string; starts: number[]; complete: boolean } = {
  s: null,
  sep: "",
  starts: [0],
  complete: false,
};

/**
 * Flink's LPAD/RPAD over UTF-16 units (as Java's String): NULL when len < 0 or pad is empty;
 * a longer s is cut to its first len units.
 */
function pad(left: boolean) {
  return (s: string, len: number, fill: string): string | null => {
    if (len < 0 || fill === "") return null;
    if (len <= s.length) return s.slice(0, len);
    const need = len - s.length;
    const p = fill.repeat(Math.ceil(need / fill.length)).slice(0, need);
    return left ? p + s : s + p;
  };
}

/**
 * Flink's INITCAP (Calcite's `initcap`): words are runs of ASCII letters and digits; the first
 * ASCII letter of a word is upper-cased and later ASCII letters lower-cased. Every other
 * character (non-ASCII letters included) is kept as it is and ends the word.
 */
function initcap(s: string): string {
  let out = "";
  let start = true;
  for (let i = 0; i < s.length; i++) {
    let c = s.charCodeAt(i);
    const digit = c > 47 && c < 58;
    const upper = c > 64 && c < 91;
    const lower = c > 96 && c < 123;
    if (start) {
      if (digit || upper) start = false;
      else if (lower) {
        start = false;
        c -= 32;
      }
    } else if (upper) c += 32;
    else if (!digit && !lower) start = true;
    out += String.fromCharCode(c);
  }
  return out;
}

const utf8 = new TextEncoder();
const bytesOf = (v: string | Uint8Array) => (typeof v === "string" ? utf8.encode(v) : v);

function digest(algorithm: string) {
  return (v: string | Uint8Array) => createHash(algorithm).update(bytesOf(v)).digest("hex");
}

/** Java's Base64 decoder: strict RFC 4648 alphabet and padding; bad input fails as in Flink. */
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}(?:==)?|[A-Za-z0-9+/]{3}=?)?$/;
function fromBase64(s: string): string {
  if (!BASE64.test(s)) throw new ExpressionError(`FROM_BASE64: '${s}' is not valid Base64`);
  return Buffer.from(s, "base64").toString("utf8");
}

/** Flink's ASCII: the first UTF-8 byte as a signed Java byte (0 for ''). */
function ascii(s: string): number {
  if (s.length === 0) return 0;
  const c = s.charCodeAt(0);
  return c < 0x80 ? c : (utf8.encode(s.slice(0, 2))[0] << 24) >> 24;
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
  REPLACE: fnOf(replace),
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
  FROM_BASE64: fnOf(fromBase64),
  ASCII: fnOf(ascii),
  CHR: fnOf(chr),
  LEFT: fnOf((s: string, n: number) => (n <= 0 ? "" : chars(s).slice(0, n).join(""))),
  RIGHT: fnOf((s: string, n: number) => (n <= 0 ? "" : chars(s).slice(-n).join(""))),
  LIKE: patternMatch("like"),
  "SIMILAR TO": patternMatch("similar"),
};
