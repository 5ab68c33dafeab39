import type { Row } from "../changelog.js";

/**
 * A compact encoding of a row as one string of byte-sized characters (every character is
 * U+0000..U+00FF, so V8 keeps it as a one-byte string: 1 byte per character plus a 16-byte
 * header). Operators that hold many rows in state (the regular join) store this instead of an
 * array of boxed values: a row of a Nexmark bid is ~170 bytes of string instead of ~1 KB of arrays,
 * heap numbers and a separate row key, and a string is a leaf the garbage collector does not trace.
 * The string is plain data, so a snapshot and an on-disk backend store it as it is.
 *
 * Invariants:
 * - `decodeRow(encodeRow(r))` equals `r` value for value (`undefined` reads back as null; -0, NaN
 *   and ±∞ survive; strings are exact, lone surrogates included).
 * - The encoding is canonical: two rows whose values are equal (`Object.is` for numbers, except
 *   that every NaN is one value; structural for bytes, arrays, rows and maps) have the same
 *   encoding, so an encoded row is its own Map key. Integral numbers and non-integral ones are
 *   encoded differently but cannot be equal. Maps encode in insertion order, so equal maps built
 *   in different orders differ (a row with a MAP column is still stored and read back exactly).
 *
 * Layout: per value a tag byte, then its body. Unsigned varints are LEB128 (7 bits per byte, up to
 * 2^53).
 */

const T_NULL = 0;
const T_FALSE = 1;
const T_TRUE = 2;
/** A non-negative safe integer (not -0): varint. */
const T_INT = 3;
/** A negative safe integer: varint of its magnitude. */
const T_NEG_INT = 11;
/** Any other number: 8 bytes, IEEE 754 little-endian (NaN canonical). */
const T_DOUBLE = 4;
/** A string of code units < 0x80: varint length, then one byte per character. */
const T_ASCII = 5;
/** Any other string: varint length (code units), then two bytes per code unit (little-endian). */
const T_WIDE = 6;
/** A bigint: sign byte (0 = ≥ 0, 1 = < 0), varint length, then the magnitude's hex digits. */
const T_BIGINT = 7;
/** Bytes: varint length, then the bytes. */
const T_BYTES = 8;
/** An array or nested row: varint length, then the elements. */
const T_ARRAY = 9;
/** A Map (MAP, MULTISET): varint size, then key, value, key, value, ... in insertion order. */
const T_MAP = 10;

/**
 * Node's latin1 fast paths (what `buf.write(s, o, "latin1")` and `buf.toString("latin1", a, b)`
 * end in), called directly: the generic wrappers' encoding dispatch was ~6% of q20 in a profile.
 */
interface Latin1Buffer extends Buffer {
  latin1Write(s: string, offset: number): number;
  latin1Slice(start: number, end: number): string;
}

let buf = Buffer.allocUnsafe(4096) as Latin1Buffer;
let pos = 0;
const f64 = new Float64Array(1);
const f64Bytes = new Uint8Array(f64.buffer);

function ensure(n: number): void {
  if (pos + n <= buf.length) return;
  let size = buf.length * 2;
  while (size < pos + n) size *= 2;
  const next = Buffer.allocUnsafe(size) as Latin1Buffer;
  buf.copy(next, 0, 0, pos);
  buf = next;
}

function writeUvarint(v: number): void {
  ensure(8);
  while (v >= 0x80) {
    buf[pos++] = (v % 0x80) | 0x80;
    v = Math.floor(v / 0x80);
  }
  buf[pos++] = v;
}

function writeValue(v: unknown): void {
  if (v === null || v === undefined) {
    ensure(1);
    buf[pos++] = T_NULL;
    return;
  }
  switch (typeof v) {
    case "number": {
      if (Number.isSafeInteger(v) && !(v === 0 && 1 / v < 0)) {
        ensure(1);
        buf[pos++] = v >= 0 ? T_INT : T_NEG_INT;
        writeUvarint(v >= 0 ? v : -v);
        return;
      }
      ensure(9);
      buf[pos++] = T_DOUBLE;
      f64[0] = Number.isNaN(v) ? Number.NaN : v;
      for (let i = 0; i < 8; i++) buf[pos++] = f64Bytes[i];
      return;
    }
    case "string":
      writeString(v);
      return;
    case "boolean":
      ensure(1);
      buf[pos++] = v ? T_TRUE : T_FALSE;
      return;
    case "bigint": {
      const hex = (v < 0n ? -v : v).toString(16);
      ensure(2);
      buf[pos++] = T_BIGINT;
      buf[pos++] = v < 0n ? 1 : 0;
      writeUvarint(hex.length);
      ensure(hex.length);
      pos += buf.latin1Write(hex, pos);
      return;
    }
    default:
      break;
  }
  if (v instanceof Uint8Array) {
    ensure(1);
    buf[pos++] = T_BYTES;
    writeUvarint(v.length);
    ensure(v.length);
    buf.set(v, pos);
    pos += v.length;
    return;
  }
  if (Array.isArray(v)) {
    ensure(1);
    buf[pos++] = T_ARRAY;
    writeUvarint(v.length);
    for (let i = 0; i < v.length; i++) writeValue(v[i]);
    return;
  }
  if (v instanceof Map) {
    ensure(1);
    buf[pos++] = T_MAP;
    writeUvarint(v.size);
    for (const [k, x] of v) {
      writeValue(k);
      writeValue(x);
    }
    return;
  }
  throw new Error(`a value of type ${Object.prototype.toString.call(v)} cannot be stored in a row`);
}

