import type { DataType } from "@weir/planner";
import type { CallSite, FnImpl } from "./call-site.js";
import { keywordArg } from "./call-site.js";
import { dateFormatter, dateParser } from "./date-format.js";
import {
  addMonthsToTimestamp,
  checkedTimestamp,
  civilFromDays,
  dayOfWeek,
  dayOfYear,
  daysFromCivil,
  flinkTimestampShape,
  floorDiv,
  isoDayOfWeek,
  isoWeek,
  MS_PER_DAY,
  parseTimestamp,
} from "./datetime.js";
import { decimalToNumber } from "./decimal.js";
import { ExpressionError } from "./errors.js";
import { ceilNumeric, floorNumeric } from "./fn-math.js";
import type { Zone } from "./timezone.js";
import { getZone, instantToLocal, localToInstant } from "./timezone.js";

/**
 * Date and time functions. Everything that reads calendar fields works on wall-clock millis:
 * TIMESTAMP values are already wall-clock, TIMESTAMP_LTZ values are converted through the session
 * time zone, DATE values are days.
 */

type Wall = (v: number) => number;

/** Converts a value of type `t` to wall-clock millis. */
function toWall(t: DataType, zone: Zone): Wall {
  switch (t.kind) {
    case "DATE":
      return (d) => d * MS_PER_DAY;
    case "TIMESTAMP_LTZ":
      return (i) => instantToLocal(i, zone);
    default:
      return (v) => v;
  }
}

/** Converts wall-clock millis back to a value of type `t`. */
function fromWall(t: DataType, zone: Zone): Wall {
  switch (t.kind) {
    case "DATE":
      return (w) => floorDiv(w, MS_PER_DAY);
    case "TIMESTAMP_LTZ":
      return (w) => localToInstant(w, zone);
    case "TIME":
      return (w) => ((w % MS_PER_DAY) + MS_PER_DAY) % MS_PER_DAY;
    default:
      return (w) => w;
  }
}

const days = (w: number) => floorDiv(w, MS_PER_DAY);
const msOfDay = (w: number) => w - days(w) * MS_PER_DAY;

/** The EXTRACT field of wall-clock millis, as BIGINT. */
function field(unit: string): Wall {
  switch (unit) {
    case "YEAR":
      return (w) => civilFromDays(days(w)).year;
    case "QUARTER":
      return (w) => Math.floor((civilFromDays(days(w)).month - 1) / 3) + 1;
    case "MONTH":
      return (w) => civilFromDays(days(w)).month;
    case "WEEK":
      return (w) => isoWeek(days(w)).week;
    case "ISOYEAR":
      return (w) => isoWeek(days(w)).year;
    case "DAY":
    case "DAYOFMONTH":
      return (w) => civilFromDays(days(w)).day;
    case "DOY":
    case "DAYOFYEAR":
      return (w) => dayOfYear(days(w));
    case "DOW":
    case "DAYOFWEEK":
      return (w) => dayOfWeek(days(w));
    case "ISODOW":
      return (w) => isoDayOfWeek(days(w));
    case "HOUR":
      return (w) => Math.floor(msOfDay(w) / 3_600_000);
    case "MINUTE":
      return (w) => Math.floor(msOfDay(w) / 60_000) % 60;
    case "SECOND":
      return (w) => Math.floor(msOfDay(w) / 1000) % 60;
    // Flink's convertExtract: the millisecond (microsecond) within the second, not with the seconds
    case "MILLISECOND":
      return (w) => msOfDay(w) % 1000;
    case "MICROSECOND":
      return (w) => (msOfDay(w) % 1000) * 1000;
    case "NANOSECOND":
      return (w) => (msOfDay(w) % 1000) * 1_000_000;
    case "DECADE":
      return (w) => Math.floor(civilFromDays(days(w)).year / 10);
    case "CENTURY":
      return (w) => {
        const y = civilFromDays(days(w)).year;
        return y > 0 ? Math.floor((y + 99) / 100) : -Math.floor((-y + 99) / 100);
      };
    case "MILLENNIUM":
      return (w) => {
        const y = civilFromDays(days(w)).year;
        return y > 0 ? Math.floor((y + 999) / 1000) : -Math.floor((-y + 999) / 1000);
      };
    case "EPOCH":
      return (w) => Math.floor(w / 1000);
    default:
      throw new ExpressionError(`Unsupported time unit ${unit}`);
  }
}

