import type { DataType, Field } from "@weir/planner";
import { formatType } from "@weir/planner";
import { ConnectorError, parseInt64 } from "@weir/runtime";
import { javaBigDecimal } from "../java-string.js";
import { formatDecimal, parseDecimal } from "./decimal.js";
import { FormatError } from "./errors.js";
import type { NestedProjection } from "./format.js";
import { JsonNumber } from "./json-parse.js";
import { formatDate, formatTime, formatTimestamp, parseDate, parseTime, parseTimestamp } from "./temporal.js";
import { formatTimestampNanos, isPreciseTimestamp, parseTimestampNanos } from "./temporal-precision.js";

/**
 * Per-type converters between Weir values and Flink's JSON representation, compiled once per
 * schema. Encoders write JSON text directly (so DECIMAL keeps its scale: `12.30`); decoders take
 * what `JSON.parse` or the exact parser produced.
 */

export type TimestampStandard = "SQL" | "ISO-8601";

export interface JsonValueOptions {
  readonly timestampStandard: TimestampStandard;
  /** A field missing from an object is an error instead of NULL. */
  readonly failOnMissingField: boolean;
  /**
   * Writing a MAP (or MULTISET) entry with a NULL key (`<format>.map-null-key.mode`): `FAIL` the
   * job (Flink's default), `DROP` the entry, or write `mapNullKeyLiteral` as the key.
   */
  readonly mapNullKeyMode: MapNullKeyMode;
  readonly mapNullKeyLiteral: string;
  /**
   * `<format>.encode.decimal-as-plain-number`: DECIMAL always in plain notation; false (Flink's
   * default) writes Java's `BigDecimal.toString()`, which has an exponent below 10^-6 (`1E-7`).
   */
  readonly decimalAsPlainNumber: boolean;
  /** The options' prefix (`json`), for the errors that name an option. */
  readonly optionPrefix: string;
}

export type MapNullKeyMode = "FAIL" | "DROP" | "LITERAL";

export type JsonEncoder = (value: unknown) => string;
export type JsonDecoder = (json: unknown) => unknown;

export function typeHasDecimal(t: DataType): boolean {
  switch (t.kind) {
    case "DECIMAL":
      return true;
    case "ARRAY":
    case "MULTISET":
      return typeHasDecimal(t.element);
    case "MAP":
      return typeHasDecimal(t.key) || typeHasDecimal(t.value);
    case "ROW":
      return t.fields.some((f) => typeHasDecimal(f.type));
    default:
      return false;
  }
}

// ---------------------------------------------------------------------------------------------
// Encoding

/** `path` names the value in errors: a column, or a field inside one (`col.field`). */
export function compileRowEncoder(
  fields: readonly Field[],
  o: JsonValueOptions,
  path = "",
): (row: readonly unknown[]) => string {
  const names = fields.map((f) => `${JSON.stringify(f.name)}:`);
  const encs = fields.map((f) => compileEncoder(f.type, o, fieldPath(path, f.name)));
  const n = fields.length;
  return (row) => {
    let s = "{";
    for (let i = 0; i < n; i++) {
      const v = row[i];
      s += (i === 0 ? "" : ",") + names[i] + (v === null || v === undefined ? "null" : encs[i](v));
    }
    return `${s}}`;
  };
}

function nullable(enc: JsonEncoder): JsonEncoder {
  return (v) => (v === null || v === undefined ? "null" : enc(v));
}

export function fieldPath(path: string, name: string): string {
  return path === "" ? name : `${path}.${name}`;
}

/** The text of a non-null DECIMAL(p, `scale`) value, as `o` asks (see `decimalAsPlainNumber`). */
export function decimalText(o: JsonValueOptions, scale: number): (unscaled: bigint) => string {
  // Below scale 7 Java's BigDecimal.toString() is always plain.
  if (o.decimalAsPlainNumber || scale <= 6) return (v) => formatDecimal(v, scale);
  return (v) => javaBigDecimal(v, scale);
}

