import type { Field } from "@weir/planner";
import type { ChangeBatchBuilder, Op, Row } from "@weir/runtime";
import type { ByteOut } from "./byte-out.js";
import type { AsciiSource } from "./json-fast.js";

/**
 * A line-oriented record format, compiled once per table schema (the physical columns, in
 * order). One record is one line of text without its line terminator.
 */
export interface RecordDecoder {
  /**
   * Appends the changes `line` encodes to `out` (none for a blank or comment line, two for a
   * Debezium update). Throws a `FormatError` for a bad record; it then appends nothing.
   */
  decode(line: string, out: ChangeBatchBuilder): void;
  /**
   * `decode`, for a line decoded from `bytes.buffer` at `bytes.start` with one byte per UTF-16
   * unit (`line.length` bytes): lets a decoder copy values out of the bytes instead of slicing
   * the line (see `AsciiSource`). Optional; callers fall back to `decode`.
   */
  decodeFrom?(line: string, bytes: AsciiSource, out: ChangeBatchBuilder): void;
  /**
   * Reads one record straight from `bytes[start..end)` (UTF-8) and appends its changes, or
   * returns false without appending anything when it cannot decide without the text (the caller
   * then decodes the text and calls `decode`/`decodeFrom`, which give the changes or the error).
   */
  decodeBytes?(bytes: Buffer, start: number, end: number, out: ChangeBatchBuilder): boolean;
  /** `<format>.ignore-parse-errors`: the connector skips bad records (and counts them) instead of failing. */
  readonly ignoreParseErrors: boolean;
  /** The first line of each file is a header to skip (`'csv.header' = 'true'`). */
  readonly skipHeader: boolean;
}

export interface RecordEncoder {
  /**
   * The line (without terminator) for one change. Throws a `ConnectorError` (internal) for a
   * change the format cannot represent and the planner should have rejected.
   */
  encode(op: Op, row: Row): string;
  /**
   * `encode`, appending the line's UTF-8 bytes (without terminator) to `out` instead of
   * returning a string: the same bytes as `Buffer.from(encode(op, row))`. Optional (a sink
   * falls back to `encode`). Throws as `encode` does, possibly after writing part of the line
   * (the caller rolls `out` back to its mark).
   */
  encodeTo?(op: Op, row: Row, out: ByteOut): void;
}

export interface FormatFactory {
  readonly name: string;
  decoder(fields: readonly Field[], options: FormatOptions): RecordDecoder;
  encoder(fields: readonly Field[], options: FormatOptions): RecordEncoder;
}

/**
 * The fields read of a ROW value, by position: each to `null` (read whole) or to the fields read
 * of it (itself a ROW read in part).
 */
export type NestedProjection = ReadonlyMap<number, NestedProjection | null>;

/**
 * The nested projection of a source's `projectedPaths` (`[column, field, ...]`), keyed by the
 * decoder's field index: `fieldOf` maps a source column to its decoder field (undefined: the
 * column is not decoded by this format). Undefined when no path applies.
 */
export function nestedProjectionOf(
  paths: readonly (readonly number[])[] | undefined,
  fieldOf: (column: number) => number | undefined,
): ReadonlyMap<number, NestedProjection> | undefined {
  if (paths === undefined) return undefined;
  const out = new Map<number, Map<number, NestedProjection | null>>();
  for (const path of paths) {
    const k = fieldOf(path[0]!);
    if (k === undefined || path.length < 2) continue;
    let into = out.get(k);
    if (into === undefined) {
      into = new Map();
      out.set(k, into);
    }
    for (let i = 1; i < path.length; i++) {
      const f = path[i]!;
      if (i === path.length - 1) {
        into.set(f, null);
        break;
      }
      let next = into.get(f);
      if (next === null) break;
      if (next === undefined) {
        next = new Map();
        into.set(f, next);
      }
      into = next as Map<number, NestedProjection | null>;
    }
  }
  return out.size === 0 ? undefined : out;
}

/** A table's options, read under the format's prefix (`json.` for `'json.ignore-parse-errors'`). */
export class FormatOptions {
  constructor(
    readonly all: Readonly<Record<string, string>>,
    readonly prefix: string,
    /**
     * Indexes of the decoder's fields that the query reads (projection push-down); a decoder may
     * leave every other field NULL without converting it. Undefined: all fields are read.
     */
    readonly projection?: ReadonlySet<number>,
    /**
     * Slots a decoder may leave free at the end of each row it builds (as capacity; the row's
     * length is the fields'), for a reader that appends a value to the row afterwards (the Kafka
     * source's cached rowtime) without the row being reallocated. A hint only.
     */
    readonly spareSlots = 0,
    /**
     * Nested projection push-down: per index of a projected ROW field read only in part, the
     * fields of it the query reads (see `NestedProjection`); a decoder may leave the others NULL
     * inside the row without converting them. A projected field not here is read whole.
     */
    readonly nested?: ReadonlyMap<number, NestedProjection>,
  ) {}

  get(key: string): string | undefined {
    return this.all[`${this.prefix}.${key}`];
  }

  bool(key: string, fallback: boolean): boolean {
    const v = this.get(key);
    if (v === undefined) return fallback;
    const lower = v.trim().toLowerCase();
    if (lower === "true" || lower === "false") return lower === "true";
    throw new Error(`option '${this.prefix}.${key}' must be 'true' or 'false', got '${v}'`);
  }

  char(key: string, fallback: string): string {
    const v = this.get(key);
    if (v === undefined) return fallback;
    const unescaped = v === "\\t" ? "\t" : v;
    if (unescaped.length !== 1) {
      throw new Error(`option '${this.prefix}.${key}' must be a single character, got '${v}'`);
    }
    return unescaped;
  }

  oneOf<T extends string>(key: string, allowed: readonly T[], fallback: T): T {
    const v = this.get(key);
    if (v === undefined) return fallback;
    const hit = allowed.find((a) => a.toLowerCase() === v.trim().toLowerCase());
    if (!hit)
      throw new Error(`option '${this.prefix}.${key}' must be one of ${allowed.join(", ")}, got '${v}'`);
    return hit;
  }
}
