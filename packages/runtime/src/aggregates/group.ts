import type { Row } from "../changelog.js";
import type { AggregateFunction } from "./api.js";

/** One aggregate of a group: its function, its argument column, and its FILTER column. */
export interface AggregateBinding {
  readonly fn: AggregateFunction;
  /** Input column of the argument; -1 for COUNT(*). */
  readonly arg: number;
  /** A BOOLEAN input column; the aggregate sees only rows where it is TRUE. */
  readonly filter?: number | null;
}

/**
 * A group's accumulators: `[rowCount, acc0, acc1, ...]`. `rowCount` counts the group's rows
 * (accumulations minus retractions) whatever the aggregates and filters are; it reaching 0 is how
 * a group aggregate knows to emit `-D` and drop the group.
 */
export type GroupAcc = unknown[];

/** Applies a row change to all the aggregates of a group. */
export class GroupAggregates {
  constructor(readonly bindings: readonly AggregateBinding[]) {}

  create(): GroupAcc {
    const g: GroupAcc = [0];
    for (const b of this.bindings) g.push(b.fn.create());
    return g;
  }

  /** Adds (`sign` = 1) or retracts (−1) a row. */
  apply(g: GroupAcc, row: Row, sign: 1 | -1): void {
    g[0] = (g[0] as number) + sign;
    const bs = this.bindings;
    for (let i = 0; i < bs.length; i++) {
      const b = bs[i];
      if (b.filter !== undefined && b.filter !== null && row[b.filter] !== true) continue;
      const v = b.arg < 0 ? null : row[b.arg];
      g[i + 1] = sign === 1 ? b.fn.accumulate(g[i + 1], v) : b.fn.retract(g[i + 1], v);
    }
  }

  /** Merges `other` (later rows, e.g. a later window slice) into `g`; `other` is not modified. */
  merge(g: GroupAcc, other: GroupAcc): void {
    g[0] = (g[0] as number) + (other[0] as number);
    for (let i = 0; i < this.bindings.length; i++)
      g[i + 1] = this.bindings[i].fn.merge(g[i + 1], other[i + 1]);
  }

  rowCount(g: GroupAcc): number {
    return g[0] as number;
  }

  /** The aggregate values, in binding order. */
  values(g: GroupAcc): unknown[] {
    const out = new Array(this.bindings.length);
    for (let i = 0; i < this.bindings.length; i++) out[i] = this.bindings[i].fn.getValue(g[i + 1]);
    return out;
  }
}
