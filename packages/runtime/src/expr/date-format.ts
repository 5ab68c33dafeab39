import {
  civilFromDays,
  dayOfYear,
  daysFromCivil,
  daysInMonth,
  floorDiv,
  isoDayOfWeek,
  MS_PER_DAY,
  pad,
} from "./datetime.js";
import { ExpressionError } from "./errors.js";

/**
 * Java `SimpleDateFormat` / `DateTimeFormatter` patterns, compiled once per pattern string.
 * Supported letters: y (year), M (month; MMM/MMMM names), d, H, k, h, K, m, s, S (fraction),
 * E (day name), a (AM/PM), D (day of year), u (ISO day of week), zone offsets X / x / Z
 * (`Z`, `+09`, `+0900`, `+09:00`), and quoted literals ('T', '').
 * Formatting works on TIMESTAMP wall-clock millis; parsing gives them back.
 */

export type Token = { readonly letter: string; readonly count: number } | { readonly literal: string };

const MONTHS = [
  "January",
  "February",
  "March",
  "April",
  "May",
  "June",
  "July",
  "August",
  "September",
  "October",
  "November",
  "December",
];
const DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"];
const LETTERS = new Set([
  "y",
  "M",
  "d",
  "H",
  "k",
  "h",
  "K",
  "m",
  "s",
  "S",
  "n",
  "E",
  "a",
  "D",
  "u",
  "X",
  "x",
  "Z",
]);

export function tokenize(pattern: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < pattern.length) {
    const c = pattern[i];
    if (c === "'") {
      const end = pattern.indexOf("'", i + 1);
      if (end === i + 1) {
        tokens.push({ literal: "'" });
        i += 2;
        continue;
      }
      const stop = end < 0 ? pattern.length : end;
      tokens.push({ literal: pattern.slice(i + 1, stop) });
      i = stop + 1;
      continue;
    }
    if (/[A-Za-z]/.test(c)) {
      if (!LETTERS.has(c)) throw new ExpressionError(`Unsupported date format letter '${c}' in '${pattern}'`);
      let j = i;
      while (j < pattern.length && pattern[j] === c) j++;
      tokens.push({ letter: c, count: j - i });
      i = j;
      continue;
    }
    tokens.push({ literal: c });
    i++;
  }
  return tokens;
}

/** `nanoOfMilli`: the nanoseconds within the millisecond of a TIMESTAMP(4..9) value (`S` beyond three, `n`). */
type Formatter = (ts: number, nanoOfMilli?: number) => string;

function fieldFormatter(letter: string, count: number): Formatter {
  const dayOf = (ts: number) => floorDiv(ts, MS_PER_DAY);
  const msOf = (ts: number) => ts - dayOf(ts) * MS_PER_DAY;
  switch (letter) {
    case "y":
      return (ts) => {
        const y = civilFromDays(dayOf(ts)).year;
        return count === 2 ? pad(((y % 100) + 100) % 100, 2) : pad(y, count);
      };
    case "M":
      return (ts) => {
        const m = civilFromDays(dayOf(ts)).month;
        if (count >= 4) return MONTHS[m - 1];
        if (count === 3) return MONTHS[m - 1].slice(0, 3);
        return pad(m, count);
      };
    case "d":
      return (ts) => pad(civilFromDays(dayOf(ts)).day, count);
    case "D":
      return (ts) => pad(dayOfYear(dayOf(ts)), count);
    case "H":
      return (ts) => pad(Math.floor(msOf(ts) / 3_600_000), count);
    case "k":
      return (ts) => pad(Math.floor(msOf(ts) / 3_600_000) || 24, count);
    case "h":
      return (ts) => pad(Math.floor(msOf(ts) / 3_600_000) % 12 || 12, count);
    case "K":
      return (ts) => pad(Math.floor(msOf(ts) / 3_600_000) % 12, count);
    case "m":
      return (ts) => pad(Math.floor(msOf(ts) / 60_000) % 60, count);
    case "s":
      return (ts) => pad(Math.floor(msOf(ts) / 1000) % 60, count);
    case "S":
      return (ts, nanos = 0) => {
        const frac = pad(msOf(ts) % 1000, 3);
        if (count <= 3) return frac.slice(0, count);
        const digits = frac + pad(nanos, 6);
        return count <= 9 ? digits.slice(0, count) : digits + "0".repeat(count - 9);
      };
    // java.time's nano-of-second
    case "n":
      return (ts, nanos = 0) => pad((msOf(ts) % 1000) * 1_000_000 + nanos, count);
    case "E":
      return (ts) => {
        const name = DAYS[isoDayOfWeek(dayOf(ts)) - 1];
        return count >= 4 ? name : name.slice(0, 3);
      };
    case "u":
      return (ts) => pad(isoDayOfWeek(dayOf(ts)), count);
    case "a":
      return (ts) => (msOf(ts) < 12 * 3_600_000 ? "AM" : "PM");
    // A TIMESTAMP carries no zone: its offset is written as UTC's.
    case "X":
      return () => "Z";
    case "x":
      return () => (count === 1 ? "+00" : count === 2 ? "+0000" : "+00:00");
    case "Z":
      return () => "+0000";
    default:
      throw new ExpressionError(`Unsupported date format letter '${letter}'`);
  }
}

