import type { Clock } from "../time/watermarks.js";
import type {
  DeferredStateSnapshot,
  ListState,
  MapState,
  SnapshotOptions,
  StateBackend,
  StateOptions,
  StateSnapshot,
  StateStats,
  TableSnapshot,
  TimeIndexedState,
  TimerService,
  ValueState,
} from "./api.js";
import { STATE_SNAPSHOT_VERSION } from "./api.js";
import { decodeJson, encodeJson, type Json } from "./codec.js";
import type { StateKey } from "./keys.js";
import { snapshotLines, type TableText, tablesOf } from "./snapshot-text.js";
import { canonicalOfNative } from "./state-files.js";
import { TimeBuckets } from "./time-buckets.js";
import { MemoryTimerService } from "./timers.js";
import { type KeyedCow, KeyedTable, UNCHANGED } from "./ttl.js";

export interface MemoryStateBackendOptions {
  /** Processing-time clock for TTL; defaults to `Date.now`. */
  readonly clock?: Clock;
}

type Table =
  | { readonly kind: "value" | "map" | "list"; readonly table: KeyedTable<unknown> }
  | { readonly kind: "time"; readonly buckets: TimeBuckets<unknown>; cow: TimeCow | null }
  | { readonly kind: "timers"; readonly timers: MemoryTimerService };

/** State in JS Maps; snapshots are plain JSON (see {@link StateSnapshot}). */
export class MemoryStateBackend implements StateBackend {
  private readonly tables = new Map<string, Table>();
  private readonly clock: Clock;
  /** The deferred snapshot not yet released (at most one: Flink's max-concurrent-checkpoints 1). */
  private open: MemoryDeferredSnapshot | null = null;

  constructor(options: MemoryStateBackendOptions = {}) {
    this.clock = options.clock ?? Date.now;
  }

  value<V>(name: string, options?: StateOptions): ValueState<V> {
    const t = this.keyed(name, "value", options);
    return {
      get: (key) => t.read(key) as V | undefined,
      put: (key, value) => t.write(key, value),
      delete: (key) => t.remove(key),
      entries: () => t.liveEntries() as IterableIterator<[StateKey, V]>,
      get size() {
        return t.data.size;
      },
    };
  }

  map<UK, V>(name: string, options?: StateOptions): MapState<UK, V> {
    const t = this.keyed(name, "map", options) as KeyedTable<Map<UK, V>>;
    return {
      get: (key, userKey) => t.read(key)?.get(userKey),
      put: (key, userKey, value) => {
        let m = t.read(key);
        if (m === undefined) m = new Map();
        m.set(userKey, value);
        t.write(key, m);
      },
      delete: (key, userKey) => {
        const m = t.read(key);
        if (m === undefined || !m.delete(userKey)) return;
        if (m.size === 0) t.remove(key);
        else t.write(key, m);
      },
      entries: (key) => {
        const m = t.read(key);
        return m === undefined ? (EMPTY as ReadonlyMap<UK, V>).entries() : m.entries();
      },
      clear: (key) => t.remove(key),
      keys: () => liveKeys(t),
    };
  }

  list<V>(name: string, options?: StateOptions): ListState<V> {
    const t = this.keyed(name, "list", options) as KeyedTable<V[]>;
    return {
      get: (key) => t.read(key) ?? [],
      add: (key, value) => {
        const l = t.read(key);
        if (l === undefined) t.write(key, [value]);
        else {
          l.push(value);
          t.write(key, l);
        }
      },
      update: (key, values) => (values.length === 0 ? t.remove(key) : t.write(key, values)),
      clear: (key) => t.remove(key),
      keys: () => liveKeys(t),
    };
  }

  timeIndexed<V>(name: string): TimeIndexedState<V> {
    const buckets = new TimeBuckets<V>();
    const table: Table & { kind: "time" } = {
      kind: "time",
      buckets: buckets as TimeBuckets<unknown>,
      cow: null,
    };
    this.declare(name, table);
    // With a copy-on-write snapshot open, values handed out are kept as they were at the barrier
    // first (they may be mutated in place), and written or deleted entries are marked.
    return {
      get: (ts, key) => {
        const v = buckets.get(ts, key);
        if (table.cow !== null && v !== undefined) table.cow.preserve(ts, key, v);
        return v;
      },
      put: (ts, key, value) => {
        table.cow?.mark(ts, key);
        buckets.put(ts, key, value);
      },
      delete: (ts, key) => {
        table.cow?.mark(ts, key);
        buckets.delete(ts, key);
      },
      entriesAt: (ts) => {
        const b = buckets.bucket(ts) ?? (EMPTY as ReadonlyMap<StateKey, V>);
        const cow = table.cow;
        return cow === null ? b.entries() : preserving(cow, ts, b);
      },
      timestamps: (from, to) => buckets.range(from, to),
      minTimestamp: () => buckets.min(),
      expireUpTo: (upTo, onExpired) => {
        for (let ts = buckets.min(); ts !== undefined && ts <= upTo; ts = buckets.min()) {
          const b = buckets.take(ts)!;
          if (table.cow !== null) for (const [k, v] of b) table.cow.preserve(ts, k, v);
          onExpired?.(ts, b);
        }
      },
      get size() {
        return buckets.size;
      },
    };
  }

