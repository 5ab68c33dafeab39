import { valueKey } from "../state/keys.js";
import type { AggregateFunction } from "./api.js";

/**
 * A DISTINCT aggregate's accumulator: per distinct non-null value (keyed by {@link valueKey}) the
 * value and how many rows hold it, beside the wrapped function's accumulator.
 */
export interface DistinctAcc {
  seen: Map<unknown, [unknown, number]>;
  inner: unknown;
}

/**
 * `agg(DISTINCT x)`: the wrapped function sees a value's first accumulation and its last
 * retraction only. Merging slices forwards the values the other slice has and this one lacks
 * (and is exact for functions that are insensitive to duplicates in order, which are all the
 * ones DISTINCT makes sense for).
 */
export function distinct(inner: AggregateFunction): AggregateFunction<DistinctAcc> {
  return {
    name: `${inner.name}(DISTINCT)`,
    retractable: inner.retractable,
    create: () => ({ seen: new Map(), inner: inner.create() }),
    accumulate: (acc, v) => {
      if (v === null || v === undefined) return acc;
      const k = valueKey(v);
      const e = acc.seen.get(k);
      if (e === undefined) {
        acc.seen.set(k, [v, 1]);
        acc.inner = inner.accumulate(acc.inner, v);
      } else if (++e[1] === 0) {
        acc.seen.delete(k);
      }
      return acc;
    },
    retract: (acc, v) => {
      if (v === null || v === undefined) return acc;
      const k = valueKey(v);
      const e = acc.seen.get(k);
      if (e === undefined) {
        acc.seen.set(k, [v, -1]);
      } else if (--e[1] === 0) {
        acc.seen.delete(k);
        acc.inner = inner.retract(acc.inner, v);
      }
      return acc;
    },
    merge: (acc, other) => {
      for (const [k, [v, n]] of other.seen) {
        const e = acc.seen.get(k);
        if (e === undefined) {
          acc.seen.set(k, [v, n]);
          if (n > 0) acc.inner = inner.accumulate(acc.inner, v);
        } else {
          const before = e[1];
          e[1] += n;
          if (before <= 0 && e[1] > 0) acc.inner = inner.accumulate(acc.inner, v);
          else if (before > 0 && e[1] <= 0) acc.inner = inner.retract(acc.inner, v);
          if (e[1] === 0) acc.seen.delete(k);
        }
      }
      return acc;
    },
    getValue: (acc) => inner.getValue(acc.inner),
    distinctOf: inner,
  };
}
