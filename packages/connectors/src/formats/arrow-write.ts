import type { DataType, Field } from "@weir/planner";
import { formatType } from "@weir/planner";
import { ConnectorError, isPreciseTimestamp, type Row } from "@weir/runtime";
import type * as A from "apache-arrow";
import { Arrow } from "./arrow-lib.js";

/**
 * Weir rows → Arrow record batches. The Arrow schema follows the table schema column by column
 * (names, order, nullability); each Weir type has one Arrow type (`toArrowType`), chosen so that
 * reading the file back gives the same values exactly.
 */

/** The Arrow type that carries a Weir type. */
export function toArrowType(t: DataType): A.DataType {
  switch (t.kind) {
    case "BOOLEAN":
      return new Arrow.Bool();
    case "TINYINT":
      return new Arrow.Int8();
    case "SMALLINT":
      return new Arrow.Int16();
    case "INT":
      return new Arrow.Int32();
    case "BIGINT":
      return new Arrow.Int64();
    case "FLOAT":
      return new Arrow.Float32();
    case "DOUBLE":
      return new Arrow.Float64();
    case "DECIMAL":
      return new Arrow.Decimal(t.scale, t.precision, 128);
    case "CHAR":
    case "VARCHAR":
      return new Arrow.Utf8();
    case "BINARY":
    case "VARBINARY":
      return new Arrow.Binary();
    case "DATE":
      return new Arrow.DateDay();
    case "TIME":
      return new Arrow.TimeMillisecond();
    // TIMESTAMP(4..6) as microseconds, (7..9) as nanoseconds (built as Int64: see ArrowBatchEncoder)
    case "TIMESTAMP":
      if (isPreciseTimestamp(t)) return new Arrow.Timestamp(preciseUnit(t));
      return new Arrow.TimestampMillisecond();
    case "TIMESTAMP_LTZ":
      if (isPreciseTimestamp(t)) return new Arrow.Timestamp(preciseUnit(t), "UTC");
      return new Arrow.TimestampMillisecond("UTC");
    case "INTERVAL_DAY_TIME":
      return new Arrow.Duration(Arrow.TimeUnit.MILLISECOND);
    case "INTERVAL_YEAR_MONTH":
      return new Arrow.IntervalYearMonth();
    case "ARRAY":
      return new Arrow.List(new Arrow.Field("item", toArrowType(t.element), t.element.nullable));
    case "MAP":
    case "MULTISET": {
      const value: DataType = t.kind === "MAP" ? t.value : { kind: "INT", nullable: false };
      const key = t.kind === "MAP" ? t.key : t.element;
      const entries = new Arrow.Struct([
        new Arrow.Field("key", toArrowType(key), false),
        new Arrow.Field("value", toArrowType(value), value.nullable),
      ]);
      return new Arrow.Map_(new Arrow.Field("entries", entries, false));
    }
    case "ROW":
      return new Arrow.Struct(
        t.fields.map((f) => new Arrow.Field(f.name, toArrowType(f.type), f.type.nullable)),
      );
    case "NULL":
      return new Arrow.Null();
    default: {
      const _exhaustive: never = t;
      return _exhaustive;
    }
  }
}

export function toArrowSchema(fields: readonly Field[]): A.Schema {
  return new Arrow.Schema(fields.map((f) => new Arrow.Field(f.name, toArrowType(f.type), f.type.nullable)));
}

function hasPreciseTimestamp(t: DataType): boolean {
  switch (t.kind) {
    case "ARRAY":
    case "MULTISET":
      return hasPreciseTimestamp(t.element);
    case "MAP":
      return hasPreciseTimestamp(t.key) || hasPreciseTimestamp(t.value);
    case "ROW":
      return t.fields.some((f) => hasPreciseTimestamp(f.type));
    default:
      return isPreciseTimestamp(t);
  }
}

/** Converts a non-null Weir value to what apache-arrow's builder for `toArrowType(t)` appends. */
type ToArrow = ((v: unknown) => unknown) | null;

const MS_PER_DAY = 86_400_000;
const U32 = 0xffffffffn;

/** DECIMAL's unscaled bigint as the four little-endian 32-bit words of a 128-bit two's complement. */
export function decimalWords(unscaled: bigint): Uint32Array {
  const u = BigInt.asUintN(128, unscaled);
  return Uint32Array.of(
    Number(u & U32),
    Number((u >> 32n) & U32),
    Number((u >> 64n) & U32),
    Number(u >> 96n),
  );
}

const precisionOf = (t: DataType): number => (t as { precision: number }).precision;

function preciseUnit(t: DataType): A.TimeUnit {
  return precisionOf(t) <= 6 ? Arrow.TimeUnit.MICROSECOND : Arrow.TimeUnit.NANOSECOND;
}

