import type { Clock } from "../time/watermarks.js";
import type { TtlConfig } from "./api.js";
import type { StateKey } from "./keys.js";

/** How many expired entries a write checks for at most, on top of explicit cleanup. */
const CLEANUP_PER_WRITE = 2;

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
    if (x === undefined || this.touched === null) return x;
    const now = this.clock();
    if (now - this.touched.get(key)! >= this.ttlMs) {
      this.remove(key);
      return undefined;
    }
    if (this.refreshOnRead) this.touch(key, now);
    return x;
  }

  write(key: StateKey, x: X): void {
    this.data.set(key, x);
    if (this.touched !== null) {
      const now = this.clock();
      this.touch(key, now);
      this.cleanup(CLEANUP_PER_WRITE, now);
    }
  }

  remove(key: StateKey): void {
    this.data.delete(key);
    this.touched?.delete(key);
  }

  isLive(key: StateKey, now: number): boolean {
    return this.touched === null || now - (this.touched.get(key) ?? now) < this.ttlMs;
  }

  *liveEntries(): IterableIterator<[StateKey, X]> {
    const now = this.clock();
    for (const e of this.data) if (this.isLive(e[0], now)) yield e;
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
    this.data.set(key, x);
    if (this.touched !== null) this.touch(key, lastAccess ?? this.clock());
  }

  clear(): void {
    this.data.clear();
    this.touched?.clear();
  }

  private touch(key: StateKey, now: number): void {
    this.touched!.delete(key);
    this.touched!.set(key, now);
  }
}
