import type { Clock } from "../time/watermarks.js";
import type { TtlConfig } from "./api.js";
import { encodeJson, type Json } from "./codec.js";
import type { StateKey } from "./keys.js";

/** How many expired entries a write checks for at most, on top of explicit cleanup. */
const CLEANUP_PER_WRITE = 2;

/** In {@link KeyedCow.saved}: the captured value is still the one at the barrier (it was replaced, not mutated). */
export const UNCHANGED: unique symbol = Symbol("unchanged");

/**
 * A copy-on-write view of a {@link KeyedTable} at a barrier: the entries it held then (keys,
 * value references and, with a TTL, last-access times, in the order a snapshot writes them),
 * taken in O(entries) reference copies without encoding anything. State values may be mutated in
 * place after a `read` (see the state API), so the first read of a key after the barrier encodes
 * the barrier's value into `saved` before handing the value out, and the first write marks it
 * {@link UNCHANGED} (the captured reference stays the barrier's value; the table holds a new one).
 * A key's snapshot value is `saved`'s if it has one, else the captured reference, encoded.
 */
export class KeyedCow {
  readonly saved = new Map<StateKey, Json | typeof UNCHANGED>();
  constructor(
    readonly keys: readonly StateKey[],
    readonly values: readonly unknown[],
    readonly lastAccess: readonly number[] | null,
  ) {}

  /** The snapshot's entries, encoded one by one as asked: `[key, value]` or `[key, value, lastAccess]`. */
  *entries(): Generator<Json> {
    const { keys, values, lastAccess, saved } = this;
    for (let i = 0; i < keys.length; i++) {
      const k = keys[i]!;
      const s = saved.get(k);
      const v = s === undefined || s === UNCHANGED ? encodeJson(values[i]) : s;
      yield lastAccess === null ? [encodeJson(k), v] : [encodeJson(k), v, lastAccess[i]!];
    }
  }
}

/**
 * A keyed map whose entries expire after `ttl.ttlMs` of processing time without access.
 * Invariant: with a TTL, `touched` holds every key of `data` in order of last access (a refresh
 * re-inserts the key at the end), so the oldest entries are always at its front and incremental
 * cleanup stops at the first live one. Assumes a clock that does not go backwards.
 */
export class KeyedTable<X> {
  readonly data = new Map<StateKey, X>();
  readonly touched: Map<StateKey, number> | null;
  private readonly ttlMs: number;
  private readonly refreshOnRead: boolean;
  /** The copy-on-write view of the snapshot being written asynchronously, if any (at most one). */
  private cow: KeyedCow | null = null;
  /**
   * Without a TTL: the key and value of the last `read` that found one, while the entry is
   * unchanged. Writing that same value back (a value mutated in place, as an aggregate's
   * accumulators) then needs no second hash lookup: the map already holds it.
   */
  private lastKey: StateKey | undefined = undefined;
  private lastValue: X | undefined = undefined;

  constructor(
    ttl: TtlConfig | undefined,
    private readonly clock: Clock,
  ) {
    if (ttl !== undefined && !(ttl.ttlMs > 0))
      throw new Error(`state TTL must be positive, got ${ttl.ttlMs}`);
    this.touched = ttl === undefined ? null : new Map();
    this.ttlMs = ttl?.ttlMs ?? 0;
    this.refreshOnRead = (ttl?.update ?? "read-write") === "read-write";
  }

  read(key: StateKey): X | undefined {
    const x = this.data.get(key);
    if (x === undefined) return x;
    if (this.touched === null) {
      if (this.cow !== null) this.preserve(this.cow, key, x);
      this.lastKey = key;
      this.lastValue = x;
      return x;
    }
    const now = this.clock();
    if (now - this.touched.get(key)! >= this.ttlMs) {
      this.remove(key);
      return undefined;
    }
    if (this.refreshOnRead) this.touch(key, now);
    if (this.cow !== null) this.preserve(this.cow, key, x);
    return x;
  }

