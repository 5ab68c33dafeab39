import type { AggregateFunction } from "./api.js";
import { notRetractable } from "./api.js";
import { compareValues } from "./compare.js";

/** MIN/MAX without retraction: the current extreme, or null. */
function plain(name: "MIN" | "MAX"): AggregateFunction<unknown> {
  const better =
    name === "MIN"
      ? (a: unknown, b: unknown) => compareValues(a, b) < 0
      : (a: unknown, b: unknown) => compareValues(a, b) > 0;
  return {
    name,
    retractable: false,
    create: () => null,
    accumulate: (acc, v) => (v === null || v === undefined ? acc : acc === null || better(v, acc) ? v : acc),
    retract: () => notRetractable(name),
    merge: (acc, other) => (other === null ? acc : acc === null || better(other, acc) ? other : acc),
    getValue: (acc) => acc,
  };
}

/**
 * The retractable accumulator: a sorted multiset of `[value, count]`, ascending by value. A
 * retraction of a value never accumulated (possible across window slices) leaves a negative
 * count, which later accumulations or merges cancel; only positive counts are candidates.
 */
export type SortedCounts = [unknown, number][];

function search(acc: SortedCounts, v: unknown): number {
  let lo = 0;
  let hi = acc.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (compareValues(acc[mid][0], v) < 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function add(acc: SortedCounts, v: unknown, n: number): SortedCounts {
  const i = search(acc, v);
  if (i < acc.length && compareValues(acc[i][0], v) === 0) {
    acc[i][1] += n;
    if (acc[i][1] === 0) acc.splice(i, 1);
  } else {
    acc.splice(i, 0, [v, n]);
  }
  return acc;
}

function retracting(name: "MIN" | "MAX"): AggregateFunction<SortedCounts> {
  return {
    name,
    retractable: true,
    create: () => [],
    accumulate: (acc, v) => (v === null || v === undefined ? acc : add(acc, v, 1)),
    retract: (acc, v) => (v === null || v === undefined ? acc : add(acc, v, -1)),
    merge: (acc, other) => {
      for (const [v, n] of other) add(acc, v, n);
      return acc;
    },
    getValue: (acc) => {
      if (name === "MIN") {
        for (let i = 0; i < acc.length; i++) if (acc[i][1] > 0) return acc[i][0];
      } else {
        for (let i = acc.length - 1; i >= 0; i--) if (acc[i][1] > 0) return acc[i][0];
      }
      return null;
    },
  };
}

export function min(retractable: boolean): AggregateFunction {
  return (retractable ? retracting("MIN") : plain("MIN")) as AggregateFunction;
}

export function max(retractable: boolean): AggregateFunction {
  return (retractable ? retracting("MAX") : plain("MAX")) as AggregateFunction;
}
