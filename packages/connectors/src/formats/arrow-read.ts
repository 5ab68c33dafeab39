import { type DataType, formatType } from "@weir/planner";
import { isPreciseTimestamp, truncateNanos } from "@weir/runtime";
import type * as A from "apache-arrow";
import { Arrow } from "./arrow-lib.js";
import { FormatError } from "./errors.js";

/**
 * Reading Arrow columns as Weir values (planner `types.ts`). A reader is compiled once per
 * column from the file's Arrow type and the table's Weir type; it then reads one value of an
 * Arrow `Data` chunk by index, with the index convention of apache-arrow's own getters (fixed-
 * width buffers are already offset to the chunk; list offsets index their child absolutely).
 *
 * Only conversions that lose nothing (apart from sub-millisecond digits of times, which Weir
 * truncates everywhere) are accepted;
 * anything else is an `ArrowTypeMismatch` naming the column path and both types.
 */
export type ArrowValueReader = (data: A.Data, index: number) => unknown;

/** The file's Arrow type cannot be read as the table's Weir type. */
export class ArrowTypeMismatch extends Error {
  constructor(
    readonly column: string,
    readonly arrowType: string,
    readonly weirType: string,
    detail = "",
  ) {
    super(`column '${column}': cannot read Arrow type ${arrowType} as ${weirType}${detail}`);
    this.name = "ArrowTypeMismatch";
  }
}

/**
 * The reader of a column (or nested field: `path` is `col`, `col.field`, `col[]`, `col{key}`)
 * whose Arrow type is `arrow` into Weir type `weir`. A null in a NOT NULL position throws a
 * `FormatError` when read.
 */
export function compileArrowReader(arrow: A.DataType, weir: DataType, path: string): ArrowValueReader {
  const read = compileNonNull(arrow, weir, path);
  if (weir.nullable) return (data, i) => (data.getValid(i) ? read(data, i) : null);
  return (data, i) => {
    if (!data.getValid(i)) throw new FormatError(`column '${path}' is NOT NULL but holds a null`);
    return read(data, i);
  };
}

const utf8 = new TextDecoder("utf-8");
const MS_PER_DAY = 86_400_000;
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);
/** Divisor from each Arrow time unit to milliseconds (SECOND multiplies instead). */
const PER_MS = [0n, 1n, 1000n, 1000000n] as const;
/** Nanoseconds per unit, by A.TimeUnit (SECOND, MILLISECOND, MICROSECOND, NANOSECOND). */
const NS_PER_UNIT = [1000000000n, 1000000n, 1000n, 1n] as const;

function floorDiv(v: bigint, d: bigint): bigint {
  const q = v / d;
  return v % d !== 0n && v < 0n ? q - 1n : q;
}

/**
 * Converts an epoch-ish bigint in `unit` to a whole number of milliseconds (floored); chosen once
 * per column, so reading a value does not look the unit up.
 */
function bigToMs(unit: A.TimeUnit): (v: bigint) => number {
  if (unit === Arrow.TimeUnit.SECOND) return (v) => Number(v) * 1000;
  if (unit === Arrow.TimeUnit.MILLISECOND) return (v) => Number(v);
  const per = PER_MS[unit];
  return (v) => Number(floorDiv(v, per));
}