const formatters = new Map<string, Formatter>();

/**
 * A formatter for a Java date pattern, compiled once and cached. `javaTime`: java.time's
 * DateTimeFormatter letters (Flink's DATE_FORMAT), where `u` is the year; otherwise
 * SimpleDateFormat's (FROM_UNIXTIME), where `u` is the ISO day of the week.
 */
export function dateFormatter(pattern: string, javaTime = false): Formatter {
  const key = javaTime ? `J${pattern}` : `S${pattern}`;
  let f = formatters.get(key);
  if (f) return f;
  const parts: (string | Formatter)[] = tokenize(pattern).map((t) =>
    "literal" in t ? t.literal : fieldFormatter(javaTime && t.letter === "u" ? "y" : t.letter, t.count),
  );
  f = (ts, nanos) => {
    let out = "";
    for (const p of parts) out += typeof p === "string" ? p : p(ts, nanos);
    return out;
  };
  if (formatters.size > 1000) formatters.clear();
  formatters.set(key, f);
  return f;
}

/**
 * Parses text to TIMESTAMP wall-clock millis (null when it does not match). When the pattern has
 * a zone offset (X, x, Z), `lastOffsetMs` holds the offset read by the latest call, so that a
 * caller that wants an instant can subtract it; it is undefined when the pattern has none.
 */
type Parser = ((text: string) => number | null) & { lastOffsetMs: number | undefined };
const parsers = new Map<string, Parser>();

/**
 * The lenient parser's regex without the regex engine, for the patterns of numeric fields, a
 * trailing zone offset and literals (`yyyy-MM-dd'T'HH:mm:ssXXX`): each construct takes what the
 * regex's greedy choice takes, and the groups are returned only when that all-greedy path reaches
 * the end of the pattern — which is then the regex's own match (the first path of its
 * backtracking search). It returns each group as the lenient parser reads it: `Number(group)` (for `S`
 * a count of milliseconds, as SimpleDateFormat), for a zone its offset in ms. `undefined` whenever it is not sure (leading whitespace, a letter field,
 * a path that fails): the regex decides. Null when the pattern has a field it does not handle.
 */
