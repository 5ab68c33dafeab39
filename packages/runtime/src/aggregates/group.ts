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
 *
 * When the input never retracts (`insertOnly`), an entry is instead a bit set of the members that
 * have seen the value (bit m: member m), as Flink keeps a `Long` bitmap per value when the distinct
 * view needs no retraction: a number when the value is its own key (numbers, booleans, most
 * strings), else `[value, bits]`. Member m's function sees the value when bit m is first set.
 */
type SharedDistinct = Map<unknown, unknown[] | number>;

/** Members a bit set holds at most (bit operations stay on 31-bit integers). */
const MAX_BIT_MEMBERS = 30;

interface DistinctGroup {
  readonly arg: number;
  /** Binding indices of the members. */
  readonly members: readonly number[];
  /** Their FILTER columns (-1: none) and wrapped functions, in member order. */
  readonly filters: readonly number[];
  readonly inner: readonly AggregateFunction[];
  /** Index of the shared map in a {@link GroupAcc}. */
  readonly slot: number;
  /** Entries are bit sets (insert-only input), not counts. */
  readonly bits: boolean;
}

export interface GroupAggregatesOptions {
  /**
   * The rows are never retracted (`apply` only with sign 1, and `merge` of slices): DISTINCT
   * maps keep a bit set per value instead of counts. `apply` with −1 then throws.
   */
  readonly insertOnly?: boolean;
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
  /** The bindings `apply` runs itself (not shared), as parallel arrays. */
  private readonly ownAt: readonly number[];
  private readonly ownFn: readonly AggregateFunction[];
  private readonly ownArg: readonly number[];
  private readonly ownFilter: readonly number[];
  /** Per binding: the function whose `getValue` gives its value. */
  private readonly valueFn: readonly AggregateFunction[];
  private readonly insertOnly: boolean;

  constructor(
    readonly bindings: readonly AggregateBinding[],
    options: GroupAggregatesOptions = {},
  ) {
    this.insertOnly = options.insertOnly === true;
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
        bits: this.insertOnly && members.length <= MAX_BIT_MEMBERS,
      });
    }
    this.groups = groups;
    this.shared = shared;
    const own = bindings.map((_, i) => i).filter((i) => !shared[i]);
    this.ownAt = own.map((i) => i + 1);
    this.ownFn = own.map((i) => bindings[i].fn);
    this.ownArg = own.map((i) => bindings[i].arg);
    this.ownFilter = own.map((i) => bindings[i].filter ?? -1);
    this.valueFn = bindings.map((b, i) => (shared[i] ? b.fn.distinctOf! : b.fn));
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
    if (sign < 0 && this.insertOnly)
      throw new Error("an aggregation planned for an insert-only input received a retraction");
    g[0] = (g[0] as number) + sign;
    const { ownAt, ownFn, ownArg, ownFilter } = this;
    for (let i = 0; i < ownAt.length; i++) {
      const f = ownFilter[i];
      if (f >= 0 && row[f] !== true) continue;
      const a = ownArg[i];
      const v = a < 0 ? null : row[a];
      const at = ownAt[i];
      g[at] = sign === 1 ? ownFn[i].accumulate(g[at], v) : ownFn[i].retract(g[at], v);
    }
    const groups = this.groups;
    for (let j = 0; j < groups.length; j++) {
      const d = groups[j];
      if (d.bits) this.applyBits(g, d, row);
      else this.applyShared(g, d, row, sign);
    }
  }

  private applyBits(g: GroupAcc, d: DistinctGroup, row: Row): void {
    const v = row[d.arg];
    if (v === null || v === undefined) return;
    const { members, filters, inner } = d;
    let add = 0;
    for (let m = 0; m < members.length; m++) {
      const f = filters[m];
      if (f < 0 || row[f] === true) add |= 1 << m;
    }
    if (add === 0) return;
    const seen = g[d.slot] as SharedDistinct;
    const k = valueKey(v);
    const e = seen.get(k);
    let had: number;
    if (e === undefined) {
      had = 0;
      seen.set(k, isOwnKey(k, v) ? add : [v, add]);
    } else if (typeof e === "number") {
      had = e;
      if ((e | add) === e) return;
      seen.set(k, e | add);
    } else {
      had = e[1] as number;
      if ((had | add) === had) return;
      e[1] = had | add;
    }
    const fresh = add & ~had;
    for (let m = 0; m < members.length; m++) {
      if ((fresh & (1 << m)) === 0) continue;
      const at = members[m] + 1;
      g[at] = inner[m].accumulate(g[at], v);
    }
  }

  private applyShared(g: GroupAcc, d: DistinctGroup, row: Row, sign: 1 | -1): void {
    const v = row[d.arg];
    if (v === null || v === undefined) return;
    const { members, filters, inner } = d;
    const seen = g[d.slot] as SharedDistinct;
    const k = valueKey(v);
    let e = seen.get(k) as unknown[] | undefined;
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
      if (d.bits) {
        this.mergeBits(g, d, other[d.slot] as SharedDistinct);
        continue;
      }
      const seen = g[d.slot] as SharedDistinct;
      for (const [k, oe] of other[d.slot] as SharedDistinct) {
        const o = oe as unknown[];
        let e = seen.get(k) as unknown[] | undefined;
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

  private mergeBits(g: GroupAcc, d: DistinctGroup, other: SharedDistinct): void {
    const seen = g[d.slot] as SharedDistinct;
    for (const [k, o] of other) {
      const bits = typeof o === "number" ? o : (o[1] as number);
      const v = typeof o === "number" ? k : o[0];
      const e = seen.get(k);
      let had = 0;
      if (e === undefined) seen.set(k, typeof o === "number" ? o : [v, bits]);
      else if (typeof e === "number") {
        had = e;
        seen.set(k, e | bits);
      } else {
        had = e[1] as number;
        e[1] = had | bits;
      }
      const fresh = bits & ~had;
      if (fresh === 0) continue;
      for (let m = 0; m < d.members.length; m++) {
        if ((fresh & (1 << m)) === 0) continue;
        const at = d.members[m] + 1;
        g[at] = d.inner[m].accumulate(g[at], v);
      }
    }
  }

  rowCount(g: GroupAcc): number {
    return g[0] as number;
  }

  /** The aggregate values, in binding order. */
  values(g: GroupAcc): unknown[] {
    const out = new Array(this.bindings.length);
    this.writeValues(g, out, 0);
    return out;
  }

  /** Writes the aggregate values, in binding order, into `out` from index `at`. */
  writeValues(g: GroupAcc, out: unknown[], at: number): void {
    const fns = this.valueFn;
    for (let i = 0; i < fns.length; i++) out[at + i] = fns[i].getValue(g[i + 1]);
  }

  /** Appends the aggregate values, in binding order, to `out` (which stays a packed array). */
  pushValues(g: GroupAcc, out: unknown[]): void {
    const fns = this.valueFn;
    for (let i = 0; i < fns.length; i++) out.push(fns[i].getValue(g[i + 1]));
  }
}

/** Whether a Map keyed by `k` gives back `v` itself as the key (not so for -0, which Map keys as 0). */
function isOwnKey(k: unknown, v: unknown): boolean {
  return k === v && (v !== 0 || 1 / (v as number) > 0);
}

function allZero(e: unknown[]): boolean {
  for (let i = 1; i < e.length; i++) if (e[i] !== 0) return false;
  return true;
}
