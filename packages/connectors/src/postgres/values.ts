import type { DataType } from "@weir/planner";
import { formatType } from "@weir/planner";
import { millisToNanos, nanoOfMilli, nanosToMillis, parseInt64 } from "@weir/runtime";
import { formatDecimal, parseDecimal } from "../formats/decimal.js";
import { FormatError } from "../formats/errors.js";
import { parseJsonExact, parseJsonKeepingLongs } from "../formats/json-parse.js";
import {
  compileDecoder,
  compileEncoder,
  type JsonValueOptions,
  typeHasDecimal,
} from "../formats/json-values.js";
import { formatTime, parseTime } from "../formats/temporal.js";
import { isPreciseTimestamp } from "../formats/temporal-precision.js";
import type { PgParam } from "./client.js";
import { parsePgArray } from "./pg-array.js";

/**
 * Weir values ↔ Postgres text, per column type, compiled once per schema. The session runs with
 * `TimeZone = UTC`, `DateStyle = ISO` and `IntervalStyle = iso_8601` (client.ts), so:
 *
 * | Weir           | Postgres column   | text                                           |
 * |----------------|-------------------|------------------------------------------------|
 * | DECIMAL(p,s)   | numeric(p,s)      | exact digits with the scale (never a double)   |
 * | DATE           | date              | `yyyy-MM-dd` (`… BC` before year 1)            |
 * | TIMESTAMP      | timestamp         | the wall-clock time, as if in UTC              |
 * | TIMESTAMP_LTZ  | timestamptz       | the instant in UTC (`…+00`)                    |
 * | INTERVAL       | interval          | `<n> milliseconds` / `<n> months`              |
 * | BYTES          | bytea             | `\x<hex>`                                      |
 * | ARRAY<scalar>  | <element>[]       | a Postgres array of the element texts          |
 * | MAP, ROW, MULTISET, ARRAY<non-scalar> | jsonb | Flink's JSON form (json format)     |
 */

const JSON_OPTIONS: JsonValueOptions = {
  timestampStandard: "SQL",
  failOnMissingField: false,
  mapNullKeyMode: "LITERAL",
  mapNullKeyLiteral: "null",
  decimalAsPlainNumber: true,
  optionPrefix: "json",
};
const MS_PER_DAY = 86_400_000;

export type ValueEncoder = (value: unknown) => PgParam;

/** A STRING value with a NUL character (U+0000), which Postgres text cannot store. */
export class NulInText extends Error {
  constructor(readonly value: string) {
    super("a STRING value holds a NUL character (U+0000), which Postgres text cannot store");
  }
}
export type ValueDecoder = (text: string) => unknown;

/** Whether the type is stored as jsonb rather than a native column type. */
export function storedAsJson(t: DataType): boolean {
  switch (t.kind) {
    case "MAP":
    case "MULTISET":
    case "ROW":
      return true;
    case "ARRAY":
      return storedAsJson(t.element) || t.element.kind === "ARRAY";
    default:
      return false;
  }
}

/** The Postgres column type `sink.create-table` uses for a Weir type. */
export function pgTypeOf(t: DataType): string {
  switch (t.kind) {
    case "BOOLEAN":
      return "boolean";
    case "TINYINT":
    case "SMALLINT":
      return "smallint";
    case "INT":
      return "integer";
    case "BIGINT":
      return "bigint";
    case "FLOAT":
      return "real";
    case "DOUBLE":
      return "double precision";
    case "DECIMAL":
      return `numeric(${t.precision},${t.scale})`;
    case "CHAR":
    case "VARCHAR":
      // Postgres caps declared lengths at 10485760; longer (STRING) is text.
      if (t.length > 10_485_760) return "text";
      return t.kind === "CHAR" ? `char(${t.length})` : `varchar(${t.length})`;
    case "BINARY":
    case "VARBINARY":
      return "bytea";
    case "DATE":
      return "date";
    case "TIME":
      return `time(${Math.min(t.precision, 3)})`;
    case "TIMESTAMP":
      return `timestamp(${Math.min(t.precision, 6)})`;
    case "TIMESTAMP_LTZ":
      return `timestamptz(${Math.min(t.precision, 6)})`;
    case "INTERVAL_DAY_TIME":
    case "INTERVAL_YEAR_MONTH":
      return "interval";
    case "ARRAY":
      return storedAsJson(t) ? "jsonb" : `${pgTypeOf(t.element)}[]`;
    case "MAP":
    case "MULTISET":
    case "ROW":
      return "jsonb";
    case "NULL":
      return "text";
    default: {
      const _exhaustive: never = t;
      return _exhaustive;
    }
  }
}

