import type { Row } from "../changelog.js";
import { valueKey } from "../state/keys.js";
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
 * A group's accumulators: `[rowCount, acc0, acc1, ..., shared0, shared1, ...]`. `rowCount` counts
 * the group's rows (accumulations minus retractions) whatever the aggregates and filters are; it
 * reaching 0 is how a group aggregate knows to emit `-D` and drop the group. `acc_i` is binding
 * i's accumulator; for a DISTINCT aggregate that shares its distinct values (see
 * {@link GroupAggregates}) it is the wrapped function's accumulator, and the values live in the
 * shared map of its column (`shared_j`).
 */
export type GroupAcc = unknown[];

/**
 * One distinct-value map shared by the DISTINCT aggregates over one column (Flink's DistinctInfo):
 * per distinct non-null value (keyed by {@link valueKey}), `[value, n_0, n_1, ...]` with `n_m` the
 * number of rows holding it that pass member m's FILTER (net of retractions). Member m's function
 * sees a value when its count goes 0 → 1 and loses it when it goes 1 → 0, exactly as a DISTINCT
 * aggregate with a map of its own; an entry goes when every count is 0.
 */
type SharedDistinct = Map<unknown, unknown[]>;

interface DistinctGroup {
  readonly arg: number;
  /** Binding indices of the members. */
  readonly members: readonly number[];
  /** Their FILTER columns (-1: none) and wrapped functions, in member order. */
  readonly filters: readonly number[];
  readonly inner: readonly AggregateFunction[];
  /** Index of the shared map in a {@link GroupAcc}. */
  readonly slot: number;
}

/**
 * Applies a row change to all the aggregates of a group. DISTINCT aggregates over the same
 * column (with different FILTERs, as Nexmark q16's `COUNT(DISTINCT bidder) FILTER (...)`) share
 * one map of distinct values instead of one map each.
 */
export class GroupAggregates {
  private readonly groups: readonly DistinctGroup[];
  /** Per binding: whether its distinct values are in a shared map (then `apply` skips it). */
  private readonly shared: readonly boolean[];

  constructor(readonly bindings: readonly AggregateBinding[]) {
    const byArg = new Map<number, number[]>();
    bindings.forEach((b, i) => {
      if (b.fn.distinctOf === undefined || b.arg < 0) return;
      const list = byArg.get(b.arg) ?? [];
      list.push(i);
      byArg.set(b.arg, list);
    });
    const groups: DistinctGroup[] = [];
    const shared = bindings.map(() => false);
    for (const [arg, members] of byArg) {
      if (members.length < 2) continue;
      for (const m of members) shared[m] = true;
      groups.push({
        arg,
        members,
        filters: members.map((m) => bindings[m].filter ?? -1),
        inner: members.map((m) => bindings[m].fn.distinctOf!),
        slot: 1 + bindings.length + groups.length,
      });
    }
    this.groups = groups;
    this.shared = shared;
  }

  create(): GroupAcc {
    const g: GroupAcc = [0];
    const bs = this.bindings;
    for (let i = 0; i < bs.length; i++)
      g.push(this.shared[i] ? bs[i].fn.distinctOf!.create() : bs[i].fn.create());
    for (let j = 0; j < this.groups.length; j++) g.push(new Map() as SharedDistinct);
    return g;
  }

  /** Adds (`sign` = 1) or retracts (−1) a row. */
  apply(g: GroupAcc, row: Row, sign: 1 | -1): void {
    g[0] = (g[0] as number) + sign;
    const bs = this.bindings;
    for (let i = 0; i < bs.length; i++) {
      if (this.shared[i]) continue;
      const b = bs[i];
      if (b.filter !== undefined && b.filter !== null && row[b.filter] !== true) continue;
      const v = b.arg < 0 ? null : row[b.arg];
      g[i + 1] = sign === 1 ? b.fn.accumulate(g[i + 1], v) : b.fn.retract(g[i + 1], v);
    }
    for (let j = 0; j < this.groups.length; j++) this.applyShared(g, this.groups[j], row, sign);
  }

  private applyShared(g: GroupAcc, d: DistinctGroup, row: Row, sign: 1 | -1): void {
    const v = row[d.arg];
    if (v === null || v === undefined) return;
    const { members, filters, inner } = d;
    const seen = g[d.slot] as SharedDistinct;
    const k = valueKey(v);
    let e = seen.get(k);
    let touched = false;
    for (let m = 0; m < members.length; m++) {
      const f = filters[m];
      if (f >= 0 && row[f] !== true) continue;
      if (e === undefined) {
        e = new Array<unknown>(members.length + 1).fill(0);
        e[0] = v;
        seen.set(k, e);
      }
      touched = true;
      const before = e[m + 1] as number;
      const after = before + sign;
      e[m + 1] = after;
      const at = members[m] + 1;
      if (before === 0 && after === 1) g[at] = inner[m].accumulate(g[at], v);
      else if (before === 1 && after === 0) g[at] = inner[m].retract(g[at], v);
    }
    if (touched && allZero(e!)) seen.delete(k);
  }

  /** Merges `other` (later rows, e.g. a later window slice) into `g`; `other` is not modified. */
  merge(g: GroupAcc, other: GroupAcc): void {
    g[0] = (g[0] as number) + (other[0] as number);
    for (let i = 0; i < this.bindings.length; i++)
      if (!this.shared[i]) g[i + 1] = this.bindings[i].fn.merge(g[i + 1], other[i + 1]);
    for (const d of this.groups) {
      const seen = g[d.slot] as SharedDistinct;
      for (const [k, o] of other[d.slot] as SharedDistinct) {
        let e = seen.get(k);
        if (e === undefined) {
          e = new Array<unknown>(o.length).fill(0);
          e[0] = o[0];
          seen.set(k, e);
        }
        for (let m = 0; m < d.members.length; m++) {
          const before = e[m + 1] as number;
          const after = before + (o[m + 1] as number);
          e[m + 1] = after;
          const at = d.members[m] + 1;
          if (before <= 0 && after > 0) g[at] = d.inner[m].accumulate(g[at], e[0]);
          else if (before > 0 && after <= 0) g[at] = d.inner[m].retract(g[at], e[0]);
        }
        if (allZero(e)) seen.delete(k);
      }
    }
  }

  rowCount(g: GroupAcc): number {
    return g[0] as number;
  }

  /** The aggregate values, in binding order. */
  values(g: GroupAcc): unknown[] {
    const out = new Array(this.bindings.length);
    for (let i = 0; i < this.bindings.length; i++) {
      const b = this.bindings[i];
      out[i] = this.shared[i] ? b.fn.distinctOf!.getValue(g[i + 1]) : b.fn.getValue(g[i + 1]);
    }
    return out;
  }
}

function allZero(e: unknown[]): boolean {
  for (let i = 1; i < e.length; i++) if (e[i] !== 0) return false;
  return true;
}
