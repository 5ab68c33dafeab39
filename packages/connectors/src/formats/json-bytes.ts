import type { Field } from "@weir/planner";
import { parseInt64 } from "@weir/runtime";
import { parseDecimal } from "./decimal.js";
import type { NestedProjection } from "./format.js";
import {
  checkEscapes,
  type FieldPlan,
  GIVE_UP,
  hasSpecialName,
  K,
  POW10,
  planRow,
  type RowPlan,
} from "./json-fast.js";
import { MAX_JSON_DEPTH, parseJsonExact } from "./json-parse.js";
import type { JsonValueOptions } from "./json-values.js";
import { fastDateBytes, fastTimestampBytes } from "./temporal-fast.js";

/**
 * The fast JSON reader of `json-fast.ts`, reading a record straight from its bytes (a Kafka
 * message value, a line of a file) instead of from the text decoded out of them: no string for
 * the whole record, only the values the query reads are built. It reads ASCII records only: at
 * the first byte of 0x80 or above (or anything else it does not read by hand, as the text
 * reader) it gives up (`undefined`), and the caller decodes the text and runs the text reader
 * and the full path — which give the row, or the same error as before. Where it returns a row,
 * it is the row the text reader returns for the same bytes (the same plan, the same decisions,
 * the same copies: strings are copied out of the bytes, never slices of a larger string).
 */
export type ByteRowReader = (bytes: Buffer, start: number, end: number) => unknown[] | undefined;

/** The byte reader for a `json` table, or null where `compileFastRowReader` gives none. */
export function compileByteRowReader(
  fields: readonly Field[],
  o: JsonValueOptions,
  projection: ReadonlySet<number> | undefined,
  exact: boolean,
  spareSlots = 0,
  /** See `FormatOptions.nested`. */
  nested?: ReadonlyMap<number, NestedProjection>,
): ByteRowReader | null {
  if (hasSpecialName(fields)) return null;
  const plan = planRow(fields, o, projection, nested);
  const reader = new ByteReader(exact, o.failOnMissingField, spareSlots);
  return (bytes, start, end) => reader.read(bytes, start, end, plan);
}

/**
 * The bytes `b[start..end)` as a string of one unit per byte, copied (a string of its own).
 * `latin1Slice` is what `toString("latin1", …)` calls after its argument checks.
 */
const latin1 = (b: Buffer, start: number, end: number): string =>
  (b as Buffer & { latin1Slice(start: number, end: number): string }).latin1Slice(start, end);

/** An ASCII string of `b[start..end)` (`end - start` ≤ 12 inline, else copied by Buffer). */
function ascii(b: Buffer, start: number, end: number): string {
  const a = start;
  switch (end - start) {
    case 0:
      return "";
    case 1:
      return String.fromCharCode(b[a]);
    case 2:
      return String.fromCharCode(b[a], b[a + 1]);
    case 3:
      return String.fromCharCode(b[a], b[a + 1], b[a + 2]);
    case 4:
      return String.fromCharCode(b[a], b[a + 1], b[a + 2], b[a + 3]);
    case 5:
      return String.fromCharCode(b[a], b[a + 1], b[a + 2], b[a + 3], b[a + 4]);
    case 6:
      return String.fromCharCode(b[a], b[a + 1], b[a + 2], b[a + 3], b[a + 4], b[a + 5]);
    case 7:
      return String.fromCharCode(b[a], b[a + 1], b[a + 2], b[a + 3], b[a + 4], b[a + 5], b[a + 6]);
    case 8:
      return String.fromCharCode(b[a], b[a + 1], b[a + 2], b[a + 3], b[a + 4], b[a + 5], b[a + 6], b[a + 7]);
    case 9:
      return String.fromCharCode(
        b[a],
        b[a + 1],
        b[a + 2],
        b[a + 3],
        b[a + 4],
        b[a + 5],
        b[a + 6],
        b[a + 7],
        b[a + 8],
      );
    case 10:
      return String.fromCharCode(
        b[a],
        b[a + 1],
        b[a + 2],
        b[a + 3],
        b[a + 4],
        b[a + 5],
        b[a + 6],
        b[a + 7],
        b[a + 8],
        b[a + 9],
      );
    case 11:
      return String.fromCharCode(
        b[a],
        b[a + 1],
        b[a + 2],
        b[a + 3],
        b[a + 4],
        b[a + 5],
        b[a + 6],
        b[a + 7],
        b[a + 8],
        b[a + 9],
        b[a + 10],
      );
    case 12:
      return String.fromCharCode(
        b[a],
        b[a + 1],
        b[a + 2],
        b[a + 3],
        b[a + 4],
        b[a + 5],
        b[a + 6],
        b[a + 7],
        b[a + 8],
        b[a + 9],
        b[a + 10],
        b[a + 11],
      );
    default:
      return latin1(b, start, end);
  }
}