/**
 * EXTRACT of an interval, as Calcite's convertExtract that Flink uses: months (YEAR, MONTH) or
 * millis (DAY … MILLISECOND), the unit's share modulo the next larger unit, Java's remainder sign.
 */
function intervalField(unit: string, yearMonth: boolean): (v: number) => number {
  const part = (size: number, within: number | null) => (v: number) =>
    within === null ? Math.trunc(v / size) : Math.trunc((v % within) / size);
  if (yearMonth) {
    if (unit === "YEAR") return part(12, null);
    if (unit === "MONTH") return part(1, 12);
    if (unit === "QUARTER") return (v) => Math.trunc((v % 12) / 3) + 1;
  } else {
    if (unit === "DAY") return part(MS_PER_DAY, null);
    if (unit === "HOUR") return part(3_600_000, MS_PER_DAY);
    if (unit === "MINUTE") return part(60_000, 3_600_000);
    if (unit === "SECOND") return part(1000, 60_000);
    if (unit === "MILLISECOND") return part(1, 1000);
  }
  throw new ExpressionError(`EXTRACT: unit ${unit} does not apply to an interval`);
}

function extractAt(c: CallSite, unit: string, argIndex: number): string {
  const t = c.argTypes[argIndex];
  if (t.kind === "INTERVAL_YEAR_MONTH" || t.kind === "INTERVAL_DAY_TIME") {
    return `${c.env(intervalField(unit, t.kind === "INTERVAL_YEAR_MONTH"))}(${c.args[argIndex]})`;
  }
  const wall = t.kind === "TIME" ? (v: number) => v : toWall(t, c.zone);
  const f = field(unit);
  if (unit === "EPOCH" && t.kind === "TIMESTAMP_LTZ") return `Math.floor(${c.args[argIndex]} / 1000)`;
  return `${c.env((v: number) => f(wall(v)))}(${c.args[argIndex]})`;
}

const extract: FnImpl = { gen: (c) => extractAt(c, keywordArg(c, 0), 1) };
const fieldFn = (unit: string): FnImpl => ({ gen: (c) => extractAt(c, unit, 0) });

/** Floors wall-clock millis to a unit; weeks start on Sunday (Calcite's FLOOR TO WEEK). */
function floorWall(unit: string): Wall {
  const fixed = (size: number) => (w: number) => floorDiv(w, size) * size;
  switch (unit) {
    case "MILLISECOND":
      return (w) => w;
    case "SECOND":
      return fixed(1000);
    case "MINUTE":
      return fixed(60_000);
    case "HOUR":
      return fixed(3_600_000);
    case "DAY":
      return fixed(MS_PER_DAY);
    case "WEEK":
      return (w) => (days(w) - (dayOfWeek(days(w)) - 1)) * MS_PER_DAY;
    case "DECADE":
    case "CENTURY":
    case "MILLENNIUM":
      return (w) => daysFromCivil(eraYear(unit, civilFromDays(days(w)).year, true), 1, 1) * MS_PER_DAY;
    case "MONTH":
    case "QUARTER":
    case "YEAR":
      return (w) => {
        const cv = civilFromDays(days(w));
        const month = unit === "YEAR" ? 1 : unit === "QUARTER" ? cv.month - ((cv.month - 1) % 3) : cv.month;
        return daysFromCivil(cv.year, month, 1) * MS_PER_DAY;
      };
    default:
      throw new ExpressionError(`Unsupported FLOOR/CEIL unit ${unit}`);
  }
}

/**
 * The first year of the decade, century or millennium of `year` (floor), or of the next one
 * (ceil), as Flink's julianDateFloor (centuries start at year 1: 2001 for 2024).
 */
function eraYear(unit: string, year: number, floor: boolean): number {
  const t = Math.trunc;
  if (unit === "DECADE") return floor ? 10 * t(year / 10) : 10 * (1 + t(year / 10));
  const size = unit === "CENTURY" ? 100 : 1000;
  return size * t((year + size - 1) / size) + (floor ? 1 - size : 1);
}

function addUnit(unit: string, w: number, n: number): number {
  switch (unit) {
    case "MILLISECOND":
      return w + n;
    case "SECOND":
      return w + n * 1000;
    case "MINUTE":
      return w + n * 60_000;
    case "HOUR":
      return w + n * 3_600_000;
    case "DAY":
      return w + n * MS_PER_DAY;
    case "WEEK":
      return w + n * 7 * MS_PER_DAY;
    case "MONTH":
      return addMonthsToTimestamp(w, n);
    case "QUARTER":
      return addMonthsToTimestamp(w, 3 * n);
    case "YEAR":
      return addMonthsToTimestamp(w, 12 * n);
    default:
      throw new ExpressionError(`Unsupported time unit ${unit}`);
  }
}

