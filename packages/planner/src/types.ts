/**
 * Weir's SQL types, and the JavaScript value that carries each one at run time.
 *
 * Every row is a plain JS array of values; `null` is SQL NULL for every type. The value of a
 * non-null field is:
 *
 * | type                              | JS value                                                    |
 * |-----------------------------------|-------------------------------------------------------------|
 * | BOOLEAN                           | `boolean`                                                   |
 * | TINYINT, SMALLINT, INT            | `number` (an integer in range)                              |
 * | BIGINT                            | `number` within ±(2^53 − 1), else `bigint` (runtime bigint.ts) |
 * | FLOAT, DOUBLE                     | `number`                                                    |
 * | DECIMAL(p, s)                     | `bigint`: the unscaled value (12.30 in DECIMAL(18,2) = 1230n)|
 * | CHAR, VARCHAR, STRING             | `string`                                                    |
 * | BINARY, VARBINARY, BYTES          | `Uint8Array`                                                |
 * | DATE                              | `number`: days since 1970-01-01                             |
 * | TIME(p)                           | `number`: milliseconds since midnight (TIME(4..9) is TIME(3)) |
 * | TIMESTAMP(p), p 0..3              | `number`: epoch milliseconds of the wall-clock time read as UTC |
 * | TIMESTAMP(p), p 4..9              | `bigint`: epoch nanoseconds of the wall-clock time read as UTC |
 * | TIMESTAMP_LTZ(p), p 0..3          | `number`: epoch milliseconds (an instant)                   |
 * | TIMESTAMP_LTZ(p), p 4..9          | `bigint`: epoch nanoseconds (an instant)                    |
 * | INTERVAL DAY TO SECOND (and parts)| `number`: milliseconds                                      |
 * | INTERVAL YEAR TO MONTH (and parts)| `number`: months                                            |
 * | ARRAY<T>                          | `unknown[]`                                                 |
 * | MAP<K, V>                         | `Map<unknown, unknown>`                                     |
 * | MULTISET<T>                       | `Map<unknown, number>` (element → count)                    |
 * | ROW<...>                          | `unknown[]` (fields by position)                            |
 *
 * Timestamps carry their precision, up to nanoseconds (Flink's TimestampData): the type decides
 * the representation (runtime `expr/timestamp-precision.ts`), so each value has exactly one.
 */
export type DataType =
  | SimpleType
  | DecimalType
  | CharType
  | BinaryType
  | TimeType
  | TimestampType
  | IntervalType
  | ArrayType
  | MapType
  | MultisetType
  | RowType
  | NullType;

export interface SimpleType {
  readonly kind: "BOOLEAN" | "TINYINT" | "SMALLINT" | "INT" | "BIGINT" | "FLOAT" | "DOUBLE" | "DATE";
  readonly nullable: boolean;
}

export interface DecimalType {
  readonly kind: "DECIMAL";
  /** 1..38 */
  readonly precision: number;
  /** 0..precision */
  readonly scale: number;
  readonly nullable: boolean;
}

/** STRING is VARCHAR(2147483647). */
export interface CharType {
  readonly kind: "CHAR" | "VARCHAR";
  readonly length: number;
  readonly nullable: boolean;
}

/** BYTES is VARBINARY(2147483647). */
export interface BinaryType {
  readonly kind: "BINARY" | "VARBINARY";
  readonly length: number;
  readonly nullable: boolean;
}

export interface TimeType {
  readonly kind: "TIME";
  readonly precision: number;
  readonly nullable: boolean;
}

/**
 * A time attribute is a TIMESTAMP(3) / TIMESTAMP_LTZ(3) column the planner may use for windows:
 * `rowtime` comes from a WATERMARK declaration, `proctime` from `PROCTIME()`. Any expression
 * other than a plain reference materialises it into a regular timestamp (attribute dropped).
 */
export interface TimestampType {
  readonly kind: "TIMESTAMP" | "TIMESTAMP_LTZ";
  readonly precision: number;
  readonly nullable: boolean;
  readonly timeAttribute?: "rowtime" | "proctime";
}

export interface IntervalType {
  /** Day-time intervals are milliseconds; year-month intervals are months. */
  readonly kind: "INTERVAL_DAY_TIME" | "INTERVAL_YEAR_MONTH";
  readonly nullable: boolean;
}

export interface ArrayType {
  readonly kind: "ARRAY";
  readonly element: DataType;
  readonly nullable: boolean;
}

export interface MapType {
  readonly kind: "MAP";
  readonly key: DataType;
  readonly value: DataType;
  readonly nullable: boolean;
}

export interface MultisetType {
  readonly kind: "MULTISET";
  readonly element: DataType;
  readonly nullable: boolean;
}

export interface RowField {
  readonly name: string;
  readonly type: DataType;
}

export interface RowType {
  readonly kind: "ROW";
  readonly fields: readonly RowField[];
  readonly nullable: boolean;
}

/** The type of an untyped NULL literal before inference gives it one. */
export interface NullType {
  readonly kind: "NULL";
  readonly nullable: true;
}

export const STRING_LENGTH = 2147483647;

