import type { Json } from "./codec.js";
import type { StateKey } from "./keys.js";
import type { SharedStateFile } from "./state-files.js";

/**
 * The state API. Every piece of operator state lives in a named table declared on a
 * {@link StateBackend} when the operator opens (before a restore), so a checkpoint sees all of
 * it. Tables are keyed by an encoded {@link StateKey}; values are plain data (arrays, plain
 * objects, Maps, bigints, Uint8Arrays) that a snapshot can encode. Reads are point lookups and
 * iterations (never a whole collection handed out), which a store that is not memory can serve. Operators depend only on these
 * interfaces: a durable backend or incremental checkpoints replace the in-memory one without
 * changing operator code.
 *
 * A value handed to `put` is owned by the state from then on; a value returned by `get` may be
 * mutated in place only if it is written back with `put` (a durable backend serialises on put).
 */

/**
 * `table.exec.state.ttl`: an entry not accessed for `ttlMs` of processing time is gone: reads do
 * not return it, and cleanup removes it lazily on access and incrementally as the state is used.
 * `update` says which accesses refresh the entry's clock: `"read-write"` (the default) or
 * `"write"` (Flink's `OnCreateAndWrite`, which Flink SQL uses).
 */
export interface TtlConfig {
  readonly ttlMs: number;
  readonly update?: "read-write" | "write";
}

export interface StateOptions {
  readonly ttl?: TtlConfig;
}

export interface ValueState<V> {
  get(key: StateKey): V | undefined;
  put(key: StateKey, value: V): void;
  delete(key: StateKey): void;
  /** Live entries (not expired), in no particular order. */
  entries(): IterableIterator<[StateKey, V]>;
  /** Stored entries, counting expired ones that cleanup has not removed yet. */
  readonly size: number;
}

/** Per key, a map from a user key to a value. TTL applies to a key's whole map. */
export interface MapState<UK, V> {
  get(key: StateKey, userKey: UK): V | undefined;
  put(key: StateKey, userKey: UK, value: V): void;
  delete(key: StateKey, userKey: UK): void;
  /** The key's entries, in insertion order (none when the key has no map). */
  entries(key: StateKey): IterableIterator<[UK, V]>;
  clear(key: StateKey): void;
  keys(): IterableIterator<StateKey>;
}

/** Per key, a list of values. TTL applies to a key's whole list. */
export interface ListState<V> {
  get(key: StateKey): readonly V[];
  add(key: StateKey, value: V): void;
  update(key: StateKey, values: V[]): void;
  clear(key: StateKey): void;
  keys(): IterableIterator<StateKey>;
}

/**
 * Values indexed by (timestamp, key), iterable in timestamp order and expired up to a watermark:
 * window slices by slice end, buffered rows by event time. No TTL: the watermark expires it.
 */
export interface TimeIndexedState<V> {
  get(timestamp: number, key: StateKey): V | undefined;
  put(timestamp: number, key: StateKey, value: V): void;
  delete(timestamp: number, key: StateKey): void;
  /** The entries at one timestamp, in insertion order (none when it holds no entries). */
  entriesAt(timestamp: number): IterableIterator<[StateKey, V]>;
  /**
   * The timestamps in [`from`, `to`] that hold entries, ascending. Entries at a timestamp already
   * passed may be written while iterating; adding a new timestamp invalidates the iteration.
   */
  timestamps(from?: number, to?: number): IterableIterator<number>;
  /** The smallest timestamp holding entries, or undefined. */
  minTimestamp(): number | undefined;
  /**
   * Removes every bucket with timestamp ≤ `upTo`, oldest first, handing each to `onExpired`
   * before it is dropped.
   */
  expireUpTo(upTo: number, onExpired?: (timestamp: number, entries: ReadonlyMap<StateKey, V>) => void): void;
  readonly size: number;
}

/**
 * Event-time and processing-time timers per key. Registering the same (key, timestamp) twice is
 * one timer. `advance*` fires due timers in timestamp order (ties in registration order), and also
 * those registered by a callback while firing if they are due.
 */