/**
 * The Postgres base types (`pg_type.typname`) a column of Weir type `t` may have in an existing
 * table: those that hold every value of `t` exactly, without rounding or a time-zone shift.
 */
export function compatibleUdtNames(t: DataType): readonly string[] {
  switch (t.kind) {
    case "BOOLEAN":
      return ["bool"];
    case "TINYINT":
    case "SMALLINT":
      return ["int2", "int4", "int8", "numeric"];
    case "INT":
      return ["int4", "int8", "numeric"];
    case "BIGINT":
      return ["int8", "numeric"];
    case "FLOAT":
      return ["float4", "float8"];
    case "DOUBLE":
      return ["float8"];
    case "DECIMAL":
      return ["numeric"];
    case "CHAR":
    case "VARCHAR":
      return ["text", "varchar", "bpchar", "citext", "name"];
    case "BINARY":
    case "VARBINARY":
      return ["bytea"];
    case "DATE":
      return ["date"];
    case "TIME":
      return ["time"];
    case "TIMESTAMP":
      return ["timestamp"];
    case "TIMESTAMP_LTZ":
      return ["timestamptz"];
    case "INTERVAL_DAY_TIME":
    case "INTERVAL_YEAR_MONTH":
      return ["interval"];
    case "ARRAY":
      return storedAsJson(t) ? ["jsonb", "json"] : compatibleUdtNames(t.element).map((n) => `_${n}`);
    case "MAP":
    case "MULTISET":
    case "ROW":
      return ["jsonb", "json"];
    case "NULL":
      return ["text"];
    default: {
      const _exhaustive: never = t;
      return _exhaustive;
    }
  }
}

/** Encodes a non-null value of type `t` as the parameter text of its Postgres column. */
export function compileValueEncoder(t: DataType): ValueEncoder {
  if (storedAsJson(t)) {
    const enc = compileEncoder(t, JSON_OPTIONS);
    return (v) => enc(v);
  }
  switch (t.kind) {
    case "BOOLEAN":
      return (v) => (v ? "true" : "false");
    case "TINYINT":
    case "SMALLINT":
    case "INT":
    case "BIGINT":
      return (v) => String(v);
    case "FLOAT":
    case "DOUBLE":
      // String(-0) is "0"; Postgres floats keep the sign.
      return (v) => (Object.is(v, -0) ? "-0" : String(v));
    case "DECIMAL": {
      const scale = t.scale;
      return (v) => formatDecimal(v as bigint, scale);
    }
    case "CHAR":
    case "VARCHAR":
      return (v) => {
        // Postgres text cannot hold U+0000 (the whole flush would fail with no row named).
        if ((v as string).includes("\u0000")) throw new NulInText(v as string);
        return v as string;
      };
    case "BINARY":
    case "VARBINARY":
      return (v) =>
        `\\x${Buffer.from((v as Uint8Array).buffer, (v as Uint8Array).byteOffset, (v as Uint8Array).byteLength).toString("hex")}`;
    case "DATE":
      return (v) => formatPgDate(v as number);
    case "TIME":
      return (v) => formatTime(v as number, 3);
    // TIMESTAMP(4..9): bigint nanos, written with Postgres' six digits at most (truncated, not rounded)
    case "TIMESTAMP":
      if (isPreciseTimestamp(t)) return (v) => formatPgTimestampNanos(v as bigint, t.precision);
      return (v) => formatPgTimestamp(v as number);
    case "TIMESTAMP_LTZ":
      if (isPreciseTimestamp(t)) return (v) => `${formatPgTimestampNanos(v as bigint, t.precision)}+00`;
      return (v) => formatPgTimestampUtc(v as number);
    case "INTERVAL_DAY_TIME":
      return (v) => `${v} milliseconds`;
    case "INTERVAL_YEAR_MONTH":
      return (v) => `${v} months`;
    case "ARRAY": {
      const el = compileValueEncoder(t.element);
      return (v) => (v as unknown[]).map((x) => (x === null || x === undefined ? null : el(x)));
    }
    case "MAP":
    case "MULTISET":
    case "ROW":
    case "NULL":
      return () => null;
    default: {
      const _exhaustive: never = t;
      return _exhaustive;
    }
  }
}

