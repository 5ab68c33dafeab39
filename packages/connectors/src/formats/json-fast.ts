import type { DataType, Field } from "@weir/planner";
import { parseInt64 } from "@weir/runtime";
import { parseDecimal } from "./decimal.js";
import type { NestedProjection } from "./format.js";
import { MAX_JSON_DEPTH, parseJsonExact, parseJsonKeepingLongs } from "./json-parse.js";
import { compileDecoder, type JsonDecoder, type JsonValueOptions } from "./json-values.js";
import { fastDate, fastTimestamp } from "./temporal-fast.js";
import { isPreciseTimestamp } from "./temporal-precision.js";

/**
 * A projection-aware reader of one JSON object per line, straight into the row layout: one pass
 * over the text, no intermediate object, the values of fields the query does not read are only
 * checked for syntax (never built), strings are slices of the line, and the common value shapes
 * (integers, plain decimals, ISO/SQL timestamps) are read by hand.
 *
 * It is a fast path, not a second implementation of the format: it either returns exactly the
 * row that `JSON.parse` (or the exact parser) followed by `compileRowDecoder` returns, or gives
 * up (`undefined`) — on any syntax error, any value it does not read itself, a missing field
 * with `fail-on-missing-field` — and the caller runs that full path, which produces the row or
 * the same error as before. Values of shapes it does not read by hand (arrays, maps, a number
 * in a VARCHAR column, a decimal that needs rounding...) are cut out of the line and handed to
 * the full path's own decoder for that field.
 */
export type FastRowReader = (line: string, bytes?: AsciiSource) => unknown[] | undefined;

/**
 * The bytes `line` was decoded from, when each of its UTF-16 units came from exactly one byte
 * (`line.length` bytes from `start`; the caller checks the lengths). A long string value is then
 * copied out of the bytes (`toString("latin1")`, when its units are ASCII) instead of being a slice of
 * `line`: a slice keeps the whole line alive for as long as the value lives — in join state, a
 * whole event per stored string — where `JSON.parse` gives strings of their own.
 */
export interface AsciiSource {
  readonly buffer: Buffer;
  readonly start: number;
}

/** V8 copies substrings shorter than this anyway (SlicedString::kMinLength). */
const MIN_SLICED = 13;

/** Thrown inside the reader to give up; never escapes it. */
export const GIVE_UP = new Error("json fast path: give up");

export enum K {
  STRING,
  INTEGER,
  DOUBLE,
  FLOAT,
  DECIMAL,
  BOOLEAN,
  TIMESTAMP,
  TIMESTAMP_LTZ,
  DATE,
  ROW,
  /** Any other type: the value is cut out and read by the full path's decoder. */
  OTHER,
}

export interface FieldPlan {
  readonly name: string;
  readonly kind: K;
  /** The full path's decoder for this field's type (values that are not null). */
  readonly dec: JsonDecoder;
  readonly lo: number;
  readonly hi: number;
  readonly precision: number;
  readonly scale: number;
  readonly row: RowPlan | null;
  /** BIGINT: an integer beyond ±(2^53 − 1) is read from its text exactly (a bigint). */
  readonly big: boolean;
}

export interface RowPlan {
  /** All fields of the row, in schema order; `null` for a field the query does not read. */
  readonly fields: readonly (FieldPlan | null)[];
  readonly names: readonly string[];
  /** The names' UTF-16 code units, for comparing a key in place. */
  readonly codes: readonly Uint16Array[];
  /** Whether a name has no `"`, `\\` or control character (its JSON text is itself). */
  readonly plain: readonly boolean[];
  /** The names as bytes, for the byte reader (null for a name that is not printable ASCII: it never matches an ASCII key). */
  readonly nameBytes: readonly (Uint8Array | null)[];
  readonly n: number;
}

