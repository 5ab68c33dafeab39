import type { DataType } from "@weir/planner";
import { isPreciseTimestamp } from "../formats/temporal-precision.js";
import { NulInText } from "./values.js";

/**
 * One-dimensional Postgres arrays in the binary wire format (`array_recv`), for the `unnest`
 * statements of the sink (statements.ts): a Buffer parameter is sent with format code 1, so the
 * server reads the elements without parsing text, and Weir writes them without formatting,
 * quoting or escaping them.
 *
 * The layout: int32 ndim (1), int32 has-nulls flag, uint32 element type OID, int32 length,
 * int32 lower bound (1), then per element an int32 byte length (-1: NULL) and the element's
 * binary form (`<type>_recv`): big-endian integers and IEEE floats; text as UTF-8; bytea as
 * its bytes; date as int32 days and timestamp/timestamptz as int64 microseconds since
 * 2000-01-01; numeric as base-10000 digits (`numeric_recv`).
 *
 * Only the column types below are written this way; the others (time, interval, jsonb,
 * citext, numeric columns of integer values, TIMESTAMP(4..9), …) keep the array text literal.
 * The element OIDs are Postgres's built-in ones, fixed since the types exist.
 */
export interface BinaryElement {
  /** The element type's OID (array_recv checks it against the parameter's declared type). */
  readonly oid: number;
  /** Appends one non-null value (its length prefix included). */
  readonly write: (w: BinaryArrayWriter, v: unknown) => void;
}

const OID = {
  bool: 16,
  bytea: 17,
  int8: 20,
  int2: 21,
  int4: 23,
  text: 25,
  float4: 700,
  float8: 701,
  bpchar: 1042,
  varchar: 1043,
  date: 1082,
  timestamp: 1114,
  timestamptz: 1184,
  numeric: 1700,
} as const;

/** 2000-01-01 (Postgres's epoch) in Unix milliseconds and days. */
const PG_EPOCH_MS = 946_684_800_000;
const PG_EPOCH_DAYS = 10_957;
const TWO_32 = 4_294_967_296;
/** Below this many milliseconds from 2000-01-01 the microseconds are exact as a double. */
const EXACT_MS = 9_007_199_254_740;
const SAFE_BIG = 2n ** 53n;
const TWO_53 = 2 ** 53;
const NEG_SAFE_BIG = -SAFE_BIG;
const POW10 = Float64Array.from({ length: 16 }, (_, i) => 10 ** i);
/** Scratch for {@link BinaryArrayWriter.smallNumeric}: at most 3 fraction and 4 integer digits. */
const DIGITS = new Float64Array(8);

const NAME_OF_OID = new Map<number, string>(Object.entries(OID).map(([name, oid]) => [oid, name]));

/**
 * The binary element of a column whose Postgres type has OID `typeOid` (a built-in type; a
 * domain or an extension's type has its own OID and keeps the text literal) holding Weir values
 * of type `t`, or null when the column keeps the text literal.
 */
export function binaryElementOf(t: DataType, typeOid: number | undefined): BinaryElement | null {
  const udt = typeOid === undefined ? undefined : NAME_OF_OID.get(typeOid);
  if (udt === undefined) return null;
  switch (t.kind) {
    case "BOOLEAN":
      return udt === "bool" ? { oid: OID.bool, write: (w, v) => w.bool(v === true) } : null;
    case "TINYINT":
    case "SMALLINT":
    case "INT":
    case "BIGINT":
      if (udt === "int2") return { oid: OID.int2, write: (w, v) => w.int16(v as number) };
      if (udt === "int4") return { oid: OID.int4, write: (w, v) => w.int32(v as number) };
      if (udt === "int8") return { oid: OID.int8, write: (w, v) => w.int64(v as number | bigint) };
      return null;
    case "FLOAT":
    case "DOUBLE":
      if (udt === "float4" && t.kind === "FLOAT")
        return { oid: OID.float4, write: (w, v) => w.float32(v as number) };
      if (udt === "float8") return { oid: OID.float8, write: (w, v) => w.float64(v as number) };
      return null;
    case "DECIMAL": {
      if (udt !== "numeric") return null;
      const scale = t.scale;
      // Up to 15 digits every value is below 10^15 < 2^53: exact as a double.
      if (t.precision <= 15 && scale <= 12)
        return {
          oid: OID.numeric,
          write: (w, v) => {
            const x = Number(v as bigint);
            if (x > -TWO_53 && x < TWO_53) w.smallNumeric(x, scale);
            else w.numeric(v as bigint, scale);
          },
        };
      return { oid: OID.numeric, write: (w, v) => w.numeric(v as bigint, scale) };
    }
    case "CHAR":
    case "VARCHAR": {
      const oid =
        udt === "text" ? OID.text : udt === "varchar" ? OID.varchar : udt === "bpchar" ? OID.bpchar : 0;
      return oid === 0 ? null : { oid, write: (w, v) => w.text(v as string) };
    }
    case "BINARY":
    case "VARBINARY":
      return udt === "bytea" ? { oid: OID.bytea, write: (w, v) => w.bytes(v as Uint8Array) } : null;
    case "DATE":
      return udt === "date"
        ? { oid: OID.date, write: (w, v) => w.int32((v as number) - PG_EPOCH_DAYS) }
        : null;
    case "TIMESTAMP":
    case "TIMESTAMP_LTZ": {
      if (isPreciseTimestamp(t)) return null;
      const want = t.kind === "TIMESTAMP" ? "timestamp" : "timestamptz";
      if (udt !== want) return null;
      return { oid: OID[want], write: (w, v) => w.timestampMs(v as number) };
    }
    default:
      return null;
  }
}