function writeString(s: string): void {
  const n = s.length;
  // ASCII exactly when its UTF-8 length is its length (native, no per-character loop here).
  if (Buffer.byteLength(s, "utf8") === n) {
    ensure(1);
    buf[pos++] = T_ASCII;
    writeUvarint(n);
    ensure(n);
    pos += buf.latin1Write(s, pos);
    return;
  }
  ensure(1);
  buf[pos++] = T_WIDE;
  writeUvarint(n);
  ensure(2 * n);
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i);
    buf[pos++] = c & 0xff;
    buf[pos++] = c >>> 8;
  }
}

/** The encoded form of `row` (see the module comment). */
export function encodeRow(row: Row): string {
  pos = 0;
  ensure(1);
  buf[pos++] = T_ARRAY;
  writeUvarint(row.length);
  for (let i = 0; i < row.length; i++) writeValue(row[i]);
  return buf.latin1Slice(0, pos);
}

/** Decoding cursor (the position in the string being read). */
let at = 0;

function readUvarint(s: string): number {
  let b = s.charCodeAt(at++);
  if (b < 0x80) return b;
  let v = b & 0x7f;
  let scale = 0x80;
  for (;;) {
    b = s.charCodeAt(at++);
    v += (b & 0x7f) * scale;
    if (b < 0x80) return v;
    scale *= 0x80;
    if (scale > 2 ** 56) throw new Error("malformed encoded row: varint too long");
  }
}

function readValue(s: string): unknown {
  const tag = s.charCodeAt(at++);
  switch (tag) {
    case T_NULL:
      return null;
    case T_FALSE:
      return false;
    case T_TRUE:
      return true;
    case T_INT:
      return readUvarint(s);
    case T_NEG_INT:
      return -readUvarint(s);
    case T_DOUBLE: {
      for (let i = 0; i < 8; i++) f64Bytes[i] = s.charCodeAt(at++);
      return f64[0];
    }
    case T_ASCII: {
      const n = readUvarint(s);
      const v = s.slice(at, at + n);
      at += n;
      return v;
    }
    case T_WIDE: {
      const n = readUvarint(s);
      const codes = new Array<number>(n);
      for (let i = 0; i < n; i++) {
        codes[i] = s.charCodeAt(at) | (s.charCodeAt(at + 1) << 8);
        at += 2;
      }
      return codesToString(codes);
    }
    case T_BIGINT: {
      const negative = s.charCodeAt(at++) === 1;
      const n = readUvarint(s);
      const magnitude = BigInt(`0x${s.slice(at, at + n)}`);
      at += n;
      return negative ? -magnitude : magnitude;
    }
    case T_BYTES: {
      const n = readUvarint(s);
      const out = new Uint8Array(n);
      for (let i = 0; i < n; i++) out[i] = s.charCodeAt(at + i);
      at += n;
      return out;
    }
    case T_ARRAY: {
      const n = readUvarint(s);
      const out = new Array(n);
      for (let i = 0; i < n; i++) out[i] = readValue(s);
      return out;
    }
    case T_MAP: {
      const n = readUvarint(s);
      const out = new Map<unknown, unknown>();
      for (let i = 0; i < n; i++) {
        const k = readValue(s);
        out.set(k, readValue(s));
      }
      return out;
    }
    default:
      throw new Error(`malformed encoded row: unknown tag ${tag} at ${at - 1}`);
  }
}

function codesToString(codes: number[]): string {
  let out = "";
  for (let i = 0; i < codes.length; i += 8192) out += String.fromCharCode(...codes.slice(i, i + 8192));
  return out;
}

/** The row that `encoded` holds; a new array each call. */
export function decodeRow(encoded: string): Row {
  at = 0;
  const v = readValue(encoded);
  if (!Array.isArray(v) || at !== encoded.length) throw new Error("malformed encoded row");
  return v;
}
