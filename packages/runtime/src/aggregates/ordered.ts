import type { AggregateFunction } from "./api.js";
import { notRetractable } from "./api.js";
import { valuesEqual } from "./compare.js";

/**
 * The retractable accumulator of order-sensitive aggregates: the non-null values in arrival order,
 * and retractions that matched no value yet (possible when a window slice retracts what an earlier
 * slice accumulated). A retraction removes the earliest equal value, as Flink's
 * `*WithRetract` functions do.
 */
export interface OrderedAcc {
  items: unknown[];
  pending: unknown[];
}

function removeFirst(list: unknown[], v: unknown): boolean {
  for (let i = 0; i < list.length; i++) {
    if (valuesEqual(list[i], v)) {
      list.splice(i, 1);
      return true;
    }
  }
  return false;
}

function ordered(name: string, getValue: (items: unknown[]) => unknown): AggregateFunction<OrderedAcc> {
  return {
    name,
    retractable: true,
    create: () => ({ items: [], pending: [] }),
    accumulate: (acc, v) => {
      if (v !== null && v !== undefined) acc.items.push(v);
      return acc;
    },
    retract: (acc, v) => {
      if (v !== null && v !== undefined && !removeFirst(acc.items, v)) acc.pending.push(v);
      return acc;
    },
    merge: (acc, other) => {
      for (const v of other.items) if (!removeFirst(acc.pending, v)) acc.items.push(v);
      for (const v of other.pending) if (!removeFirst(acc.items, v)) acc.pending.push(v);
      return acc;
    },
    getValue: (acc) => getValue(acc.items),
  };
}

/** FIRST_VALUE(x): the first non-null value in arrival order. */
export function firstValue(retractable: boolean): AggregateFunction {
  if (retractable) return ordered("FIRST_VALUE", (items) => items[0] ?? null) as AggregateFunction;
  return {
    name: "FIRST_VALUE",
    retractable: false,
    create: () => null,
    accumulate: (acc, v) => (acc !== null || v === null || v === undefined ? acc : v),
    retract: () => notRetractable("FIRST_VALUE"),
    merge: (acc, other) => (acc === null ? other : acc),
    getValue: (acc) => acc,
  };
}

/** LAST_VALUE(x): the last non-null value in arrival order. */
export function lastValue(retractable: boolean): AggregateFunction {
  if (retractable) return ordered("LAST_VALUE", (items) => items.at(-1) ?? null) as AggregateFunction;
  return {
    name: "LAST_VALUE",
    retractable: false,
    create: () => null,
    accumulate: (acc, v) => (v === null || v === undefined ? acc : v),
    retract: () => notRetractable("LAST_VALUE"),
    merge: (acc, other) => (other === null ? acc : other),
    getValue: (acc) => acc,
  };
}

/** LISTAGG(x [, separator]): the non-null values in arrival order joined by `separator` (`,`). */
export function listAgg(separator = ","): AggregateFunction {
  return ordered("LISTAGG", (items) =>
    items.length === 0 ? null : items.join(separator),
  ) as AggregateFunction;
}