function compileNonNull(arrow: A.DataType, weir: DataType, path: string): ArrowValueReader {
  const mismatch = (detail = "") => new ArrowTypeMismatch(path, arrow.toString(), formatType(weir), detail);
  if (Arrow.DataType.isDictionary(arrow)) return dictionaryReader(arrow, weir, path);
  switch (weir.kind) {
    case "BOOLEAN":
      if (!Arrow.DataType.isBool(arrow)) throw mismatch();
      return ({ offset, values }, i) => {
        const bit = offset + i;
        return ((values as Uint8Array)[bit >> 3] & (1 << (bit & 7))) !== 0;
      };
    case "TINYINT":
    case "SMALLINT":
    case "INT":
    case "BIGINT": {
      const width = { TINYINT: 8, SMALLINT: 16, INT: 32, BIGINT: 64 }[weir.kind];
      if (!Arrow.DataType.isInt(arrow)) throw mismatch();
      const fits = arrow.isSigned ? arrow.bitWidth <= width : arrow.bitWidth < width;
      if (!fits) throw mismatch(" (values may not fit)");
      if (arrow.bitWidth === 64) {
        // the canonical BIGINT value: a number when safe, else the bigint itself
        return ({ values }, i) => {
          const v = (values as BigInt64Array)[i];
          return v > MAX_SAFE || v < -MAX_SAFE ? v : Number(v);
        };
      }
      return ({ values }, i) => (values as Int32Array)[i];
    }
    case "FLOAT":
    case "DOUBLE": {
      if (!Arrow.DataType.isFloat(arrow) || arrow.precision === Arrow.Precision.HALF) throw mismatch();
      if (weir.kind === "FLOAT" && arrow.precision !== Arrow.Precision.SINGLE)
        throw mismatch(" (values may not fit)");
      return ({ values }, i) => (values as Float64Array)[i];
    }
    case "DECIMAL": {
      if (!Arrow.DataType.isDecimal(arrow)) throw mismatch();
      const intDigits = arrow.precision - arrow.scale;
      if (arrow.scale > weir.scale || intDigits > weir.precision - weir.scale)
        throw mismatch(" (values may not fit)");
      const factor = 10n ** BigInt(weir.scale - arrow.scale);
      const words = arrow.bitWidth / 32;
      const bits = arrow.bitWidth;
      return ({ values }, i) => {
        const w = values as Uint32Array;
        let v = 0n;
        for (let k = words - 1; k >= 0; k--) v = (v << 32n) | BigInt(w[i * words + k]);
        return BigInt.asIntN(bits, v) * factor;
      };
    }
    case "CHAR":
    case "VARCHAR":
      if (Arrow.DataType.isUtf8(arrow) || Arrow.DataType.isLargeUtf8(arrow)) {
        return ({ values, valueOffsets }, i) =>
          utf8.decode((values as Uint8Array).subarray(Number(valueOffsets[i]), Number(valueOffsets[i + 1])));
      }
      throw mismatch();
    case "BINARY":
    case "VARBINARY":
      if (Arrow.DataType.isBinary(arrow) || Arrow.DataType.isLargeBinary(arrow)) {
        return ({ values, valueOffsets }, i) =>
          (values as Uint8Array).slice(Number(valueOffsets[i]), Number(valueOffsets[i + 1]));
      }
      if (Arrow.DataType.isFixedSizeBinary(arrow)) {
        const w = arrow.byteWidth;
        return ({ values }, i) => (values as Uint8Array).slice(i * w, (i + 1) * w);
      }
      throw mismatch();
    case "DATE":
      if (!Arrow.DataType.isDate(arrow)) throw mismatch();
      if (arrow.unit === Arrow.DateUnit.DAY) return ({ values }, i) => (values as Int32Array)[i];
      return ({ values }, i) => Math.floor(Number((values as BigInt64Array)[i]) / MS_PER_DAY);
    case "TIME": {
      if (!Arrow.DataType.isTime(arrow)) throw mismatch();
      const unit = arrow.unit;
      if (unit === Arrow.TimeUnit.SECOND) return ({ values }, i) => (values as Int32Array)[i] * 1000;
      if (unit === Arrow.TimeUnit.MILLISECOND) return ({ values }, i) => (values as Int32Array)[i];
      const toMs = bigToMs(unit);
      return ({ values }, i) => toMs(BigInt((values as BigInt64Array)[i]));
    }
    case "TIMESTAMP":
    case "TIMESTAMP_LTZ": {
      if (!Arrow.DataType.isTimestamp(arrow)) throw mismatch();
      const zoned = arrow.timezone !== null && arrow.timezone !== undefined && arrow.timezone !== "";
      if (weir.kind === "TIMESTAMP" && zoned) {
        throw mismatch(" (a zoned timestamp is an instant: declare the column TIMESTAMP_LTZ)");
      }
      if (weir.kind === "TIMESTAMP_LTZ" && !zoned) {
        throw mismatch(
          " (a timestamp without a time zone is a wall-clock time: declare the column TIMESTAMP)",
        );
      }
      const unit = arrow.unit;
      if (isPreciseTimestamp(weir)) {
        // TIMESTAMP(4..9): epoch nanos, truncated to the column's precision
        const per = NS_PER_UNIT[unit];
        const p = (weir as { precision: number }).precision;
        return ({ values }, i) => truncateNanos(BigInt((values as BigInt64Array)[i]) * per, p);
      }
      const toMs = bigToMs(unit);
      return ({ values }, i) => toMs((values as BigInt64Array)[i]);
    }
    case "INTERVAL_DAY_TIME":
      if (Arrow.DataType.isDuration(arrow)) {
        const unit = arrow.unit;
        const toMs = bigToMs(unit);
        return ({ values }, i) => toMs((values as BigInt64Array)[i]);
      }
      if (Arrow.DataType.isInterval(arrow) && arrow.unit === Arrow.IntervalUnit.DAY_TIME) {
        return ({ values }, i) => {
          const v = values as Int32Array;
          return v[2 * i] * MS_PER_DAY + v[2 * i + 1];
        };
      }
      throw mismatch();
    case "INTERVAL_YEAR_MONTH":
      if (Arrow.DataType.isInterval(arrow) && arrow.unit === Arrow.IntervalUnit.YEAR_MONTH) {
        return ({ values }, i) => (values as Int32Array)[i];
      }
      throw mismatch();
    case "ARRAY":
      return listReader(
        arrow,
        compileArrowReaderOfChild(arrow, weir.element, `${path}[]`, mismatch),
        mismatch,
      );
    case "MULTISET":
    case "MAP": {
      if (!Arrow.DataType.isMap(arrow)) throw mismatch();
      const entries = arrow.children[0].type as A.Struct;
      const [keyField, valueField] = entries.children;
      const keyType = weir.kind === "MAP" ? weir.key : weir.element;
      const valueType: DataType = weir.kind === "MAP" ? weir.value : { kind: "INT", nullable: false };
      const readKey = compileArrowReader(keyField.type, keyType, `${path}{key}`);
      const readValue = compileArrowReader(valueField.type, valueType, `${path}{value}`);
      return ({ valueOffsets, children }, i) => {
        const entriesData = children[0];
        const keys = entriesData.children[0];
        const vals = entriesData.children[1];
        const out = new Map<unknown, unknown>();
        const end = valueOffsets[i + 1] as number;
        for (let k = valueOffsets[i] as number; k < end; k++) out.set(readKey(keys, k), readValue(vals, k));
        return out;
      };
    }
    case "ROW": {
      if (!Arrow.DataType.isStruct(arrow)) throw mismatch();
      const byName = new Map(arrow.children.map((f, k) => [f.name, k]));
      const readers = weir.fields.map((f) => {
        const k = byName.get(f.name);
        if (k === undefined) throw mismatch(` (it has no field '${f.name}')`);
        return { child: k, read: compileArrowReader(arrow.children[k].type, f.type, `${path}.${f.name}`) };
      });
      return ({ children }, i) => {
        const out = new Array<unknown>(readers.length);
        for (let k = 0; k < readers.length; k++) out[k] = readers[k].read(children[readers[k].child], i);
        return out;
      };
    }
    case "NULL":
      if (!Arrow.DataType.isNull(arrow)) throw mismatch();
      return () => null;
    default: {
      const _exhaustive: never = weir;
      return _exhaustive;
    }
  }
}

