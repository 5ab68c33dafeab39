import { ExpressionError } from "./errors.js";

/**
 * Civil-calendar arithmetic on Weir's run-time values: DATE = days since 1970-01-01, TIME = millis
 * of day, TIMESTAMP = wall-clock millis read as UTC. Proleptic Gregorian calendar, as java.time.
 */

export const MS_PER_DAY = 86_400_000;

/** The largest TIMESTAMP / TIMESTAMP_LTZ magnitude Weir holds (epoch ms, about ±275,000 years). */
export const MAX_TIMESTAMP_MS = 8.64e15;

/**
 * The result of date/time arithmetic, checked: a non-finite or out-of-range value (a NaN instant)
 * never leaves an expression; it fails the row's operator with the SQL position instead.
 */
export function checkedTimestamp(ms: number, what = "date/time arithmetic"): number {
  if (ms >= -MAX_TIMESTAMP_MS && ms <= MAX_TIMESTAMP_MS) return ms;
  throw new ExpressionError(
    `timestamp out of range: ${what} left the range of TIMESTAMP (about ±275,000 years around 1970)`,
  );
}

/** As {@link checkedTimestamp}, for DATE values (days). */
export function checkedDate(days: number, what = "date arithmetic"): number {
  if (days >= -MAX_TIMESTAMP_MS / MS_PER_DAY && days <= MAX_TIMESTAMP_MS / MS_PER_DAY) return days;
  throw new ExpressionError(
    `date out of range: ${what} left the range of DATE (about ±275,000 years around 1970)`,
  );
}

export interface Civil {
  year: number;
  month: number; // 1..12
  day: number; // 1..31
}