export interface TimerService {
  registerEventTimeTimer(key: StateKey, timestamp: number): void;
  deleteEventTimeTimer(key: StateKey, timestamp: number): void;
  registerProcessingTimeTimer(key: StateKey, timestamp: number): void;
  deleteProcessingTimeTimer(key: StateKey, timestamp: number): void;
  /** Fires every event-time timer with timestamp ≤ `watermark`. */
  advanceWatermark(watermark: number, onTimer: (key: StateKey, timestamp: number) => void): void;
  /** Fires every processing-time timer with timestamp ≤ `now`. */
  advanceProcessingTime(now: number, onTimer: (key: StateKey, timestamp: number) => void): void;
  nextEventTime(): number | undefined;
  nextProcessingTime(): number | undefined;
  readonly currentWatermark: number;
}

export const STATE_SNAPSHOT_VERSION = 1;

/**
 * An operator's state at a checkpoint, versioned. The canonical form is plain JSON in `tables`
 * (every backend writes and reads it: savepoints are always canonical). A native snapshot of the
 * on-disk backend instead references files: `native.files` is a base followed by the deltas
 * written since (restore = base + deltas, in order); `tables` is then empty.
 */
export interface StateSnapshot {
  readonly version: number;
  readonly tables: { readonly [name: string]: TableSnapshot };
  readonly native?: NativeStateSnapshot;
}

export interface NativeStateSnapshot {
  /** The base first, then the deltas in order. Shared between checkpoints, reference-counted by them. */
  readonly files: readonly SharedStateFile[];
  /** Whether the tables hold no entries (for the restore compatibility check). */
  readonly empty: boolean;
}

/** What a checkpoint asks of a backend's snapshot. */
export interface SnapshotOptions {
  /** The checkpoint's id (names its files). */
  readonly checkpointId?: number;
  /** Write the backend-neutral JSON form (savepoints), never native files. */
  readonly canonical?: boolean;
  /**
   * Take the snapshot copy-on-write and encode it later (a {@link DeferredStateSnapshot}), so the
   * synchronous part at the barrier is short; a backend that cannot may return a plain snapshot.
   */
  readonly deferred?: boolean;
}

/**
 * A snapshot taken copy-on-write at a barrier whose encoding is deferred: the state goes on
 * changing, the snapshot keeps what it held at the barrier. `lines()` encodes it lazily in the
 * layout of `snapshot-text.ts` (a checkpoint store writes it in slices, between the job's turns);
 * `tables` encodes all of it at once (cached). Valid until {@link release}, which the
 * checkpoint coordinator calls once the checkpoint completed or was aborted; after it only a
 * snapshot whose `tables` were read can still be read. At most one per backend is open.
 */
export interface DeferredStateSnapshot extends StateSnapshot {
  readonly deferred: true;
  lines(): Iterable<string>;
  release(): void;
}

export function isDeferredSnapshot(s: StateSnapshot): s is DeferredStateSnapshot {
  return (s as Partial<DeferredStateSnapshot>).deferred === true;
}

export type TableSnapshot =
  | {
      readonly kind: "value" | "map" | "list";
      /** `[key, value]`, or `[key, value, lastAccess]` when the table has a TTL. */
      readonly entries: Json[];
    }
  | { readonly kind: "time"; readonly buckets: [Json, Json[]][] }
  | {
      readonly kind: "timers";
      readonly watermark: Json;
      readonly eventTime: [Json, Json[]][];
      readonly processingTime: [Json, Json[]][];
    };

export type TableKind = TableSnapshot["kind"];

export interface StateStats {
  /** Keys over the keyed tables (value, map and list tables: a map's or list's key counts once). */
  readonly keys: number;
  /** Entries of the time-indexed tables (window slices, buffered rows) plus registered timers. */
  readonly timeEntries: number;
}

export interface StateBackend {
  value<V>(name: string, options?: StateOptions): ValueState<V>;
  map<UK, V>(name: string, options?: StateOptions): MapState<UK, V>;
  list<V>(name: string, options?: StateOptions): ListState<V>;
  timeIndexed<V>(name: string): TimeIndexedState<V>;
  timers(name: string): TimerService;
  /** Removes up to `budget` expired TTL entries over all tables; returns how many it removed. */
  cleanupExpired(budget?: number): number;
  snapshot(options?: SnapshotOptions): StateSnapshot;
  /** How much the operator keeps, counted in O(tables) (for the metrics; no copy, no iteration). */
  stats(): StateStats;
  /** Replaces the contents of the declared tables; refuses a snapshot that does not fit them. */
  restore(snapshot: StateSnapshot): void;
  /** Releases what the backend holds outside the heap (the on-disk backend deletes its directory). */
  dispose?(): void;
}