function floorCeilTemporal(ceil: boolean): FnImpl {
  return {
    gen: (c) => {
      if (c.args.length === 1) return ceil ? ceilNumeric(c) : floorNumeric(c);
      const unit = keywordArg(c, 1);
      const t = c.argTypes[0];
      const wall = t.kind === "TIME" ? (v: number) => v : toWall(t, c.zone);
      const back = fromWall(t, c.zone);
      const floor = floorWall(unit);
      const era = unit === "DECADE" || unit === "CENTURY" || unit === "MILLENNIUM";
      const f = era
        ? (v: number) => {
            const y = civilFromDays(days(wall(v))).year;
            return back(daysFromCivil(eraYear(unit, y, !ceil), 1, 1) * MS_PER_DAY);
          }
        : ceil
          ? (v: number) => {
              const w = wall(v);
              const fl = floor(w);
              return back(fl === w ? w : addUnit(unit === "MILLISECOND" ? "MILLISECOND" : unit, fl, 1));
            }
          : (v: number) => back(floor(wall(v)));
      return `${c.env(f)}(${c.args[0]})`;
    },
  };
}

const timestampAdd: FnImpl = {
  gen: (c) => {
    const unit = keywordArg(c, 0);
    const t = c.argTypes[2];
    addUnit(unit, 0, 0); // validates the unit at compile time
    // TIMESTAMP_LTZ: on the epoch millis, months too (Flink adds months in UTC, not local time)
    if (t.kind === "TIMESTAMP_LTZ") {
      const f = (n: number, v: number) => checkedTimestamp(addUnit(unit, v, n), "TIMESTAMPADD");
      return `${c.env(f)}(${c.args[1]}, ${c.args[2]})`;
    }
    const wall = toWall(t, c.zone);
    const back = fromWall(t, c.zone);
    const f = (n: number, v: number) => {
      const w = checkedTimestamp(addUnit(unit, wall(v), n), "TIMESTAMPADD");
      return back(w);
    };
    return `${c.env(f)}(${c.args[1]}, ${c.args[2]})`;
  },
};

/** Flink's DateTimeUtils.addMonths on days: the day clamps to the end of the target month. */
function addMonthsToDay(date: number, m: number): number {
  const c = civilFromDays(date);
  const total = c.year * 12 + (c.month - 1) + m;
  const y = Math.floor(total / 12);
  const mo = total - y * 12 + 1;
  const last = daysInMonthOf(y, mo);
  return daysFromCivil(y, mo, Math.min(c.day, last));
}

function daysInMonthOf(y: number, m: number): number {
  return m === 2
    ? y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0)
      ? 29
      : 28
    : [4, 6, 9, 11].includes(m)
      ? 30
      : 31;
}

/** Flink's DateTimeUtils.subtractMonths(int, int): whole months from date1 to date0. */
function subtractMonthDays(date0: number, date1: number): number {
  if (date0 < date1) return -subtractMonthDays(date1, date0);
  let m = Math.trunc((date0 - date1) / 31);
  for (;;) {
    if (addMonthsToDay(date1, m) >= date0) return m;
    if (addMonthsToDay(date1, m + 1) > date0) return m;
    ++m;
  }
}

/**
 * Flink's DateTimeUtils.subtractMonths(long t0, long t1) on wall-clock millis (TIMESTAMPDIFF
 * passes (b, a)): the months between the days, one less when t1's day plus the months lands on
 * t0's day but t1's time of day is later. Kept exactly, asymmetry included: TIMESTAMPDIFF(MONTH,
 * '2026-12-31 23:00', '2026-06-30 00:00') is -7 in Flink.
 */
function monthsBetween(a: number, b: number): number {
  const d0 = days(b);
  const d1 = days(a);
  let x = subtractMonthDays(d0, d1);
  if (addMonthsToDay(d1, x) === d0 && msOfDay(b) < msOfDay(a)) x--;
  return x;
}

const UNIT_MS: Record<string, number> = {
  MILLISECOND: 1,
  SECOND: 1000,
  MINUTE: 60_000,
  HOUR: 3_600_000,
  DAY: MS_PER_DAY,
  WEEK: 7 * MS_PER_DAY,
};

