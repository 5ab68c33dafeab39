import type { DataType } from "@weir/planner";
import { formatType, isNumeric, STRING_LENGTH } from "@weir/planner";
import type { Int64 } from "./bigint.js";
import {
  int64FromBigint,
  int64FromDouble,
  int64Narrow,
  int64OrNull,
  int64ToBigint,
  int64ToDouble,
} from "./bigint.js";
import {
  flinkTimestampShape,
  floorDiv,
  MS_PER_DAY,
  parseDate,
  parseTime,
  parseTimestamp,
} from "./datetime.js";
import {
  checkPrecision,
  decimalFromInteger,
  decimalFromNumber,
  decimalToNumber,
  parseDecimal,
  pow10,
  rescale,
} from "./decimal.js";
import { ExpressionError } from "./errors.js";
import { formatSqlValue } from "./format.js";
import { preciseCast } from "./timestamp-precision.js";
import type { Zone } from "./timezone.js";
import { instantToLocal, localToInstant } from "./timezone.js";

/** Converts a non-null value; may return null (DECIMAL overflow) or throw an ExpressionError. */
export type CastFn = (value: unknown) => unknown;

const identity: CastFn = (v) => v;

function fail(value: unknown, from: DataType, to: DataType): never {
  const shown = typeof value === "string" ? `'${value}'` : String(value);
  throw new ExpressionError(`Cannot cast ${shown} of type ${formatType(from)} to ${formatType(to)}`);
}

/** A long narrowed to an integer type (BIGINT keeps it). */
function narrowInt64(kind: string, v: Int64): Int64 {
  return kind === "BIGINT" ? v : int64Narrow(v, kind === "INT" ? 32 : kind === "SMALLINT" ? 16 : 8);
}

/** The integral part of a DECIMAL, truncated toward zero and wrapped to a long. */
function decimalTruncToInt64(unscaled: bigint, scale: number): Int64 {
  return int64FromBigint(scale === 0 ? unscaled : unscaled / pow10(scale));
}

/** Java's narrowing of an integer to the target's width (two's-complement wrap-around). */
function wrapInteger(kind: string): (x: number) => number {
  switch (kind) {
    case "TINYINT":
      return (x) => (x << 24) >> 24;
    case "SMALLINT":
      return (x) => (x << 16) >> 16;
    case "INT":
      return (x) => x | 0;
    default:
      return (x) => x;
  }
}

/**
 * Flink's `BinaryStringDataUtil.toLong` over the text with its spaces (0x20 only) trimmed: an
 * optional sign, digits, and an optional `.` followed by digits only, which is dropped (so
 * '3.7' is 3, '.5' is 0); anything else, or a value outside [min, max], is not a number (null).
 */
const INTEGER_TEXT = /^([+-]?)(\d*)(?:\.\d*)?$/;
function parseJavaInteger(text: string, min: bigint, max: bigint): Int64 | null {
  const s = trimSpaces(text);
  const m = INTEGER_TEXT.exec(s);
  if (m === null || s === "" || s === "+" || s === "-") return null;
  const digits = m[2] === "" ? 0n : BigInt(m[2]);
  const n = m[1] === "-" ? -digits : digits;
  return n < min || n > max ? null : int64OrNull(n);
}

/** BinaryStringData.trim(): removes leading and trailing spaces (0x20), nothing else. */
export function trimSpaces(s: string): string {
  let a = 0;
  let b = s.length;
  while (a < b && s.charCodeAt(a) === 32) a++;
  while (b > a && s.charCodeAt(b - 1) === 32) b--;
  return a === 0 && b === s.length ? s : s.slice(a, b);
}