/** The byte a JSON escape `\x` stands for, by `x` (0: not a valid one-letter escape). */
const ESCAPED = new Uint8Array(256);
ESCAPED[34] = 34; // \"
ESCAPED[92] = 92; // \\
ESCAPED[47] = 47; // \/
ESCAPED[98] = 8; // \b
ESCAPED[102] = 12; // \f
ESCAPED[110] = 10; // \n
ESCAPED[114] = 13; // \r
ESCAPED[116] = 9; // \t

/** Bytes inside a string: 0 plain, 1 `"`, 2 `\\`, 3 a control character or not ASCII (give up). */
const STRING_BYTE = new Uint8Array(256).fill(3, 0, 32).fill(3, 0x80, 256);
STRING_BYTE[34] = 1;
STRING_BYTE[92] = 2;

/** Whether the key at `b[at..end)` is exactly `name` followed by its closing quote. */
function sameKey(b: Buffer, end: number, at: number, name: Uint8Array): boolean {
  const len = name.length;
  if (at + len >= end) return false;
  for (let k = 0; k < len; k++) if (b[at + k] !== name[k]) return false;
  return b[at + len] === 34;
}

class ByteReader {
  private b: Buffer = Buffer.alloc(0);
  /** Where `unescape` writes a string's bytes. */
  private scratch: Buffer = Buffer.allocUnsafe(256);
  private p = 0;
  private end = 0;
  private depth = 0;
  private smallInt = false;
  private intValue = 0;
  private escaped = false;
  /** All-null rows by width, which `object` copies. */
  private readonly blanks: unknown[][] = [];

  constructor(
    private readonly exact: boolean,
    private readonly strict: boolean,
    private readonly spare: number,
  ) {}

  read(b: Buffer, start: number, end: number, plan: RowPlan): unknown[] | undefined {
    this.b = b;
    this.p = start;
    this.end = end;
    this.depth = 0;
    try {
      this.ws();
      if (this.at(this.p) !== 123) return undefined;
      const row = this.object(plan, this.spare);
      this.ws();
      return this.p === end ? row : undefined;
    } catch {
      // As the text reader: the caller's slower paths decide (and word the error).
      return undefined;
    }
  }

  /** The byte at `i`, or -1 past the end of the record (as `charCodeAt`'s NaN: matches nothing). */
  private at(i: number): number {
    return i < this.end ? this.b[i] : -1;
  }

  private ws(): void {
    let p = this.p;
    for (;;) {
      const c = this.at(p);
      if (c === 32 || c === 9 || c === 10 || c === 13) p++;
      else break;
    }
    this.p = p;
  }