const timestampDiff: FnImpl = {
  gen: (c) => {
    const unit = keywordArg(c, 0);
    const [, ta, tb] = c.argTypes;
    const bothInstants = ta.kind === "TIMESTAMP_LTZ" && tb.kind === "TIMESTAMP_LTZ";
    const wa = toWall(ta, c.zone);
    const wb = toWall(tb, c.zone);
    const months = { MONTH: 1, QUARTER: 3, YEAR: 12 }[unit as "MONTH"];
    let f: (a: number, b: number) => number;
    if (months !== undefined) f = (a, b) => Math.trunc(monthsBetween(wa(a), wb(b)) / months);
    else {
      const size = UNIT_MS[unit];
      if (size === undefined) throw new ExpressionError(`Unsupported TIMESTAMPDIFF unit ${unit}`);
      f = bothInstants ? (a, b) => Math.trunc((b - a) / size) : (a, b) => Math.trunc((wb(b) - wa(a)) / size);
    }
    return `${c.env(f)}(${c.args[1]}, ${c.args[2]})`;
  },
};

const DEFAULT_FORMAT = "yyyy-MM-dd HH:mm:ss";

/** Java's conversion of a double to long: truncation, NaN is 0. */
const javaLong = (x: number): number => (Number.isNaN(x) ? 0 : Math.trunc(x));

/** Epoch millis within what a timestamp can hold (±8.64e15, about ±275,000 years), else NULL. */
const instantOrNull = (ms: number): number | null =>
  Number.isFinite(ms) && Math.abs(ms) <= 8.64e15 ? ms : null;

/**
 * DATE_FORMAT's text input, as Flink reads it: `yyyy-MM-dd HH:mm:ss` (a fraction after it is
 * ignored, a bare date does not parse).
 */
function dateFormatInput(s: string): number | null {
  if (!/^\s*-?\d+-\d{1,2}-\d{1,2}[ ]+\d{1,2}:\d{1,2}:\d{1,2}/.test(s)) return null;
  const w = parseTimestamp(s);
  return w === null ? null : w - (((w % 1000) + 1000) % 1000);
}

const dateFormat: FnImpl = {
  gen: (c) => {
    const t = c.argTypes[0];
    const wall: (v: unknown) => number | null =
      t.kind === "CHAR" || t.kind === "VARCHAR"
        ? (v) => dateFormatInput(v as string)
        : (toWall(t, c.zone) as (v: unknown) => number);
    const f = (v: unknown, fmt: string) => {
      const w = wall(v);
      return w === null ? null : dateFormatter(fmt, true)(w);
    };
    return `${c.env(f)}(${c.args[0]}, ${c.args[1]})`;
  },
};

/** TO_TIMESTAMP's parse: java.time with the SMART resolver (Feb 30 is Feb 29 … 28), as Flink. */
function parseWall(s: string, fmt?: string): number | null {
  if (fmt !== undefined) return dateParser(fmt, false, true)(s);
  return flinkTimestampShape(s) ? parseTimestamp(s, true) : null;
}

const toTimestampLtz: FnImpl = {
  gen: (c) => {
    const t = c.argTypes[0];
    if (t.kind === "CHAR" || t.kind === "VARCHAR") {
      // the text is read in the given zone, UTC by default (Flink's documented default, not the
      // session zone)
      const utc = getZone("UTC");
      const f = (s: string, fmt?: string, tz?: string) => {
        const w = parseWall(s, fmt);
        return w === null ? null : localToInstant(w, tz === undefined ? utc : getZone(tz));
      };
      return `${c.env(f)}(${c.args.join(", ")})`;
    }
    const num =
      t.kind === "DECIMAL"
        ? (v: unknown) => decimalToNumber(v as bigint, t.scale)
        : (v: unknown) => Number(v); // a BIGINT beyond ±2^53 is a bigint (out of range anyway)
    const f = (v: unknown, precision = 3) => {
      if (!Number.isInteger(precision) || precision < 0 || precision > 3) {
        throw new ExpressionError(
          `TO_TIMESTAMP_LTZ: precision must be from 0 to 3 here (4 to 9 need a literal precision), got ${precision}`,
        );
      }
      // as Flink: the number in units of 10^-precision seconds (0 seconds, 3 millis), the
      // fraction dropped, NaN as 0 (Java's long conversion); never a NaN or out-of-range instant
      return instantOrNull(javaLong(num(v)) * 10 ** (3 - precision));
    };
    return `${c.env(f)}(${c.args.join(", ")})`;
  },
};