function converter(t: DataType): ToArrow {
  // epoch nanos (already truncated to the precision) in the column's unit, for an Int64 builder
  if (isPreciseTimestamp(t)) return precisionOf(t) <= 6 ? (v) => (v as bigint) / 1000n : (v) => v;
  switch (t.kind) {
    case "BIGINT":
      return (v) => BigInt(v as number);
    case "DECIMAL":
      return (v) => decimalWords(v as bigint);
    case "DATE":
      // the DateDay builder takes epoch milliseconds and divides by a day
      return (v) => (v as number) * MS_PER_DAY;
    case "INTERVAL_DAY_TIME":
      return (v) => BigInt(v as number);
    case "INTERVAL_YEAR_MONTH":
      return (v) => Int32Array.of(Math.trunc((v as number) / 12), (v as number) % 12);
    case "ARRAY": {
      const el = converter(t.element);
      if (el === null) return null;
      return (v) => (v as unknown[]).map((x) => (x === null ? null : el(x)));
    }
    case "MAP":
    case "MULTISET": {
      const key = converter(t.kind === "MAP" ? t.key : t.element);
      const value = t.kind === "MAP" ? converter(t.value) : null;
      if (key === null && value === null) return null;
      return (v) => {
        const out = new Map<unknown, unknown>();
        for (const [k, x] of v as Map<unknown, unknown>) {
          out.set(k === null || key === null ? k : key(k), x === null || value === null ? x : value(x));
        }
        return out;
      };
    }
    case "ROW": {
      const fields = t.fields.map((f) => converter(f.type));
      if (fields.every((c) => c === null)) return null;
      return (v) =>
        (v as unknown[]).map((x, k) => {
          const c = fields[k];
          return x === null || c === null ? x : c(x);
        });
    }
    case "BOOLEAN":
    case "TINYINT":
    case "SMALLINT":
    case "INT":
    case "FLOAT":
    case "DOUBLE":
    case "CHAR":
    case "VARCHAR":
    case "BINARY":
    case "VARBINARY":
    case "TIME":
    case "TIMESTAMP":
    case "TIMESTAMP_LTZ":
    case "NULL":
      return null;
    default: {
      const _exhaustive: never = t;
      return _exhaustive;
    }
  }
}

/** Accumulates rows of one schema and cuts them into record batches. */
export class ArrowBatchEncoder {
  readonly schema: A.Schema;
  private builders: A.Builder[];
  private readonly converters: ToArrow[];
  private rows = 0;

  /** TIMESTAMP(4..9) columns: apache-arrow's timestamp builders take (fractional) millis. */
  private readonly precise: boolean[];

  constructor(private readonly fields: readonly Field[]) {
    this.precise = fields.map((f) => isPreciseTimestamp(f.type));
    for (const f of fields) {
      if (!isPreciseTimestamp(f.type) && hasPreciseTimestamp(f.type))
        throw new ConnectorError(
          `column '${f.name}' (${formatType(f.type)}): Arrow and Parquet output holds TIMESTAMP(4..9) only as a top-level column; cast the nested timestamps to TIMESTAMP(3) or write the column as a top-level one`,
          "user",
        );
    }
    this.schema = toArrowSchema(fields);
    this.converters = fields.map((f) => converter(f.type));
    this.builders = this.newBuilders();
  }

  get length(): number {
    return this.rows;
  }

  append(row: Row): void {
    for (let c = 0; c < this.builders.length; c++) {
      const v = row[c];
      const conv = this.converters[c];
      if (v === null || v === undefined) {
        if (!this.fields[c].type.nullable) {
          throw new ConnectorError(`column '${this.fields[c].name}' is NOT NULL but got a null`, "internal");
        }
        this.builders[c].append(null);
      } else {
        this.builders[c].append(conv === null ? v : conv(v));
      }
    }
    this.rows++;
  }

  /** The rows appended since the last call as one record batch, or null when there are none. */
  finish(): A.RecordBatch | null {
    if (this.rows === 0) return null;
    const children = this.builders.map((b, c) => {
      const d = b.finish().flush();
      if (!this.precise[c]) return d;
      // the Int64 column's buffers, typed as the schema's timestamp
      return Arrow.makeData({
        type: this.schema.fields[c].type as A.Timestamp,
        length: d.length,
        nullCount: d.nullCount,
        nullBitmap: d.nullBitmap,
        data: d.values as BigInt64Array,
      });
    });
    const length = this.rows;
    this.builders = this.newBuilders();
    this.rows = 0;
    const data = Arrow.makeData({
      type: new Arrow.Struct(this.schema.fields),
      length,
      nullCount: 0,
      children,
    });
    return new Arrow.RecordBatch(this.schema, data);
  }

  private newBuilders(): A.Builder[] {
    return this.schema.fields.map((f, c) =>
      Arrow.makeBuilder({
        type: this.precise[c] ? new Arrow.Int64() : f.type,
        nullValues: [null, undefined],
      }),
    );
  }
}