/** Constructors, so that nodes are built in one place. */
export const T = {
  boolean: (nullable = true): SimpleType => ({ kind: "BOOLEAN", nullable }),
  tinyint: (nullable = true): SimpleType => ({ kind: "TINYINT", nullable }),
  smallint: (nullable = true): SimpleType => ({ kind: "SMALLINT", nullable }),
  int: (nullable = true): SimpleType => ({ kind: "INT", nullable }),
  bigint: (nullable = true): SimpleType => ({ kind: "BIGINT", nullable }),
  float: (nullable = true): SimpleType => ({ kind: "FLOAT", nullable }),
  double: (nullable = true): SimpleType => ({ kind: "DOUBLE", nullable }),
  date: (nullable = true): SimpleType => ({ kind: "DATE", nullable }),
  decimal: (precision: number, scale: number, nullable = true): DecimalType => ({
    kind: "DECIMAL",
    precision,
    scale,
    nullable,
  }),
  char: (length: number, nullable = true): CharType => ({ kind: "CHAR", length, nullable }),
  varchar: (length: number, nullable = true): CharType => ({ kind: "VARCHAR", length, nullable }),
  string: (nullable = true): CharType => ({ kind: "VARCHAR", length: STRING_LENGTH, nullable }),
  binary: (length: number, nullable = true): BinaryType => ({ kind: "BINARY", length, nullable }),
  varbinary: (length: number, nullable = true): BinaryType => ({ kind: "VARBINARY", length, nullable }),
  bytes: (nullable = true): BinaryType => ({ kind: "VARBINARY", length: STRING_LENGTH, nullable }),
  time: (precision = 0, nullable = true): TimeType => ({ kind: "TIME", precision, nullable }),
  timestamp: (precision = 6, nullable = true): TimestampType => ({ kind: "TIMESTAMP", precision, nullable }),
  timestampLtz: (precision = 6, nullable = true): TimestampType => ({
    kind: "TIMESTAMP_LTZ",
    precision,
    nullable,
  }),
  intervalDayTime: (nullable = true): IntervalType => ({ kind: "INTERVAL_DAY_TIME", nullable }),
  intervalYearMonth: (nullable = true): IntervalType => ({ kind: "INTERVAL_YEAR_MONTH", nullable }),
  array: (element: DataType, nullable = true): ArrayType => ({ kind: "ARRAY", element, nullable }),
  map: (key: DataType, value: DataType, nullable = true): MapType => ({ kind: "MAP", key, value, nullable }),
  multiset: (element: DataType, nullable = true): MultisetType => ({ kind: "MULTISET", element, nullable }),
  row: (fields: readonly RowField[], nullable = true): RowType => ({ kind: "ROW", fields, nullable }),
  null: (): NullType => ({ kind: "NULL", nullable: true }),
} as const;

export function withNullable<D extends DataType>(type: D, nullable: boolean): D {
  if (type.kind === "NULL" || type.nullable === nullable) return type;
  return { ...type, nullable } as D;
}

/** Drops a time attribute marker: what any computation over a rowtime/proctime column yields. */
export function materialize(type: DataType): DataType {
  if ((type.kind === "TIMESTAMP" || type.kind === "TIMESTAMP_LTZ") && type.timeAttribute) {
    const { timeAttribute: _dropped, ...rest } = type;
    return rest;
  }
  return type;
}

export function isNumeric(t: DataType): boolean {
  switch (t.kind) {
    case "TINYINT":
    case "SMALLINT":
    case "INT":
    case "BIGINT":
    case "FLOAT":
    case "DOUBLE":
    case "DECIMAL":
      return true;
    default:
      return false;
  }
}

export function isIntegral(t: DataType): boolean {
  return t.kind === "TINYINT" || t.kind === "SMALLINT" || t.kind === "INT" || t.kind === "BIGINT";
}

export function isCharacter(t: DataType): boolean {
  return t.kind === "CHAR" || t.kind === "VARCHAR";
}

export function isTimestamp(t: DataType): t is TimestampType {
  return t.kind === "TIMESTAMP" || t.kind === "TIMESTAMP_LTZ";
}

export function isTimeAttribute(t: DataType): t is TimestampType {
  return isTimestamp(t) && t.timeAttribute !== undefined;
}

/** Flink's SQL spelling of a type, as DESCRIBE and error messages print it. */
export function formatType(t: DataType): string {
  const nn = t.kind !== "NULL" && !t.nullable ? " NOT NULL" : "";
  switch (t.kind) {
    case "BOOLEAN":
    case "TINYINT":
    case "SMALLINT":
    case "INT":
    case "BIGINT":
    case "FLOAT":
    case "DOUBLE":
    case "DATE":
      return t.kind + nn;
    case "DECIMAL":
      return `DECIMAL(${t.precision}, ${t.scale})${nn}`;
    case "CHAR":
      return `CHAR(${t.length})${nn}`;
    case "VARCHAR":
      return (t.length === STRING_LENGTH ? "STRING" : `VARCHAR(${t.length})`) + nn;
    case "BINARY":
      return `BINARY(${t.length})${nn}`;
    case "VARBINARY":
      return (t.length === STRING_LENGTH ? "BYTES" : `VARBINARY(${t.length})`) + nn;
    case "TIME":
      return `TIME(${t.precision})${nn}`;
    case "TIMESTAMP":
    case "TIMESTAMP_LTZ": {
      const attr = t.timeAttribute ? ` *${t.timeAttribute.toUpperCase()}*` : "";
      return `${t.kind}(${t.precision})${nn}${attr}`;
    }
    case "INTERVAL_DAY_TIME":
      return `INTERVAL DAY TO SECOND(3)${nn}`;
    case "INTERVAL_YEAR_MONTH":
      return `INTERVAL YEAR TO MONTH${nn}`;
    case "ARRAY":
      return `ARRAY<${formatType(t.element)}>${nn}`;
    case "MAP":
      return `MAP<${formatType(t.key)}, ${formatType(t.value)}>${nn}`;
    case "MULTISET":
      return `MULTISET<${formatType(t.element)}>${nn}`;
    case "ROW":
      return `ROW<${t.fields.map((f) => `\`${f.name}\` ${formatType(f.type)}`).join(", ")}>${nn}`;
    case "NULL":
      return "NULL";
    default: {
      const _exhaustive: never = t;
      return _exhaustive;
    }
  }
}