export function greedyMatcher(tokens: readonly Token[]): ((text: string) => number[] | undefined) | null {
  type Step =
    | { readonly k: "lit"; readonly text: string }
    | { readonly k: "space" }
    | {
        readonly k: "digits";
        readonly min: number;
        readonly max: number;
        readonly sign: boolean;
      }
    | { readonly k: "zone" };
  const steps: Step[] = [];
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    if ("literal" in t) {
      steps.push(t.literal === " " ? { k: "space" } : { k: "lit", text: t.literal });
      continue;
    }
    const next = tokens[i + 1];
    const adjacentNumeric =
      next !== undefined &&
      "letter" in next &&
      next.letter !== "E" &&
      next.letter !== "a" &&
      !(next.letter === "M" && next.count >= 3);
    if (t.letter === "a" || t.letter === "E" || (t.letter === "M" && t.count >= 3)) return null;
    if (t.letter === "X" || t.letter === "x" || t.letter === "Z") steps.push({ k: "zone" });
    else if (t.letter === "y" && t.count !== 2)
      steps.push(
        adjacentNumeric
          ? { k: "digits", min: t.count, max: t.count, sign: true }
          : { k: "digits", min: 1, max: Number.POSITIVE_INFINITY, sign: true },
      );
    else
      steps.push(
        adjacentNumeric
          ? { k: "digits", min: t.count, max: t.count, sign: false }
          : { k: "digits", min: 1, max: Math.max(t.count, 9), sign: false },
      );
  }
  const isDigit = (c: number) => c >= 48 && c <= 57;
  // The steps as parallel arrays (kind, bounds, literal) and one result array reused by every call:
  // the parser reads the groups before the next call, and a call allocates nothing.
  const LIT = 0;
  const SPACE = 1;
  const DIGITS = 2;
  const ZONE = 3;
  const n = steps.length;
  const kind = new Int8Array(n);
  const min = new Float64Array(n);
  const max = new Float64Array(n);
  const sign = new Uint8Array(n);
  const lit: string[] = new Array<string>(n).fill("");
  let groups = 0;
  for (let i = 0; i < n; i++) {
    const st = steps[i]!;
    if (st.k === "lit") {
      kind[i] = LIT;
      lit[i] = st.text;
    } else if (st.k === "space") kind[i] = SPACE;
    else if (st.k === "zone") {
      kind[i] = ZONE;
      groups++;
    } else {
      kind[i] = DIGITS;
      min[i] = st.min;
      max[i] = st.max;
      sign[i] = st.sign ? 1 : 0;
      groups++;
    }
  }
  const m: number[] = new Array<number>(groups).fill(0);
  return (text) => {
    const c0 = text.charCodeAt(0);
    if (!(c0 > 32 && c0 < 127)) return undefined; // `^\s*` with something to skip: the regex
    let g = 0;
    let p = 0;
    for (let s = 0; s < n; s++) {
      switch (kind[s]) {
        case LIT: {
          const t = lit[s]!;
          if (t.length === 1) {
            if (text.charCodeAt(p) !== t.charCodeAt(0)) return undefined;
            p++;
          } else {
            if (!text.startsWith(t, p)) return undefined;
            p += t.length;
          }
          break;
        }
        case SPACE: {
          const from = p;
          while (text.charCodeAt(p) === 32) p++;
          const c = text.charCodeAt(p);
          if (p === from || c <= 32 || c >= 127) return undefined;
          break;
        }
        case DIGITS: {
          const neg = sign[s] === 1 && text.charCodeAt(p) === 45;
          if (neg) p++;
          const d0 = p;
          const most = max[s]!;
          let v = 0;
          for (; p - d0 < most; p++) {
            const c = text.charCodeAt(p);
            if (!isDigit(c)) break;
            v = v * 10 + (c - 48);
          }
          const digits = p - d0;
          // More than 15 digits: Number(text) rounds them; the regex path does it.
          if (digits < min[s]! || digits > 15) return undefined;
          m[g++] = neg ? -v : v;
          break;
        }
        default: {
          const c = text.charCodeAt(p);
          if (c === 90) {
            m[g++] = 0;
            p++;
            break;
          }
          const h1 = text.charCodeAt(p + 1);
          const h2 = text.charCodeAt(p + 2);
          if ((c !== 43 && c !== 45) || !isDigit(h1) || !isDigit(h2)) return undefined;
          p += 3;
          let minutes = 0;
          const at = text.charCodeAt(p) === 58 ? p + 1 : p;
          const m1 = text.charCodeAt(at);
          const m2 = text.charCodeAt(at + 1);
          if (isDigit(m1) && isDigit(m2)) {
            minutes = (m1 - 48) * 10 + (m2 - 48);
            p = at + 2;
          }
          const offset = ((h1 - 48) * 10 + (h2 - 48)) * 3_600_000 + minutes * 60_000;
          m[g++] = c === 45 ? -offset : offset;
          break;
        }
      }
    }
    return m;
  };
}

/**
 * The greedy matcher and the lenient parser compiled into one function for one fixed layout of
 * the pattern: each numeric field exactly its letter count of digits (`yyyy` four), literals and
 * single spaces where the pattern has them, a zone offset only last. For text in that layout it
 * returns what the lenient parser returns through the greedy matcher (the same wall-clock millis,
 * and in `zone[0]` the offset read) — the greedy path takes exactly those characters there — and
 * NaN for any other text, which then goes the general way. Null when the pattern has no such
 * layout (a name field, AM/PM, a zone before the end, a field wider than 15 digits).
 */
