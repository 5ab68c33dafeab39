import type { DataType, Field } from "@weir/planner";
import type { ByteOut } from "./byte-out.js";
import { compileEncoder, decimalText, fieldPath, type JsonValueOptions } from "./json-values.js";
import { formatDate, formatTime, formatTimestamp } from "./temporal.js";
import { formatTimestampNanos, isPreciseTimestamp } from "./temporal-precision.js";

/**
 * The JSON encoder of `json-values.ts` (`compileRowEncoder`), writing UTF-8 bytes into a
 * `ByteOut` instead of building a string per row: the same bytes as `Buffer.from(encoder(row))`
 * for every value (the tests compare the two), without the intermediate strings. Field names are
 * encoded once; integers, strings and millisecond timestamps are written digit by digit and
 * byte by byte (a timestamp's date part is kept per day); the other types go through their
 * string encoder.
 */

export type JsonByteWriter = (value: unknown, out: ByteOut) => void;

const MS_PER_DAY = 86_400_000;
const NULL = Buffer.from("null", "latin1");
const TRUE = Buffer.from("true", "latin1");
const FALSE = Buffer.from("false", "latin1");
const HEX = Buffer.from("0123456789abcdef", "latin1");
/** The two-character escapes `JSON.stringify` uses for control characters (0: `\u00XX`). */
const SHORT_ESCAPE = new Uint8Array(32);
SHORT_ESCAPE[8] = 0x62; // \b
SHORT_ESCAPE[9] = 0x74; // \t
SHORT_ESCAPE[10] = 0x6e; // \n
SHORT_ESCAPE[12] = 0x66; // \f
SHORT_ESCAPE[13] = 0x72; // \r
/** Longer strings go through `JSON.stringify` (the inline writer reserves 6 bytes per unit). */
const INLINE_STRING_MAX = 4096;

function copy(bytes: Uint8Array, out: ByteOut): void {
  const n = bytes.length;
  out.ensure(n);
  const buf = out.buf;
  let p = out.pos;
  for (let i = 0; i < n; i++) buf[p++] = bytes[i]!;
  out.pos = p;
}

/** A row as a JSON object: `{"name":value,...}`, field names in schema order. */
export function compileRowWriter(
  fields: readonly Field[],
  o: JsonValueOptions,
  path = "",
): (row: readonly unknown[], out: ByteOut) => void {
  const n = fields.length;
  if (n === 0) return (_row, out) => out.ascii("{}");
  const names = fields.map((f, i) => Buffer.from(`${i === 0 ? "{" : ","}${JSON.stringify(f.name)}:`, "utf8"));
  const writers = fields.map((f) => compileWriter(f.type, o, fieldPath(path, f.name)));
  return (row, out) => {
    for (let i = 0; i < n; i++) {
      copy(names[i]!, out);
      const v = row[i];
      if (v === null || v === undefined) copy(NULL, out);
      else writers[i]!(v, out);
    }
    out.byte(0x7d);
  };
}

/** The writer of one non-null value of type `t` (the same text as `compileEncoder(t, o, path)`). */
export function compileWriter(t: DataType, o: JsonValueOptions, path = "value"): JsonByteWriter {
  const iso = o.timestampStandard === "ISO-8601";
  switch (t.kind) {
    case "BOOLEAN":
      return (v, out) => copy(v ? TRUE : FALSE, out);
    case "TINYINT":
    case "SMALLINT":
    case "INT":
    case "BIGINT":
    case "INTERVAL_DAY_TIME":
    case "INTERVAL_YEAR_MONTH":
      return writeInteger;
    case "FLOAT":
    case "DOUBLE":
      return (v, out) => out.ascii(Number.isFinite(v as number) ? String(v) : `"${String(v)}"`);
    case "DECIMAL": {
      const text = decimalText(o, t.scale);
      return (v, out) => out.ascii(text(v as bigint));
    }
    case "CHAR":
    case "VARCHAR":
      return writeJsonString;
    case "DATE": {
      let lastDay = Number.NaN;
      let text: Uint8Array = NULL;
      return (v, out) => {
        if (v !== lastDay) {
          lastDay = v as number;
          text = Buffer.from(`"${formatDate(v as number)}"`, "latin1");
        }
        copy(text, out);
      };
    }
    case "TIMESTAMP":
      if (isPreciseTimestamp(t)) {
        const p = t.precision;
        return (v, out) => out.ascii(`"${formatTimestampNanos(v as bigint, iso ? "T" : " ", p)}"`);
      }
      return timestampWriter(iso, false);
    case "TIMESTAMP_LTZ":
      if (isPreciseTimestamp(t)) {
        const p = t.precision;
        return (v, out) => out.ascii(`"${formatTimestampNanos(v as bigint, iso ? "T" : " ", p)}Z"`);
      }
      return timestampWriter(iso, true);
    case "TIME": {
      const digits = Math.min(t.precision, 3);
      return (v, out) => out.ascii(`"${formatTime(v as number, digits)}"`);
    }
    case "ROW":
      return compileRowWriter(t.fields, o, path === "value" ? "" : path) as JsonByteWriter;
    case "NULL":
      return (_v, out) => copy(NULL, out);
    case "BINARY":
    case "VARBINARY":
    case "ARRAY":
    case "MAP":
    case "MULTISET": {
      // Rarer types: their string encoder, as UTF-8 (a string inside is escaped already).
      const enc = compileEncoder(t, o, path);
      return (v, out) => out.utf8(enc(v));
    }
    default: {
      const _exhaustive: never = t;
      return _exhaustive;
    }
  }
}

