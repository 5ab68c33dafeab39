import type { DataType } from "../types.js";
import {
  isCharacter,
  isIntegral,
  isNumeric,
  isTimestamp,
  materialize,
  STRING_LENGTH,
  T,
  withNullable,
} from "../types.js";
import { decimalCommonType, decimalOf } from "./decimal-types.js";

/** Numeric widening order: TINYINT < SMALLINT < INT < BIGINT < DECIMAL < FLOAT < DOUBLE. */
const NUMERIC_RANK: Record<string, number> = {
  TINYINT: 1,
  SMALLINT: 2,
  INT: 3,
  BIGINT: 4,
  DECIMAL: 5,
  FLOAT: 6,
  DOUBLE: 7,
};

export function numericRank(t: DataType): number {
  return NUMERIC_RANK[t.kind] ?? 0;
}

/** True when a value of `t` may be NULL (the NULL type always). */
export function isNullable(t: DataType): boolean {
  return t.kind === "NULL" || t.nullable;
}

/** The wider of two numeric types, as Flink widens operands of arithmetic and comparison. */
export function widenNumeric(a: DataType, b: DataType, nullable: boolean): DataType {
  const ra = numericRank(a);
  const rb = numericRank(b);
  if (ra >= 6 || rb >= 6) {
    return ra === 7 || rb === 7 || ra === 5 || rb === 5 ? T.double(nullable) : T.float(nullable);
  }
  if (ra === 5 || rb === 5) return decimalCommonType(decimalOf(a)!, decimalOf(b)!, nullable);
  return withNullable(ra >= rb ? a : b, nullable) as DataType;
}

function sameFamily(a: DataType, b: DataType): boolean {
  if (isCharacter(a) && isCharacter(b)) return true;
  if ((a.kind === "BINARY" || a.kind === "VARBINARY") && (b.kind === "BINARY" || b.kind === "VARBINARY")) {
    return true;
  }
  return a.kind === b.kind;
}

/**
 * The least type every argument converts to implicitly (CASE branches, COALESCE, IN lists,
 * UNION inputs, comparison operands). NULL-typed inputs only make the result nullable. Returns
 * undefined when there is none (e.g. BOOLEAN and INT).
 */
export function commonType(types: readonly DataType[]): DataType | undefined {
  const nullable = types.some(isNullable);
  let acc: DataType | undefined;
  for (const raw of types) {
    if (raw.kind === "NULL") continue;
    const t = materialize(raw);
    if (acc === undefined) {
      acc = t;
      continue;
    }
    const merged = mergePair(acc, t);
    if (merged === undefined) return undefined;
    acc = merged;
  }
  if (acc === undefined) return T.null();
  return withNullable(acc, nullable);
}

function mergePair(a: DataType, b: DataType): DataType | undefined {
  const nullable = isNullable(a) || isNullable(b);
  if (isNumeric(a) && isNumeric(b)) return widenNumeric(a, b, nullable);
  if ((a.kind === "CHAR" || a.kind === "VARCHAR") && (b.kind === "CHAR" || b.kind === "VARCHAR")) {
    if (a.kind === "CHAR" && b.kind === "CHAR" && a.length === b.length) return withNullable(a, nullable);
    // Flink: CHAR/VARCHAR mix is VARCHAR of the longer length.
    return T.varchar(Math.max(a.length, b.length), nullable);
  }
  if ((a.kind === "BINARY" || a.kind === "VARBINARY") && (b.kind === "BINARY" || b.kind === "VARBINARY")) {
    return T.varbinary(Math.max(a.length, b.length), nullable);
  }
  if (isTimestamp(a) && isTimestamp(b)) {
    const precision = Math.max(a.precision, b.precision);
    return a.kind === b.kind
      ? { kind: a.kind, precision, nullable }
      : { kind: "TIMESTAMP_LTZ", precision, nullable };
  }
  if (isTimestamp(a) && b.kind === "DATE") return withNullable(a, nullable);
  if (isTimestamp(b) && a.kind === "DATE") return withNullable(b, nullable);
  if (a.kind === "TIME" && b.kind === "TIME") return T.time(Math.max(a.precision, b.precision), nullable);
  if (a.kind === "ARRAY" && b.kind === "ARRAY") {
    const element = commonType([a.element, b.element]);
    return element && T.array(element, nullable);
  }
  if (a.kind === "MULTISET" && b.kind === "MULTISET") {
    const element = commonType([a.element, b.element]);
    return element && T.multiset(element, nullable);
  }
  if (a.kind === "MAP" && b.kind === "MAP") {
    const key = commonType([a.key, b.key]);
    const value = commonType([a.value, b.value]);
    return key && value && T.map(key, value, nullable);
  }
  if (a.kind === "ROW" && b.kind === "ROW") {
    if (a.fields.length !== b.fields.length) return undefined;
    const fields = [];
    for (let i = 0; i < a.fields.length; i++) {
      const t = commonType([a.fields[i].type, b.fields[i].type]);
      if (t === undefined) return undefined;
      fields.push({ name: a.fields[i].name, type: t });
    }
    return T.row(fields, nullable);
  }
  if (sameFamily(a, b)) return withNullable(a, nullable);
  return undefined;
}

