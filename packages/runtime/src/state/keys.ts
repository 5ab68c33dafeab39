import type { DataType } from "@weir/planner";
import type { Row } from "../changelog.js";
import { isPreciseTimestamp } from "../expr/timestamp-precision.js";

/**
 * A state key: the encoded key fields of a row. Two rows have the same key exactly when their key
 * fields are equal as SQL grouping values (NULLs group together, 0 and -0 are one group).
 */
export type StateKey = string | number;

/** Turns a row's key fields into a {@link StateKey} and back. */
export interface KeyCodec {
  readonly fields: readonly number[];
  encode(row: Row): StateKey;
  /** The key fields' values, in `fields` order. */
  decode(key: StateKey): unknown[];
}

const NUMERIC_KINDS = new Set([
  "TINYINT",
  "SMALLINT",
  "INT",
  "BIGINT",
  "FLOAT",
  "DOUBLE",
  "DATE",
  "TIME",
  "TIMESTAMP",
  "TIMESTAMP_LTZ",
  "INTERVAL_DAY_TIME",
  "INTERVAL_YEAR_MONTH",
]);

/**
 * A codec for the key fields `fields` of rows whose field types are `types` (indexed like the
 * row). Fast paths: a single numeric field is its own number key (NULL is `""`; a BIGINT beyond
 * ±(2^53 − 1) is `b<digits>`); a single string
 * field is its own string key (NULL is the number 0). Anything else uses the tagged string form of
 * {@link encodeKeyValues}. With no key fields every row has the key 0 (a global aggregate).
 */
export function keyCodec(fields: readonly number[], types: readonly DataType[]): KeyCodec {
  if (fields.length === 0) return { fields, encode: () => 0, decode: () => [] };
  if (fields.length === 1) {
    const f = fields[0];
    const kind = types[f]?.kind;
    if (kind === "BIGINT") {
      // a BIGINT outside ±(2^53 − 1) is a bigint (expr/bigint.ts): its key is the text `b<digits>`
      return {
        fields,
        encode: (row) => {
          const v = row[f];
          return v === null || v === undefined ? "" : typeof v === "bigint" ? `b${v}` : (v as number);
        },
        decode: (key) => [typeof key === "number" ? key : key === "" ? null : BigInt(key.slice(1))],
      };
    }
    // TIMESTAMP(4..9) values are bigints (epoch nanos): the tagged string form keeps them
    if (kind !== undefined && NUMERIC_KINDS.has(kind) && !isPreciseTimestamp(types[f])) {
      return {
        fields,
        encode: (row) => {
          const v = row[f];
          return v === null || v === undefined ? "" : (v as number);
        },
        decode: (key) => [typeof key === "number" ? key : null],
      };
    }
    if (kind === "CHAR" || kind === "VARCHAR") {
      return {
        fields,
        encode: (row) => {
          const v = row[f];
          return v === null || v === undefined ? 0 : (v as string);
        },
        decode: (key) => [typeof key === "string" ? key : null],
      };
    }
  }
  // Consecutive rows often share their key (a batch of one day's bids per channel): the last
  // key's string is handed out again when every field is the same primitive (`===`), which also
  // spares the lookup re-hashing a new string. Objects (arrays, bytes) are never cached.
  const n = fields.length;
  const last: unknown[] = new Array(n).fill(undefined);
  let lastKey: string | null = null;
  return {
    fields,
    encode: (row) => {
      if (lastKey !== null) {
        let i = 0;
        while (i < n && row[fields[i]] === last[i]) i++;
        if (i === n) return lastKey;
      }
      let s = "";
      let primitive = true;
      for (let i = 0; i < n; i++) {
        const v = row[fields[i]];
        if (v !== null && typeof v === "object") primitive = false;
        last[i] = v;
        s = appendValue(s, v);
      }
      lastKey = primitive ? s : null;
      return s;
    },
    decode: (key) => decodeKeyValues(key as string),
  };
}

/**
 * Encodes values as one string that separates them unambiguously: `N;` (null), `n<number>;`,
 * `b<bigint>;`, `t;`/`f;`, `x<hex>;`, `s<length>:<chars>` and `a<length>:<nested encoding>`
 * (arrays and rows). Strings are length-prefixed, so no character needs escaping.
 */
export function encodeKeyValues(values: readonly unknown[]): string {
  let s = "";
  for (const v of values) s = appendValue(s, v);
  return s;
}

function appendValue(s: string, v: unknown): string {
  if (v === null || v === undefined) return `${s}N;`;
  switch (typeof v) {
    case "number":
      return `${s}n${v === 0 ? 0 : v};`;
    case "string":
      return `${s}s${v.length}:${v}`;
    case "bigint":
      return `${s}b${v};`;
    case "boolean":
      return v ? `${s}t;` : `${s}f;`;
    default:
      break;
  }
  if (v instanceof Uint8Array) return `${s}x${Buffer.from(v).toString("hex")};`;
  if (Array.isArray(v)) {
    const inner = encodeKeyValues(v);
    return `${s}a${inner.length}:${inner}`;
  }
  throw new Error(`a value of type ${Object.prototype.toString.call(v)} cannot be a key`);
}

export function decodeKeyValues(key: string): unknown[] {
  const out: unknown[] = [];
  let i = 0;
  while (i < key.length) {
    const tag = key[i++];
    if (tag === "s" || tag === "a") {
      const colon = key.indexOf(":", i);
      const len = Number(key.slice(i, colon));
      const body = key.slice(colon + 1, colon + 1 + len);
      out.push(tag === "s" ? body : decodeKeyValues(body));
      i = colon + 1 + len;
      continue;
    }
    const semi = key.indexOf(";", i);
    if (semi < 0) throw new Error(`malformed state key '${key}'`);
    const body = key.slice(i, semi);
    i = semi + 1;
    switch (tag) {
      case "N":
        out.push(null);
        break;
      case "n":
        out.push(Number(body));
        break;
      case "b":
        out.push(BigInt(body));
        break;
      case "t":
        out.push(true);
        break;
      case "f":
        out.push(false);
        break;
      case "x":
        out.push(new Uint8Array(Buffer.from(body, "hex")));
        break;
      default:
        throw new Error(`malformed state key '${key}': unknown tag '${tag}'`);
    }
  }
  return out;
}

/**
 * A value as a Map key with SQL equality: primitives are themselves (`Map` uses SameValueZero,
 * so NaN = NaN and 0 = -0), bytes and arrays are encoded. Used by DISTINCT and MIN/MAX maps.
 */
export function valueKey(v: unknown): unknown {
  if (v !== null && typeof v === "object") return `\u0000${encodeKeyValues([v])}`;
  // A string that could look like an encoded object is encoded too (tag `s` keeps them apart).
  if (typeof v === "string" && v.charCodeAt(0) === 0) return `\u0000${encodeKeyValues([v])}`;
  return v;
}