export function fixedLayoutParser(
  tokens: readonly Token[],
): ((text: string, zone: Float64Array) => number) | null {
  type Step =
    | { readonly k: "lit"; readonly text: string }
    | { readonly k: "space" }
    | { readonly k: "digits"; readonly letter: string; readonly count: number; readonly exact: boolean }
    | { readonly k: "zone" };
  const steps: Step[] = [];
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    if ("literal" in t) {
      steps.push(t.literal === " " ? { k: "space" } : { k: "lit", text: t.literal });
      continue;
    }
    if (t.letter === "a" || t.letter === "E" || (t.letter === "M" && t.count >= 3)) return null;
    if (t.letter === "X" || t.letter === "x" || t.letter === "Z") {
      if (i !== tokens.length - 1) return null;
      steps.push({ k: "zone" });
      continue;
    }
    if (t.count > 15) return null;
    const next = tokens[i + 1];
    // As the greedy matcher: a field followed by a numeric one takes exactly its count of digits.
    const exact = next !== undefined && "letter" in next && next.letter !== "E" && next.letter !== "a";
    steps.push({ k: "digits", letter: t.letter, count: t.count, exact });
  }
  if (steps.length === 0) return null;
  const lines: string[] = ["const c0 = t.charCodeAt(0);", "if (!(c0 > 32 && c0 < 127)) return NaN;"];
  // A position past the end reads NaN, which no range check passes (checks are written as `!(…)`).
  const digit = (at: number) => `(t.charCodeAt(${at}) - 48)`;
  let p = 0;
  let v = 0;
  const assign: string[] = [];
  for (let s = 0; s < steps.length; s++) {
    const st = steps[s]!;
    const next = steps[s + 1];
    if (st.k === "lit") {
      for (let k = 0; k < st.text.length; k++)
        lines.push(`if (t.charCodeAt(${p + k}) !== ${st.text.charCodeAt(k)}) return NaN;`);
      p += st.text.length;
    } else if (st.k === "space") {
      // One space, then what the greedy matcher wants after its spaces (a digit is checked next).
      lines.push(`if (t.charCodeAt(${p}) !== 32) return NaN;`);
      p++;
      if (next?.k !== "digits")
        lines.push(`{ const c = t.charCodeAt(${p}); if (!(c > 32 && c < 127)) return NaN; }`);
    } else if (st.k === "digits") {
      const name = `g${v++}`;
      const parts: string[] = [];
      for (let k = 0; k < st.count; k++) {
        lines.push(
          `const ${name}_${k} = ${digit(p + k)}; if (!(${name}_${k} >= 0 && ${name}_${k} <= 9)) return NaN;`,
        );
        parts.push(`${name}_${k} * ${10 ** (st.count - 1 - k)}`);
      }
      lines.push(`const ${name} = ${parts.join(" + ")};`);
      p += st.count;
      // The greedy matcher would take more digits: the layout needs a non-digit after the field
      // (or the end of the text), unless the next step checks one.
      const nextChecks =
        next !== undefined &&
        (next.k === "zone" || next.k === "space" || (next.k === "lit" && !/^[0-9]/.test(next.text)));
      if (!st.exact && !nextChecks)
        lines.push(`{ const c = t.charCodeAt(${p}); if (c >= 48 && c <= 57) return NaN; }`);
      switch (st.letter) {
        case "y":
          assign.push(st.count === 2 ? `year = 2000 + ${name};` : `year = ${name};`);
          break;
        case "M":
          assign.push(`month = ${name};`);
          break;
        case "d":
          assign.push(`day = ${name};`);
          break;
        case "D":
          assign.push(`doy = ${name};`);
          break;
        case "H":
          assign.push(`hour = ${name};`);
          break;
        case "k":
          assign.push(`hour = ${name} === 24 ? 0 : ${name};`);
          break;
        case "h":
        case "K":
          assign.push(`hour = ${name} % 12;`);
          break;
        case "m":
          assign.push(`minute = ${name};`);
          break;
        case "s":
          assign.push(`second = ${name};`);
          break;
        case "S":
          assign.push(`ms = ${name};`);
          break;
        default:
          break; // u (day of week) is read, not used
      }
    } else {
      lines.push(
        `const z = t.charCodeAt(${p});`,
        "if (z === 90) zone[0] = 0;",
        "else {",
        `  const h1 = ${digit(p + 1)}, h2 = ${digit(p + 2)};`,
        "  if ((z !== 43 && z !== 45) || !(h1 >= 0 && h1 <= 9 && h2 >= 0 && h2 <= 9)) return NaN;",
        `  const at = t.charCodeAt(${p + 3}) === 58 ? ${p + 4} : ${p + 3};`,
        "  const m1 = t.charCodeAt(at) - 48, m2 = t.charCodeAt(at + 1) - 48;",
        "  const minutes = m1 >= 0 && m1 <= 9 && m2 >= 0 && m2 <= 9 ? m1 * 10 + m2 : 0;",
        "  const offset = (h1 * 10 + h2) * 3600000 + minutes * 60000;",
        "  zone[0] = z === 45 ? -offset : offset;",
        "}",
      );
    }
  }
  const body = `"use strict";
return function fixedLayout(t, zone) {
  ${lines.join("\n  ")}
  let year = 1970, month = 1, day = 1, doy = -1, hour = 0, minute = 0, second = 0, ms = 0;
  ${assign.join("\n  ")}
  // out-of-range fields carry into the next larger one, as the lenient parser's
  year += Math.floor((month - 1) / 12);
  month = ((((month - 1) % 12) + 12) % 12) + 1;
  const base = doy > 0 ? days(year, 1) + doy - 1 : days(year, month) + day - 1;
  return base * ${MS_PER_DAY} + hour * 3600000 + minute * 60000 + second * 1000 + ms;
};`;
  // The epoch day of the first of the month, for the latest month read (records come in runs of one).
  let lastYear = Number.NaN;
  let lastMonth = Number.NaN;
  let lastDays = 0;
  const days = (year: number, month: number): number => {
    if (year !== lastYear || month !== lastMonth) {
      lastDays = daysFromCivil(year, month, 1);
      lastYear = year;
      lastMonth = month;
    }
    return lastDays;
  };
  return new Function("days", body)(days);
}

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/**
 * A parser for a Java date pattern: TIMESTAMP wall-clock millis, or null when the text does not
 * match or a field is out of range. A numeric field followed by another numeric field takes
 * exactly its letter count of digits; otherwise it takes one or more digits (SimpleDateFormat).
 */
