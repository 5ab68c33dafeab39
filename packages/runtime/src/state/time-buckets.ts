import type { StateKey } from "./keys.js";

/** Index of the first element of ascending `arr` that is ≥ `v`. */
export function lowerBound(arr: readonly number[], v: number): number {
  let lo = 0;
  let hi = arr.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (arr[mid] < v) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * Entries bucketed by timestamp: a Map per timestamp plus the ascending list of timestamps that
 * hold entries. Invariant: `order` holds exactly the timestamps of non-empty buckets, ascending.
 * New timestamps are usually the latest, so the sorted insert is usually an append.
 */
export class TimeBuckets<V> {
  private readonly buckets = new Map<number, Map<StateKey, V>>();
  private readonly order: number[] = [];
  private count = 0;

  get size(): number {
    return this.count;
  }

  timestamps(): readonly number[] {
    return this.order;
  }

  /** The timestamps in [`from`, `to`] holding entries, ascending (a live view of the order). */
  *range(from = Number.NEGATIVE_INFINITY, to = Number.POSITIVE_INFINITY): IterableIterator<number> {
    const order = this.order;
    for (let i = lowerBound(order, from); i < order.length && order[i] <= to; i++) yield order[i];
  }

  min(): number | undefined {
    return this.order.length === 0 ? undefined : this.order[0];
  }

  bucket(ts: number): Map<StateKey, V> | undefined {
    return this.buckets.get(ts);
  }

  get(ts: number, key: StateKey): V | undefined {
    return this.buckets.get(ts)?.get(key);
  }

  has(ts: number, key: StateKey): boolean {
    return this.buckets.get(ts)?.has(key) ?? false;
  }

  put(ts: number, key: StateKey, value: V): void {
    if (Number.isNaN(ts)) throw new Error("a state timestamp cannot be NaN");
    let b = this.buckets.get(ts);
    if (b === undefined) {
      b = new Map();
      this.buckets.set(ts, b);
      const n = this.order.length;
      if (n === 0 || this.order[n - 1] < ts) this.order.push(ts);
      else this.order.splice(lowerBound(this.order, ts), 0, ts);
    }
    if (!b.has(key)) this.count++;
    b.set(key, value);
  }

  delete(ts: number, key: StateKey): boolean {
    const b = this.buckets.get(ts);
    if (b === undefined || !b.delete(key)) return false;
    this.count--;
    if (b.size === 0) this.dropBucket(ts);
    return true;
  }

  /** Removes the bucket at `ts` (whatever it holds) and returns it. */
  take(ts: number): Map<StateKey, V> | undefined {
    const b = this.buckets.get(ts);
    if (b === undefined) return undefined;
    this.count -= b.size;
    this.dropBucket(ts);
    return b;
  }

  clear(): void {
    this.buckets.clear();
    this.order.length = 0;
    this.count = 0;
  }

  private dropBucket(ts: number): void {
    this.buckets.delete(ts);
    if (this.order[0] === ts) this.order.shift();
    else this.order.splice(lowerBound(this.order, ts), 1);
  }
}
