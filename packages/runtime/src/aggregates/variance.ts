import type { DataType } from "@weir/planner";
import type { AggregateFunction } from "./api.js";
import { castNumber, decimalScale, toDouble } from "./numeric.js";

export type VarianceKind = "VAR_POP" | "VAR_SAMP" | "STDDEV_POP" | "STDDEV_SAMP";

/**
 * `[count, Σ(x − K), Σ(x − K)², K]` of the non-null values, as doubles: sums shifted by K, the
 * first value accumulated since the count was last 0. An accumulator restored from an older
 * snapshot, `[count, Σx, Σx²]`, is the same with K = 0.
 */
export type MomentsAcc = [number, number, number, number] | [number, number, number];

const EMPTY = (): [number, number, number, number] => [0, 0, 0, 0];
const moments = (acc: MomentsAcc): [number, number, number, number] =>
  acc.length === 4 ? acc : [acc[0], acc[1], acc[2], 0];

/**
 * VAR_POP, VAR_SAMP, STDDEV_POP, STDDEV_SAMP over shifted sums: `(S₂ − S₁²/n) / n` (or
 * `/(n − 1)`) where S₁, S₂ sum x − K and (x − K)² for K a value of the group. Shifting keeps
 * large values with a small spread exact — Flink 2.3 is numerically stable too: STDDEV_POP of
 * 100000001, 100000002, 100000003 is 0.816496580927726, where Σx² − (Σx)²/n gives 0 — and, unlike
 * a running mean, a retraction is an exact inverse for such values. Window slices merge by
 * re-shifting. The double result is cast to the planner's result type (the input type in Flink:
 * VAR_POP of an INT column is an INT). NULL when n = 0, and for the sample forms when n = 1.
 */
export function variance(
  kind: VarianceKind,
  inputType: DataType,
  resultType: DataType,
): AggregateFunction<MomentsAcc> {
  const scale = decimalScale(inputType);
  const sample = kind === "VAR_SAMP" || kind === "STDDEV_SAMP";
  const root = kind === "STDDEV_POP" || kind === "STDDEV_SAMP";
  const step = (a: MomentsAcc, v: unknown, sign: 1 | -1): MomentsAcc => {
    if (v === null || v === undefined) return a;
    const acc = moments(a);
    const x = toDouble(v, scale);
    if (acc[0] === 0) {
      acc[1] = 0;
      acc[2] = 0;
      acc[3] = x;
    }
    const y = x - acc[3];
    acc[0] += sign;
    if (acc[0] === 0) return EMPTY();
    acc[1] += sign * y;
    acc[2] += sign * y * y;
    return acc;
  };
  return {
    name: kind,
    retractable: true,
    create: EMPTY,
    accumulate: (acc, v) => step(acc, v, 1),
    retract: (acc, v) => step(acc, v, -1),
    merge: (a, b) => {
      const acc = moments(a);
      const other = moments(b);
      if (other[0] === 0) return acc;
      if (acc[0] === 0) return [...other];
      const n = acc[0] + other[0];
      if (n === 0) return EMPTY();
      // re-shift `other` from its K to ours: x − K = (x − K') + d
      const d = other[3] - acc[3];
      acc[2] += other[2] + 2 * d * other[1] + other[0] * d * d;
      acc[1] += other[1] + other[0] * d;
      acc[0] = n;
      return acc;
    },
    getValue: (a) => {
      const [n, s1, s2] = moments(a);
      if (n <= 0 || (sample && n === 1)) return null;
      const v = Math.max(0, (s2 - (s1 * s1) / n) / (sample ? n - 1 : n));
      return castNumber(root ? Math.sqrt(v) : v, resultType);
    },
  };
}