export function dateParser(pattern: string, lenient = false, smart = false): Parser {
  const key = lenient ? `L${pattern}` : smart ? `M${pattern}` : `S${pattern}`;
  let p = parsers.get(key);
  if (p) return p;
  const tokens = tokenize(pattern);
  const fields: { letter: string; count: number }[] = [];
  let re = "^\\s*";
  tokens.forEach((t, i) => {
    if ("literal" in t) {
      re += t.literal === " " ? "\\s+" : escapeRe(t.literal);
      return;
    }
    fields.push(t);
    const next = tokens[i + 1];
    const adjacentNumeric =
      next !== undefined &&
      "letter" in next &&
      next.letter !== "E" &&
      next.letter !== "a" &&
      !(next.letter === "M" && next.count >= 3);
    if (t.letter === "a") re += "(AM|PM|am|pm)";
    else if (t.letter === "X" || t.letter === "x" || t.letter === "Z") re += "(Z|[+-]\\d{2}(?::?\\d{2})?)";
    else if (t.letter === "E") re += "([A-Za-z]+)";
    else if (t.letter === "M" && t.count >= 3) re += "([A-Za-z]+)";
    else if (t.letter === "y" && t.count !== 2) re += adjacentNumeric ? `(-?\\d{${t.count}})` : "(-?\\d+)";
    else re += adjacentNumeric ? `(\\d{${t.count}})` : `(\\d{1,${Math.max(t.count, 9)}})`;
  });
  // Lenient (SimpleDateFormat.parse): a prefix of the text may match, fields roll over.
  const regex = new RegExp(lenient ? re : `${re}\\s*$`);
  const quick = lenient ? greedyMatcher(tokens) : null;
  const fixed = lenient ? fixedLayoutParser(tokens) : null;
  const hasZone = fields.some((f) => f.letter === "X" || f.letter === "x" || f.letter === "Z");
  const zone = new Float64Array(1);
  const nFields = fields.length;
  const codes = Int32Array.from(fields, (f) => f.letter.charCodeAt(0));
  const counts = Int32Array.from(fields, (f) => f.count);
  const parser = ((text: string) => {
    if (fixed !== null) {
      const w = fixed(text, zone);
      if (!Number.isNaN(w)) {
        parser.lastOffsetMs = hasZone ? zone[0] : undefined;
        return w;
      }
    }
    const q = quick === null ? undefined : quick(text);
    const m = q === undefined ? regex.exec(text) : null;
    if (m === null && q === undefined) return null;
    let year = 1970;
    let month = 1;
    let day = 1;
    let doy = -1;
    let hour = 0;
    let minute = 0;
    let second = 0;
    let ms = 0;
    let pm = -1;
    let offset: number | undefined;
    if (q !== undefined) {
      // The greedy matcher's groups (numeric letters and zones only): the same assignments as
      // the loop below, by letter code.
      for (let i = 0; i < nFields; i++) {
        const n = q[i]!;
        switch (codes[i]) {
          case 121: // y
            year = counts[i] === 2 ? 2000 + n : n;
            break;
          case 77: // M
            month = n;
            break;
          case 100: // d
            day = n;
            break;
          case 68: // D
            doy = n;
            break;
          case 72: // H
            hour = n;
            break;
          case 107: // k
            hour = n === 24 ? 0 : n;
            break;
          case 104: // h
          case 75: // K
            hour = n % 12;
            break;
          case 109: // m
            minute = n;
            break;
          case 115: // s
            second = n;
            break;
          case 83: // S
            ms = n;
            break;
          case 88: // X
          case 120: // x
          case 90: // Z
            offset = n;
            break;
          default:
            break;
        }
      }
    } else
      for (let i = 0; i < fields.length; i++) {
        // The regex's groups (the greedy matcher's are read above).
        const v = m === null ? "" : m[i + 1];
        const n = Number(v);
        switch (fields[i].letter) {
          case "y":
            year = fields[i].count === 2 ? 2000 + n : n;
            break;
          case "M":
            if (fields[i].count >= 3) {
              const idx = MONTHS.findIndex((name) =>
                name.toLowerCase().startsWith(v.toLowerCase().slice(0, 3)),
              );
              if (idx < 0) return null;
              month = idx + 1;
            } else month = n;
            break;
          case "d":
            day = n;
            break;
          case "D":
            doy = n;
            break;
          case "H":
          case "k":
            hour = n === 24 && fields[i].letter === "k" ? 0 : n;
            break;
          case "h":
          case "K":
            hour = n % 12;
            break;
          case "m":
            minute = n;
            break;
          case "s":
            second = n;
            break;
          case "S":
            // SimpleDateFormat's S (lenient) is a count of milliseconds (`.123456` is 123.456 s);
            // strict patterns read it as a fraction of a second
            ms = lenient ? n : Number(v.slice(0, 3).padEnd(3, "0"));
            break;
          case "a":
            pm = v.toUpperCase() === "PM" ? 1 : 0;
            break;
          case "X":
          case "x":
          case "Z": {
            if (v === "Z") offset = 0;
            else {
              const sign = v[0] === "-" ? -1 : 1;
              const digits = v.slice(1).replace(":", "");
              offset =
                sign * (Number(digits.slice(0, 2)) * 3_600_000 + Number(digits.slice(2, 4) || "0") * 60_000);
            }
            break;
          }
          default:
            break; // E and u are checked by the regex only
        }
      }
    if (pm === 1) hour += 12;
    if (lenient) {
      // out-of-range fields carry into the next larger one (month 13 is January of the next year)
      year += Math.floor((month - 1) / 12);
      month = ((((month - 1) % 12) + 12) % 12) + 1;
      const base = doy > 0 ? daysFromCivil(year, 1, 1) + doy - 1 : daysFromCivil(year, month, 1) + day - 1;
      parser.lastOffsetMs = offset;
      return base * MS_PER_DAY + hour * 3_600_000 + minute * 60_000 + second * 1000 + ms;
    }
    // java.time's SMART resolver (TO_TIMESTAMP): a day 29–31 past the month's end is its last day
    if (smart && day > daysInMonth(year, month) && day <= 31 && month >= 1 && month <= 12)
      day = daysInMonth(year, month);
    if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return null;
    if (hour > 23 || minute > 59 || second > 59) return null;
    const days = doy > 0 ? daysFromCivil(year, 1, 1) + doy - 1 : daysFromCivil(year, month, day);
    parser.lastOffsetMs = offset;
    return days * MS_PER_DAY + hour * 3_600_000 + minute * 60_000 + second * 1000 + ms;
  }) as Parser;
  parser.lastOffsetMs = undefined;
  p = parser;
  if (parsers.size > 1000) parsers.clear();
  parsers.set(key, p);
  return p;
}