  timers(name: string): TimerService {
    const timers = new MemoryTimerService();
    this.declare(name, { kind: "timers", timers });
    return timers;
  }

  cleanupExpired(budget = Number.POSITIVE_INFINITY): number {
    let removed = 0;
    const now = this.clock();
    for (const t of this.tables.values()) {
      if (removed >= budget) break;
      if (t.kind === "value" || t.kind === "map" || t.kind === "list")
        removed += t.table.cleanup(budget - removed, now);
    }
    return removed;
  }

  stats(): StateStats {
    let keys = 0;
    let timeEntries = 0;
    for (const t of this.tables.values()) {
      if (t.kind === "time") timeEntries += t.buckets.size;
      else if (t.kind === "timers") timeEntries += t.timers.eventTime.size + t.timers.processingTime.size;
      else keys += t.table.data.size;
    }
    return { keys, timeEntries };
  }

  /**
   * The state now, encoded (plain JSON); with `deferred`, copy-on-write: the keyed tables (value,
   * map, list) are captured by reference in O(entries) and encoded when the snapshot is written
   * (see {@link KeyedCow}); time-indexed tables and timers are encoded at once.
   */
  snapshot(options: SnapshotOptions = {}): StateSnapshot {
    if (options.deferred) {
      if (this.open !== null)
        throw new Error(
          "a copy-on-write snapshot of this state is still being written (at most one at a time); release it first",
        );
      const parts: Part[] = [];
      for (const [name, t] of this.tables) {
        if (t.kind === "value" || t.kind === "map" || t.kind === "list")
          parts.push({ name, kind: t.kind, table: t.table, cow: t.table.beginSnapshot() });
        else if (t.kind === "time") {
          t.cow = new TimeCow(t.buckets, true);
          parts.push({ name, time: t });
        } else if (t.kind === "timers") {
          // Timer values are `true`: the captured keys are the snapshot, nothing to keep.
          parts.push({
            name,
            timers: {
              watermark: t.timers.watermark,
              eventTime: new TimeCow(t.timers.eventTime, false),
              processingTime: new TimeCow(t.timers.processingTime, false),
            },
          });
        }
      }
      const s = new MemoryDeferredSnapshot(parts, () => {
        if (this.open === s) this.open = null;
      });
      this.open = s;
      return s;
    }
    const tables: Record<string, TableSnapshot> = {};
    for (const [name, t] of this.tables) tables[name] = snapshotTable(t);
    return { version: STATE_SNAPSHOT_VERSION, tables };
  }

  restore(snapshot: StateSnapshot): void {
    // A native snapshot of the on-disk backend: read back into the canonical form.
    if (snapshot.native !== undefined) snapshot = canonicalOfNative(snapshot.native.files);
    if (snapshot.version !== STATE_SNAPSHOT_VERSION) {
      throw new Error(
        `cannot restore state snapshot version ${snapshot.version}: this Weir reads version ${STATE_SNAPSHOT_VERSION} only`,
      );
    }
    for (const [name, s] of Object.entries(snapshot.tables)) {
      const t = this.tables.get(name);
      if (t === undefined) {
        throw new Error(
          `cannot restore: the snapshot has state table '${name}' (${s.kind}) that the operator does not declare; was the query changed?`,
        );
      }
      if (t.kind !== s.kind) {
        throw new Error(
          `cannot restore: state table '${name}' is ${t.kind} but the snapshot holds ${s.kind}`,
        );
      }
    }
    this.open?.release();
    for (const [name, t] of this.tables) {
      const s = snapshot.tables[name];
      clearTable(t);
      if (s !== undefined) restoreTable(t, s);
    }
  }

  private keyed(name: string, kind: "value" | "map" | "list", options?: StateOptions): KeyedTable<unknown> {
    const table = new KeyedTable<unknown>(options?.ttl, this.clock);
    this.declare(name, { kind, table });
    return table;
  }

  private declare(name: string, table: Table): void {
    if (this.tables.has(name)) throw new Error(`state table '${name}' is declared twice`);
    this.tables.set(name, table);
  }
}

const EMPTY: ReadonlyMap<unknown, unknown> = new Map();

function liveKeys(t: KeyedTable<unknown>): IterableIterator<StateKey> {
  return t.liveKeys();
}