/** Decodes the text output of a non-null Postgres value into the Weir value of type `t`. */
export function compileValueDecoder(t: DataType): ValueDecoder {
  if (storedAsJson(t)) {
    const dec = compileDecoder(t, JSON_OPTIONS);
    const exact = typeHasDecimal(t);
    return (text) => dec(exact ? parseJsonExact(text) : parseJsonKeepingLongs(text));
  }
  switch (t.kind) {
    case "BOOLEAN":
      return (text) => text === "t" || text === "true";
    case "TINYINT":
    case "SMALLINT":
    case "INT":
    case "BIGINT":
      // int8 arrives as text: read exactly over the whole 64-bit range
      if (t.kind === "BIGINT")
        return (text) => {
          const n = parseInt64(text);
          if (n === null) throw new FormatError(`${text} is not exact as ${formatType(t)}`);
          return n;
        };
      return (text) => {
        const n = Number(text);
        if (!Number.isSafeInteger(n)) throw new FormatError(`${text} is not exact as ${formatType(t)}`);
        return n;
      };
    case "FLOAT":
      return (text) => Math.fround(Number(text));
    case "DOUBLE":
      return (text) => Number(text);
    case "DECIMAL": {
      const { precision, scale } = t;
      return (text) => {
        if (text === "NaN") throw new FormatError(`NaN does not fit ${formatType(t)}`);
        const v = parseDecimal(text, precision, scale);
        if (v === null) throw new FormatError(`${text} does not fit ${formatType(t)}`);
        return v;
      };
    }
    case "CHAR":
    case "VARCHAR":
      return (text) => text;
    case "BINARY":
    case "VARBINARY":
      return (text) => {
        if (!text.startsWith("\\x"))
          throw new FormatError("bytea output is not hex (set bytea_output = 'hex')");
        return new Uint8Array(Buffer.from(text.slice(2), "hex"));
      };
    case "DATE":
      return parsePgDate;
    case "TIME":
      return parseTime;
    case "TIMESTAMP":
      if (isPreciseTimestamp(t)) return (text) => parsePgTimestampNanos(text, false, t.precision);
      return (text) => parsePgTimestamp(text, false);
    case "TIMESTAMP_LTZ":
      if (isPreciseTimestamp(t)) return (text) => parsePgTimestampNanos(text, true, t.precision);
      return (text) => parsePgTimestamp(text, true);
    case "INTERVAL_DAY_TIME":
      return (text) => {
        const { months, ms } = parseIsoInterval(text);
        return ms + months * 30 * MS_PER_DAY;
      };
    case "INTERVAL_YEAR_MONTH":
      return (text) => parseIsoInterval(text).months;
    case "ARRAY": {
      const el = compileValueDecoder(t.element);
      return (text) => parsePgArray(text).map((x) => (x === null ? null : el(x)));
    }
    case "MAP":
    case "MULTISET":
    case "ROW":
    case "NULL":
      return () => null;
    default: {
      const _exhaustive: never = t;
      return _exhaustive;
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Dates and timestamps in Postgres's ISO text (years before 1 are written `… BC`).

function civil(days: number): { y: number; m: number; d: number } {
  const dt = new Date(days * MS_PER_DAY);
  return { y: dt.getUTCFullYear(), m: dt.getUTCMonth() + 1, d: dt.getUTCDate() };
}

function pad(n: number, w: number): string {
  return String(n).padStart(w, "0");
}

export function formatPgDate(days: number): string {
  const { y, m, d } = civil(days);
  const bc = y <= 0;
  return `${pad(bc ? 1 - y : y, 4)}-${pad(m, 2)}-${pad(d, 2)}${bc ? " BC" : ""}`;
}

/** `00`..`59` and `000`..`999`, for the time of day of {@link formatPgTimestamp}. */
const PAD2 = Array.from({ length: 60 }, (_, i) => String(i).padStart(2, "0"));
const PAD3 = Array.from({ length: 1000 }, (_, i) => String(i).padStart(3, "0"));
const PAD3_UTC = PAD3.map((p) => `${p}+00`);

/** The day {@link formatPgTimestamp} formatted last, and its date text: a sink's rows mostly share days. */
let lastDays = Number.NaN;
let lastDate = "";
let lastBc = false;
/**
 * The second {@link formatPgTimestamp} formatted last and its text up to the fraction's dot
 * (`YYYY-MM-DD HH:MM:SS.`); a sink's rows mostly come in time order, many to a second.
 */
let lastSecond = Number.NaN;
let lastSecondText = "";

export function formatPgTimestamp(ms: number): string {
  const second = Math.floor(ms / 1000);
  if (second !== lastSecond) secondText(second);
  const text = lastSecondText + PAD3[ms - second * 1000];
  return lastBc ? `${text} BC` : text;
}

/** {@link formatPgTimestamp} with `+00` (TIMESTAMP_LTZ: the instant in UTC). */
export function formatPgTimestampUtc(ms: number): string {
  const second = Math.floor(ms / 1000);
  if (second !== lastSecond) secondText(second);
  return lastBc
    ? `${lastSecondText}${PAD3[ms - second * 1000]} BC+00`
    : lastSecondText + PAD3_UTC[ms - second * 1000];
}

/** Sets {@link lastSecond} and its text. */
function secondText(second: number): void {
  const days = Math.floor(second / 86_400);
  if (days !== lastDays) {
    const date = formatPgDate(days);
    lastBc = date.endsWith(" BC");
    lastDate = lastBc ? date.slice(0, -3) : date;
    lastDays = days;
  }
  const sec = second - days * 86_400;
  lastSecondText = `${lastDate} ${PAD2[Math.floor(sec / 3600)]}:${PAD2[Math.floor(sec / 60) % 60]}:${PAD2[sec % 60]}.`;
  lastSecond = second;
}

/** A TIMESTAMP(4..9) value (epoch nanos) as Postgres text: min(precision, 6) fraction digits. */
export function formatPgTimestampNanos(ns: bigint, precision: number): string {
  const ms = nanosToMillis(ns);
  const digits = Math.min(precision, 6);
  const micros = String(nanoOfMilli(ns))
    .padStart(6, "0")
    .slice(0, digits - 3);
  const text = formatPgTimestamp(ms);
  return text.endsWith(" BC") ? `${text.slice(0, -3)}${micros} BC` : `${text}${micros}`;
}

/** `parsePgTimestamp` keeping the microseconds: epoch nanos, truncated to `precision`. */
export function parsePgTimestampNanos(text: string, withZone: boolean, precision: number): bigint {
  const ms = parsePgTimestamp(text, withZone);
  const m = PG_TS_RE.exec(text);
  const frac = m?.[7] ?? "";
  const sub = frac.length <= 3 ? 0 : Number(frac.slice(3, Math.min(6, precision)).padEnd(6, "0"));
  return millisToNanos(ms, sub);
}

const PG_DATE_RE = /^(\d{4,})-(\d{2})-(\d{2})( BC)?$/;
const PG_TS_RE =
  /^(\d{4,})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,6}))?([+-]\d{2}(?::\d{2}){0,2})?( BC)?$/;