/** Long.MIN_VALUE: Flink's UNIX_TIMESTAMP result for text that does not parse. */
const UNPARSEABLE = -(2n ** 63n);

const unixTimestamp: FnImpl = {
  gen: (c) => {
    if (c.args.length === 0) return `Math.floor(${c.env(c.ctx)}.now() / 1000)`;
    const zone = c.zone;
    let lastFormat: string | undefined;
    let lastParser = dateParser(DEFAULT_FORMAT, true);
    const f = (s: string, fmt?: string) => {
      // SimpleDateFormat.parse, as Flink: lenient, and text after the pattern is ignored
      const format = fmt ?? DEFAULT_FORMAT;
      if (format !== lastFormat) {
        lastParser = dateParser(format, true);
        lastFormat = format;
      }
      const parser = lastParser;
      const w = parser(s);
      if (w === null) return UNPARSEABLE;
      // Text with its own offset (pattern letters X / Z) names an instant; else it is local time.
      const offset = parser.lastOffsetMs;
      return Math.trunc((offset === undefined ? localToInstant(w, zone, true) : w - offset) / 1000);
    };
    return `${c.env(f)}(${c.args.join(", ")})`;
  },
};

const fromUnixtime: FnImpl = {
  gen: (c) => {
    const t = c.argTypes[0];
    const zone = c.zone;
    const f = (v: unknown, fmt = DEFAULT_FORMAT) => {
      const secs = t.kind === "DECIMAL" ? decimalToNumber(v as bigint, t.scale) : Number(v);
      const ms = instantOrNull(javaLong(secs) * 1000);
      return ms === null ? null : dateFormatter(fmt)(instantToLocal(ms, zone));
    };
    return `${c.env(f)}(${c.args.join(", ")})`;
  },
};

const now = (c: CallSite) => `${c.env(c.ctx)}.now()`;
const localNow = (c: CallSite) => `${c.env((i: number) => instantToLocal(i, c.zone))}(${now(c)})`;
const localTime = (c: CallSite) => {
  const f = (i: number) => {
    const m = msOfDay(instantToLocal(i, c.zone));
    return m - (m % 1000);
  };
  return `${c.env(f)}(${now(c)})`;
};
const niladic = (code: (c: CallSite) => string): FnImpl => ({ strict: false, gen: code });

export const TIME_IMPLS: Record<string, FnImpl> = {
  EXTRACT: extract,
  YEAR: fieldFn("YEAR"),
  QUARTER: fieldFn("QUARTER"),
  MONTH: fieldFn("MONTH"),
  WEEK: fieldFn("WEEK"),
  DAYOFYEAR: fieldFn("DAYOFYEAR"),
  DAYOFMONTH: fieldFn("DAYOFMONTH"),
  DAYOFWEEK: fieldFn("DAYOFWEEK"),
  HOUR: fieldFn("HOUR"),
  MINUTE: fieldFn("MINUTE"),
  SECOND: fieldFn("SECOND"),
  FLOOR: floorCeilTemporal(false),
  CEIL: floorCeilTemporal(true),
  TIMESTAMPADD: timestampAdd,
  TIMESTAMPDIFF: timestampDiff,
  DATE_FORMAT: dateFormat,
  TO_TIMESTAMP: {
    gen: (c) => `${c.env(parseWall)}(${c.args.join(", ")})`,
  },
  TO_TIMESTAMP_LTZ: toTimestampLtz,
  TO_DATE: {
    gen: (c) => {
      const f = (s: string, fmt?: string) => {
        const w = fmt === undefined ? parseTimestamp(s) : dateParser(fmt)(s);
        return w === null ? null : floorDiv(w, MS_PER_DAY);
      };
      return `${c.env(f)}(${c.args.join(", ")})`;
    },
  },
  UNIX_TIMESTAMP: unixTimestamp,
  FROM_UNIXTIME: fromUnixtime,
  CURRENT_TIMESTAMP: niladic(now),
  NOW: niladic(now),
  CURRENT_ROW_TIMESTAMP: niladic(now),
  PROCTIME: niladic(now),
  LOCALTIMESTAMP: niladic(localNow),
  CURRENT_DATE: niladic((c) => `Math.floor(${localNow(c)} / ${MS_PER_DAY})`),
  CURRENT_TIME: niladic(localTime),
  LOCALTIME: niladic(localTime),
  CURRENT_WATERMARK: niladic((c) => `${c.env(c.ctx)}.currentWatermark()`),
};