/** A table of a deferred snapshot: its copy-on-write view. */
type Part =
  | {
      readonly name: string;
      readonly kind: "value" | "map" | "list";
      readonly table: KeyedTable<unknown>;
      readonly cow: KeyedCow;
    }
  | { readonly name: string; readonly time: Table & { kind: "time" } }
  | {
      readonly name: string;
      readonly timers: {
        readonly watermark: number;
        readonly eventTime: TimeCow;
        readonly processingTime: TimeCow;
      };
    };

/**
 * A copy-on-write view of {@link TimeBuckets} at a barrier: the timestamps in order and each
 * bucket's keys and (`withValues`) value references, captured in O(entries); as
 * {@link KeyedCow}, a value handed out after the barrier is encoded into `saved` first and a
 * written or deleted entry is marked as still the captured one's.
 */
class TimeCow {
  private readonly ts: number[];
  private readonly keys: StateKey[][];
  private readonly values: unknown[][] | null;
  private readonly saved = new Map<number, Map<StateKey, Json | typeof UNCHANGED>>();

  constructor(buckets: TimeBuckets<unknown>, withValues: boolean) {
    this.ts = [...buckets.timestamps()];
    this.keys = new Array(this.ts.length);
    this.values = withValues ? new Array(this.ts.length) : null;
    for (let i = 0; i < this.ts.length; i++) {
      const b = buckets.bucket(this.ts[i]!)!;
      this.keys[i] = [...b.keys()];
      if (this.values !== null) this.values[i] = [...b.values()];
    }
  }

  preserve(ts: number, key: StateKey, v: unknown): void {
    const m = this.at(ts);
    if (!m.has(key)) m.set(key, encodeJson(v));
  }

  mark(ts: number, key: StateKey): void {
    const m = this.at(ts);
    if (!m.has(key)) m.set(key, UNCHANGED);
  }

  /** `[timestamp, [key, value, ...]]` per bucket, or keys only without values, encoded as asked. */
  *buckets(): Generator<Json> {
    for (let i = 0; i < this.ts.length; i++) {
      const ts = this.ts[i]!;
      const keys = this.keys[i]!;
      const flat: Json[] = [];
      if (this.values === null) for (const k of keys) flat.push(encodeJson(k));
      else {
        const values = this.values[i]!;
        const saved = this.saved.get(ts);
        for (let j = 0; j < keys.length; j++) {
          const s = saved?.get(keys[j]!);
          flat.push(encodeJson(keys[j]), s === undefined || s === UNCHANGED ? encodeJson(values[j]) : s);
        }
      }
      yield [encodeTs(ts), flat];
    }
  }

  private at(ts: number): Map<StateKey, Json | typeof UNCHANGED> {
    let m = this.saved.get(ts);
    if (m === undefined) {
      m = new Map();
      this.saved.set(ts, m);
    }
    return m;
  }
}

/** A bucket's entries, each kept as at the barrier before it is handed out. */
function* preserving<V>(
  cow: TimeCow,
  ts: number,
  b: ReadonlyMap<StateKey, V>,
): IterableIterator<[StateKey, V]> {
  for (const e of b) {
    cow.preserve(ts, e[0], e[1]);
    yield e;
  }
}

function tableOfPart(p: Part): TableSnapshot {
  if ("time" in p) return { kind: "time", buckets: [...p.time.cow!.buckets()] as [Json, Json[]][] };
  if ("timers" in p)
    return {
      kind: "timers",
      watermark: encodeJson(p.timers.watermark),
      eventTime: [...p.timers.eventTime.buckets()] as [Json, Json[]][],
      processingTime: [...p.timers.processingTime.buckets()] as [Json, Json[]][],
    };
  return { kind: p.kind, entries: [...p.cow.entries()] };
}

/** The memory backend's {@link DeferredStateSnapshot}. */
class MemoryDeferredSnapshot implements DeferredStateSnapshot {
  readonly deferred = true as const;
  readonly version = STATE_SNAPSHOT_VERSION;
  private cache: Record<string, TableSnapshot> | null = null;
  private released = false;

  constructor(
    private readonly parts: readonly Part[],
    private readonly onRelease: () => void,
  ) {}

  get tables(): Record<string, TableSnapshot> {
    if (this.cache !== null) return this.cache;
    this.check();
    const tables: Record<string, TableSnapshot> = {};
    for (const p of this.parts) tables[p.name] = tableOfPart(p);
    this.cache = tables;
    return tables;
  }

  lines(): Iterable<string> {
    if (this.cache !== null) return snapshotLines(this.version, tablesOf(this));
    this.check();
    const texts: TableText[] = this.parts.map((p): TableText => {
      if ("time" in p)
        return {
          name: p.name,
          head: { kind: "time" },
          arrays: [["buckets", this.guarded(p.time.cow!.buckets())]],
        };
      if ("timers" in p)
        return {
          name: p.name,
          head: { kind: "timers", watermark: encodeJson(p.timers.watermark) },
          arrays: [
            ["eventTime", this.guarded(p.timers.eventTime.buckets())],
            ["processingTime", this.guarded(p.timers.processingTime.buckets())],
          ],
        };
      return { name: p.name, head: { kind: p.kind }, arrays: [["entries", this.guarded(p.cow.entries())]] };
    });
    return snapshotLines(this.version, texts);
  }

