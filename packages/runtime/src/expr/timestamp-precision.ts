import type { DataType } from "@weir/planner";
import type { CallSite, FnImpl } from "./call-site.js";
import { keywordArg } from "./call-site.js";
import { dateFormatter, dateParser } from "./date-format.js";
import {
  addMonthsToTimestamp,
  checkedTimestamp,
  flinkTimestampShape,
  floorDiv,
  formatTimestamp,
  MS_PER_DAY,
  parseTimestamp,
} from "./datetime.js";
import { ExpressionError } from "./errors.js";
import type { Zone } from "./timezone.js";
import { getZone, instantToLocal, localToInstant } from "./timezone.js";

/**
 * TIMESTAMP(p) and TIMESTAMP_LTZ(p) with p from 4 to 9 (Flink's TimestampData: millisecond plus
 * nano-of-millisecond).
 *
 * Representation, fixed by the type: a value of precision 0..3 is a `number` of epoch
 * milliseconds (as it always was: the common path, windows, watermarks and Nexmark stay on it);
 * a value of precision 4..9 is a `bigint` of epoch nanoseconds (wall-clock nanos read as UTC for
 * TIMESTAMP, an instant for TIMESTAMP_LTZ), truncated to the precision. A bigint is a primitive:
 * `===`, `<`, Map keys, the key encoding and the row codec all work on it by value, and each
 * value has exactly one representation (TIMESTAMP(9) '… .123000000' is 1…123000000n, whatever
 * its source). bigint nanos cover ±292 years around 1970 in 64 bits, but a JS bigint is not
 * bounded: the range check is Weir's TIMESTAMP range (about ±275,000 years), as for millis.
 */

export const NS_PER_MS = 1_000_000n;
const NS_PER_MS_NUMBER = 1_000_000;

/** Whether values of `t` are bigint epoch nanos (TIMESTAMP / TIMESTAMP_LTZ of precision > 3). */
export function isPreciseTimestamp(t: DataType | undefined): boolean {
  return t !== undefined && (t.kind === "TIMESTAMP" || t.kind === "TIMESTAMP_LTZ") && t.precision > 3;
}

/** The millisecond of epoch nanos (floor: the nanos are always the non-negative part). */
export function nanosToMillis(ns: bigint): number {
  const q = ns / NS_PER_MS;
  return Number(ns < 0n && q * NS_PER_MS !== ns ? q - 1n : q);
}

/** The nanosecond within the millisecond, 0..999999. */
export function nanoOfMilli(ns: bigint): number {
  const r = ns % NS_PER_MS;
  return Number(r < 0n ? r + NS_PER_MS : r);
}

export function millisToNanos(ms: number, nanos = 0): bigint {
  return BigInt(ms) * NS_PER_MS + BigInt(nanos);
}

const UNITS = [1000000000n, 100000000n, 10000000n, 1000000n, 100000n, 10000n, 1000n, 100n, 10n, 1n];

/** Truncates epoch nanos to `precision` fraction digits (floor, as Flink's cast between precisions). */
export function truncateNanos(ns: bigint, precision: number): bigint {
  if (precision >= 9) return ns;
  const unit = UNITS[precision];
  const r = ns % unit;
  return r === 0n ? ns : ns - (r < 0n ? r + unit : r);
}

/** Applies a function of the millisecond (a zone shift, months) and keeps the nanos within it. */
export function viaMillis(ns: bigint, f: (ms: number) => number): bigint {
  const ms = nanosToMillis(ns);
  return millisToNanos(f(ms)) + (ns - millisToNanos(ms));
}

const FRACTION = /\.(\d+)\s*$/;

/**
 * Parses `yyyy-MM-dd[( |T)HH:mm[:ss[.fraction]]]` (up to nine fraction digits) into epoch nanos,
 * as {@link parseTimestamp} into millis; null when it is not such a timestamp.
 */
export function parseTimestampNanos(text: string, smart = false): bigint | null {
  const ms = parseTimestamp(text, smart);
  if (ms === null) return null;
  const m = FRACTION.exec(text);
  const sub = m === null || m[1].length <= 3 ? 0 : Number(m[1].slice(3, 9).padEnd(6, "0"));
  return millisToNanos(ms, sub);
}