/** `String(v)` of an integer (a number, or a bigint beyond ±(2^53 − 1)). */
export function writeInteger(v: unknown, out: ByteOut): void {
  if (typeof v !== "number" || !Number.isSafeInteger(v)) {
    out.ascii(String(v));
    return;
  }
  out.ensure(17);
  const buf = out.buf;
  let p = out.pos;
  let n = v;
  if (n < 0) {
    buf[p++] = 0x2d;
    n = -n;
  }
  if (n < 10) {
    buf[p++] = 0x30 + n;
    out.pos = p;
    return;
  }
  let digits = 1;
  for (let t = n; t >= 10; t = Math.floor(t / 10)) digits++;
  let at = p + digits;
  out.pos = at;
  while (n >= 10) {
    const q = Math.floor(n / 10);
    buf[--at] = 0x30 + (n - q * 10);
    n = q;
  }
  buf[--at] = 0x30 + n;
}

/** `JSON.stringify(s)` as UTF-8: `"` and `\` escaped, control characters and lone surrogates as escapes. */
export function writeJsonString(value: unknown, out: ByteOut): void {
  const s = value as string;
  const n = s.length;
  if (n > INLINE_STRING_MAX) {
    out.utf8(JSON.stringify(s));
    return;
  }
  out.ensure(n * 6 + 2);
  const buf = out.buf;
  let p = out.pos;
  buf[p++] = 0x22;
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) {
      if (c >= 0x20) {
        if (c === 0x22 || c === 0x5c) buf[p++] = 0x5c;
        buf[p++] = c;
      } else {
        buf[p++] = 0x5c;
        const e = SHORT_ESCAPE[c]!;
        if (e !== 0) {
          buf[p++] = e;
        } else {
          buf[p++] = 0x75;
          buf[p++] = 0x30;
          buf[p++] = 0x30;
          buf[p++] = HEX[c >> 4]!;
          buf[p++] = HEX[c & 15]!;
        }
      }
    } else if (c < 0x800) {
      buf[p++] = 0xc0 | (c >> 6);
      buf[p++] = 0x80 | (c & 0x3f);
    } else if (c < 0xd800 || c > 0xdfff) {
      buf[p++] = 0xe0 | (c >> 12);
      buf[p++] = 0x80 | ((c >> 6) & 0x3f);
      buf[p++] = 0x80 | (c & 0x3f);
    } else {
      const d = c <= 0xdbff && i + 1 < n ? s.charCodeAt(i + 1) : 0;
      if (d >= 0xdc00 && d <= 0xdfff) {
        const cp = ((c - 0xd800) << 10) + (d - 0xdc00) + 0x10000;
        buf[p++] = 0xf0 | (cp >> 18);
        buf[p++] = 0x80 | ((cp >> 12) & 0x3f);
        buf[p++] = 0x80 | ((cp >> 6) & 0x3f);
        buf[p++] = 0x80 | (cp & 0x3f);
        i++;
      } else {
        // A lone surrogate: `JSON.stringify` writes it as `\udXXX`.
        buf[p++] = 0x5c;
        buf[p++] = 0x75;
        buf[p++] = HEX[c >> 12]!;
        buf[p++] = HEX[(c >> 8) & 15]!;
        buf[p++] = HEX[(c >> 4) & 15]!;
        buf[p++] = HEX[c & 15]!;
      }
    }
  }
  buf[p++] = 0x22;
  out.pos = p;
}

function two(buf: Buffer, p: number, n: number): void {
  const tens = (n / 10) | 0;
  buf[p] = 0x30 + tens;
  buf[p + 1] = 0x30 + (n - tens * 10);
}

/** `"yyyy-MM-dd HH:mm:ss.SSS"` (`T` for ISO-8601; a `Z` before the quote for TIMESTAMP_LTZ) of epoch ms. */
function timestampWriter(iso: boolean, zulu: boolean): JsonByteWriter {
  const sep = iso ? "T" : " ";
  const sepByte = sep.charCodeAt(0);
  let lastDay = Number.NaN;
  let day: Uint8Array = NULL;
  return (v, out) => {
    const ms = v as number;
    if (!Number.isSafeInteger(ms)) {
      out.ascii(`"${formatTimestamp(ms, sep)}${zulu ? "Z" : ""}"`);
      return;
    }
    const days = Math.floor(ms / MS_PER_DAY);
    if (days !== lastDay) {
      lastDay = days;
      day = Buffer.from(`"${formatDate(days)}`, "latin1");
    }
    const n = day.length;
    out.ensure(n + 16);
    const buf = out.buf;
    let p = out.pos;
    for (let i = 0; i < n; i++) buf[p++] = day[i]!;
    const t = ms - days * MS_PER_DAY;
    const milli = t % 1000;
    const s = (t - milli) / 1000;
    const h = Math.floor(s / 3600);
    const rest = s - h * 3600;
    const mi = Math.floor(rest / 60);
    buf[p] = sepByte;
    two(buf, p + 1, h);
    buf[p + 3] = 0x3a;
    two(buf, p + 4, mi);
    buf[p + 6] = 0x3a;
    two(buf, p + 7, rest - mi * 60);
    buf[p + 9] = 0x2e;
    const hundreds = (milli / 100) | 0;
    buf[p + 10] = 0x30 + hundreds;
    two(buf, p + 11, milli - hundreds * 100);
    p += 13;
    if (zulu) buf[p++] = 0x5a;
    buf[p++] = 0x22;
    out.pos = p;
  };
}