/** Days since the epoch → year/month/day (Howard Hinnant's algorithm). */
export function civilFromDays(days: number): Civil {
  const z = days + 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor(
    (doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365,
  );
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  return { year: yoe + era * 400 + (month <= 2 ? 1 : 0), month, day };
}

export function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const mp = month > 2 ? month - 3 : month + 9;
  const doy = Math.floor((153 * mp + 2) / 5) + day - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

export function isLeapYear(y: number): boolean {
  return (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
}

const MONTH_DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

export function daysInMonth(year: number, month: number): number {
  return month === 2 && isLeapYear(year) ? 29 : MONTH_DAYS[month - 1];
}

export function floorDiv(a: number, b: number): number {
  return Math.floor(a / b);
}

export function floorMod(a: number, b: number): number {
  return ((a % b) + b) % b;
}

/** Adds months to a date, clamping the day to the end of the target month (java.time). */
export function addMonthsToDays(days: number, months: number): number {
  const c = civilFromDays(days);
  const total = c.year * 12 + (c.month - 1) + months;
  const year = Math.floor(total / 12);
  const month = total - year * 12 + 1;
  return daysFromCivil(year, month, Math.min(c.day, daysInMonth(year, month)));
}

export function addMonthsToTimestamp(ts: number, months: number): number {
  const days = floorDiv(ts, MS_PER_DAY);
  return addMonthsToDays(days, months) * MS_PER_DAY + (ts - days * MS_PER_DAY);
}

/** 1 = Sunday … 7 = Saturday (SQL DAYOFWEEK). 1970-01-01 was a Thursday. */
export function dayOfWeek(days: number): number {
  return floorMod(days + 4, 7) + 1;
}

/** ISO-8601 day of week: 1 = Monday … 7 = Sunday. */
export function isoDayOfWeek(days: number): number {
  return floorMod(days + 3, 7) + 1;
}

export function dayOfYear(days: number): number {
  const c = civilFromDays(days);
  return days - daysFromCivil(c.year, 1, 1) + 1;
}

/** ISO week-based year and week number. */
export function isoWeek(days: number): { year: number; week: number } {
  const thursday = days - isoDayOfWeek(days) + 4;
  const year = civilFromDays(thursday).year;
  const week = Math.floor((thursday - daysFromCivil(year, 1, 1)) / 7) + 1;
  return { year, week };
}

export function pad(n: number, width: number): string {
  const s = String(Math.abs(n));
  const padded = s.length >= width ? s : "0".repeat(width - s.length) + s;
  return n < 0 ? `-${padded}` : padded;
}

/** `yyyy-MM-dd`. */
export function formatDate(days: number): string {
  const c = civilFromDays(days);
  return `${pad(c.year, 4)}-${pad(c.month, 2)}-${pad(c.day, 2)}`;
}

/** `HH:mm:ss` plus `precision` fraction digits (millisecond resolution, zero-padded beyond 3). */
export function formatTime(msOfDay: number, precision: number): string {
  const h = Math.floor(msOfDay / 3_600_000);
  const m = Math.floor(msOfDay / 60_000) % 60;
  const s = Math.floor(msOfDay / 1000) % 60;
  let out = `${pad(h, 2)}:${pad(m, 2)}:${pad(s, 2)}`;
  if (precision > 0) {
    const frac = pad(msOfDay % 1000, 3);
    out += `.${precision <= 3 ? frac.slice(0, precision) : frac + "0".repeat(precision - 3)}`;
  }
  return out;
}

/** `yyyy-MM-dd HH:mm:ss[.f…]` with `precision` fraction digits. */
export function formatTimestamp(ts: number, precision: number): string {
  const days = floorDiv(ts, MS_PER_DAY);
  return `${formatDate(days)} ${formatTime(ts - days * MS_PER_DAY, precision)}`;
}

const TIMESTAMP_TEXT =
  /^\s*(-?\d{1,9})-(\d{1,2})-(\d{1,2})(?:(?:[ T]|\s+)(\d{1,2}):(\d{1,2})(?::(\d{1,2})(?:\.(\d{1,9}))?)?)?\s*$/;

/**
 * Parses `yyyy-MM-dd[( |T)HH:mm[:ss[.fraction]]]` into TIMESTAMP millis (fraction beyond
 * milliseconds truncated); null when the text is not such a timestamp or a field is out of range.
 */
/**
 * Whether text has the shape Flink's timestamp parser takes (DateTimeUtils.parseTimestampData):
 * a date, optionally followed by a space and a time with seconds; no `T` separator.
 */
export function flinkTimestampShape(text: string): boolean {
  return !text.includes("T") && (!text.includes(":") || /\d:\d{1,2}:\d/.test(text));
}

export function parseTimestamp(text: string, smart = false): number | null {
  const m = TIMESTAMP_TEXT.exec(text);
  if (m === null) return null;
  const year = Number(m[1]);
  const month = Number(m[2]);
  let day = Number(m[3]);
  const hour = m[4] === undefined ? 0 : Number(m[4]);
  const minute = m[5] === undefined ? 0 : Number(m[5]);
  const second = m[6] === undefined ? 0 : Number(m[6]);
  const ms = m[7] === undefined ? 0 : Number(m[7].slice(0, 3).padEnd(3, "0"));
  if (month < 1 || month > 12 || day < 1 || day > 31) return null;
  // java.time's SMART resolver (Flink's TO_TIMESTAMP): day 29–31 past the month's end is its last day
  if (day > daysInMonth(year, month)) {
    if (!smart) return null;
    day = daysInMonth(year, month);
  }
  if (hour > 23 || minute > 59 || second > 59) return null;
  const w =
    daysFromCivil(year, month, day) * MS_PER_DAY + hour * 3_600_000 + minute * 60_000 + second * 1000 + ms;
  return Math.abs(w) <= MAX_TIMESTAMP_MS ? w : null;
}

const DATE_TEXT = /^\s*(-?\d{1,9})-(\d{1,2})-(\d{1,2})\s*$/;

/** Parses `yyyy-MM-dd` into days; null when invalid. */
export function parseDate(text: string): number | null {
  const m = DATE_TEXT.exec(text);
  if (m === null) return null;
  const year = Number(m[1]);
  const month = Number(m[2]);
  const day = Number(m[3]);
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return null;
  const d = daysFromCivil(year, month, day);
  return Math.abs(d) <= MAX_TIMESTAMP_MS / MS_PER_DAY ? d : null;
}

const TIME_TEXT = /^\s*(\d{1,2}):(\d{1,2})(?::(\d{1,2})(?:\.(\d{1,9}))?)?\s*$/;

/** Parses `HH:mm[:ss[.fraction]]` into millis of day; null when invalid. */
export function parseTime(text: string): number | null {
  const m = TIME_TEXT.exec(text);
  if (m === null) return null;
  const h = Number(m[1]);
  const mi = Number(m[2]);
  const s = m[3] === undefined ? 0 : Number(m[3]);
  if (h > 23 || mi > 59 || s > 59) return null;
  const ms = m[4] === undefined ? 0 : Number(m[4].slice(0, 3).padEnd(3, "0"));
  return h * 3_600_000 + mi * 60_000 + s * 1000 + ms;
}
