import { randomBytes } from "node:crypto";
import { mkdirSync, rmdirSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { type Database, open, type RootDatabase } from "lmdb";
import type { Clock } from "../time/watermarks.js";
import type {
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
  TtlConfig,
  ValueState,
} from "./api.js";
import { STATE_SNAPSHOT_VERSION } from "./api.js";
import { decodeJson, encodeJson, type Json } from "./codec.js";
import type { StateKey } from "./keys.js";
import {
  readStateFile,
  type SharedStateFile,
  type StateFileHeader,
  StateFileWriter,
  stateCodec,
} from "./state-files.js";
import { TimeBuckets } from "./time-buckets.js";
import { MemoryTimerService } from "./timers.js";

export interface DiskStateBackendOptions {
  /** Processing-time clock for TTL; defaults to `Date.now`. */
  readonly clock?: Clock;
  /** The task's local store (an LMDB environment): wiped when the backend opens, deleted by `dispose`. */
  readonly dir: string;
  /**
   * The job's checkpoint directory (`<checkpoint dir>/<job id>`): native snapshots go to its
   * `shared/` subdirectory. Null: every snapshot is canonical JSON.
   */
  readonly checkpointDir?: string | null;
  /** Names the task's snapshot files. */
  readonly taskId?: string;
  /** `'execution.checkpointing.incremental'`: a checkpoint writes only what changed since the previous one. */
  readonly incremental?: boolean;
  /** Decoded values kept in memory per table at most (least recently used are written back and dropped). */
  readonly cacheEntries?: number;
  /** The cache's bound in bytes per table, at the table's mean encoded record size. */
  readonly cacheBytes?: number;
  /** A new base is written once this many deltas follow the last one (or they outgrow it). */
  readonly maxDeltas?: number;
}

export const DEFAULT_CACHE_ENTRIES = 16_384;
export const DEFAULT_CACHE_BYTES = 16 << 20;
export const DEFAULT_MAX_DELTAS = 10;
/** Evicted dirty records are written to LMDB in one transaction once this many wait. */
const WRITE_BATCH = 4096;

/** A cached record: its decoded value, last access (TTL), and whether LMDB lacks this version. */
interface Slot {
  v: unknown;
  at: number;
  dirty: boolean;
  /** Used since the cache last considered evicting it (second chance, instead of moving it on every hit). */
  hot?: boolean;
  /** Time-indexed records: the entry's timestamp and key. */
  ts?: number;
  k?: StateKey;
}

type CacheKey = StateKey;

/**
 * A table of records in LMDB under a 2-byte table prefix, with a write-back LRU cache of decoded
 * values in front. Invariant: a record's current value is the cache's slot if cached, else the
 * `pending` write (null: deleted) if any, else LMDB's; `changed` (incremental checkpoints only)
 * holds every record written or deleted since the last snapshot.
 */
abstract class RecordTable {
  readonly cache = new Map<CacheKey, Slot>();
  readonly pending = new Map<CacheKey, Buffer | null>();
  changed: Set<CacheKey> | null;
  readonly prefix: Buffer;
  /** Mean encoded size of this table's records (updated on every encode and decode), for the cache's byte bound. */
  private meanBytes = 256;

  constructor(
    readonly backend: DiskStateBackend,
    readonly id: number,
    readonly name: string,
    readonly kind: "value" | "map" | "list" | "time",
    readonly ttlMs: number,
  ) {
    this.prefix = Buffer.from([id >> 8, id & 0xff]);
    this.changed = backend.incremental ? new Set() : null;
  }

  get db(): Database<Buffer, Buffer> {
    return this.backend.db;
  }

  abstract keyBytes(ck: CacheKey): Buffer;
  abstract keyOf(bytes: Buffer): CacheKey;
  abstract encodeRecord(slot: Slot): Buffer;
  abstract decodeRecord(bytes: Uint8Array, ck: CacheKey): Slot;

  encode(slot: Slot): Buffer {
    const b = this.encodeRecord(slot);
    this.meanBytes += (b.length - this.meanBytes) / 64;
    return b;
  }

  decode(bytes: Uint8Array, ck: CacheKey): Slot {
    this.meanBytes += (bytes.length - this.meanBytes) / 64;
    return this.decodeRecord(bytes, ck);
  }

  /** How many decoded records the cache holds at most: the entry bound, and the byte bound at the mean record size. */
  get capacity(): number {
    return Math.min(
      this.backend.cacheEntries,
      Math.max(16, Math.floor(this.backend.cacheBytes / Math.max(16, this.meanBytes))),
    );
  }

  /** The record's slot (loaded into the cache), or undefined when there is none. */
  slot(ck: CacheKey): Slot | undefined {
    const s = this.cache.get(ck);
    if (s !== undefined) {
      s.hot = true;
      return s;
    }
    const p = this.pending.get(ck);
    if (p === null) return undefined;
    const bytes = p ?? this.db.getBinaryFast(this.keyBytes(ck));
    if (bytes === undefined) return undefined;
    const loaded = this.decode(bytes, ck);
    this.admit(ck, loaded);
    return loaded;
  }

  exists(ck: CacheKey): boolean {
    if (this.cache.has(ck)) return true;
    const p = this.pending.get(ck);
    if (p !== undefined) return p !== null;
    return this.db.getBinaryFast(this.keyBytes(ck)) !== undefined;
  }

  /** Caches `slot` as the record's new value (dirty). */
  set(ck: CacheKey, slot: Slot): void {
    slot.dirty = true;
    slot.hot = true;
    this.changed?.add(ck);
    if (this.cache.has(ck)) this.cache.set(ck, slot);
    else this.admit(ck, slot);
  }

  remove(ck: CacheKey): void {
    this.cache.delete(ck);
    this.pending.set(ck, null);
    this.changed?.add(ck);
    this.backend.notePending(1);
  }

  /** Writes every dirty cached slot to `pending`. */
  writeBack(): void {
    let n = 0;
    for (const [ck, s] of this.cache) {
      if (!s.dirty) continue;
      this.pending.set(ck, this.encode(s));
      s.dirty = false;
      n++;
    }
    this.backend.notePending(n, false);
  }

  /** Writes `pending` to LMDB; call inside a write transaction. */
  writePending(): void {
    for (const [ck, b] of this.pending) {
      if (b === null) this.db.remove(this.keyBytes(ck));
      else this.db.put(this.keyBytes(ck), b);
    }
    this.pending.clear();
  }

  /** Records in LMDB order (call after a full flush), as [cache key, bytes]. */
  *stored(): IterableIterator<[CacheKey, Buffer]> {
    const end = Buffer.from([(this.id + 1) >> 8, (this.id + 1) & 0xff]);
    for (const { key, value } of this.db.getRange({ start: this.prefix, end }))
      yield [this.keyOf(key as Buffer), value as Buffer];
  }

  storedCount(): number {
    const end = Buffer.from([(this.id + 1) >> 8, (this.id + 1) & 0xff]);
    return this.db.getCount({ start: this.prefix, end });
  }

  clear(): void {
    this.cache.clear();
    this.pending.clear();
    this.changed?.clear();
  }

  private admit(ck: CacheKey, slot: Slot): void {
    this.cache.set(ck, slot);
    const cap = this.capacity;
    // Clock-style LRU: the oldest entry goes unless it was used since; then it moves to the back.
    while (this.cache.size > cap) {
      const [oldKey, old] = this.cache.entries().next().value as [CacheKey, Slot];
      this.cache.delete(oldKey);
      if (old.hot === true && oldKey !== ck) {
        old.hot = false;
        this.cache.set(oldKey, old);
        continue;
      }
      if (old.dirty) {
        this.pending.set(oldKey, this.encode(old));
        this.backend.notePending(1);
      }
    }
  }
}

/** A value, map or list table: one record per state key (a key's whole map or list is one record). */
class KeyedRecords extends RecordTable {
  count = 0;
  private cleanupFrom: Buffer | null = null;
  readonly refreshOnRead: boolean;

  constructor(
    backend: DiskStateBackend,
    id: number,
    name: string,
    kind: "value" | "map" | "list",
    ttl?: TtlConfig,
  ) {
    if (ttl !== undefined && !(ttl.ttlMs > 0))
      throw new Error(`state TTL must be positive, got ${ttl.ttlMs}`);
    super(backend, id, name, kind, ttl?.ttlMs ?? 0);
    this.refreshOnRead = (ttl?.update ?? "read-write") === "read-write";
  }

  keyBytes(ck: CacheKey): Buffer {
    return encodeStateKey(this.prefix, ck);
  }

  keyOf(bytes: Buffer): CacheKey {
    return decodeStateKey(bytes);
  }

  /** With a TTL: 8 bytes of last access (float64) before the MessagePack value. */
  encodeRecord(s: Slot): Buffer {
    const body = stateCodec.pack(s.v);
    if (this.ttlMs === 0) return body;
    const out = Buffer.allocUnsafe(8 + body.length);
    out.writeDoubleLE(s.at, 0);
    body.copy(out, 8);
    return out;
  }

  decodeRecord(bytes: Uint8Array, _ck: CacheKey): Slot {
    if (this.ttlMs === 0) return { v: stateCodec.unpack(bytes), at: 0, dirty: false };
    // `bytes.length`, not `byteLength`: LMDB's fast reads hand out a view of a larger buffer.
    const b = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
    return { v: stateCodec.unpack(b.subarray(8)), at: b.readDoubleLE(0), dirty: false };
  }

  read(key: StateKey): unknown {
    const s = this.slot(key);
    if (s === undefined) return undefined;
    if (this.ttlMs === 0) return s.v;
    const now = this.backend.clock();
    if (now - s.at >= this.ttlMs) {
      this.delete(key);
      return undefined;
    }
    if (this.refreshOnRead && s.at !== now) {
      s.at = now;
      this.set(key, s);
    }
    return s.v;
  }

  write(key: StateKey, v: unknown): void {
    const cached = this.cache.get(key);
    if (cached === undefined && !this.exists(key)) this.count++;
    const s = cached ?? { v, at: 0, dirty: true };
    s.v = v;
    if (this.ttlMs > 0) s.at = this.backend.clock();
    this.set(key, s);
  }

  delete(key: StateKey): void {
    if (!this.exists(key)) return;
    this.count--;
    this.remove(key);
  }

  /** Live entries: flushes, then walks LMDB (cached slots win over the bytes read). */
  *live(): IterableIterator<[StateKey, unknown]> {
    this.backend.flush();
    const now = this.backend.clock();
    for (const [k, bytes] of this.stored()) {
      const s = this.cache.get(k) ?? this.decode(bytes, k);
      if (this.ttlMs > 0 && now - s.at >= this.ttlMs) continue;
      yield [k, s.v];
    }
  }

  /**
   * Removes up to `budget` expired entries, scanning LMDB from where the last call stopped (and
   * wrapping around): entries expire by their own last access, whatever order they are stored in.
   */
  cleanup(budget: number, now: number): number {
    if (this.ttlMs === 0 || budget <= 0 || this.count === 0) return 0;
    const end = Buffer.from([(this.id + 1) >> 8, (this.id + 1) & 0xff]);
    let removed = 0;
    let scanned = 0;
    const limit = Math.max(64, budget * 8);
    const expired: StateKey[] = [];
    // Cached entries first (the most recently used are at the end), then LMDB from the cursor.
    let seen = 0;
    for (const [k, s] of this.cache) {
      if (++seen > limit || expired.length >= budget) break;
      if (now - s.at >= this.ttlMs) expired.push(k);
    }
    for (const [k, p] of this.pending) {
      if (++seen > 2 * limit || expired.length >= budget) break;
      if (p !== null && !this.cache.has(k) && now - p.readDoubleLE(0) >= this.ttlMs) expired.push(k);
    }
    let last: Buffer | null = null;
    for (const { key, value } of this.db.getRange({ start: this.cleanupFrom ?? this.prefix, end, limit })) {
      if (expired.length >= budget) break;
      scanned++;
      last = key as Buffer;
      const k = this.keyOf(last);
      if (this.cache.has(k) || this.pending.has(k)) continue; // judged above
      const at = (value as Buffer).readDoubleLE(0);
      if (now - at >= this.ttlMs) {
        expired.push(k);
        if (expired.length >= budget) break;
      }
    }
    for (const k of expired) {
      if (!this.exists(k)) continue;
      this.delete(k);
      removed++;
    }
    // Past the end: start over next time; else continue after the last key seen.
    this.cleanupFrom =
      scanned < limit && expired.length < budget ? null : last === null ? null : successor(last);
    return removed;
  }

  /** Access-ordered entries for a canonical snapshot (with TTL) or stored order (without). */
  canonical(): Json[] {
    this.backend.flush();
    const rows: [number, Json][] = [];
    for (const [k, bytes] of this.stored()) {
      const s = this.decode(bytes, k);
      rows.push([
        s.at,
        this.ttlMs === 0 ? [encodeJson(k), encodeJson(s.v)] : [encodeJson(k), encodeJson(s.v), s.at],
      ]);
    }
    if (this.ttlMs > 0) rows.sort((a, b) => a[0] - b[0]);
    return rows.map((r) => r[1]);
  }

  load(key: StateKey, v: unknown, at: number | undefined): void {
    if (!this.exists(key)) this.count++;
    const s: Slot = { v, at: at ?? this.backend.clock(), dirty: false };
    this.pending.set(key, this.encode(s));
    this.changed?.add(key);
    this.backend.notePending(1);
  }

  override clear(): void {
    super.clear();
    this.count = 0;
    this.cleanupFrom = null;
  }
}

/**
 * A time-indexed table: each entry is a record under its insertion sequence number holding
 * `[timestamp, key, value]`; the (timestamp → key → sequence) index stays in memory (keys and
 * numbers, no values), so buckets keep insertion order and timestamps iterate in order.
 */
class TimeRecords extends RecordTable {
  readonly index = new TimeBuckets<number>();
  nextSeq = 0;

  keyBytes(ck: CacheKey): Buffer {
    const out = Buffer.allocUnsafe(10);
    this.prefix.copy(out, 0);
    writeOrderedNumber(out, 2, ck as number);
    return out;
  }

  keyOf(bytes: Buffer): CacheKey {
    return readOrderedNumber(bytes, 2);
  }

  encodeRecord(s: Slot): Buffer {
    return stateCodec.pack([s.ts, s.k, s.v]);
  }

  decodeRecord(bytes: Uint8Array): Slot {
    const [ts, k, v] = stateCodec.unpack(bytes) as [number, StateKey, unknown];
    return { v, at: 0, dirty: false, ts, k };
  }

  get(ts: number, key: StateKey): unknown {
    const seq = this.index.get(ts, key);
    return seq === undefined ? undefined : this.slot(seq)?.v;
  }

  put(ts: number, key: StateKey, v: unknown): void {
    let seq = this.index.get(ts, key);
    if (seq === undefined) {
      seq = this.nextSeq++;
      this.index.put(ts, key, seq);
    }
    this.set(seq, { v, at: 0, dirty: true, ts, k: key });
  }

  delete(ts: number, key: StateKey): void {
    const seq = this.index.get(ts, key);
    if (seq === undefined) return;
    this.index.delete(ts, key);
    this.remove(seq);
  }

  *at(ts: number): IterableIterator<[StateKey, unknown]> {
    const b = this.index.bucket(ts);
    if (b === undefined) return;
    for (const [k, seq] of b) {
      const s = this.slot(seq);
      if (s !== undefined) yield [k, s.v];
    }
  }

  /** Removes the bucket at `ts`, returning its entries. */
  take(ts: number): Map<StateKey, unknown> {
    const out = new Map<StateKey, unknown>();
    const b = this.index.take(ts);
    if (b === undefined) return out;
    for (const [k, seq] of b) {
      out.set(k, this.slot(seq)?.v);
      this.remove(seq);
    }
    return out;
  }

  /** Rebuilds the index from LMDB (after a restore). */
  reindex(): void {
    this.index.clear();
    this.nextSeq = 0;
    for (const [seq, bytes] of this.stored()) {
      const s = this.decode(bytes, seq);
      this.index.put(s.ts!, s.k!, seq as number);
      this.nextSeq = Math.max(this.nextSeq, (seq as number) + 1);
    }
  }

  override clear(): void {
    super.clear();
    this.index.clear();
    this.nextSeq = 0;
  }
}

type DiskTable =
  | { readonly kind: "value" | "map" | "list"; readonly table: KeyedRecords }
  | { readonly kind: "time"; readonly table: TimeRecords }
  | { readonly kind: "timers"; readonly timers: MemoryTimerService };

/**
 * State on local disk (`'state.backend.type'` = `'rocksdb'`): records in an embedded LMDB
 * environment (memory-mapped B+tree, values in MessagePack), decoded hot values in a write-back
 * LRU cache per table, so state may be far larger than the heap. Timers stay in memory.
 *
 * Checkpoints: a savepoint (and any snapshot without a checkpoint directory) is the canonical
 * JSON every backend reads. Otherwise the snapshot is native: a base file of every record, then
 * (with incremental checkpoints) delta files of the records changed or deleted since the
 * previous checkpoint, in `<checkpoint dir>/<job id>/shared/`; after `maxDeltas` deltas, or once
 * they outweigh the base, the next checkpoint writes a new base. The checkpoint store deletes a
 * shared file once no retained checkpoint lists it.
 */
export class DiskStateBackend implements StateBackend {
  readonly clock: Clock;
  readonly incremental: boolean;
  readonly cacheEntries: number;
  readonly cacheBytes: number;
  private readonly maxDeltas: number;
  private readonly tables = new Map<string, DiskTable>();
  private readonly records: RecordTable[] = [];
  private env: RootDatabase<Buffer, Buffer> | null = null;
  private pendingCount = 0;
  /** The native files the next incremental snapshot builds on (base first), and their sizes. */
  private chain: SharedStateFile[] = [];
  private disposed = false;

  constructor(private readonly options: DiskStateBackendOptions) {
    this.clock = options.clock ?? Date.now;
    this.incremental = options.incremental ?? false;
    this.cacheEntries = Math.max(1, options.cacheEntries ?? DEFAULT_CACHE_ENTRIES);
    this.cacheBytes = Math.max(1, options.cacheBytes ?? DEFAULT_CACHE_BYTES);
    this.maxDeltas = Math.max(0, options.maxDeltas ?? DEFAULT_MAX_DELTAS);
  }

  /** The LMDB database, opened (and wiped) on first use. */
  get db(): RootDatabase<Buffer, Buffer> {
    return this.openStore();
  }

  private openStore(): RootDatabase<Buffer, Buffer> {
    if (this.env === null) {
      if (this.disposed) throw new Error("the state backend was disposed");
      rmSync(this.options.dir, { recursive: true, force: true });
      mkdirSync(this.options.dir, { recursive: true });
      this.env = open<Buffer, Buffer>({
        path: this.options.dir,
        encoding: "binary",
        keyEncoding: "binary",
        compression: false,
        // The local store is rebuilt from a checkpoint after a crash: no fsync needed.
        noSync: true,
        noMetaSync: true,
      });
    }
    return this.env;
  }

  value<V>(name: string, options?: StateOptions): ValueState<V> {
    const t = this.keyed(name, "value", options);
    return {
      get: (key) => t.read(key) as V | undefined,
      put: (key, value) => t.write(key, value),
      delete: (key) => t.delete(key),
      entries: () => t.live() as IterableIterator<[StateKey, V]>,
      get size() {
        return t.count;
      },
    };
  }

  map<UK, V>(name: string, options?: StateOptions): MapState<UK, V> {
    const t = this.keyed(name, "map", options);
    const read = (key: StateKey) => t.read(key) as Map<UK, V> | undefined;
    return {
      get: (key, userKey) => read(key)?.get(userKey),
      put: (key, userKey, value) => {
        let m = read(key);
        if (m === undefined) m = new Map();
        m.set(userKey, value);
        t.write(key, m);
      },
      delete: (key, userKey) => {
        const m = read(key);
        if (m === undefined || !m.delete(userKey)) return;
        if (m.size === 0) t.delete(key);
        else t.write(key, m);
      },
      entries: (key) => {
        const m = read(key);
        return m === undefined ? new Map<UK, V>().entries() : m.entries();
      },
      clear: (key) => t.delete(key),
      keys: () => liveKeys(t),
    };
  }

  list<V>(name: string, options?: StateOptions): ListState<V> {
    const t = this.keyed(name, "list", options);
    const read = (key: StateKey) => t.read(key) as V[] | undefined;
    return {
      get: (key) => read(key) ?? [],
      add: (key, value) => {
        const l = read(key);
        if (l === undefined) t.write(key, [value]);
        else {
          l.push(value);
          t.write(key, l);
        }
      },
      update: (key, values) => (values.length === 0 ? t.delete(key) : t.write(key, values)),
      clear: (key) => t.delete(key),
      keys: () => liveKeys(t),
    };
  }

  timeIndexed<V>(name: string): TimeIndexedState<V> {
    const t = new TimeRecords(this, this.nextId(), name, "time", 0);
    this.declare(name, { kind: "time", table: t }, t);
    return {
      get: (ts, key) => t.get(ts, key) as V | undefined,
      put: (ts, key, value) => {
        if (Number.isNaN(ts)) throw new Error("a state timestamp cannot be NaN");
        t.put(ts, key, value);
      },
      delete: (ts, key) => t.delete(ts, key),
      entriesAt: (ts) => t.at(ts) as IterableIterator<[StateKey, V]>,
      timestamps: (from, to) => t.index.range(from, to),
      minTimestamp: () => t.index.min(),
      expireUpTo: (upTo, onExpired) => {
        for (let ts = t.index.min(); ts !== undefined && ts <= upTo; ts = t.index.min()) {
          const b = t.take(ts);
          onExpired?.(ts, b as ReadonlyMap<StateKey, V>);
        }
      },
      get size() {
        return t.index.size;
      },
    };
  }

  timers(name: string): TimerService {
    const timers = new MemoryTimerService();
    this.declare(name, { kind: "timers", timers }, null);
    return timers;
  }

  cleanupExpired(budget = Number.POSITIVE_INFINITY): number {
    let removed = 0;
    const now = this.clock();
    for (const t of this.tables.values()) {
      if (removed >= budget) break;
      if (t.kind === "value" || t.kind === "map" || t.kind === "list")
        removed += t.table.cleanup(Math.min(budget - removed, 1 << 30), now);
    }
    return removed;
  }

  /** Counts writes waiting in `pending`; past a batch, writes them all in one transaction. */
  notePending(n: number, maybeFlush = true): void {
    this.pendingCount += n;
    if (maybeFlush && this.pendingCount >= WRITE_BATCH) this.writePending();
  }

  /** Every cached change and pending write into LMDB. */
  flush(): void {
    for (const r of this.records) r.writeBack();
    this.writePending();
  }

  snapshot(options: SnapshotOptions = {}): StateSnapshot {
    const dir = this.options.checkpointDir ?? null;
    if (options.canonical === true || dir === null || this.records.length === 0) {
      // The checkpoint that holds this snapshot lists no shared files, so once it is the only one
      // retained the chain's files are collected: the next native snapshot starts a new base.
      this.chain = [];
      return this.canonical();
    }
    this.flush();
    const deltaBytes = this.chain.slice(1).reduce((n, f) => n + f.bytes, 0);
    const base =
      !this.incremental ||
      this.chain.length === 0 ||
      this.chain.length - 1 >= this.maxDeltas ||
      deltaBytes > this.chain[0]!.bytes;
    const file = this.writeFile(dir, base ? "base" : "delta", options.checkpointId);
    this.chain = base ? [file] : [...this.chain, file];
    for (const r of this.records) r.changed?.clear();
    return {
      version: STATE_SNAPSHOT_VERSION,
      tables: {},
      native: { files: this.chain, empty: this.isEmpty() },
    };
  }

  restore(snapshot: StateSnapshot): void {
    if (snapshot.version !== STATE_SNAPSHOT_VERSION) {
      throw new Error(
        `cannot restore state snapshot version ${snapshot.version}: this Weir reads version ${STATE_SNAPSHOT_VERSION} only`,
      );
    }
    if (snapshot.native !== undefined) {
      this.restoreNative(snapshot.native.files);
      return;
    }
    checkTables(
      this.tables,
      Object.entries(snapshot.tables).map(([n, s]) => [n, s.kind]),
    );
    this.clearAll();
    for (const [name, t] of this.tables) {
      const s = snapshot.tables[name];
      if (s !== undefined) restoreCanonical(t, s);
    }
    this.flush();
    this.chain = [];
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    if (this.env !== null) {
      this.env.close();
      this.env = null;
      rmSync(this.options.dir, { recursive: true, force: true });
      // The job's directory goes with its last task's.
      try {
        rmdirSync(dirname(this.options.dir));
      } catch {
        // other tasks' directories are still there
      }
    }
  }

  private canonical(): StateSnapshot {
    const tables: Record<string, TableSnapshot> = {};
    for (const [name, t] of this.tables) {
      switch (t.kind) {
        case "value":
        case "map":
        case "list":
          tables[name] = { kind: t.kind, entries: t.table.canonical() };
          break;
        case "time": {
          const buckets: [Json, Json[]][] = [];
          for (const ts of t.table.index.timestamps()) {
            const flat: Json[] = [];
            for (const [k, v] of t.table.at(ts)) flat.push(encodeJson(k), encodeJson(v));
            buckets.push([encodeJson(ts), flat]);
          }
          tables[name] = { kind: "time", buckets };
          break;
        }
        case "timers":
          tables[name] = timersSnapshot(t.timers);
          break;
        default: {
          const _exhaustive: never = t;
          throw new Error(`unknown state table ${JSON.stringify(_exhaustive)}`);
        }
      }
    }
    return { version: STATE_SNAPSHOT_VERSION, tables };
  }

  private writeFile(checkpointDir: string, kind: "base" | "delta", checkpointId?: number): SharedStateFile {
    const shared = join(checkpointDir, "shared");
    mkdirSync(shared, { recursive: true });
    const name = `${this.options.taskId ?? "task"}-${checkpointId ?? 0}-${kind}-${randomBytes(6).toString("hex")}.state`;
    const tableList: [string, string, boolean][] = [];
    const whole: Record<string, unknown> = {};
    for (const [n, t] of this.tables) {
      if (t.kind === "timers") whole[n] = timersSnapshot(t.timers);
      else tableList[t.table.id] = [n, t.kind, t.table.ttlMs > 0];
    }
    const header: StateFileHeader = { format: "weir-state", version: 1, kind, tables: tableList, whole };
    const w = new StateFileWriter(join(shared, name), `shared/${name}`, header);
    try {
      for (const r of this.records) {
        if (kind === "base") {
          for (const [k, bytes] of r.stored()) w.record(r.id, k, bytes);
        } else {
          for (const k of r.changed ?? []) {
            const bytes = this.db.getBinary(r.keyBytes(k));
            w.record(r.id, k, bytes ?? null);
          }
        }
      }
      return w.close();
    } catch (e) {
      w.abort();
      throw e;
    }
  }

  private restoreNative(given: readonly SharedStateFile[]): void {
    let files = given;
    if (files.length === 0) throw new Error("cannot restore: the native state snapshot lists no files");
    // A checkpoint handed over in memory (not loaded from the store) names its files relative to the job's directory.
    const dir = this.options.checkpointDir ?? null;
    if (dir !== null)
      files = files.map((f) => (f.path === undefined ? { ...f, path: join(dir, f.file) } : f));
    this.clearAll();
    this.db.clearSync();
    let ids: readonly (RecordTable | null)[] = [];
    let whole: StateFileHeader["whole"] = {};
    let batch = 0;
    const apply = (tableIdx: number, k: string | number, v: Uint8Array | null) => {
      const r = ids[tableIdx];
      if (r === undefined || r === null) return;
      if (v === null) r.pending.set(k, null);
      else r.pending.set(k, Buffer.from(v.buffer, v.byteOffset, v.length));
      if (++batch >= WRITE_BATCH) {
        this.writePending();
        batch = 0;
      }
    };
    for (const f of files) {
      readStateFile(f, apply, (header) => {
        ids = this.mapTables(header);
        whole = header.whole;
      });
    }
    this.writePending();
    for (const [name, t] of this.tables) {
      if (t.kind === "timers") {
        t.timers.eventTime.clear();
        t.timers.processingTime.clear();
        t.timers.watermark = Number.NEGATIVE_INFINITY;
        const s = whole[name] as TableSnapshot | undefined;
        if (s !== undefined) restoreCanonical(t, s);
      } else if (t.kind === "time") t.table.reindex();
      else t.table.count = t.table.storedCount();
    }
    for (const r of this.records) r.changed?.clear();
    const shared = this.options.checkpointDir ? join(this.options.checkpointDir, "shared") : null;
    // Continue the chain only when its files are this job's (a later checkpoint lists them by name).
    this.chain =
      shared !== null &&
      files.every((f) => f.path !== undefined && join(shared, f.file.slice("shared/".length)) === f.path)
        ? files.map(({ file, bytes, sha256 }) => ({ file, bytes, sha256 }))
        : [];
  }

  /** The records of a native file by table index, checked against the declared tables. */
  private mapTables(header: StateFileHeader): (RecordTable | null)[] {
    checkTables(
      this.tables,
      header.tables.filter((x) => x !== null && x !== undefined).map(([n, k]) => [n, k] as [string, string]),
    );
    return header.tables.map((x) => {
      if (x === null || x === undefined) return null;
      const t = this.tables.get(x[0])!;
      return t.kind === "timers" ? null : t.table;
    });
  }

  stats(): StateStats {
    let keys = 0;
    let timeEntries = 0;
    for (const t of this.tables.values()) {
      if (t.kind === "timers") timeEntries += t.timers.eventTime.size + t.timers.processingTime.size;
      else if (t.kind === "time") timeEntries += t.table.index.size;
      else keys += t.table.count;
    }
    return { keys, timeEntries };
  }

  private isEmpty(): boolean {
    for (const t of this.tables.values()) {
      if (t.kind === "timers") {
        if (t.timers.eventTime.size > 0 || t.timers.processingTime.size > 0) return false;
      } else if (t.kind === "time") {
        if (t.table.index.size > 0) return false;
      } else if (t.table.count > 0) return false;
    }
    return true;
  }

  private writePending(): void {
    if (this.pendingCount === 0 && this.records.every((r) => r.pending.size === 0)) return;
    this.db.transactionSync(() => {
      for (const r of this.records) r.writePending();
    });
    this.pendingCount = 0;
  }

  private clearAll(): void {
    for (const r of this.records) r.clear();
    this.pendingCount = 0;
    if (this.records.length > 0) this.db.clearSync();
  }

  private nextId(): number {
    return this.records.length;
  }

  private keyed(name: string, kind: "value" | "map" | "list", options?: StateOptions): KeyedRecords {
    const t = new KeyedRecords(this, this.nextId(), name, kind, options?.ttl);
    this.declare(name, { kind, table: t }, t);
    return t;
  }

  private declare(name: string, table: DiskTable, records: RecordTable | null): void {
    if (this.tables.has(name)) throw new Error(`state table '${name}' is declared twice`);
    if (this.records.length >= 0xfffe) throw new Error("too many state tables in one task");
    this.tables.set(name, table);
    if (records !== null) {
      this.records.push(records);
      // The store opens (wiping what a killed run left) with the first table, not at the first write.
      this.openStore();
    }
  }
}

function* liveKeys(t: KeyedRecords): IterableIterator<StateKey> {
  for (const [k] of t.live()) yield k;
}

/** Refuses a snapshot table the task does not declare, or of another kind (as the memory backend does). */
function checkTables(
  declared: ReadonlyMap<string, DiskTable>,
  snapshot: readonly (readonly [string, string])[],
): void {
  for (const [name, kind] of snapshot) {
    const t = declared.get(name);
    if (t === undefined)
      throw new Error(
        `cannot restore: the snapshot has state table '${name}' (${kind}) that the operator does not declare; was the query changed?`,
      );
    if (t.kind !== kind)
      throw new Error(`cannot restore: state table '${name}' is ${t.kind} but the snapshot holds ${kind}`);
  }
}

function timersSnapshot(t: MemoryTimerService): TableSnapshot {
  const buckets = (b: TimeBuckets<true>): [Json, Json[]][] =>
    b.timestamps().map((ts) => [encodeJson(ts), [...b.bucket(ts)!.keys()].map((k) => encodeJson(k))]);
  return {
    kind: "timers",
    watermark: encodeJson(t.watermark),
    eventTime: buckets(t.eventTime),
    processingTime: buckets(t.processingTime),
  };
}

function restoreCanonical(t: DiskTable, s: TableSnapshot): void {
  if (s.kind === "timers" && t.kind === "timers") {
    t.timers.watermark = decodeJson(s.watermark) as number;
    for (const [ts, keys] of s.eventTime)
      for (const k of keys) t.timers.eventTime.put(decodeJson(ts) as number, decodeJson(k) as StateKey, true);
    for (const [ts, keys] of s.processingTime)
      for (const k of keys)
        t.timers.processingTime.put(decodeJson(ts) as number, decodeJson(k) as StateKey, true);
  } else if (s.kind === "time" && t.kind === "time") {
    for (const [ts, flat] of s.buckets) {
      for (let i = 0; i < flat.length; i += 2)
        t.table.put(decodeJson(ts) as number, decodeJson(flat[i]!) as StateKey, decodeJson(flat[i + 1]!));
    }
    // Written through the cache: push it to LMDB.
    t.table.writeBack();
  } else if ((s.kind === "value" || s.kind === "map" || s.kind === "list") && t.kind === s.kind) {
    for (const e of s.entries as Json[][])
      t.table.load(
        decodeJson(e[0]!) as StateKey,
        decodeJson(e[1]!),
        e.length > 2 ? (e[2] as number) : undefined,
      );
  } else {
    throw new Error(`cannot restore a ${s.kind} table into a ${t.kind} table`);
  }
}

/** `prefix`, then 1 + an order-preserving float64 (numbers) or 2 + UTF-8 (strings). */
function encodeStateKey(prefix: Buffer, k: StateKey): Buffer {
  if (typeof k === "number") {
    const out = Buffer.allocUnsafe(11);
    prefix.copy(out, 0);
    out[2] = 1;
    writeOrderedNumber(out, 3, k);
    return out;
  }
  const len = Buffer.byteLength(k);
  const out = Buffer.allocUnsafe(3 + len);
  prefix.copy(out, 0);
  out[2] = 2;
  out.write(k, 3, "utf8");
  return out;
}

function decodeStateKey(b: Buffer): StateKey {
  return b[2] === 1 ? readOrderedNumber(b, 3) : b.toString("utf8", 3);
}

function writeOrderedNumber(out: Buffer, off: number, x: number): void {
  out.writeDoubleBE(x === 0 ? 0 : x, off);
  if (out[off]! & 0x80) for (let i = off; i < off + 8; i++) out[i] = ~out[i]! & 0xff;
  else out[off] = out[off]! | 0x80;
}

function readOrderedNumber(b: Buffer, off: number): number {
  const tmp = Buffer.from(b.subarray(off, off + 8));
  if (tmp[0]! & 0x80) tmp[0] = tmp[0]! & 0x7f;
  else for (let i = 0; i < 8; i++) tmp[i] = ~tmp[i]! & 0xff;
  return tmp.readDoubleBE(0);
}

/** The smallest key after `key` (its bytes followed by 0). */
function successor(key: Buffer): Buffer {
  return Buffer.concat([key, Buffer.from([0])]);
}
