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

type Token = { readonly letter: string; readonly count: number } | { readonly literal: string };

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
  "E",
  "a",
  "D",
  "u",
  "X",
  "x",
  "Z",
]);

function tokenize(pattern: string): Token[] {
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

type Formatter = (ts: number) => string;

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
      return (ts) => {
        const frac = pad(msOf(ts) % 1000, 3);
        return count <= 3 ? frac.slice(0, count) : frac + "0".repeat(count - 3);
      };
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
  f = (ts) => {
    let out = "";
    for (const p of parts) out += typeof p === "string" ? p : p(ts);
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
  const parser = ((text: string) => {
    const m = regex.exec(text);
    if (m === null) return null;
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
    for (let i = 0; i < fields.length; i++) {
      const v = m[i + 1];
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
          ms = Number(v.slice(0, 3).padEnd(3, "0"));
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