  release(): void {
    if (this.released) return;
    this.released = true;
    for (const p of this.parts) {
      if ("cow" in p) p.table.endSnapshot(p.cow);
      else if ("time" in p) p.time.cow = null;
    }
    this.onRelease();
  }

  toJSON(): StateSnapshot {
    return { version: this.version, tables: this.tables };
  }

  private check(): void {
    if (this.released)
      throw new Error("this copy-on-write state snapshot was released (its checkpoint ended): read its file");
  }

  /** Entries that stop with an error if the snapshot is released while they are being written. */
  private *guarded(entries: Iterable<Json>): Generator<Json> {
    for (const e of entries) {
      this.check();
      yield e;
    }
  }
}

function snapshotTable(t: Table): TableSnapshot {
  switch (t.kind) {
    case "value":
    case "map":
    case "list": {
      const entries: Json[] = [];
      const touched = t.table.touched;
      if (touched === null) {
        for (const [k, v] of t.table.data) entries.push([encodeJson(k), encodeJson(v)]);
      } else {
        // In access order, so a restore rebuilds the TTL order by appending.
        for (const [k, at] of touched) entries.push([encodeJson(k), encodeJson(t.table.data.get(k)), at]);
      }
      return { kind: t.kind, entries };
    }
    case "time":
      return { kind: "time", buckets: snapshotBuckets(t.buckets, (v) => encodeJson(v)) };
    case "timers":
      return {
        kind: "timers",
        watermark: encodeJson(t.timers.watermark),
        eventTime: snapshotBuckets(t.timers.eventTime, null),
        processingTime: snapshotBuckets(t.timers.processingTime, null),
      };
    default: {
      const _exhaustive: never = t;
      return _exhaustive;
    }
  }
}

/** `[timestamp, [key, value, key, value, ...]]` per bucket, or keys only when `encode` is null. */
function snapshotBuckets<V>(b: TimeBuckets<V>, encode: ((v: V) => Json) | null): [Json, Json[]][] {
  const out: [Json, Json[]][] = [];
  for (const ts of b.timestamps()) {
    const flat: Json[] = [];
    for (const [k, v] of b.bucket(ts)!) {
      flat.push(encodeJson(k));
      if (encode !== null) flat.push(encode(v));
    }
    out.push([encodeTs(ts), flat]);
  }
  return out;
}

/** Timestamps are finite in practice, but ±∞ is legal: they are stored through the JSON codec. */
function encodeTs(ts: number): Json {
  return encodeJson(ts);
}

function decodeTs(j: Json): number {
  return decodeJson(j) as number;
}

function clearTable(t: Table): void {
  switch (t.kind) {
    case "value":
    case "map":
    case "list":
      t.table.clear();
      return;
    case "time":
      t.buckets.clear();
      return;
    case "timers":
      t.timers.eventTime.clear();
      t.timers.processingTime.clear();
      t.timers.watermark = Number.NEGATIVE_INFINITY;
      return;
    default: {
      const _exhaustive: never = t;
      throw new Error(`unknown state table kind ${(_exhaustive as Table).kind}`);
    }
  }
}

function restoreTable(t: Table, s: TableSnapshot): void {
  if (s.kind === "time" && t.kind === "time") {
    for (const [ts, flat] of s.buckets) {
      for (let i = 0; i < flat.length; i += 2) {
        t.buckets.put(decodeTs(ts), decodeJson(flat[i]) as StateKey, decodeJson(flat[i + 1]));
      }
    }
  } else if (s.kind === "timers" && t.kind === "timers") {
    t.timers.watermark = decodeJson(s.watermark) as number;
    for (const [ts, keys] of s.eventTime)
      for (const k of keys) t.timers.eventTime.put(decodeTs(ts), decodeJson(k) as StateKey, true);
    for (const [ts, keys] of s.processingTime) {
      for (const k of keys) t.timers.processingTime.put(decodeTs(ts), decodeJson(k) as StateKey, true);
    }
  } else if ((s.kind === "value" || s.kind === "map" || s.kind === "list") && t.kind === s.kind) {
    for (const e of s.entries as Json[][]) {
      t.table.load(
        decodeJson(e[0]) as StateKey,
        decodeJson(e[1]),
        e.length > 2 ? (e[2] as number) : undefined,
      );
    }
  } else {
    throw new Error(`cannot restore a ${s.kind} table into a ${t.kind} table`);
  }
}