/** Whether the key text at `s[at..]` is exactly `name` followed by its closing quote. */
function sameKey(s: string, at: number, name: Uint16Array): boolean {
  const len = name.length;
  for (let k = 0; k < len; k++) if (s.charCodeAt(at + k) !== name[k]) return false;
  return s.charCodeAt(at + len) === 34;
}

const INT_RANGES: Record<string, readonly [number, number]> = {
  TINYINT: [-128, 127],
  SMALLINT: [-32768, 32767],
  INT: [-2147483648, 2147483647],
  BIGINT: [Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER],
};

function kindOf(t: DataType): K {
  switch (t.kind) {
    case "CHAR":
    case "VARCHAR":
      return K.STRING;
    case "TINYINT":
    case "SMALLINT":
    case "INT":
    case "BIGINT":
      return K.INTEGER;
    case "DOUBLE":
      return K.DOUBLE;
    case "FLOAT":
      return K.FLOAT;
    case "DECIMAL":
      return K.DECIMAL;
    case "BOOLEAN":
      return K.BOOLEAN;
    // TIMESTAMP(4..9) is bigint nanos: the full path's decoder reads it
    case "TIMESTAMP":
      return isPreciseTimestamp(t) ? K.OTHER : K.TIMESTAMP;
    case "TIMESTAMP_LTZ":
      return isPreciseTimestamp(t) ? K.OTHER : K.TIMESTAMP_LTZ;
    case "DATE":
      return K.DATE;
    case "ROW":
      return K.ROW;
    default:
      return K.OTHER;
  }
}