  private object(plan: RowPlan, spare = 0): unknown[] {
    if (++this.depth > MAX_JSON_DEPTH) throw GIVE_UP;
    const n = plan.n;
    const names = plan.nameBytes;
    // A copy of an all-null row of the width (a packed array, copied in one go: cheaper than
    // `new Array(w).fill(null)`); the spare slots are popped, leaving their room.
    const width = n + spare;
    let blank = this.blanks[width];
    if (blank === undefined) {
      blank = [];
      for (let k = 0; k < width; k++) blank.push(null);
      this.blanks[width] = blank;
    }
    const row = blank.slice();
    for (let k = 0; k < spare; k++) row.pop();
    let seen = 0;
    let expect = 0;
    // The position is kept in a local between values (`this.p` is written for `value`, `skip` and
    // `stringEnd`, and read back after them): the same steps as `at` and `ws`, on locals.
    const b = this.b;
    const end = this.end;
    let p = this.p + 1;
    let c = p < end ? b[p] : -1;
    while (c === 32 || c === 9 || c === 10 || c === 13) c = ++p < end ? b[p] : -1;
    if (c === 125) {
      p++;
    } else {
      for (;;) {
        if (c !== 34) throw GIVE_UP;
        const keyStart = p + 1;
        let idx = -1;
        const next = expect < n && plan.plain[expect] ? names[expect] : null;
        if (next !== null && sameKey(b, end, keyStart, next)) {
          idx = expect;
          p = keyStart + next.length + 1;
        } else {
          this.p = p;
          const keyEnd = this.stringEnd();
          if (this.escaped) {
            const key = JSON.parse(latin1(b, keyStart - 1, keyEnd + 1)) as string;
            idx = plan.names.indexOf(key);
          } else {
            const len = keyEnd - keyStart;
            for (let k = 0; k < n; k++) {
              const nb = names[k];
              if (nb !== null && nb.length === len && sameKey(b, end, keyStart, nb)) {
                idx = k;
                break;
              }
            }
          }
          p = keyEnd + 1;
        }
        c = p < end ? b[p] : -1;
        while (c === 32 || c === 9 || c === 10 || c === 13) c = ++p < end ? b[p] : -1;
        if (c !== 58) throw GIVE_UP;
        p++;
        c = p < end ? b[p] : -1;
        while (c === 32 || c === 9 || c === 10 || c === 13) c = ++p < end ? b[p] : -1;
        const f = idx < 0 ? null : plan.fields[idx];
        // A string without escapes (the common value): scanned here, as `stringEnd` scans it;
        // anything else (an escape, a control or non-ASCII byte, the end) goes the general way
        // from the same position.
        let q = -1;
        if (c === 34 && (f === null || f.kind === K.STRING)) {
          q = p + 1;
          while (q < end && STRING_BYTE[b[q]] === 0) q++;
          if (q >= end || b[q] !== 34) q = -1;
        }
        if (f === null) {
          if (q >= 0) p = q + 1;
          else {
            this.p = p;
            this.skip();
            p = this.p;
          }
          if (idx >= 0) expect = idx + 1;
        } else {
          if (q >= 0) {
            row[idx] = ascii(b, p + 1, q);
            p = q + 1;
          } else {
            this.p = p;
            row[idx] = this.value(f);
            p = this.p;
          }
          if (idx < 31) seen |= 1 << idx;
          expect = idx + 1;
        }
        c = p < end ? b[p] : -1;
        while (c === 32 || c === 9 || c === 10 || c === 13) c = ++p < end ? b[p] : -1;
        p++;
        if (c === 125) break;
        if (c !== 44) throw GIVE_UP;
        c = p < end ? b[p] : -1;
        while (c === 32 || c === 9 || c === 10 || c === 13) c = ++p < end ? b[p] : -1;
      }
    }
    this.p = p;
    this.depth--;
    if (this.strict) {
      if (plan.n > 31) throw GIVE_UP;
      for (let i = 0; i < plan.n; i++) if (plan.fields[i] !== null && (seen & (1 << i)) === 0) throw GIVE_UP;
    }
    return row;
  }

