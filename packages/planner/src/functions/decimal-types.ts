import type { DataType, DecimalType } from "../types.js";
import { T } from "../types.js";

/** Flink's maximum DECIMAL precision. */
export const MAX_DECIMAL_PRECISION = 38;
/** The scale Flink keeps at least when an arithmetic result exceeds 38 digits. */
const MIN_ADJUSTED_SCALE = 6;

/**
 * The DECIMAL equivalent of an exact type, as Flink's `LogicalTypeMerging` widens integers for
 * decimal arithmetic: TINYINT → DECIMAL(3,0), SMALLINT → (5,0), INT → (10,0), BIGINT → (19,0).
 * Returns undefined for inexact or non-numeric types.
 */
export function decimalOf(t: DataType): { precision: number; scale: number } | undefined {
  switch (t.kind) {
    case "TINYINT":
      return { precision: 3, scale: 0 };
    case "SMALLINT":
      return { precision: 5, scale: 0 };
    case "INT":
      return { precision: 10, scale: 0 };
    case "BIGINT":
      return { precision: 19, scale: 0 };
    case "DECIMAL":
      return { precision: t.precision, scale: t.scale };
    default:
      return undefined;
  }
}

/**
 * Flink's `adjustPrecisionScale`: a result wider than 38 digits keeps its integral digits and
 * gives up fraction digits, but keeps at least min(scale, 6) of them.
 */
export function adjustPrecisionScale(precision: number, scale: number, nullable: boolean): DecimalType {
  if (precision <= MAX_DECIMAL_PRECISION) return T.decimal(precision, scale, nullable);
  const integral = precision - scale;
  const minScale = Math.min(scale, MIN_ADJUSTED_SCALE);
  const adjusted = Math.max(MAX_DECIMAL_PRECISION - integral, minScale);
  return T.decimal(MAX_DECIMAL_PRECISION, adjusted, nullable);
}

type PS = { precision: number; scale: number };

/** `+` and `-`: scale max(s1,s2), precision max(p1-s1,p2-s2) + scale + 1. */
export function decimalAddType(a: PS, b: PS, nullable: boolean): DecimalType {
  const scale = Math.max(a.scale, b.scale);
  const precision = Math.max(a.precision - a.scale, b.precision - b.scale) + scale + 1;
  return adjustPrecisionScale(precision, scale, nullable);
}

/** `*`: precision p1+p2+1, scale s1+s2. */
export function decimalMultiplyType(a: PS, b: PS, nullable: boolean): DecimalType {
  return adjustPrecisionScale(a.precision + b.precision + 1, a.scale + b.scale, nullable);
}

/** `/`: scale max(6, s1+p2+1), precision p1-s1+s2+scale. */
export function decimalDivideType(a: PS, b: PS, nullable: boolean): DecimalType {
  const scale = Math.max(MIN_ADJUSTED_SCALE, a.scale + b.precision + 1);
  const precision = a.precision - a.scale + b.scale + scale;
  return adjustPrecisionScale(precision, scale, nullable);
}

/** `%` / MOD: scale max(s1,s2), precision min(p1-s1,p2-s2) + scale. */
export function decimalModType(a: PS, b: PS, nullable: boolean): DecimalType {
  const scale = Math.max(a.scale, b.scale);
  const precision = Math.min(a.precision - a.scale, b.precision - b.scale) + scale;
  return adjustPrecisionScale(Math.max(precision, 1), scale, nullable);
}

/** ROUND/TRUNCATE(decimal, r): Flink's `findRoundingDecimalType`. */
export function decimalRoundType(a: PS, round: number, nullable: boolean): DecimalType {
  if (round >= a.scale) return T.decimal(a.precision, a.scale, nullable);
  if (round < 0) return T.decimal(Math.min(MAX_DECIMAL_PRECISION, 1 + a.precision - a.scale), 0, nullable);
  return T.decimal(Math.min(MAX_DECIMAL_PRECISION, 1 + a.precision - a.scale + round), round, nullable);
}

/** The common DECIMAL of two exact types (for CASE, comparisons, UNION): keeps every digit up to 38. */
export function decimalCommonType(a: PS, b: PS, nullable: boolean): DecimalType {
  const scale = Math.max(a.scale, b.scale);
  const integral = Math.max(a.precision - a.scale, b.precision - b.scale);
  const precision = Math.min(MAX_DECIMAL_PRECISION, integral + scale);
  return T.decimal(precision, Math.min(scale, precision), nullable);
}