function compileArrowReaderOfChild(
  arrow: A.DataType,
  element: DataType,
  path: string,
  mismatch: () => ArrowTypeMismatch,
): ArrowValueReader {
  if (
    !(
      Arrow.DataType.isList(arrow) ||
      Arrow.DataType.isLargeList(arrow) ||
      Arrow.DataType.isFixedSizeList(arrow)
    )
  ) {
    throw mismatch();
  }
  return compileArrowReader(arrow.children[0].type, element, path);
}

function listReader(
  arrow: A.DataType,
  readElement: ArrowValueReader,
  mismatch: () => ArrowTypeMismatch,
): ArrowValueReader {
  if (Arrow.DataType.isFixedSizeList(arrow)) {
    const size = arrow.listSize;
    return ({ children }, i) => {
      const out = new Array<unknown>(size);
      for (let k = 0; k < size; k++) out[k] = readElement(children[0], i * size + k);
      return out;
    };
  }
  if (!(Arrow.DataType.isList(arrow) || Arrow.DataType.isLargeList(arrow))) throw mismatch();
  return ({ valueOffsets, children }, i) => {
    const begin = Number(valueOffsets[i]);
    const end = Number(valueOffsets[i + 1]);
    const out = new Array<unknown>(end - begin);
    for (let k = begin; k < end; k++) out[k - begin] = readElement(children[0], k);
    return out;
  };
}

/**
 * A dictionary-encoded column (pandas categoricals, R factors): the dictionary is converted
 * once per dictionary vector, then each value is a lookup by index.
 */
function dictionaryReader(arrow: A.Dictionary, weir: DataType, path: string): ArrowValueReader {
  const readValue = compileArrowReader(arrow.dictionary, { ...weir, nullable: true } as DataType, path);
  let cachedFor: A.Vector | undefined;
  let decoded: unknown[] = [];
  return (data, i) => {
    const dict = data.dictionary as A.Vector;
    if (dict !== cachedFor) {
      decoded = [];
      for (const chunk of dict.data) for (let k = 0; k < chunk.length; k++) decoded.push(readValue(chunk, k));
      cachedFor = dict;
    }
    const value = decoded[Number((data.values as Int32Array)[i])];
    if (value === null && !weir.nullable)
      throw new FormatError(`column '${path}' is NOT NULL but holds a null`);
    return value;
  };
}