/** Appends the elements of one array parameter into a growing buffer. */
export class BinaryArrayWriter {
  private buf: Buffer;
  private pos = 20;
  private count = 0;
  private hasNull = false;

  constructor(
    private readonly oid: number,
    capacity = 1 << 16,
  ) {
    this.buf = Buffer.allocUnsafe(Math.max(64, capacity));
  }

  /** Bytes written so far (the header included). */
  get size(): number {
    return this.pos;
  }

  /** The array parameter, header filled in. */
  finish(): Buffer {
    const b = this.buf;
    b.writeInt32BE(1, 0);
    b.writeInt32BE(this.hasNull ? 1 : 0, 4);
    b.writeUInt32BE(this.oid, 8);
    b.writeInt32BE(this.count, 12);
    b.writeInt32BE(1, 16);
    return b.subarray(0, this.pos);
  }

  private ensure(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    const next = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.pos + n));
    this.buf.copy(next, 0, 0, this.pos);
    this.buf = next;
  }

  private length(n: number): void {
    const b = this.buf;
    const p = this.pos;
    b[p] = n >>> 24;
    b[p + 1] = (n >>> 16) & 0xff;
    b[p + 2] = (n >>> 8) & 0xff;
    b[p + 3] = n & 0xff;
    this.pos = p + 4;
  }

  null(): void {
    this.ensure(4);
    this.length(-1);
    this.hasNull = true;
    this.count++;
  }

  bool(v: boolean): void {
    this.ensure(5);
    this.length(1);
    this.buf[this.pos++] = v ? 1 : 0;
    this.count++;
  }

  int16(v: number): void {
    this.ensure(6);
    this.length(2);
    this.buf.writeInt16BE(v, this.pos);
    this.pos += 2;
    this.count++;
  }

  int32(v: number): void {
    this.ensure(8);
    this.length(4);
    this.buf.writeInt32BE(v, this.pos);
    this.pos += 4;
    this.count++;
  }

  int64(v: number | bigint): void {
    this.ensure(12);
    this.length(8);
    if (typeof v === "bigint") this.buf.writeBigInt64BE(v, this.pos);
    else this.word64(v);
    this.pos += 8;
    this.count++;
  }

  /** An integral double within ±2^53 as int64 at `pos` (pos not advanced). */
  private word64(v: number): void {
    const hi = Math.floor(v / TWO_32);
    this.buf.writeInt32BE(hi, this.pos);
    this.buf.writeUInt32BE(v - hi * TWO_32, this.pos + 4);
  }

  float32(v: number): void {
    this.ensure(8);
    this.length(4);
    this.buf.writeFloatBE(v, this.pos);
    this.pos += 4;
    this.count++;
  }

  float64(v: number): void {
    this.ensure(12);
    this.length(8);
    this.buf.writeDoubleBE(v, this.pos);
    this.pos += 8;
    this.count++;
  }

  /** Milliseconds since 1970 as Postgres's int64 microseconds since 2000-01-01. */
  timestampMs(ms: number): void {
    this.ensure(12);
    this.length(8);
    const d = ms - PG_EPOCH_MS;
    if (d > -EXACT_MS && d < EXACT_MS) this.word64(d * 1000);
    else this.buf.writeBigInt64BE(BigInt(d) * 1000n, this.pos);
    this.pos += 8;
    this.count++;
  }

  /** UTF-8 text; Postgres text cannot hold U+0000, so a NUL is an error. */
  text(s: string): void {
    const n = s.length;
    this.ensure(4 + 3 * n);
    const b = this.buf;
    const start = this.pos + 4;
    let p = start;
    if (n <= 64) {
      let i = 0;
      for (; i < n; i++) {
        const c = s.charCodeAt(i);
        if (c >= 0x80 || c === 0) break;
        b[p++] = c;
      }
      if (i < n) {
        if (s.includes("\u0000")) throw new NulInText(s);
        p = start + b.write(s, start, "utf8");
      }
    } else {
      if (s.includes("\u0000")) throw new NulInText(s);
      p = start + b.write(s, start, "utf8");
    }
    this.length(p - start);
    this.pos = p;
    this.count++;
  }

  bytes(v: Uint8Array): void {
    this.ensure(4 + v.byteLength);
    this.length(v.byteLength);
    this.buf.set(v, this.pos);
    this.pos += v.byteLength;
    this.count++;
  }

  /**
   * An unscaled DECIMAL at `scale` in `numeric_recv`'s form: int16 ndigits, int16 weight (of the
   * first base-10000 digit), int16 sign (0 or 0x4000), int16 dscale, then the digits, leading and
   * trailing zero digits left out.
   */
  numeric(unscaled: bigint, scale: number): void {
    if (scale <= 12 && unscaled > NEG_SAFE_BIG && unscaled < SAFE_BIG) {
      this.smallNumeric(Number(unscaled), scale);
      return;
    }
    const neg = unscaled < 0n;
    const s = (neg ? -unscaled : unscaled).toString();
    // The digit groups are aligned on the decimal point: the integer part's first group is
    // short from the left, the fraction's last group padded with zeros on the right.
    const intLen = s.length - scale;
    const lead = intLen > 0 ? (4 - (intLen % 4)) % 4 : 0;
    // Position (in the padded digit string) of digit 0 of s: the padded string starts at a
    // group boundary `lead` digits before s (integer part) or at the point (fraction only).
    const offset = intLen > 0 ? lead : -intLen;
    const total = offset + s.length;
    const groups = Math.ceil(total / 4);
    const intGroups = intLen > 0 ? (intLen + lead) / 4 : 0;
    this.ensure(12 + 2 * groups);
    const b = this.buf;
    const head = this.pos;
    let p = head + 12;
    let first = -1;
    let last = -1;
    let written = 0;
    for (let g = 0; g < groups; g++) {
      let d = 0;
      for (let k = 0; k < 4; k++) {
        const i = g * 4 + k - offset;
        d = d * 10 + (i >= 0 && i < s.length ? s.charCodeAt(i) - 48 : 0);
      }
      if (first < 0) {
        if (d === 0) continue;
        first = g;
      }
      b[p] = d >> 8;
      b[p + 1] = d & 0xff;
      p += 2;
      written++;
      if (d !== 0) last = written;
    }
    const ndigits = first < 0 ? 0 : last;
    p = head + 12 + 2 * ndigits;
    const weight = first < 0 ? 0 : intGroups - 1 - first;
    this.length(8 + 2 * ndigits);
    b.writeInt16BE(ndigits, head + 4);
    b.writeInt16BE(weight, head + 6);
    b.writeUInt16BE(neg && ndigits > 0 ? 0x4000 : 0, head + 8);
    b.writeInt16BE(scale, head + 10);
    this.pos = p;
    this.count++;
  }

  /**
   * {@link numeric} of an unscaled value within ±2^53 at a scale of at most 12, in doubles: the
   * fraction, padded to whole base-10000 digits, stays below 10^15, so every step is exact.
   */
  smallNumeric(unscaled: number, scale: number): void {
    const neg = unscaled < 0;
    const x = neg ? -unscaled : unscaled;
    const pow = POW10[scale];
    let int = Math.floor(x / pow);
    // x / pow is rounded: near 2^53 it can round up to the next integer.
    if (int * pow > x) int--;
    const pad = (4 - (scale % 4)) % 4;
    let frac = (x - int * pow) * POW10[pad];
    const fracGroups = (scale + pad) / 4;
    // Digits, least significant first: the fraction's, then the integer part's.
    const digits = DIGITS;
    let n = 0;
    for (let g = 0; g < fracGroups; g++) {
      const d = frac % 10_000;
      digits[n++] = d;
      frac = (frac - d) / 10_000;
    }
    while (int > 0) {
      const d = int % 10_000;
      digits[n++] = d;
      int = (int - d) / 10_000;
    }
    // Leading (most significant) and trailing zero digits are left out.
    let hi = n - 1;
    while (hi >= 0 && digits[hi] === 0) hi--;
    let lo = 0;
    while (lo <= hi && digits[lo] === 0) lo++;
    const ndigits = hi < 0 ? 0 : hi - lo + 1;
    this.ensure(12 + 2 * ndigits);
    this.length(8 + 2 * ndigits);
    const b = this.buf;
    let p = this.pos;
    const weight = hi < 0 ? 0 : hi - fracGroups;
    b.writeInt16BE(ndigits, p);
    b.writeInt16BE(weight, p + 2);
    b.writeUInt16BE(neg && ndigits > 0 ? 0x4000 : 0, p + 4);
    b.writeInt16BE(scale, p + 6);
    p += 8;
    for (let k = hi; k >= lo; k--) {
      const d = digits[k];
      b[p] = d >> 8;
      b[p + 1] = d & 0xff;
      p += 2;
    }
    this.pos = p;
    this.count++;
  }
}