function daysOf(yText: string, mText: string, dText: string, bc: boolean): number {
  const y = bc ? 1 - Number(yText) : Number(yText);
  const dt = new Date(Date.UTC(2000, Number(mText) - 1, Number(dText)));
  dt.setUTCFullYear(y);
  return Math.round(dt.getTime() / MS_PER_DAY);
}

export function parsePgDate(text: string): number {
  const m = PG_DATE_RE.exec(text);
  if (!m) throw new FormatError(`cannot read Postgres date '${text}'`);
  return daysOf(m[1], m[2], m[3], m[4] !== undefined);
}

export function parsePgTimestamp(text: string, withZone: boolean): number {
  const m = PG_TS_RE.exec(text);
  if (!m || (m[8] !== undefined) !== withZone)
    throw new FormatError(`cannot read Postgres timestamp '${text}'`);
  const days = daysOf(m[1], m[2], m[3], m[9] !== undefined);
  const millis = m[7] === undefined ? 0 : Number(m[7].padEnd(3, "0").slice(0, 3));
  let ms = days * MS_PER_DAY + ((Number(m[4]) * 60 + Number(m[5])) * 60 + Number(m[6])) * 1000 + millis;
  if (m[8] !== undefined) {
    const sign = m[8][0] === "-" ? -1 : 1;
    const [h, mi = "0", s = "0"] = m[8].slice(1).split(":");
    ms -= sign * ((Number(h) * 60 + Number(mi)) * 60 + Number(s)) * 1000;
  }
  return ms;
}

const ISO_INTERVAL_RE =
  /^P(?:(-?\d+)Y)?(?:(-?\d+)M)?(?:(-?\d+)D)?(?:T(?:(-?\d+)H)?(?:(-?\d+)M)?(?:(-?\d+(?:\.\d+)?)S)?)?$/;

/** An `IntervalStyle = iso_8601` value as months plus milliseconds (a day counts 24 h). */
export function parseIsoInterval(text: string): { months: number; ms: number } {
  const m = ISO_INTERVAL_RE.exec(text);
  if (!m) throw new FormatError(`cannot read Postgres interval '${text}'`);
  const n = (i: number): number => (m[i] === undefined ? 0 : Number(m[i]));
  const seconds = m[6] === undefined ? 0 : Math.round(Number(m[6]) * 1000);
  return {
    months: n(1) * 12 + n(2),
    ms: ((n(3) * 24 + n(4)) * 60 + n(5)) * 60_000 + seconds,
  };
}
