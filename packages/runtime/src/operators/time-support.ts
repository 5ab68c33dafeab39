import type { AggregateCall, DataType, Expr, Field, SortKey } from "@weir/planner";
import { compareValues } from "../aggregates/compare.js";
import { createAggregate } from "../aggregates/create.js";
import { GroupAggregates } from "../aggregates/group.js";
import type { Row } from "../changelog.js";
import { compilePredicate } from "../expr/compile.js";
import type { EvalContext } from "../expr/context.js";
import { getZone, instantToLocal, localToInstant } from "../expr/timezone.js";
import { encodeKeyValues, type StateKey } from "../state/keys.js";

/**
 * Helpers shared by the time-based operators and joins: join-key encoding, aggregate bindings,
 * sort comparators and window clocks.
 */

/**
 * The encoded equi-join key of `row` over `fields`, or null when a key field is NULL (SQL `=`
 * never matches NULL). Both sides of a join have the same key types (the binder casts), so a
 * single numeric or string field is its own key and anything else is the tagged encoding.
 */
export function joinKey(row: Row, fields: readonly number[]): StateKey | null {
  if (fields.length === 0) return 0;
  if (fields.length === 1) {
    const v = row[fields[0]];
    if (v === null || v === undefined) return null;
    if (typeof v === "number") return v === 0 ? 0 : v;
    if (typeof v === "string") return v;
    return encodeKeyValues([v]);
  }
  const vals = new Array(fields.length);
  for (let i = 0; i < fields.length; i++) {
    const v = row[fields[i]];
    if (v === null || v === undefined) return null;
    vals[i] = v;
  }
  return encodeKeyValues(vals);
}

/** A whole row as a Map key (SQL equality of every field). */
export function rowKey(row: Row): string {
  return encodeKeyValues(row);
}

/** Rows that an operator holds in state are plain arrays; `undefined` fields become null. */
export function nulls(n: number): Row {
  return new Array(n).fill(null);
}

/** `a` followed by `b`, as a new row. */
export function concat(a: Row, b: Row): Row {
  const out = new Array(a.length + b.length);
  for (let i = 0; i < a.length; i++) out[i] = a[i];
  for (let i = 0; i < b.length; i++) out[a.length + i] = b[i];
  return out;
}

/** A row of join side `side` (0 = left) joined with NULLs for the other side, `width` in all. */
export function padRow(side: 0 | 1, row: Row, width: number): Row {
  const fill = nulls(width - row.length);
  return side === 0 ? concat(row, fill) : concat(fill, row);
}

/**
 * The aggregates of a node, bound to their argument and FILTER columns. Without `retractable` the
 * caller never retracts a row (see {@link GroupAggregates}' `insertOnly`).
 */
export function bindAggregates(calls: readonly AggregateCall[], retractable: boolean): GroupAggregates {
  return new GroupAggregates(
    calls.map((c) => ({
      fn: createAggregate(c, retractable),
      arg: c.args.length === 0 ? -1 : c.args[0],
      filter: c.filterColumn,
    })),
    { insertOnly: !retractable },
  );
}

/**
 * Types indexed by input column for the columns an output schema copies from the input:
 * `columns[i]` of the input is `schema[i]` of the output. Other columns stay unknown.
 */
export function inputTypesFromOutput(columns: readonly number[], schema: readonly Field[]): DataType[] {
  const types: DataType[] = [];
  for (let i = 0; i < columns.length; i++) types[columns[i]] = schema[i].type;
  return types;
}

/** SQL ORDER BY over rows: NULLS FIRST/LAST per key, then ascending or descending. */
export function rowComparator(keys: readonly SortKey[]): (a: Row, b: Row) => number {
  return (a, b) => {
    for (let i = 0; i < keys.length; i++) {
      const k = keys[i];
      const x = a[k.column];
      const y = b[k.column];
      const xn = x === null || x === undefined;
      const yn = y === null || y === undefined;
      if (xn || yn) {
        if (xn && yn) continue;
        return xn === k.nullsFirst ? -1 : 1;
      }
      const c = compareValues(x, y);
      if (c !== 0) return k.descending ? -c : c;
    }
    return 0;
  };
}

/** A residual condition over the concatenated row, or null when there is none. */
export function compileResidual(expr: Expr | null, ctx: EvalContext): ((row: Row) => boolean) | null {
  return expr === null ? null : compilePredicate(expr, ctx);
}

/**
 * Windows over a TIMESTAMP_LTZ time column are aligned in the session time zone, and their
 * window_start / window_end are wall-clock TIMESTAMP(3) values of that zone (Flink's rule):
 * `toWall` maps an instant (a row time or a watermark) to that zone's wall clock, `toInstant`
 * maps a wall-clock window bound back to an instant (for window_time). For TIMESTAMP time
 * columns both are the identity.
 */
export interface WindowClock {
  readonly toWall: (instant: number) => number;
  readonly toInstant: (wall: number) => number;
}

const IDENTITY_CLOCK: WindowClock = { toWall: (t) => t, toInstant: (t) => t };

export function windowClock(ltz: boolean, timeZone: string): WindowClock {
  if (!ltz) return IDENTITY_CLOCK;
  const zone = getZone(timeZone);
  return {
    toWall: (t) => (Number.isFinite(t) ? instantToLocal(t, zone) : t),
    toInstant: (w) => (Number.isFinite(w) ? localToInstant(w, zone) : w),
  };
}
