import type { DataType } from "@weir/planner";
import type { AggregateFunction } from "./api.js";
import { castNumber, decimalScale, toDouble } from "./numeric.js";

export type VarianceKind = "VAR_POP" | "VAR_SAMP" | "STDDEV_POP" | "STDDEV_SAMP";

/** `[count, sum, sum of squares]` of the non-null values, as doubles. */
export type MomentsAcc = [number, number, number];

/**
 * VAR_POP, VAR_SAMP, STDDEV_POP, STDDEV_SAMP, computed like Flink's rewrite of them into
 * SUM(x*x), SUM(x) and COUNT(x): `(Σx² − (Σx)²/n) / n` (or `/(n − 1)`), in doubles, cast to the
 * planner's result type (the input type in Flink: VAR_POP of an INT column is an INT). NULL when
 * n = 0, and for the sample forms when n = 1. Rounding error can make the variance of equal
 * values slightly negative; it is clamped to 0.
 */
export function variance(
  kind: VarianceKind,
  inputType: DataType,
  resultType: DataType,
): AggregateFunction<MomentsAcc> {
  const scale = decimalScale(inputType);
  const sample = kind === "VAR_SAMP" || kind === "STDDEV_SAMP";
  const root = kind === "STDDEV_POP" || kind === "STDDEV_SAMP";
  const step = (acc: MomentsAcc, v: unknown, sign: 1 | -1): MomentsAcc => {
    if (v === null || v === undefined) return acc;
    const x = toDouble(v, scale);
    acc[0] += sign;
    acc[1] += sign * x;
    acc[2] += sign * x * x;
    return acc;
  };
  return {
    name: kind,
    retractable: true,
    create: () => [0, 0, 0],
    accumulate: (acc, v) => step(acc, v, 1),
    retract: (acc, v) => step(acc, v, -1),
    merge: (acc, other) => {
      acc[0] += other[0];
      acc[1] += other[1];
      acc[2] += other[2];
      return acc;
    },
    getValue: ([n, s, sq]) => {
      if (n <= 0 || (sample && n === 1)) return null;
      const v = Math.max(0, (sq - (s * s) / n) / (sample ? n - 1 : n));
      return castNumber(root ? Math.sqrt(v) : v, resultType);
    },
  };
}