export function planRow(
  fields: readonly { readonly name: string; readonly type: DataType }[],
  o: JsonValueOptions,
  projection?: ReadonlySet<number>,
  /** Of a projected ROW field read in part, the fields read (the others are only syntax-checked). */
  nested?: ReadonlyMap<number, NestedProjection | null>,
): RowPlan {
  return {
    names: fields.map((f) => f.name),
    codes: fields.map((f) => Uint16Array.from({ length: f.name.length }, (_, i) => f.name.charCodeAt(i))),
    plain: fields.map((f) => !/["\\\u0000-\u001f]/.test(f.name)),
    nameBytes: fields.map((f) =>
      /^[\x20-\x7e]*$/.test(f.name) ? Uint8Array.from(f.name, (c) => c.charCodeAt(0)) : null,
    ),
    n: fields.length,
    fields: fields.map((f, i): FieldPlan | null => {
      if (projection !== undefined && !projection.has(i)) return null;
      const t = f.type;
      const range = INT_RANGES[t.kind] ?? [0, 0];
      return {
        name: f.name,
        kind: kindOf(t),
        dec: compileDecoder(t, o),
        lo: range[0],
        hi: range[1],
        precision: t.kind === "DECIMAL" ? t.precision : 0,
        scale: t.kind === "DECIMAL" ? t.scale : 0,
        row: t.kind === "ROW" ? nestedPlan(t.fields, o, nested?.get(i) ?? null) : null,
        big: t.kind === "BIGINT",
      };
    }),
  };
}

function nestedPlan(fields: readonly Field[], o: JsonValueOptions, read: NestedProjection | null): RowPlan {
  return read === null ? planRow(fields, o) : planRow(fields, o, new Set(read.keys()), read);
}

/** Exact powers of ten as doubles (10^0 .. 10^22). */
export const POW10 = Array.from({ length: 23 }, (_, i) => 10 ** i);

/**
 * `obj[name]` of the full path finds Object.prototype's members (`toString`, `__proto__`) for
 * such a name; the fast path would not, so those schemas keep the full path alone.
 */
export function hasSpecialName(fs: readonly { name: string; type: DataType }[]): boolean {
  return fs.some(
    (f) => f.name in Object.prototype || (f.type.kind === "ROW" && hasSpecialName(f.type.fields)),
  );
}

/**
 * The fast reader for a `json` table, or null when the schema needs something it does not
 * promise to read exactly (a field named like a member of `Object.prototype`).
 */
export function compileFastRowReader(
  fields: readonly Field[],
  o: JsonValueOptions,
  projection: ReadonlySet<number> | undefined,
  /** Whether the full path uses the exact parser (numbers keep their source text). */
  exact: boolean,
  /** Free capacity to leave at the end of each row (see `FormatOptions.spareSlots`). */
  spareSlots = 0,
  /** See `FormatOptions.nested`. */
  nested?: ReadonlyMap<number, NestedProjection>,
): FastRowReader | null {
  if (hasSpecialName(fields)) return null;
  const plan = planRow(fields, o, projection, nested);
  const reader = new Reader(exact, o.failOnMissingField, spareSlots);
  return (line, bytes) => reader.read(line, plan, bytes);
}

class Reader {
  private s = "";
  private p = 0;
  private depth = 0;
  /** Set by `number()`: the literal is an integer (no fraction, no exponent) of at most 15 digits. */
  private smallInt = false;
  /** Set by `number()`: the integer's value when `smallInt`. */
  private intValue = 0;
  /** Set by `stringEnd()`: the string had an escape sequence. */
  private escaped = false;
  /** Set by `stringEnd()`: the OR of the string's code units (ASCII when below 0x80). */
  private units = 0;
  private bytes: AsciiSource | undefined;

  constructor(
    private readonly exact: boolean,
    /** `fail-on-missing-field`. */
    private readonly strict: boolean,
    /** Free capacity at the end of a top-level row. */
    private readonly spare: number,
  ) {}

  read(line: string, plan: RowPlan, bytes: AsciiSource | undefined): unknown[] | undefined {
    this.s = line;
    this.bytes = bytes;
    this.p = 0;
    this.depth = 0;
    try {
      this.ws();
      if (line.charCodeAt(this.p) !== 123) return undefined;
      const row = this.object(plan, this.spare);
      this.ws();
      return this.p === line.length ? row : undefined;
    } catch {
      // GIVE_UP, a RangeError from a deep value, an error of a field's decoder: the full path
      // decides (and words the error).
      return undefined;
    }
  }

  private ws(): void {
    const s = this.s;
    let p = this.p;
    for (;;) {
      const c = s.charCodeAt(p);
      if (c === 32 || c === 9 || c === 10 || c === 13) p++;
      else break;
    }
    this.p = p;
  }

  /** At `{`: the row of `plan`'s fields (NULL where absent; giving up for a missing field the options forbid). */
  private object(plan: RowPlan, spare = 0): unknown[] {
    if (++this.depth > MAX_JSON_DEPTH) throw GIVE_UP;
    const s = this.s;
    const n = plan.n;
    let row: unknown[];
    if (spare === 0) row = new Array<unknown>(n).fill(null);
    else {
      // The capacity stays when the length is cut (`pop` keeps the store; setting `length` is a
      // runtime call): a value appended later needs no new store.
      row = new Array<unknown>(n + spare).fill(null);
      for (let k = 0; k < spare; k++) row.pop();
    }
    let seen = 0;
    let expect = 0;
    this.p++;
    this.ws();
    if (s.charCodeAt(this.p) === 125) {
      this.p++;
    } else {
      for (;;) {
        if (s.charCodeAt(this.p) !== 34) throw GIVE_UP;
        const keyStart = this.p + 1;
        let idx = -1;
        // Objects usually list their fields in schema order: try the next one first.
        if (expect < n && plan.plain[expect] && sameKey(s, keyStart, plan.codes[expect])) {
          idx = expect;
          this.p = keyStart + plan.codes[expect].length + 1;
        } else {
          const keyEnd = this.stringEnd();
          if (this.escaped) {
            const key = JSON.parse(s.slice(keyStart - 1, keyEnd + 1)) as string;
            idx = plan.names.indexOf(key);
          } else {
            const len = keyEnd - keyStart;
            for (let k = 0; k < n; k++) {
              if (plan.names[k].length === len && s.startsWith(plan.names[k], keyStart)) {
                idx = k;
                break;
              }
            }
          }
          this.p = keyEnd + 1;
        }
        this.ws();
        if (s.charCodeAt(this.p) !== 58) throw GIVE_UP;
        this.p++;
        this.ws();
        const f = idx < 0 ? null : plan.fields[idx];
        if (f === null) {
          this.skip();
          // A field the query does not read: the next key is still most likely the next field.
          if (idx >= 0) expect = idx + 1;
        } else {
          row[idx] = this.value(f);
          if (idx < 31) seen |= 1 << idx;
          expect = idx + 1;
        }
        this.ws();
        const c = s.charCodeAt(this.p++);
        if (c === 125) break;
        if (c !== 44) throw GIVE_UP;
        this.ws();
      }
    }
    this.depth--;
    if (this.failOnMissing(plan, seen)) throw GIVE_UP;
    return row;
  }

  /** With `fail-on-missing-field`, whether a field of `plan` might be missing (the full path decides). */
  private failOnMissing(plan: RowPlan, seen: number): boolean {
    if (!this.strict) return false;
    if (plan.n > 31) return true;
    for (let i = 0; i < plan.n; i++) if (plan.fields[i] !== null && (seen & (1 << i)) === 0) return true;
    return false;
  }

  /** The value at `p` for field `f`, as the full path's decoder would give it. */
  private value(f: FieldPlan): unknown {
    const s = this.s;
    const c = s.charCodeAt(this.p);
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
          const v = this.smallInt ? this.intValue : Number(s.slice(start, this.p));
          if (Number.isInteger(v) && v >= f.lo && v <= f.hi) return v;
          if (f.big) {
            // a 64-bit id (a snowflake id, a Kafka offset): its digits, exactly
            const x = parseInt64(s.slice(start, this.p));
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
          const v = this.smallInt ? this.intValue : Number(s.slice(start, this.p));
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
            const v =
              f.kind === K.DATE
                ? fastDate(s, start, end)
                : fastTimestamp(s, start, end, f.kind === K.TIMESTAMP_LTZ);
            if (!Number.isNaN(v)) {
              this.p = end + 1;
              return v;
            }
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
    // Any other shape: cut the value out and let the full path's decoder read it.
    const start = this.p;
    this.skip();
    const text = s.slice(start, this.p);
    return f.dec(this.exact ? parseJsonExact(text) : parseJsonKeepingLongs(text));
  }

  /** A DECIMAL from a JSON number: by hand when it needs no rounding and fits a double exactly. */
  private decimal(f: FieldPlan): bigint {
    const s = this.s;
    const start = this.p;
    const neg = s.charCodeAt(start) === 45;
    this.number();
    const end = this.p;
    let p = neg ? start + 1 : start;
    let v = 0;
    let digits = 0;
    for (; p < end; p++) {
      const c = s.charCodeAt(p) - 48;
      if (c < 0 || c > 9) break;
      v = v * 10 + c;
      if (v !== 0) digits++;
    }
    let fl = 0;
    if (p < end && s.charCodeAt(p) === 46) {
      for (p++; p < end; p++) {
        const c = s.charCodeAt(p) - 48;
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
    const r = parseDecimal(s.slice(start, end), f.precision, f.scale);
    if (r === null) throw GIVE_UP;
    return r;
  }

  private literal(w: string): void {
    if (!this.s.startsWith(w, this.p)) throw GIVE_UP;
    this.p += w.length;
  }

  /**
   * At `"`: the index of the closing quote (sets `escaped`); gives up on a control character or
   * the end of the line. `p` is left unchanged.
   */
  private stringEnd(): number {
    const s = this.s;
    let i = this.p + 1;
    let escaped = false;
    let units = 0;
    for (;;) {
      const c = s.charCodeAt(i);
      if (c === 34) break;
      if (c === 92) {
        escaped = true;
        i += 2;
        continue;
      }
      if (c < 32 || Number.isNaN(c)) throw GIVE_UP;
      units |= c;
      i++;
    }
    this.escaped = escaped;
    this.units = units;
    return i;
  }

  /** At `"`: the string's value. */
  private string(): string {
    const start = this.p;
    const end = this.stringEnd();
    this.p = end + 1;
    if (this.escaped) return JSON.parse(this.s.slice(start, end + 1)) as string;
    const b = this.bytes;
    if (b !== undefined && end - start - 1 >= MIN_SLICED && this.units < 0x80) {
      return b.buffer.toString("latin1", b.start + start + 1, b.start + end);
    }
    return this.s.slice(start + 1, end);
  }

  /** At `-` or a digit: checks a JSON number and moves past it (sets `smallInt`, `intValue`). */
  private number(): void {
    const s = this.s;
    let p = this.p;
    const neg = s.charCodeAt(p) === 45;
    if (neg) p++;
    let c = s.charCodeAt(p);
    let v = 0;
    const first = p;
    if (c === 48) {
      p++;
    } else if (c >= 49 && c <= 57) {
      for (; c >= 48 && c <= 57; c = s.charCodeAt(++p)) v = v * 10 + (c - 48);
    } else throw GIVE_UP;
    const intDigits = p - first;
    let integer = true;
    c = s.charCodeAt(p);
    if (c === 46) {
      integer = false;
      c = s.charCodeAt(++p);
      if (!(c >= 48 && c <= 57)) throw GIVE_UP;
      while (c >= 48 && c <= 57) c = s.charCodeAt(++p);
    }
    if (c === 101 || c === 69) {
      integer = false;
      c = s.charCodeAt(++p);
      if (c === 43 || c === 45) c = s.charCodeAt(++p);
      if (!(c >= 48 && c <= 57)) throw GIVE_UP;
      while (c >= 48 && c <= 57) c = s.charCodeAt(++p);
    }
    this.p = p;
    this.smallInt = integer && intDigits <= 15;
    this.intValue = neg ? -v : v;
  }

  /** Checks the JSON value at `p` and moves past it, building nothing. */
  private skip(): void {
    const s = this.s;
    const c = s.charCodeAt(this.p);
    if (c === 34) {
      this.skipString();
      return;
    }
    if (c === 123 || c === 91) {
      if (++this.depth > MAX_JSON_DEPTH) throw GIVE_UP;
      const close = c === 123 ? 125 : 93;
      this.p++;
      this.ws();
      if (s.charCodeAt(this.p) === close) {
        this.p++;
        this.depth--;
        return;
      }
      for (;;) {
        if (c === 123) {
          if (s.charCodeAt(this.p) !== 34) throw GIVE_UP;
          this.skipString();
          this.ws();
          if (s.charCodeAt(this.p) !== 58) throw GIVE_UP;
          this.p++;
          this.ws();
        }
        this.skip();
        this.ws();
        const d = s.charCodeAt(this.p++);
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

  /** At `"`: checks a string (its escapes too) and moves past it. */
  private skipString(): void {
    const start = this.p;
    const end = this.stringEnd();
    this.p = end + 1;
    if (this.escaped) checkEscapes(this.s, start + 1, end);
  }
}

/** Gives up unless every backslash in `s[start..end)` starts a valid JSON escape. */
export function checkEscapes(s: string, start: number, end: number): void {
  for (let i = start; i < end; i++) {
    if (s.charCodeAt(i) !== 92) continue;
    const e = s.charCodeAt(i + 1);
    if (e === 117) {
      for (let k = 2; k < 6; k++) {
        const h = s.charCodeAt(i + k);
        if (!((h >= 48 && h <= 57) || (h >= 65 && h <= 70) || (h >= 97 && h <= 102))) throw GIVE_UP;
      }
      i += 5;
    } else if (
      e === 34 ||
      e === 92 ||
      e === 47 ||
      e === 98 ||
      e === 102 ||
      e === 110 ||
      e === 114 ||
      e === 116
    ) {
      i++;
    } else throw GIVE_UP;
  }
}