  write(key: StateKey, x: X): void {
    if (this.cow !== null && !this.cow.saved.has(key)) this.cow.saved.set(key, UNCHANGED);
    if (x === this.lastValue && key === this.lastKey) return;
    this.lastKey = undefined;
    this.lastValue = undefined;
    this.data.set(key, x);
    if (this.touched !== null) {
      const now = this.clock();
      this.touch(key, now);
      this.cleanup(CLEANUP_PER_WRITE, now);
    }
  }

  remove(key: StateKey): void {
    if (this.cow !== null && !this.cow.saved.has(key)) this.cow.saved.set(key, UNCHANGED);
    this.forgetLast();
    this.data.delete(key);
    this.touched?.delete(key);
  }

  isLive(key: StateKey, now: number): boolean {
    return this.touched === null || now - (this.touched.get(key) ?? now) < this.ttlMs;
  }

  /** Live entries; their values may be mutated and written back, as `read`'s. */
  *liveEntries(): IterableIterator<[StateKey, X]> {
    const now = this.clock();
    for (const e of this.data) {
      if (!this.isLive(e[0], now)) continue;
      if (this.cow !== null) this.preserve(this.cow, e[0], e[1]);
      yield e;
    }
  }

  /** The keys of live entries (no value is handed out). */
  *liveKeys(): IterableIterator<StateKey> {
    const now = this.clock();
    for (const k of this.data.keys()) if (this.isLive(k, now)) yield k;
  }

  /**
   * Starts a copy-on-write snapshot: captures the entries (in access order with a TTL, so a
   * restore rebuilds the TTL order by appending) and keeps the barrier's value of every key the
   * table touches from now on, until {@link endSnapshot}. At most one at a time.
   */
  beginSnapshot(): KeyedCow {
    if (this.cow !== null) throw new Error("a copy-on-write snapshot of this state table is still open");
    const n = this.data.size;
    const keys: StateKey[] = new Array(n);
    const values: unknown[] = new Array(n);
    let lastAccess: number[] | null = null;
    let i = 0;
    if (this.touched === null) {
      for (const [k, v] of this.data) {
        keys[i] = k;
        values[i++] = v;
      }
    } else {
      lastAccess = new Array(n);
      for (const [k, at] of this.touched) {
        keys[i] = k;
        values[i] = this.data.get(k);
        lastAccess[i++] = at;
      }
    }
    this.cow = new KeyedCow(keys, values, lastAccess);
    return this.cow;
  }

  /** Ends the copy-on-write snapshot `cow` (the table stops keeping barrier values). */
  endSnapshot(cow: KeyedCow): void {
    if (this.cow === cow) this.cow = null;
  }

  /** Keeps the barrier's value of `key` before it is handed out for a possible in-place mutation. */
  private preserve(cow: KeyedCow, key: StateKey, x: X): void {
    if (!cow.saved.has(key)) cow.saved.set(key, encodeJson(x));
  }

  /** Removes up to `budget` expired entries, oldest first; returns how many. */
  cleanup(budget: number, now = this.clock()): number {
    if (this.touched === null) return 0;
    let removed = 0;
    for (const [key, t] of this.touched) {
      if (removed >= budget || now - t < this.ttlMs) break;
      this.data.delete(key);
      this.touched.delete(key);
      removed++;
    }
    return removed;
  }

  /** Restores an entry with its last-access time; call in ascending `lastAccess` order. */
  load(key: StateKey, x: X, lastAccess: number | undefined): void {
    this.forgetLast();
    this.data.set(key, x);
    if (this.touched !== null) this.touch(key, lastAccess ?? this.clock());
  }

  clear(): void {
    this.forgetLast();
    this.cow = null;
    this.data.clear();
    this.touched?.clear();
  }

  private forgetLast(): void {
    this.lastKey = undefined;
    this.lastValue = undefined;
  }

  private touch(key: StateKey, now: number): void {
    this.touched!.delete(key);
    this.touched!.set(key, now);
  }
}