  private value(f: FieldPlan): unknown {
    const c = this.at(this.p);
    if (c === 110) {
      this.literal("null");
      return null;
    }
    switch (f.kind) {
      case K.STRING:
        if (c === 34) return this.string();
        break;
      case K.INTEGER:
        if (c === 45 || (c >= 48 && c <= 57)) {
          const start = this.p;
          this.number();
          const v = this.smallInt ? this.intValue : Number(latin1(this.b, start, this.p));
          if (Number.isInteger(v) && v >= f.lo && v <= f.hi) return v;
          if (f.big) {
            // a 64-bit id (a snowflake id, a Kafka offset): its digits, exactly
            const x = parseInt64(latin1(this.b, start, this.p));
            if (x !== null) return x;
          }
          throw GIVE_UP;
        }
        break;
      case K.DOUBLE:
      case K.FLOAT:
        if (c === 45 || (c >= 48 && c <= 57)) {
          const start = this.p;
          this.number();
          const v = this.smallInt ? this.intValue : Number(latin1(this.b, start, this.p));
          return f.kind === K.FLOAT ? Math.fround(v) : v;
        }
        break;
      case K.DECIMAL:
        if (c === 45 || (c >= 48 && c <= 57)) return this.decimal(f);
        break;
      case K.BOOLEAN:
        if (c === 116) {
          this.literal("true");
          return true;
        }
        if (c === 102) {
          this.literal("false");
          return false;
        }
        break;
      case K.TIMESTAMP:
      case K.TIMESTAMP_LTZ:
      case K.DATE:
        if (c === 34) {
          const start = this.p + 1;
          const end = this.stringEnd();
          if (!this.escaped) {
            // read in place: no string for the value unless the full decoder needs it
            const v =
              f.kind === K.DATE
                ? fastDateBytes(this.b, start, end)
                : fastTimestampBytes(this.b, start, end, f.kind === K.TIMESTAMP_LTZ);
            this.p = end + 1;
            return Number.isNaN(v) ? f.dec(ascii(this.b, start, end)) : v;
          }
          this.p = start - 1;
          return f.dec(this.string());
        }
        break;
      case K.ROW:
        if (c === 123) return this.object(f.row as RowPlan);
        break;
      case K.OTHER:
        break;
    }
    const start = this.p;
    this.skip();
    const text = latin1(this.b, start, this.p);
    return f.dec(this.exact ? parseJsonExact(text) : JSON.parse(text));
  }

  private decimal(f: FieldPlan): bigint {
    const b = this.b;
    const start = this.p;
    const neg = b[start] === 45;
    this.number();
    const end = this.p;
    let p = neg ? start + 1 : start;
    let v = 0;
    let digits = 0;
    for (; p < end; p++) {
      const c = b[p] - 48;
      if (c < 0 || c > 9) break;
      v = v * 10 + c;
      if (v !== 0) digits++;
    }
    let fl = 0;
    if (p < end && b[p] === 46) {
      for (p++; p < end; p++) {
        const c = b[p] - 48;
        if (c < 0 || c > 9) break;
        v = v * 10 + c;
        if (v !== 0) digits++;
        fl++;
      }
    }
    if (p === end && fl <= f.scale && digits + f.scale - fl <= 15) {
      const unscaled = v * POW10[f.scale - fl];
      if (f.precision > 22 || unscaled < POW10[f.precision]) return BigInt(neg ? -unscaled : unscaled);
      throw GIVE_UP;
    }
    const r = parseDecimal(latin1(b, start, end), f.precision, f.scale);
    if (r === null) throw GIVE_UP;
    return r;
  }

  private literal(w: string): void {
    const p = this.p;
    for (let k = 0; k < w.length; k++) if (this.at(p + k) !== w.charCodeAt(k)) throw GIVE_UP;
    this.p = p + w.length;
  }

  /**
   * At `"`: the index of the closing quote (sets `escaped`); gives up on a control character,
   * a byte of 0x80 or above (not ASCII: the text path reads it) or the end of the record.
   */
  private stringEnd(): number {
    const b = this.b;
    const end = this.end;
    let i = this.p + 1;
    let escaped = false;
    for (;;) {
      if (i >= end) throw GIVE_UP;
      const t = STRING_BYTE[b[i]];
      if (t === 0) {
        i++;
        continue;
      }
      if (t === 1) break;
      if (t === 2) {
        escaped = true;
        i += 2;
        continue;
      }
      throw GIVE_UP;
    }
    this.escaped = escaped;
    return i;
  }

