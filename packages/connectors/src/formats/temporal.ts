import { FormatError } from "./errors.js";

/**
 * Text forms of DATE / TIME / TIMESTAMP values (planner `types.ts` encodings: DATE = days since
 * the epoch, TIME = ms since midnight, TIMESTAMP = wall-clock ms read as UTC, TIMESTAMP_LTZ =
 * epoch ms). All arithmetic is UTC; no local time zone is ever consulted.
 */

const MS_PER_DAY = 86_400_000;

function pad2(n: number): string {
  return n < 10 ? `0${n}` : String(n);
}

function pad3(n: number): string {
  return n < 10 ? `00${n}` : n < 100 ? `0${n}` : String(n);
}

function year4(y: number): string {
  if (y >= 0 && y <= 9999) return String(y).padStart(4, "0");
  return y < 0 ? `-${String(-y).padStart(4, "0")}` : `+${y}`;
}

/** `yyyy-MM-dd` */
export function formatDate(days: number): string {
  const d = new Date(days * MS_PER_DAY);
  return `${year4(d.getUTCFullYear())}-${pad2(d.getUTCMonth() + 1)}-${pad2(d.getUTCDate())}`;
}

/** `HH:mm:ss` followed by `digits` fraction digits (0..9; digits beyond ms are zeros). */
export function formatTime(ms: number, digits: number): string {
  const t = ((ms % MS_PER_DAY) + MS_PER_DAY) % MS_PER_DAY;
  const s = Math.floor(t / 1000);
  const base = `${pad2(Math.floor(s / 3600))}:${pad2(Math.floor(s / 60) % 60)}:${pad2(s % 60)}`;
  return digits > 0 ? `${base}.${fraction(t % 1000, digits)}` : base;
}

function fraction(millis: number, digits: number): string {
  const f = pad3(millis);
  return digits <= 3 ? f.slice(0, digits) : f + "0".repeat(digits - 3);
}

/** `yyyy-MM-dd{sep}HH:mm:ss.SSS` (fraction of `digits` digits) for wall-clock epoch ms. */
export function formatTimestamp(ms: number, sep: " " | "T", digits = 3): string {
  const days = Math.floor(ms / MS_PER_DAY);
  return `${formatDate(days)}${sep}${formatTime(ms - days * MS_PER_DAY, digits)}`;
}

const DATE_RE = /^([+-]?\d{4,})-(\d{2})-(\d{2})$/;
const TIME_RE = /^(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?$/;
const TIMESTAMP_RE =
  /^([+-]?\d{4,})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|z|[+-]\d{2}(?::?\d{2})?)?$/;

function daysFromCivil(y: number, m: number, d: number, text: string): number {
  if (m < 1 || m > 12 || d < 1 || d > 31) throw new FormatError(`invalid date '${text}'`);
  const ms = Date.UTC(y, m - 1, d);
  const check = new Date(ms);
  // Date.UTC maps years 0..99 to 1900..1999; setUTCFullYear is exact.
  if (y >= 0 && y < 100) check.setUTCFullYear(y);
  if (check.getUTCMonth() !== m - 1 || check.getUTCDate() !== d)
    throw new FormatError(`invalid date '${text}'`);
  return Math.round(check.getTime() / MS_PER_DAY);
}

/** Parses `yyyy-MM-dd` into days since the epoch. */
export function parseDate(text: string): number {
  const m = DATE_RE.exec(text);
  if (!m) throw new FormatError(`invalid date '${text}' (expected yyyy-MM-dd)`);
  return daysFromCivil(Number(m[1]), Number(m[2]), Number(m[3]), text);
}

function timeOfDay(
  h: string,
  mi: string,
  s: string | undefined,
  f: string | undefined,
  text: string,
): number {
  const hh = Number(h);
  const mm = Number(mi);
  const ss = s === undefined ? 0 : Number(s);
  if (hh > 23 || mm > 59 || ss > 59) throw new FormatError(`invalid time '${text}'`);
  const millis = f === undefined ? 0 : Number(f.padEnd(3, "0").slice(0, 3));
  return ((hh * 60 + mm) * 60 + ss) * 1000 + millis;
}

/** Parses `HH:mm[:ss[.fffffffff]]` into ms since midnight (digits beyond ms truncated). */
export function parseTime(text: string): number {
  const m = TIME_RE.exec(text);
  if (!m) throw new FormatError(`invalid time '${text}' (expected HH:mm:ss[.SSS])`);
  return timeOfDay(m[1], m[2], m[3], m[4], text);
}

/**
 * Parses `yyyy-MM-dd[ T]HH:mm[:ss[.fff]]` with an optional zone suffix (`Z`, `+09:00`, `-0130`).
 * Returns epoch ms; a zone suffix converts the local time to the instant; with `zone` =
 * `"forbidden"` a suffix is an error (a TIMESTAMP is a wall-clock time).
 */
export function parseTimestamp(text: string, zone: "forbidden" | "optional"): number {
  const m = TIMESTAMP_RE.exec(text);
  if (!m) throw new FormatError(`invalid timestamp '${text}' (expected yyyy-MM-dd HH:mm:ss[.SSS])`);
  if (m[8] !== undefined && zone === "forbidden") {
    throw new FormatError(`invalid timestamp '${text}': a TIMESTAMP has no time zone`);
  }
  const days = daysFromCivil(Number(m[1]), Number(m[2]), Number(m[3]), text);
  const ms = days * MS_PER_DAY + timeOfDay(m[4], m[5], m[6], m[7], text);
  return m[8] === undefined ? ms : ms - zoneOffsetMs(m[8]);
}

function zoneOffsetMs(z: string): number {
  if (z === "Z" || z === "z") return 0;
  const sign = z[0] === "-" ? -1 : 1;
  const digits = z.slice(1).replace(":", "");
  const h = Number(digits.slice(0, 2));
  const mi = digits.length > 2 ? Number(digits.slice(2, 4)) : 0;
  return sign * (h * 60 + mi) * 60_000;
}
