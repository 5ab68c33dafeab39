import type { DataType } from "@weir/planner";
import { int64Add, int64Div, int64Sub } from "../expr/bigint.js";
import type { AggregateFunction } from "./api.js";
import { castNumber, decimalScale, divideHalfUp, pow10, rescale } from "./numeric.js";

/** COUNT(x): non-null values; BIGINT. Accumulator: the count. */
export const count: AggregateFunction<number> = {
  name: "COUNT",
  retractable: true,
  create: () => 0,
  accumulate: (acc, v) => (v === null || v === undefined ? acc : acc + 1),
  retract: (acc, v) => (v === null || v === undefined ? acc : acc - 1),
  merge: (acc, other) => acc + other,
  getValue: (acc) => acc,
};

/** COUNT(*) and COUNT(1): rows. */
export const countStar: AggregateFunction<number> = {
  name: "COUNT(*)",
  retractable: true,
  create: () => 0,
  accumulate: (acc) => acc + 1,
  retract: (acc) => acc - 1,
  merge: (acc, other) => acc + other,
  getValue: (acc) => acc,
};

/** `[sum, count of non-null values]`; the sum is a bigint for DECIMAL, else a number. */
export type SumAcc = [number | bigint, number];

function sumSteps(name: string, zero: number | bigint) {
  return {
    create: (): SumAcc => [zero, 0],
    accumulate: (acc: SumAcc, v: unknown): SumAcc => {
      if (v === null || v === undefined) return acc;
      acc[0] = (acc[0] as number) + (v as number);
      acc[1]++;
      return acc;
    },
    retract: (acc: SumAcc, v: unknown): SumAcc => {
      if (v === null || v === undefined) return acc;
      acc[0] = (acc[0] as number) - (v as number);
      acc[1]--;
      return acc;
    },
    merge: (acc: SumAcc, other: SumAcc): SumAcc => {
      acc[0] = (acc[0] as number) + (other[0] as number);
      acc[1] += other[1];
      return acc;
    },
    name,
    retractable: true,
  };
}

/**
 * SUM(x), typed by the planner: INT family → the input type (wrapping like Java on overflow),
 * DOUBLE/FLOAT → same, DECIMAL(p, s) → DECIMAL(38, s). NULL when no non-null value remains.
 */
export function sum(inputType: DataType, resultType: DataType): AggregateFunction<SumAcc> {
  if (resultType.kind === "BIGINT") return int64Sum("SUM", (acc) => (acc[1] === 0 ? null : acc[0]));
  if (inputType.kind === "DECIMAL") {
    const from = decimalScale(inputType);
    const to = decimalScale(resultType);
    return {
      ...sumSteps("SUM", 0n),
      getValue: (acc) => (acc[1] === 0 ? null : rescale(acc[0] as bigint, from, to)),
    };
  }
  return {
    ...sumSteps("SUM", 0),
    getValue: (acc) => (acc[1] === 0 ? null : castNumber(acc[0] as number, resultType)),
  };
}

/**
 * AVG(x): INT family → integer division truncating toward zero, in the input type; DOUBLE/FLOAT
 * → the quotient; DECIMAL(p, s) → the quotient rounded half up to the result type's scale (Flink
 * plans DECIMAL(38, max(6, s))). NULL over no non-null values.
 */
export function avg(inputType: DataType, resultType: DataType): AggregateFunction<SumAcc> {
  if (inputType.kind === "BIGINT" && resultType.kind === "BIGINT")
    return int64Sum("AVG", (acc) => (acc[1] === 0 ? null : int64Div(acc[0], acc[1])));
  if (inputType.kind === "DECIMAL") {
    const from = decimalScale(inputType);
    const to = decimalScale(resultType);
    return {
      ...sumSteps("AVG", 0n),
      getValue: (acc) => {
        if (acc[1] === 0) return null;
        const s = acc[0] as bigint;
        const n = BigInt(acc[1]);
        return to >= from ? divideHalfUp(s * pow10(to - from), n) : divideHalfUp(s, n * pow10(from - to));
      },
    };
  }
  return {
    ...sumSteps("AVG", 0),
    getValue: (acc) => (acc[1] === 0 ? null : castNumber((acc[0] as number) / acc[1], resultType)),
  };
}

/**
 * SUM / AVG over BIGINT: the running sum is a Java long (see expr/bigint.ts) that wraps around on
 * overflow as Flink's does; wrapping is modular, so retractions undo accumulations exactly.
 */
const MAX_SAFE = Number.MAX_SAFE_INTEGER;

function int64Sum(name: string, getValue: (acc: SumAcc) => unknown): AggregateFunction<SumAcc> {
  return {
    name,
    retractable: true,
    create: (): SumAcc => [0, 0],
    accumulate: (acc, v) => {
      if (v === null || v === undefined) return acc;
      const s = acc[0];
      // the safe-integer path inline (int64Add's first branch), the rest in BigInt
      const r = typeof s === "number" && typeof v === "number" ? s + v : Number.NaN;
      acc[0] = r <= MAX_SAFE && r >= -MAX_SAFE ? r : int64Add(s, v as number | bigint);
      acc[1]++;
      return acc;
    },
    retract: (acc, v) => {
      if (v === null || v === undefined) return acc;
      acc[0] = int64Sub(acc[0], v as number | bigint);
      acc[1]--;
      return acc;
    },
    merge: (acc, other) => {
      acc[0] = int64Add(acc[0], other[0]);
      acc[1] += other[1];
      return acc;
    },
    getValue,
  };
}