  private string(): string {
    const start = this.p;
    const end = this.stringEnd();
    this.p = end + 1;
    if (this.escaped) return this.unescape(start + 1, end);
    return ascii(this.b, start + 1, end);
  }

  /**
   * The value of the escaped string `b[start..end)` (ASCII, between its quotes): its bytes with
   * the escapes resolved, written to a scratch buffer and copied out as one flat string — what
   * `JSON.parse` of the literal gives. A `\u` escape above U+00FF (not one byte) goes to
   * `JSON.parse`; an invalid escape gives up (the full path words the error).
   */
  private unescape(start: number, end: number): string {
    const b = this.b;
    if (this.scratch.length < end - start)
      this.scratch = Buffer.allocUnsafe(Math.max(2 * (end - start), 256));
    const out = this.scratch;
    let n = 0;
    for (let i = start; i < end; i++) {
      let c = b[i];
      if (c === 92) {
        const e = b[++i];
        if (e === 117) {
          c = 0;
          for (let k = 1; k <= 4; k++) {
            const h = b[i + k];
            const d =
              h >= 48 && h <= 57 ? h - 48 : h >= 97 && h <= 102 ? h - 87 : h >= 65 && h <= 70 ? h - 55 : -1;
            if (d < 0) throw GIVE_UP;
            c = c * 16 + d;
          }
          if (c > 0xff) return JSON.parse(latin1(b, start - 1, end + 1)) as string;
          i += 4;
        } else {
          c = ESCAPED[e];
          if (c === 0) throw GIVE_UP;
        }
      }
      out[n++] = c;
    }
    return latin1(out, 0, n);
  }

  private number(): void {
    let p = this.p;
    const neg = this.at(p) === 45;
    if (neg) p++;
    let c = this.at(p);
    let v = 0;
    const first = p;
    if (c === 48) {
      p++;
    } else if (c >= 49 && c <= 57) {
      for (; c >= 48 && c <= 57; c = this.at(++p)) v = v * 10 + (c - 48);
    } else throw GIVE_UP;
    const intDigits = p - first;
    let integer = true;
    c = this.at(p);
    if (c === 46) {
      integer = false;
      c = this.at(++p);
      if (!(c >= 48 && c <= 57)) throw GIVE_UP;
      while (c >= 48 && c <= 57) c = this.at(++p);
    }
    if (c === 101 || c === 69) {
      integer = false;
      c = this.at(++p);
      if (c === 43 || c === 45) c = this.at(++p);
      if (!(c >= 48 && c <= 57)) throw GIVE_UP;
      while (c >= 48 && c <= 57) c = this.at(++p);
    }
    this.p = p;
    this.smallInt = integer && intDigits <= 15;
    this.intValue = neg ? -v : v;
  }

  private skip(): void {
    const c = this.at(this.p);
    if (c === 34) {
      this.skipString();
      return;
    }
    if (c === 123 || c === 91) {
      if (++this.depth > MAX_JSON_DEPTH) throw GIVE_UP;
      const close = c === 123 ? 125 : 93;
      this.p++;
      this.ws();
      if (this.at(this.p) === close) {
        this.p++;
        this.depth--;
        return;
      }
      for (;;) {
        if (c === 123) {
          if (this.at(this.p) !== 34) throw GIVE_UP;
          this.skipString();
          this.ws();
          if (this.at(this.p) !== 58) throw GIVE_UP;
          this.p++;
          this.ws();
        }
        this.skip();
        this.ws();
        const d = this.at(this.p++);
        if (d === close) break;
        if (d !== 44) throw GIVE_UP;
        this.ws();
      }
      this.depth--;
      return;
    }
    if (c === 116) this.literal("true");
    else if (c === 102) this.literal("false");
    else if (c === 110) this.literal("null");
    else if (c === 45 || (c >= 48 && c <= 57)) this.number();
    else throw GIVE_UP;
  }

  private skipString(): void {
    const start = this.p;
    const end = this.stringEnd();
    this.p = end + 1;
    if (this.escaped) {
      const text = latin1(this.b, start + 1, end);
      checkEscapes(text, 0, text.length);
    }
  }
}