/**
 * Whether `from` converts to `to` without an explicit CAST (argument coercion): NULL to anything,
 * numeric widening, CHAR/VARCHAR to a wider string, DATE to TIMESTAMP, and the same type with
 * any precision or nullability.
 */
export function canImplicitCast(from: DataType, to: DataType): boolean {
  if (from.kind === "NULL") return true;
  if (isNumeric(from) && isNumeric(to)) {
    const rf = numericRank(from);
    const rt = numericRank(to);
    if (rf < rt) return true;
    if (rf !== rt) return false;
    if (from.kind === "DECIMAL" && to.kind === "DECIMAL") {
      return to.precision - to.scale >= from.precision - from.scale && to.scale >= from.scale;
    }
    return true;
  }
  if (isCharacter(from) && isCharacter(to)) return true;
  if (from.kind === "DATE" && isTimestamp(to)) return true;
  if (isTimestamp(from) && isTimestamp(to)) return from.kind === to.kind;
  if (from.kind === "ARRAY" && to.kind === "ARRAY") return canImplicitCast(from.element, to.element);
  if (from.kind === "MAP" && to.kind === "MAP") {
    return canImplicitCast(from.key, to.key) && canImplicitCast(from.value, to.value);
  }
  if (from.kind === "ROW" && to.kind === "ROW") {
    return (
      from.fields.length === to.fields.length &&
      from.fields.every((f, i) => canImplicitCast(f.type, to.fields[i].type))
    );
  }
  return sameFamily(from, to);
}

/**
 * Whether an explicit CAST from `from` to `to` is valid, following Flink's `LogicalTypeCasts`:
 * anything to a string; strings to every scalar type; numerics and BOOLEAN among themselves;
 * DATE, TIME, TIMESTAMP and TIMESTAMP_LTZ among themselves (DATE ↛ TIME); constructed types
 * element-wise. Numerics do not cast to timestamps (use TO_TIMESTAMP_LTZ).
 */
export function canCast(from: DataType, to: DataType): boolean {
  if (from.kind === "NULL") return true;
  if (isCharacter(to)) return true;
  if (canImplicitCast(from, to)) return true;
  const scalarFromString =
    to.kind !== "ARRAY" &&
    to.kind !== "MAP" &&
    to.kind !== "MULTISET" &&
    to.kind !== "ROW" &&
    to.kind !== "NULL";
  if (isCharacter(from)) return scalarFromString;
  const numOrBool = (t: DataType) => isNumeric(t) || t.kind === "BOOLEAN";
  if (numOrBool(from) && numOrBool(to)) return true;
  const temporal = (t: DataType) => t.kind === "DATE" || t.kind === "TIME" || isTimestamp(t);
  if (temporal(from) && temporal(to)) {
    return !((from.kind === "DATE" && to.kind === "TIME") || (from.kind === "TIME" && to.kind === "DATE"));
  }
  if ((from.kind === "INTERVAL_DAY_TIME" || from.kind === "INTERVAL_YEAR_MONTH") && isIntegral(to))
    return true;
  if (isIntegral(from) && (to.kind === "INTERVAL_DAY_TIME" || to.kind === "INTERVAL_YEAR_MONTH")) return true;
  if (from.kind === "ARRAY" && to.kind === "ARRAY") return canCast(from.element, to.element);
  if (from.kind === "MULTISET" && to.kind === "MULTISET") return canCast(from.element, to.element);
  if (from.kind === "MAP" && to.kind === "MAP")
    return canCast(from.key, to.key) && canCast(from.value, to.value);
  if (from.kind === "ROW" && to.kind === "ROW") {
    return (
      from.fields.length === to.fields.length &&
      from.fields.every((f, i) => canCast(f.type, to.fields[i].type))
    );
  }
  return false;
}

/** The STRING type with the nullability of `nullable`. */
export function stringType(nullable: boolean): DataType {
  return T.varchar(STRING_LENGTH, nullable);
}