/** Java's Double.parseDouble (decimal forms; leading/trailing whitespace ≤ U+0020 and a d/f suffix allowed). */
const DOUBLE_TEXT = /^[+-]?(?:NaN|Infinity|(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?[fFdD]?)$/;
export function parseJavaDouble(text: string): number | null {
  // Java's String.trim removes every character ≤ U+0020
  const s = text.replace(/^[\u0000-\u0020]+|[\u0000-\u0020]+$/g, "");
  if (!DOUBLE_TEXT.test(s)) return null;
  return Number(s.replace(/[fFdD]$/, ""));
}

/**
 * Java's narrowing of a double to an integer type: NaN is 0, out-of-range values saturate to
 * the int (long for BIGINT) bounds, and TINYINT/SMALLINT then wrap from the int.
 */
function doubleToInteger(kind: string): (x: number) => Int64 {
  const toInt = (x: number) =>
    Number.isNaN(x) ? 0 : x >= 2147483647 ? 2147483647 : x <= -2147483648 ? -2147483648 : Math.trunc(x);
  switch (kind) {
    case "TINYINT":
      return (x) => (toInt(x) << 24) >> 24;
    case "SMALLINT":
      return (x) => (toInt(x) << 16) >> 16;
    case "INT":
      return toInt;
    default:
      return int64FromDouble;
  }
}

const TRUE_TEXT = new Set(["t", "true", "y", "yes", "1"]);
const FALSE_TEXT = new Set(["f", "false", "n", "no", "0"]);

function fromString(to: DataType, from: DataType, zone: Zone): CastFn {
  const bad = (v: unknown): never => fail(v, from, to);
  switch (to.kind) {
    case "BOOLEAN":
      return (v) => {
        const s = (v as string).toLowerCase(); // no trimming: CAST('  true  ' AS BOOLEAN) fails in Flink
        return TRUE_TEXT.has(s) ? true : FALSE_TEXT.has(s) ? false : bad(v);
      };
    case "TINYINT":
    case "SMALLINT":
    case "INT":
    case "BIGINT": {
      const [min, max] =
        to.kind === "TINYINT"
          ? [-128n, 127n]
          : to.kind === "SMALLINT"
            ? [-32768n, 32767n]
            : to.kind === "INT"
              ? [-2147483648n, 2147483647n]
              : [-(2n ** 63n), 2n ** 63n - 1n];
      return (v) => parseJavaInteger(v as string, min, max) ?? bad(v);
    }
    case "FLOAT":
    case "DOUBLE":
      return (v) => {
        const n = parseJavaDouble(v as string) ?? bad(v);
        return to.kind === "FLOAT" ? Math.fround(n) : n;
      };
    case "DECIMAL":
      // text that does not fit the precision fails too (as Flink; a numeric overflow is NULL)
      return (v) => parseDecimal(v as string, to.precision, to.scale) ?? bad(v);
    case "DATE":
      return (v) => {
        const d = parseDate(v as string);
        if (d !== null) return d;
        const ts = parseTimestamp(v as string);
        return ts === null ? bad(v) : floorDiv(ts, MS_PER_DAY);
      };
    case "TIME":
      return (v) => parseTime(v as string) ?? bad(v);
    case "TIMESTAMP":
      return (v) => truncateMillis(castTimestamp(v as string) ?? bad(v), to.precision);
    case "TIMESTAMP_LTZ":
      return (v) => truncateMillis(localToInstant(castTimestamp(v as string) ?? bad(v), zone), to.precision);
    case "BINARY":
    case "VARBINARY":
      return (v) => fitBinary(new TextEncoder().encode(v as string), to);
    case "CHAR":
    case "VARCHAR":
      return fitString(to);
    default:
      return bad;
  }
}

/** CAST's timestamp text, as Flink's: `yyyy-MM-dd[ HH:mm:ss[.f]]` (no `T`, seconds required). */
function castTimestamp(text: string): number | null {
  return flinkTimestampShape(text) ? parseTimestamp(text) : null;
}

function truncateMillis(ts: number, precision: number): number {
  if (precision >= 3) return ts;
  const unit = 10 ** (3 - precision);
  return Math.floor(ts / unit) * unit;
}

/** CHAR(n) pads with spaces and truncates; VARCHAR(n) truncates; STRING keeps the text. */
function fitString(to: DataType): CastFn {
  if (to.kind !== "CHAR" && to.kind !== "VARCHAR") return identity;
  if (to.length === STRING_LENGTH) return identity;
  const n = to.length;
  if (to.kind === "VARCHAR") return (v) => ((v as string).length > n ? (v as string).slice(0, n) : v);
  return (v) => {
    const s = v as string;
    return s.length > n ? s.slice(0, n) : s.padEnd(n, " ");
  };
}

function fitBinary(bytes: Uint8Array, to: DataType): Uint8Array {
  if ((to.kind !== "BINARY" && to.kind !== "VARBINARY") || to.length === STRING_LENGTH) return bytes;
  if (bytes.length > to.length) return bytes.slice(0, to.length);
  if (to.kind === "BINARY" && bytes.length < to.length) {
    const padded = new Uint8Array(to.length);
    padded.set(bytes);
    return padded;
  }
  return bytes;
}

function fromNumeric(from: DataType, to: DataType): CastFn {
  const asNumber: (v: unknown) => number =
    from.kind === "DECIMAL"
      ? (v) => decimalToNumber(v as bigint, from.scale)
      : from.kind === "BIGINT"
        ? (v) => int64ToDouble(v as Int64)
        : (v) => v as number;
  switch (to.kind) {
    case "BOOLEAN":
      return from.kind === "DECIMAL" ? (v) => v !== 0n : (v) => v !== 0;
    case "TINYINT":
    case "SMALLINT":
    case "INT":
    case "BIGINT": {
      const wrap = wrapInteger(to.kind);
      // DECIMAL → integer is Java's BigDecimal.longValue() (64-bit wrap), then (int)/(short)/(byte)
      if (from.kind === "DECIMAL")
        return (v) => narrowInt64(to.kind, decimalTruncToInt64(v as bigint, from.scale));
      if (from.kind === "FLOAT" || from.kind === "DOUBLE") return doubleToInteger(to.kind) as CastFn;
      if (from.kind === "BIGINT") return (v) => narrowInt64(to.kind, v as Int64);
      return (v) => wrap(v as number);
    }
    case "FLOAT":
      return (v) => Math.fround(asNumber(v));
    case "DOUBLE":
      return asNumber;
    case "DECIMAL":
      if (from.kind === "DECIMAL")
        return (v) => checkPrecision(rescale(v as bigint, from.scale, to.scale), to.precision);
      if (from.kind === "FLOAT" || from.kind === "DOUBLE") {
        return (v) => decimalFromNumber(v as number, to.precision, to.scale);
      }
      if (from.kind === "BIGINT")
        return (v) => checkPrecision(int64ToBigint(v as Int64) * pow10(to.scale), to.precision);
      return (v) => decimalFromInteger(v as number, to.precision, to.scale);
    case "INTERVAL_DAY_TIME":
    case "INTERVAL_YEAR_MONTH":
      return (v) => Math.trunc(asNumber(v));
    default:
      return (v) => fail(v, from, to);
  }
}

function temporal(from: DataType, to: DataType, zone: Zone): CastFn {
  const f = from.kind;
  const t = to.kind;
  if (f === t) {
    return t === "TIMESTAMP" || t === "TIMESTAMP_LTZ" || t === "TIME"
      ? (v) => truncateMillis(v as number, (to as { precision: number }).precision)
      : identity;
  }
  const toLocal = (v: unknown) => (f === "TIMESTAMP_LTZ" ? instantToLocal(v as number, zone) : (v as number));
  const fromLocal = t === "TIMESTAMP_LTZ" ? (ts: number) => localToInstant(ts, zone) : (ts: number) => ts;
  if (f === "DATE") return (v) => fromLocal((v as number) * MS_PER_DAY);
  if (f === "TIME") return (v) => fromLocal(v as number);
  // from TIMESTAMP / TIMESTAMP_LTZ
  if (t === "DATE") return (v) => floorDiv(toLocal(v), MS_PER_DAY);
  if (t === "TIME")
    return (v) =>
      truncateMillis(
        ((toLocal(v) % MS_PER_DAY) + MS_PER_DAY) % MS_PER_DAY,
        (to as { precision: number }).precision,
      );
  const p = (to as { precision: number }).precision;
  return (v) => truncateMillis(fromLocal(toLocal(v)), p);
}

/**
 * The conversion of a non-null value from `from` to `to`, following Flink's CAST. `zone` is the
 * session time zone (TIMESTAMP ↔ TIMESTAMP_LTZ and anything ↔ TIMESTAMP_LTZ use it).
 */
export function castFunction(from: DataType, to: DataType, zone: Zone): CastFn {
  if (from.kind === "NULL") return () => null;
  const f = from.kind;
  const t = to.kind;
  if (t === "CHAR" || t === "VARCHAR") {
    if (f === "CHAR" || f === "VARCHAR") return fitString(to);
    const fit = fitString(to);
    return (v) => fit(formatSqlValue(v, from, zone));
  }
  const precise = preciseCast(from, to, zone, castFunction);
  if (precise !== undefined) return precise;
  if (f === "CHAR" || f === "VARCHAR") return fromString(to, from, zone);
  if (isNumeric(from) || f === "BOOLEAN") {
    if (f === "BOOLEAN") {
      if (t === "BOOLEAN") return identity;
      const one = castFunction(from.kind === "BOOLEAN" ? { kind: "INT", nullable: false } : from, to, zone);
      if (isNumeric(to)) return (v) => one(v ? 1 : 0);
      return (v) => fail(v, from, to);
    }
    if (isNumeric(to) || t === "BOOLEAN" || t === "INTERVAL_DAY_TIME" || t === "INTERVAL_YEAR_MONTH") {
      if (f === t && f !== "DECIMAL") return identity;
      return fromNumeric(from, to);
    }
  }
  const isTemporal = (k: string) =>
    k === "DATE" || k === "TIME" || k === "TIMESTAMP" || k === "TIMESTAMP_LTZ";
  if (isTemporal(f) && isTemporal(t)) return temporal(from, to, zone);
  if ((f === "INTERVAL_DAY_TIME" || f === "INTERVAL_YEAR_MONTH") && (f === t || isNumeric(to)))
    return identity;
  if ((f === "BINARY" || f === "VARBINARY") && (t === "BINARY" || t === "VARBINARY")) {
    return (v) => fitBinary(v as Uint8Array, to);
  }
  if (from.kind === "ARRAY" && to.kind === "ARRAY") {
    const el = nullable(castFunction(from.element, to.element, zone));
    return (v) => (v as unknown[]).map(el);
  }
  if (from.kind === "MULTISET" && to.kind === "MULTISET") {
    const el = nullable(castFunction(from.element, to.element, zone));
    return (v) => new Map([...(v as Map<unknown, number>)].map(([k, n]) => [el(k), n]));
  }
  if (from.kind === "MAP" && to.kind === "MAP") {
    const k = nullable(castFunction(from.key, to.key, zone));
    const val = nullable(castFunction(from.value, to.value, zone));
    return (v) => new Map([...(v as Map<unknown, unknown>)].map(([a, b]) => [k(a), val(b)]));
  }
  if (from.kind === "ROW" && to.kind === "ROW" && from.fields.length === to.fields.length) {
    const fs = from.fields.map((fd, i) => nullable(castFunction(fd.type, to.fields[i].type, zone)));
    return (v) => (v as unknown[]).map((x, i) => fs[i](x));
  }
  return (v) => fail(v, from, to);
}

function nullable(fn: CastFn): CastFn {
  return (v) => (v === null || v === undefined ? null : fn(v));
}
