import type { Span } from "../span.js";
import type { Identifier, StringValue } from "./common.js";

/**
 * Scalar type names after normalisation of synonyms: `INTEGER` → `INT`, `DEC`/`NUMERIC` →
 * `DECIMAL`, `CHARACTER` → `CHAR`, `DOUBLE PRECISION` → `DOUBLE`.
 */
export type ScalarTypeName =
  | "BOOLEAN"
  | "TINYINT"
  | "SMALLINT"
  | "INT"
  | "BIGINT"
  | "FLOAT"
  | "REAL"
  | "DOUBLE"
  | "DECIMAL"
  | "CHAR"
  | "VARCHAR"
  | "STRING"
  | "BINARY"
  | "VARBINARY"
  | "BYTES"
  | "DATE"
  | "TIME"
  | "TIMESTAMP"
  | "TIMESTAMP_LTZ"
  | "NULL";

export type TimeUnit =
  | "MILLENNIUM"
  | "CENTURY"
  | "DECADE"
  | "YEAR"
  | "QUARTER"
  | "MONTH"
  | "WEEK"
  | "DAY"
  | "HOUR"
  | "MINUTE"
  | "SECOND"
  | "MILLISECOND"
  | "MICROSECOND"
  | "NANOSECOND"
  | "DOW"
  | "DOY"
  | "EPOCH"
  | "ISODOW"
  | "ISOYEAR";

/**
 * `DAY`, `SECOND(3)`, `HOUR TO MINUTE`, `DAY(2) TO SECOND(3)`. `precision` is the leading field
 * precision; `fractionalPrecision` is the seconds precision: `SECOND(p, f)` alone, or `TO SECOND(f)`.
 * Plural units (`MINUTES`) are normalised to the singular.
 */
export interface IntervalQualifier {
  readonly kind: "IntervalQualifier";
  readonly start: TimeUnit;
  readonly precision?: number;
  readonly end?: TimeUnit;
  readonly fractionalPrecision?: number;
  readonly span: Span;
}

/**
 * A scalar type. `length` is set for CHAR/VARCHAR/BINARY/VARBINARY, `precision` (and `scale`) for
 * DECIMAL, TIME, TIMESTAMP and TIMESTAMP_LTZ, `precision` for FLOAT; an absent field means the type's
 * default. `withLocalTimeZone` is only ever true for `TIMESTAMP(p) WITH LOCAL TIME ZONE`.
 */
export interface ScalarType {
  readonly kind: "ScalarType";
  readonly name: ScalarTypeName;
  readonly length?: number;
  readonly precision?: number;
  readonly scale?: number;
  readonly withLocalTimeZone: boolean;
  readonly notNull: boolean;
  readonly span: Span;
}

export interface IntervalType {
  readonly kind: "IntervalType";
  readonly qualifier: IntervalQualifier;
  readonly notNull: boolean;
  readonly span: Span;
}

/** `ARRAY<T>` or the suffix form `T ARRAY`. */
export interface ArrayType {
  readonly kind: "ArrayType";
  readonly element: DataTypeNode;
  readonly notNull: boolean;
  readonly span: Span;
}

/** `MULTISET<T>` or the suffix form `T MULTISET`. */
export interface MultisetType {
  readonly kind: "MultisetType";
  readonly element: DataTypeNode;
  readonly notNull: boolean;
  readonly span: Span;
}

export interface MapType {
  readonly kind: "MapType";
  readonly key: DataTypeNode;
  readonly value: DataTypeNode;
  readonly notNull: boolean;
  readonly span: Span;
}

export interface RowTypeField {
  readonly kind: "RowTypeField";
  readonly name: Identifier;
  readonly type: DataTypeNode;
  readonly description?: StringValue;
  readonly span: Span;
}

/** `ROW<a INT, b STRING>` or `ROW(a INT, b STRING)`; duplicate field names are the planner's to reject. */
export interface RowType {
  readonly kind: "RowType";
  readonly fields: readonly RowTypeField[];
  readonly notNull: boolean;
  readonly span: Span;
}

export type DataTypeNode = ScalarType | IntervalType | ArrayType | MultisetType | MapType | RowType;