/** CAST's text form (Flink): `yyyy-MM-dd HH:mm:ss.fffffffff`, exactly `precision` fraction digits. */
export function formatTimestampNanos(ns: bigint, precision: number): string {
  const ms = nanosToMillis(ns);
  const base = formatTimestamp(ms, 3);
  if (precision <= 3) return formatTimestamp(ms, precision);
  return (
    base +
    String(nanoOfMilli(ns))
      .padStart(6, "0")
      .slice(0, precision - 3)
  );
}

const withPrecision = (t: DataType, precision: number): DataType => ({ ...t, precision }) as DataType;

type CastFn = (value: unknown) => unknown;
type CastFactory = (from: DataType, to: DataType, zone: Zone) => CastFn;

/**
 * The CAST from `from` to `to` when either is a precise timestamp (else undefined; CAST to a
 * string goes through formatSqlValue). Between precisions the digits beyond the target's are
 * truncated (Flink); anything else converts through the millisecond value with `base`, the
 * millisecond cast (DATE, TIME, TIMESTAMP(0..3)).
 */
export function preciseCast(from: DataType, to: DataType, zone: Zone, base: CastFactory): CastFn | undefined {
  const pf = isPreciseTimestamp(from);
  const pt = isPreciseTimestamp(to);
  if (!pf && !pt) return undefined;
  if (to.kind === "CHAR" || to.kind === "VARCHAR") return undefined;
  if (pt) {
    const p = (to as { precision: number }).precision;
    const ltz = to.kind === "TIMESTAMP_LTZ";
    if (from.kind === "CHAR" || from.kind === "VARCHAR") {
      return (v) => {
        const s = v as string;
        const local = flinkTimestampShape(s) ? parseTimestampNanos(s) : null;
        if (local === null)
          throw new ExpressionError(`Cannot cast '${s}' of type ${typeName(from)} to ${typeName(to)}`);
        return truncateNanos(ltz ? viaMillis(local, (ms) => localToInstant(ms, zone)) : local, p);
      };
    }
    if (pf) {
      if (from.kind === to.kind) return (v) => truncateNanos(v as bigint, p);
      if (ltz)
        return (v) =>
          truncateNanos(
            viaMillis(v as bigint, (ms) => localToInstant(ms, zone)),
            p,
          );
      return (v) =>
        truncateNanos(
          viaMillis(v as bigint, (ms) => instantToLocal(ms, zone)),
          p,
        );
    }
    const toMillis = base(from, withPrecision(to, 3), zone);
    return (v) => {
      const ms = toMillis(v);
      return ms === null ? null : millisToNanos(ms as number);
    };
  }
  const fromMillis = base(withPrecision(from, 3), to, zone);
  return (v) => fromMillis(nanosToMillis(v as bigint));
}

function typeName(t: DataType): string {
  if (t.kind === "VARCHAR" && t.length === 2147483647) return "STRING";
  if (t.kind === "CHAR" || t.kind === "VARCHAR") return `${t.kind}(${t.length})`;
  return `${t.kind}(${(t as { precision: number }).precision})`;
}

/** The value as Flink's CAST(... AS STRING) prints it (TIMESTAMP_LTZ in the session zone). */
export function formatPrecise(value: bigint, t: DataType, zone: Zone): string {
  const p = (t as { precision: number }).precision;
  const local = t.kind === "TIMESTAMP_LTZ" ? viaMillis(value, (ms) => instantToLocal(ms, zone)) : value;
  return formatTimestampNanos(local, p);
}

// ---------------------------------------------------------------------------------- functions

const isInterval = (t: DataType) => t.kind === "INTERVAL_DAY_TIME" || t.kind === "INTERVAL_YEAR_MONTH";

const lowered = (t: DataType): DataType => (isPreciseTimestamp(t) ? withPrecision(t, 3) : t);

/**
 * Function calls that read or yield precise timestamps. Flink computes most date/time functions
 * on the millisecond (TIMESTAMPDIFF, FLOOR, CEIL to a unit of a second or more, HOUR, …): those
 * see the millisecond value of each precise argument (`LOWERED`), and a precise result is that
 * millisecond widened back. The ones that keep the nanos (interval arithmetic, TIMESTAMPADD,
 * EXTRACT of MICROSECOND / NANOSECOND, DATE_FORMAT's `S` beyond three and `n`, CEIL to a
 * millisecond) are implemented here. Comparisons, GREATEST, LEAST, NULLIF, IN, CASE and the
 * constructors need nothing: the binder casts operands to one type, and bigints compare.
 */
