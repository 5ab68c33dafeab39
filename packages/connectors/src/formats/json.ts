import type { Field } from "@weir/planner";
import { type ChangeBatchBuilder, ConnectorError, Op } from "@weir/runtime";
import { FormatError } from "./errors.js";
import type { FormatFactory, FormatOptions, RecordDecoder, RecordEncoder } from "./format.js";
import { compileByteRowReader } from "./json-bytes.js";
import { compileFastRowReader } from "./json-fast.js";
import { parseJsonExact, parseJsonKeepingLongs } from "./json-parse.js";
import {
  compileRowDecoder,
  compileRowEncoder,
  type JsonValueOptions,
  type MapNullKeyMode,
  type TimestampStandard,
  typeHasDecimal,
} from "./json-values.js";
import { compileRowWriter } from "./json-writer.js";

/**
 * Reads the `<prefix>.timestamp-format.standard`, `<prefix>.fail-on-missing-field`,
 * `<prefix>.map-null-key.*` and `<prefix>.encode.decimal-as-plain-number` options.
 */
export function jsonValueOptions(options: FormatOptions): JsonValueOptions {
  return {
    timestampStandard: options.oneOf<TimestampStandard>(
      "timestamp-format.standard",
      ["SQL", "ISO-8601"],
      "SQL",
    ),
    failOnMissingField: options.bool("fail-on-missing-field", false),
    mapNullKeyMode: options.oneOf<MapNullKeyMode>("map-null-key.mode", ["FAIL", "DROP", "LITERAL"], "FAIL"),
    mapNullKeyLiteral: options.get("map-null-key.literal") ?? "null",
    decimalAsPlainNumber: options.bool("encode.decimal-as-plain-number", false),
    optionPrefix: options.prefix,
  };
}

export function ignoreParseErrors(options: FormatOptions): boolean {
  const ignore = options.bool("ignore-parse-errors", false);
  if (ignore && options.bool("fail-on-missing-field", false)) {
    throw new Error(
      `options '${options.prefix}.fail-on-missing-field' and '${options.prefix}.ignore-parse-errors' cannot both be true`,
    );
  }
  return ignore;
}

/**
 * The exact parser when DECIMAL values must keep their source digits, else `JSON.parse` (with the
 * exact parser for a line that may hold an integer beyond ±(2^53 − 1): a BIGINT keeps its digits).
 */
export function jsonLineParser(
  fields: readonly Field[],
  projection?: ReadonlySet<number>,
): (line: string) => unknown {
  if (fields.some((f, i) => (projection === undefined || projection.has(i)) && typeHasDecimal(f.type))) {
    return parseJsonExact;
  }
  return (line) => {
    try {
      return parseJsonKeepingLongs(line);
    } catch (e) {
      if (e instanceof FormatError) throw e;
      throw new FormatError(`malformed JSON: ${(e as Error).message}`);
    }
  };
}

/**
 * A stack overflow while reading one record (a value nested too deeply for the recursive reader;
 * `JSON.parse` itself copes with any depth) is a bad record, not a crash of the job.
 */
export function tooDeep(e: unknown): unknown {
  return e instanceof RangeError
    ? new FormatError(`the record is nested too deeply to read (${e.message})`)
    : e;
}

export function isBlank(line: string): boolean {
  return line.trim() === "";
}

/** Flink's `json` format: one object per line, insert-only. */
export const jsonFormat: FormatFactory = {
  name: "json",
  decoder(fields, options): RecordDecoder {
    const parse = jsonLineParser(fields, options.projection);
    const valueOptions = jsonValueOptions(options);
    const toRow = compileRowDecoder(fields, valueOptions, options.projection, options.nested);
    const fast = compileFastRowReader(
      fields,
      valueOptions,
      options.projection,
      parse === parseJsonExact,
      options.spareSlots,
      options.nested,
    );
    const bytesFast = compileByteRowReader(
      fields,
      valueOptions,
      options.projection,
      parse === parseJsonExact,
      options.spareSlots,
      options.nested,
    );
    const full = (line: string, out: ChangeBatchBuilder): void => {
      if (isBlank(line)) return;
      let row: unknown[];
      try {
        row = toRow(parse(line));
      } catch (e) {
        throw tooDeep(e);
      }
      out.push(Op.INSERT, row);
    };
    // The fast reader gives the full path's row or gives up; then the full path reads the line
    // (and words the error of a bad one).
    return {
      ignoreParseErrors: ignoreParseErrors(options),
      skipHeader: false,
      decode(line, out) {
        const quick = fast === null ? undefined : fast(line);
        if (quick === undefined) full(line, out);
        else out.push(Op.INSERT, quick);
      },
      decodeFrom(line, bytes, out) {
        const quick = fast === null ? undefined : fast(line, bytes);
        if (quick === undefined) full(line, out);
        else out.push(Op.INSERT, quick);
      },
      ...(bytesFast === null
        ? {}
        : {
            decodeBytes(bytes: Buffer, start: number, end: number, out: ChangeBatchBuilder): boolean {
              const quick = bytesFast(bytes, start, end);
              if (quick === undefined) return false;
              out.push(Op.INSERT, quick);
              return true;
            },
          }),
    };
  },
  encoder(fields, options): RecordEncoder {
    const valueOptions = jsonValueOptions(options);
    const toJson = compileRowEncoder(fields, valueOptions);
    const toBytes = compileRowWriter(fields, valueOptions);
    const insertOnly = (op: Op): void => {
      if (op !== Op.INSERT && op !== Op.UPDATE_AFTER) {
        throw new ConnectorError(
          "the json format is insert-only and cannot write a retraction (the planner should have rejected this)",
          "internal",
        );
      }
    };
    return {
      encode(op, row) {
        insertOnly(op);
        return toJson(row);
      },
      encodeTo(op, row, out) {
        insertOnly(op);
        toBytes(row, out);
      },
    };
  },
};