/** Flink's error for a NULL map key in `FAIL` mode, naming the column and the option to set. */
export function mapNullKeyError(path: string, o: JsonValueOptions): ConnectorError {
  return new ConnectorError(
    `column '${path}': JSON format doesn't support to serialize map data with null keys. You can drop null key entries or encode null in literals by setting '${o.optionPrefix}.map-null-key.mode' to 'DROP' or 'LITERAL' (the key is then '${o.optionPrefix}.map-null-key.literal', default 'null')`,
    "user",
  );
}

export function compileEncoder(t: DataType, o: JsonValueOptions, path = "value"): JsonEncoder {
  const iso = o.timestampStandard === "ISO-8601";
  switch (t.kind) {
    case "BOOLEAN":
      return (v) => (v ? "true" : "false");
    case "TINYINT":
    case "SMALLINT":
    case "INT":
    case "BIGINT":
    case "INTERVAL_DAY_TIME":
    case "INTERVAL_YEAR_MONTH":
      return (v) => String(v);
    case "FLOAT":
    case "DOUBLE":
      // JSON has no NaN/Infinity; Jackson (Flink) writes them as strings.
      return (v) => (Number.isFinite(v as number) ? String(v) : `"${String(v)}"`);
    case "DECIMAL":
      return decimalText(o, t.scale) as JsonEncoder;
    case "CHAR":
    case "VARCHAR":
      return (v) => JSON.stringify(v);
    case "BINARY":
    case "VARBINARY":
      return (v) => `"${Buffer.from(v as Uint8Array).toString("base64")}"`;
    case "DATE":
      return (v) => `"${formatDate(v as number)}"`;
    case "TIME":
      return (v) => `"${formatTime(v as number, Math.min(t.precision, 3))}"`;
    case "TIMESTAMP":
      if (isPreciseTimestamp(t))
        return (v) => `"${formatTimestampNanos(v as bigint, iso ? "T" : " ", t.precision)}"`;
      return (v) => `"${formatTimestamp(v as number, iso ? "T" : " ")}"`;
    case "TIMESTAMP_LTZ":
      if (isPreciseTimestamp(t))
        return (v) => `"${formatTimestampNanos(v as bigint, iso ? "T" : " ", t.precision)}Z"`;
      return (v) => `"${formatTimestamp(v as number, iso ? "T" : " ")}Z"`;
    case "ARRAY": {
      const el = nullable(compileEncoder(t.element, o, path));
      return (v) => `[${(v as unknown[]).map(el).join(",")}]`;
    }
    case "MAP":
    case "MULTISET": {
      const key = compileEncoder(t.kind === "MAP" ? t.key : t.element, o, path);
      const val = t.kind === "MAP" ? nullable(compileEncoder(t.value, o, path)) : (c: unknown) => String(c);
      const mode = o.mapNullKeyMode;
      const literal = JSON.stringify(o.mapNullKeyLiteral);
      return (v) => {
        const parts: string[] = [];
        for (const [k, x] of v as Map<unknown, unknown>) {
          let kt: string;
          if (k === null || k === undefined) {
            if (mode === "DROP") continue;
            if (mode === "FAIL") throw mapNullKeyError(path, o);
            kt = literal;
          } else {
            kt = key(k);
            if (!kt.startsWith('"')) kt = JSON.stringify(kt);
          }
          parts.push(`${kt}:${val(x)}`);
        }
        return `{${parts.join(",")}}`;
      };
    }
    case "ROW":
      return compileRowEncoder(t.fields, o, path === "value" ? "" : path) as JsonEncoder;
    case "NULL":
      return () => "null";
    default: {
      const _exhaustive: never = t;
      return _exhaustive;
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Decoding

function describe(json: unknown): string {
  if (json instanceof JsonNumber) return json.text;
  const s = JSON.stringify(json);
  return s.length > 40 ? `${s.slice(0, 40)}...` : s;
}

function mismatch(t: DataType, json: unknown): never {
  throw new FormatError(`cannot read ${describe(json)} as ${formatType(t)}`);
}

function numberOf(t: DataType, json: unknown): number {
  if (typeof json === "number") return json;
  if (json instanceof JsonNumber) return json.toNumber();
  if (typeof json === "string" && json.trim() !== "") {
    const n = Number(json.trim());
    if (!Number.isNaN(n) || json.trim() === "NaN") return n;
  }
  return mismatch(t, json);
}

const INT_RANGES = {
  TINYINT: [-128, 127],
  SMALLINT: [-32768, 32767],
  INT: [-2147483648, 2147483647],
  BIGINT: [Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER],
} as const;

/**
 * BIGINT: a JSON integer, or a string of one (Flink's `Long.parseLong(text.trim())`), read exactly
 * over the whole 64-bit range (see @weir/runtime's int64 helpers); a double that is integral and
 * safe (`1.0`) reads as before.
 */
function bigintDecoder(t: DataType): JsonDecoder {
  const range = (json: unknown): never => {
    throw new FormatError(`${describe(json)} is out of range for BIGINT`);
  };
  return (json) => {
    if (typeof json === "number") {
      if (!Number.isInteger(json)) return mismatch(t, json);
      return Number.isSafeInteger(json) ? json : range(json);
    }
    const src = json instanceof JsonNumber ? json.text : typeof json === "string" ? json.trim() : null;
    if (src === null) return mismatch(t, json);
    const v = parseInt64(src);
    if (v !== null) return v;
    if (/^[+-]?\d+$/.test(src)) return range(json);
    const n = numberOf(t, json);
    return Number.isSafeInteger(n) ? n : mismatch(t, json);
  };
}

function integer(t: DataType & { kind: keyof typeof INT_RANGES }): JsonDecoder {
  if (t.kind === "BIGINT") return bigintDecoder(t);
  const [lo, hi] = INT_RANGES[t.kind];
  return (json) => {
    const n = numberOf(t, json);
    if (!Number.isInteger(n)) mismatch(t, json);
    if (n < lo || n > hi) {
      throw new FormatError(`${describe(json)} is out of range for ${t.kind}`);
    }
    return n;
  };
}

function text(t: DataType, json: unknown): string {
  if (typeof json === "string") return json;
  return mismatch(t, json);
}

const SKIP = (): unknown => null;

export function compileRowDecoder(
  fields: readonly Field[],
  o: JsonValueOptions,
  /** Fields the query reads; the others stay NULL, unread (projection push-down). */
  projection?: ReadonlySet<number>,
  /** Of a projected ROW field read in part, the fields read (the others stay NULL, unread). */
  nested?: ReadonlyMap<number, NestedProjection | null>,
): (json: unknown) => unknown[] {
  const names = fields.map((f) => f.name);
  const decs = fields.map((f, i) => {
    if (projection !== undefined && !projection.has(i)) return SKIP;
    const read = nested?.get(i) ?? null;
    if (read === null || f.type.kind !== "ROW") return nullableDecoder(compileDecoder(f.type, o));
    return nullableDecoder(compileRowDecoder(f.type.fields, o, new Set(read.keys()), read) as JsonDecoder);
  });
  const n = fields.length;
  const failOnMissing = o.failOnMissingField;
  return (json) => {
    if (json === null || typeof json !== "object" || Array.isArray(json) || json instanceof JsonNumber) {
      throw new FormatError(`expected a JSON object, got ${describe(json)}`);
    }
    const obj = json as Record<string, unknown>;
    const row = new Array<unknown>(n);
    for (let i = 0; i < n; i++) {
      if (decs[i] === SKIP) {
        row[i] = null;
        continue;
      }
      const v = obj[names[i]];
      if (v === undefined) {
        if (failOnMissing) throw new FormatError(`field '${names[i]}' is missing`);
        row[i] = null;
        continue;
      }
      try {
        row[i] = decs[i](v);
      } catch (e) {
        if (e instanceof FormatError) throw new FormatError(`field '${names[i]}': ${e.message}`);
        throw e;
      }
    }
    return row;
  };
}

function nullableDecoder(dec: JsonDecoder): JsonDecoder {
  return (json) => (json === null ? null : dec(json));
}

export function compileDecoder(t: DataType, o: JsonValueOptions): JsonDecoder {
  switch (t.kind) {
    case "BOOLEAN":
      return (json) => {
        if (typeof json === "boolean") return json;
        if (json === "true" || json === "false") return json === "true";
        return mismatch(t, json);
      };
    case "TINYINT":
    case "SMALLINT":
    case "INT":
    case "BIGINT":
      return integer(t as DataType & { kind: keyof typeof INT_RANGES });
    case "INTERVAL_DAY_TIME":
    case "INTERVAL_YEAR_MONTH":
      return (json) => {
        const n = numberOf(t, json);
        return Number.isSafeInteger(n) ? n : mismatch(t, json);
      };
    case "FLOAT":
      return (json) => Math.fround(numberOf(t, json));
    case "DOUBLE":
      return (json) => numberOf(t, json);
    case "DECIMAL": {
      const { precision, scale } = t;
      return (json) => {
        let src: string;
        if (json instanceof JsonNumber) src = json.text;
        else if (typeof json === "string") src = json;
        else if (typeof json === "number") src = String(json);
        else return mismatch(t, json);
        const v = parseDecimal(src, precision, scale);
        // Flink reads an overflowing decimal as NULL; Weir never drops a value silently.
        if (v === null) throw new FormatError(`${src} does not fit ${formatType(t)}`);
        return v;
      };
    }
    case "CHAR":
    case "VARCHAR":
      // Flink reads a non-string node as its JSON text.
      return (json) => {
        if (typeof json === "string") return json;
        if (json instanceof JsonNumber) return json.text;
        return JSON.stringify(json, (_k, v) => (v instanceof JsonNumber ? Number(v.text) : v));
      };
    case "BINARY":
    case "VARBINARY":
      return (json) => {
        const s = text(t, json);
        if (!/^[A-Za-z0-9+/]*={0,2}$/.test(s)) throw new FormatError(`invalid base64 ${describe(json)}`);
        return new Uint8Array(Buffer.from(s, "base64"));
      };
    case "DATE":
      return (json) => parseDate(text(t, json));
    case "TIME":
      return (json) => parseTime(text(t, json));
    case "TIMESTAMP":
      if (isPreciseTimestamp(t))
        return (json) => parseTimestampNanos(text(t, json), "forbidden", t.precision);
      return (json) => parseTimestamp(text(t, json), "forbidden");
    case "TIMESTAMP_LTZ":
      if (isPreciseTimestamp(t)) return (json) => parseTimestampNanos(text(t, json), "optional", t.precision);
      return (json) => parseTimestamp(text(t, json), "optional");
    case "ARRAY": {
      const el = nullableDecoder(compileDecoder(t.element, o));
      return (json) => (Array.isArray(json) ? json.map(el) : mismatch(t, json));
    }
    case "MAP":
    case "MULTISET": {
      const key = compileDecoder(t.kind === "MAP" ? t.key : t.element, o);
      const isStringKey = (t.kind === "MAP" ? t.key : t.element).kind.endsWith("CHAR");
      const val =
        t.kind === "MAP"
          ? nullableDecoder(compileDecoder(t.value, o))
          : integer({ kind: "INT", nullable: false });
      return (json) => {
        if (json === null || typeof json !== "object" || Array.isArray(json) || json instanceof JsonNumber) {
          return mismatch(t, json);
        }
        const out = new Map<unknown, unknown>();
        for (const [k, v] of Object.entries(json)) {
          // Object keys are strings; a non-string key type reads the key as a JSON scalar.
          out.set(isStringKey ? k : key(parseKey(k)), val(v));
        }
        return out;
      };
    }
    case "ROW":
      return compileRowDecoder(t.fields, o);
    case "NULL":
      return () => null;
    default: {
      const _exhaustive: never = t;
      return _exhaustive;
    }
  }
}

function parseKey(k: string): unknown {
  if (/^-?\d/.test(k)) return new JsonNumber(k);
  if (k === "true" || k === "false") return k === "true";
  return k;
}