export function preciseCall(fn: string, site: CallSite, impl: FnImpl): string | undefined {
  const anyPrecise = isPreciseTimestamp(site.type) || site.argTypes.some(isPreciseTimestamp);
  if (!anyPrecise) return undefined;
  switch (fn) {
    case "+":
    case "-":
      return intervalArithmetic(fn, site);
    case "TIMESTAMPADD":
      return timestampAdd(site);
    case "EXTRACT": {
      const unit = keywordArg(site, 0);
      if (isPreciseTimestamp(site.argTypes[1]) && (unit === "MICROSECOND" || unit === "NANOSECOND")) {
        return extractSubMillis(site, unit);
      }
      return lowerCall(site, impl);
    }
    case "DATE_FORMAT":
      if (isPreciseTimestamp(site.argTypes[0])) return dateFormatPrecise(site);
      return lowerCall(site, impl);
    case "TO_TIMESTAMP_LTZ":
      if (isPreciseTimestamp(site.type)) return toTimestampLtzPrecise(site);
      return undefined;
    case "CEIL":
      if (
        site.args.length === 2 &&
        keywordArg(site, 1) === "MILLISECOND" &&
        isPreciseTimestamp(site.argTypes[0])
      )
        return `${site.env(ceilToMillisecond)}(${site.args[0]})`;
      return lowerCall(site, impl);
    default:
      if (LOWERED.has(fn)) return lowerCall(site, impl);
      return undefined;
  }
}

/** Date/time functions Flink evaluates on the millisecond of a TIMESTAMP(4..9) argument. */
const LOWERED = new Set([
  "YEAR",
  "QUARTER",
  "MONTH",
  "WEEK",
  "DAYOFYEAR",
  "DAYOFMONTH",
  "DAYOFWEEK",
  "HOUR",
  "MINUTE",
  "SECOND",
  "FLOOR",
  "TIMESTAMPDIFF",
  "TO_DATE",
]);

function lowerCall(site: CallSite, impl: FnImpl): string {
  const toMs = site.env(nullableNanosToMillis);
  const args = site.args.map((a, i) => (isPreciseTimestamp(site.argTypes[i]) ? `${toMs}(${a})` : a));
  const code = impl.gen({ ...site, args, argTypes: site.argTypes.map(lowered), type: lowered(site.type) });
  return isPreciseTimestamp(site.type) ? `${site.env(nullableMillisToNanos)}(${code})` : code;
}

const nullableNanosToMillis = (v: bigint | null): number | null => (v === null ? null : nanosToMillis(v));
const nullableMillisToNanos = (v: number | null): bigint | null => (v === null ? null : millisToNanos(v));

function checkedNanos(ns: bigint, what: string): bigint {
  checkedTimestamp(nanosToMillis(ns), what);
  return ns;
}

function intervalArithmetic(op: "+" | "-", site: CallSite): string | undefined {
  const [ta, tb] = site.argTypes;
  const tsFirst = isPreciseTimestamp(ta) && isInterval(tb);
  const tsSecond = op === "+" && isInterval(ta) && isPreciseTimestamp(tb);
  if (!tsFirst && !tsSecond) return undefined;
  const ts = tsFirst ? site.args[0] : site.args[1];
  const iv = tsFirst ? site.args[1] : site.args[0];
  const ivType = tsFirst ? tb : ta;
  const sign = op === "-" ? -1 : 1;
  const what = `${(tsFirst ? ta : tb).kind} ${op} INTERVAL`;
  const f =
    ivType.kind === "INTERVAL_YEAR_MONTH"
      ? (v: bigint, months: number) =>
          checkedNanos(
            viaMillis(v, (ms) => addMonthsToTimestamp(ms, sign * months)),
            what,
          )
      : (v: bigint, ms: number) => checkedNanos(v + BigInt(sign * ms) * NS_PER_MS, what);
  return `${site.env(f)}(${ts}, ${iv})`;
}

function addUnitNanos(unit: string): (v: bigint, n: number) => bigint {
  const fixed = (ms: number) => (v: bigint, n: number) => v + BigInt(n) * BigInt(ms) * NS_PER_MS;
  switch (unit) {
    case "MILLISECOND":
      return fixed(1);
    case "SECOND":
      return fixed(1000);
    case "MINUTE":
      return fixed(60_000);
    case "HOUR":
      return fixed(3_600_000);
    case "DAY":
      return fixed(MS_PER_DAY);
    case "WEEK":
      return fixed(7 * MS_PER_DAY);
    case "MONTH":
    case "QUARTER":
    case "YEAR": {
      const k = unit === "MONTH" ? 1 : unit === "QUARTER" ? 3 : 12;
      return (v, n) => viaMillis(v, (ms) => addMonthsToTimestamp(ms, k * n));
    }
    default:
      throw new ExpressionError(`Unsupported time unit ${unit}`);
  }
}

