import type { AggregateFunction } from "./api.js";
import { notRetractable } from "./api.js";

/**
 * LAG(value [, offset [, default]]) OVER (PARTITION BY … ORDER BY rowtime), as Flink's streaming
 * `LagAggFunction`: the accumulator keeps the last offset + 1 inputs of the partition (NULL values
 * count as rows); the result for the row just accumulated is the input `offset` rows before it, or
 * the default (NULL without one) while there are fewer rows. With a default, each input is the pair
 * `[value, default]` (a ROW projected by the planner) and the current row's default is used.
 * Not retractable: LAG's frame is every row up to the current one.
 */
export function lag(offset: number, withDefault: boolean): AggregateFunction<unknown[]> {
  const keep = offset + 1;
  const lagged = (x: unknown) => (withDefault ? ((x as unknown[] | null)?.[0] ?? null) : x);
  return {
    name: "LAG",
    retractable: false,
    create: () => [],
    accumulate: (acc, v) => {
      acc.push(v === undefined ? null : v);
      if (acc.length > keep) acc.shift();
      return acc;
    },
    retract: () => notRetractable("LAG"),
    merge: (acc, other) => {
      const all = [...acc, ...other];
      return all.length > keep ? all.slice(all.length - keep) : all;
    },
    getValue: (acc) => {
      if (acc.length === keep) return lagged(acc[0]);
      if (!withDefault || acc.length === 0) return null;
      return (acc[acc.length - 1] as unknown[] | null)?.[1] ?? null;
    },
  };
}
