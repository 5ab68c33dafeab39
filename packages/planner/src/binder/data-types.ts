import type { DataTypeNode, TimeUnit } from "@weir/parser";
import type { DataType } from "../types.js";
import { STRING_LENGTH, T } from "../types.js";
import { fail } from "./errors.js";

const YEAR_MONTH_UNITS: readonly TimeUnit[] = ["YEAR", "MONTH", "QUARTER", "MILLENNIUM", "CENTURY", "DECADE"];

export function isYearMonthUnit(unit: TimeUnit): boolean {
  return YEAR_MONTH_UNITS.includes(unit);
}

/** A declared type as Weir represents it; Flink's defaults fill absent lengths and precisions. */
export function bindDataType(node: DataTypeNode): DataType {
  const nullable = !node.notNull;
  switch (node.kind) {
    case "ScalarType":
      switch (node.name) {
        case "BOOLEAN":
          return T.boolean(nullable);
        case "TINYINT":
          return T.tinyint(nullable);
        case "SMALLINT":
          return T.smallint(nullable);
        case "INT":
          return T.int(nullable);
        case "BIGINT":
          return T.bigint(nullable);
        case "FLOAT":
        case "REAL":
          return T.float(nullable);
        case "DOUBLE":
          return T.double(nullable);
        case "DECIMAL": {
          const precision = node.precision ?? 10;
          const scale = node.scale ?? 0;
          if (precision < 1 || precision > 38) {
            fail("invalid-type", `DECIMAL precision must be between 1 and 38, got ${precision}`, node.span);
          }
          if (scale < 0 || scale > precision) {
            fail(
              "invalid-type",
              `DECIMAL scale must be between 0 and the precision (${precision}), got ${scale}`,
              node.span,
            );
          }
          return T.decimal(precision, scale, nullable);
        }
        case "CHAR":
          return T.char(length(node.length, node.span), nullable);
        case "VARCHAR":
          // Flink's SQL type system: VARCHAR without a length is VARCHAR(2147483647), i.e. STRING.
          return T.varchar(
            node.length === undefined ? STRING_LENGTH : length(node.length, node.span),
            nullable,
          );
        case "STRING":
          return T.varchar(STRING_LENGTH, nullable);
        case "BINARY":
          return T.binary(length(node.length, node.span), nullable);
        case "VARBINARY":
          return T.varbinary(
            node.length === undefined ? STRING_LENGTH : length(node.length, node.span),
            nullable,
          );
        case "BYTES":
          return T.bytes(nullable);
        case "DATE":
          return T.date(nullable);
        case "TIME":
          // Flink accepts TIME(0..9) but its TIME holds milliseconds: TIME(4..9) is TIME(3)
          return T.time(Math.min(3, precision(node.precision ?? 0, 9, node.span)), nullable);
        case "TIMESTAMP":
          return node.withLocalTimeZone
            ? T.timestampLtz(precision(node.precision ?? 6, 9, node.span), nullable)
            : T.timestamp(precision(node.precision ?? 6, 9, node.span), nullable);
        case "TIMESTAMP_LTZ":
          return T.timestampLtz(precision(node.precision ?? 6, 9, node.span), nullable);
        case "NULL":
          return T.null();
        default: {
          const _exhaustive: never = node.name;
          return _exhaustive;
        }
      }
    case "IntervalType":
      return isYearMonthUnit(node.qualifier.start)
        ? T.intervalYearMonth(nullable)
        : T.intervalDayTime(nullable);
    case "ArrayType":
      return T.array(bindDataType(node.element), nullable);
    case "MultisetType":
      return T.multiset(bindDataType(node.element), nullable);
    case "MapType":
      return T.map(bindDataType(node.key), bindDataType(node.value), nullable);
    case "RowType": {
      const seen = new Set<string>();
      const fields = node.fields.map((f) => {
        if (seen.has(f.name.value))
          fail("duplicate-field", `duplicate field name '${f.name.value}' in ROW type`, f.name.span);
        seen.add(f.name.value);
        return { name: f.name.value, type: bindDataType(f.type) };
      });
      return T.row(fields, nullable);
    }
    default: {
      const _exhaustive: never = node;
      return _exhaustive;
    }
  }
}

function length(n: number | undefined, span: DataTypeNode["span"]): number {
  if (n === undefined) return 1;
  if (n < 1) fail("invalid-type", `length must be at least 1, got ${n}`, span);
  return n;
}

function precision(p: number, max: number, span: DataTypeNode["span"]): number {
  if (p < 0 || p > max) fail("invalid-type", `precision must be between 0 and ${max}, got ${p}`, span);
  return p;
}