function timestampAdd(site: CallSite): string {
  const unit = keywordArg(site, 0);
  const t = site.argTypes[2];
  const add = addUnitNanos(unit);
  if (!isPreciseTimestamp(t)) {
    throw new ExpressionError(`TIMESTAMPADD: a ${t.kind} argument with a precise result is not supported`);
  }
  // TIMESTAMP_LTZ: on the epoch value, months too (Flink adds months in UTC), as for millis
  const f = (n: number, v: bigint) => checkedNanos(add(v, n), "TIMESTAMPADD");
  return `${site.env(f)}(${site.args[1]}, ${site.args[2]})`;
}

function extractSubMillis(site: CallSite, unit: string): string {
  const t = site.argTypes[1];
  const zone = site.zone;
  const f = (v: bigint) => {
    const local = t.kind === "TIMESTAMP_LTZ" ? viaMillis(v, (ms) => instantToLocal(ms, zone)) : v;
    const ms = nanosToMillis(local);
    const msOfSecond = ms - floorDiv(ms, 1000) * 1000;
    const nanos = msOfSecond * NS_PER_MS_NUMBER + nanoOfMilli(local);
    return unit === "NANOSECOND" ? nanos : Math.floor(nanos / 1000);
  };
  return `${site.env(f)}(${site.args[1]})`;
}

function ceilToMillisecond(v: bigint): bigint {
  return nanoOfMilli(v) === 0 ? v : millisToNanos(nanosToMillis(v) + 1);
}

function dateFormatPrecise(site: CallSite): string {
  const t = site.argTypes[0];
  const zone = site.zone;
  const f = (v: bigint, fmt: string) => {
    const local = t.kind === "TIMESTAMP_LTZ" ? viaMillis(v, (ms) => instantToLocal(ms, zone)) : v;
    return dateFormatter(fmt, true)(nanosToMillis(local), nanoOfMilli(local));
  };
  return `${site.env(f)}(${site.args[0]}, ${site.args[1]})`;
}

/**
 * TO_TIMESTAMP_LTZ(numeric, p) with p 4..9 (the number in units of 10^-p seconds, its fraction
 * dropped) and TO_TIMESTAMP_LTZ(string, format) with a format ending in more than three `S`.
 */
function toTimestampLtzPrecise(site: CallSite): string {
  const t = site.argTypes[0];
  const p = (site.type as { precision: number }).precision;
  if (t.kind === "CHAR" || t.kind === "VARCHAR") {
    const utc = getZone("UTC");
    const f = (s: string, fmt: string, tz?: string) => {
      const w = dateParser(fmt, false, true)(s);
      if (w === null) return null;
      const run = /(\d+)\s*$/.exec(s)?.[1] ?? "";
      const digits = run.length > p ? run.slice(-p) : run;
      const sub = digits.length <= 3 ? 0 : Number(digits.slice(3).padEnd(6, "0"));
      const local = millisToNanos(w, sub);
      return viaMillis(local, (ms) => localToInstant(ms, tz === undefined ? utc : getZone(tz)));
    };
    return `${site.env(f)}(${site.args.join(", ")})`;
  }
  const scale = 10n ** BigInt(9 - p);
  const whole: (v: unknown) => bigint =
    t.kind === "DECIMAL"
      ? (v) => (v as bigint) / 10n ** BigInt(t.scale)
      : (v) =>
          // a BIGINT beyond ±(2^53 − 1) is a bigint already (exact BIGINT)
          typeof v === "bigint" ? v : BigInt(Number.isFinite(v as number) ? Math.trunc(v as number) : 0);
  const f = (v: unknown, precision: number) => {
    if (precision !== p)
      throw new ExpressionError(`TO_TIMESTAMP_LTZ: the precision must be the literal ${p}, got ${precision}`);
    const ns = whole(v) * scale;
    const ms = nanosToMillis(ns);
    return Math.abs(ms) <= 8.64e15 ? ns : null;
  };
  return `${site.env(f)}(${site.args[0]}, ${site.args[1]})`;
}
