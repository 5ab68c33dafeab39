import { randomBytes } from "node:crypto";
import { mkdirSync, rmdirSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { getHeapStatistics } from "node:v8";
import type * as Lmdb from "lmdb";
import type { Database, RootDatabase } from "lmdb";
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
  applySegment,
  canonicalOfNative,
  collectionHeader,
  collectionKey,
  concatPackedArrays,
  readCollectionHeader,
  readCollectionKey,
  readOrderedNumber,
  readStateFile,
  readValueRecordKey,
  type SharedStateFile,
  STATE_FILE_VERSION,
  type StateFileHeader,
  StateFileWriter,
  stateCodec,
  valueRecordKey,
  writeOrderedNumber,
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

/**
 * Without `'weir.state.cache-bytes'`, the caches of every on-disk state table in the process share
 * this fraction of V8's heap limit, split evenly among the live tables (as Flink sizes RocksDB's
 * block cache and write buffers from the task's managed memory): a job whose state fits in memory
 * keeps most of it decoded, and a larger heap (`--max-old-space-size`) gives the caches more.
 */
export const CACHE_HEAP_FRACTION = 0.1;
/** The least a table's cache is given from the shared budget (however many tables share it). */
export const MIN_TABLE_CACHE_BYTES = 4 << 20;
/** Without `'weir.state.cache-entries'`: one cached entry per this many bytes of a table's bound. */
export const BYTES_PER_CACHE_ENTRY = 128;
/** The shared budget, and how many live tables share it now. */
const cacheBudget = {
  bytes: Math.floor(getHeapStatistics().heap_size_limit * CACHE_HEAP_FRACTION),
  tables: 0,
};

/** A table's cache bound in bytes from the shared budget, with `tables` live tables in the process. */
export function sharedCacheBytes(tables = cacheBudget.tables): number {
  return Math.max(MIN_TABLE_CACHE_BYTES, Math.floor(cacheBudget.bytes / Math.max(1, tables)));
}
export const DEFAULT_MAX_DELTAS = 10;
/** Evicted dirty records are written to LMDB in one transaction once this many wait. */
const WRITE_BATCH = 4096;

/** A cached record: its decoded value, last access (TTL), and whether LMDB lacks this version. */
interface Slot {
  v: unknown;
  at: number;
  dirty: boolean;
  /** Used since it was admitted or the cache last considered evicting it (second chance, instead of moving it on every hit). */
  hot?: boolean;
  /** Time-indexed records: the entry's timestamp and key. */
  ts?: number;
  k?: StateKey;
}

/**
 * What `pending` and `changed` are keyed by: a value or time table's state key or sequence
 * number; a list or map table's LMDB key as a latin1 string (a header or one segment).
 */
type PendingKey = StateKey;

/**
 * A table of records in LMDB under a 2-byte table prefix. Invariant: a record's current value
 * is its cached form if cached (dirty: not yet encoded), else the `pending` write (null:
 * deleted) if any, else LMDB's; `changed` (incremental checkpoints only) holds every record
 * written to `pending` since the last snapshot.
 */
abstract class RecordTable {
  readonly pending = new Map<PendingKey, Buffer | null>();
  changed: Set<PendingKey> | null;
  readonly prefix: Buffer;
  /** Mean encoded size of this table's cached records, for the cache's byte bound. */
  protected meanBytes = 256;

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

  /** The LMDB key of a pending key. */
  abstract keyBytes(pk: PendingKey): Buffer;
  /** Encodes every dirty cached record into `pending` (without writing LMDB). */
  abstract writeBack(): void;
  abstract clearCache(): void;

  protected noteSize(bytes: number): void {
    this.meanBytes += (bytes - this.meanBytes) / 64;
  }

  /** How many decoded records the cache holds at most: the entry bound, and the byte bound at the mean record size. */
  get capacity(): number {
    return Math.min(
      this.backend.cacheEntries,
      Math.max(16, Math.floor(this.backend.cacheBytes / Math.max(16, this.meanBytes))),
    );
  }

  /** Queues a write (null: a deletion) of one record; `flush`: write the batch to LMDB once it is full. */
  note(pk: PendingKey, bytes: Buffer | null, flush = true): void {
    this.pending.set(pk, bytes);
    this.changed?.add(pk);
    this.backend.notePending(1, flush);
  }

  /** The record's bytes in `pending` or LMDB (after `writeBack`: its current value); null when there is none. */
  current(pk: PendingKey): Uint8Array | null {
    const p = this.pending.get(pk);
    if (p !== undefined) return p;
    return this.db.getBinaryFast(this.keyBytes(pk)) ?? null;
  }

  /** Writes `pending` to LMDB; call inside a write transaction. */
  writePending(): void {
    for (const [pk, b] of this.pending) {
      if (b === null) this.db.remove(this.keyBytes(pk));
      else this.db.put(this.keyBytes(pk), b);
    }
    this.pending.clear();
  }

  get end(): Buffer {
    return Buffer.from([(this.id + 1) >> 8, (this.id + 1) & 0xff]);
  }

  /** Records in LMDB order (call after a full flush), as [LMDB key, bytes]. */
  raw(): IterableIterator<{ key: Buffer; value: Buffer }> {
    return this.db.getRange({ start: this.prefix, end: this.end }) as unknown as IterableIterator<{
      key: Buffer;
      value: Buffer;
    }>;
  }

  storedCount(): number {
    return this.db.getCount({ start: this.prefix, end: this.end });
  }

  clear(): void {
    this.clearCache();
    this.pending.clear();
    this.changed?.clear();
  }
}

/** A table whose records are each one cached slot: value and time tables. */
abstract class SlotTable extends RecordTable {
  readonly cache = new Map<StateKey, Slot>();

  abstract encodeRecord(slot: Slot): Buffer;
  abstract decodeRecord(bytes: Uint8Array, ck: StateKey): Slot;

  encode(slot: Slot): Buffer {
    const b = this.encodeRecord(slot);
    this.noteSize(b.length);
    return b;
  }

  decode(bytes: Uint8Array, ck: StateKey): Slot {
    this.noteSize(bytes.length);
    return this.decodeRecord(bytes, ck);
  }

  /** Records in LMDB order (call after a full flush), as [state key or sequence number, bytes]. */
  abstract stored(): IterableIterator<[StateKey, Buffer]>;

  /** The record's slot (loaded into the cache), or undefined when there is none. */
  slot(ck: StateKey): Slot | undefined {
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

  exists(ck: StateKey): boolean {
    if (this.cache.has(ck)) return true;
    const p = this.pending.get(ck);
    if (p !== undefined) return p !== null;
    return this.db.getBinaryFast(this.keyBytes(ck)) !== undefined;
  }

  /** Caches `slot` as the record's new value (dirty). */
  set(ck: StateKey, slot: Slot): void {
    slot.dirty = true;
    if (this.cache.has(ck)) {
      slot.hot = true;
      this.cache.set(ck, slot);
    } else {
      // Admitted at the back of the clock: it stays a lap unless it is used again.
      slot.hot = false;
      this.admit(ck, slot);
    }
  }

  remove(ck: StateKey): void {
    this.cache.delete(ck);
    this.note(ck, null);
  }

  writeBack(): void {
    for (const [ck, s] of this.cache) {
      if (!s.dirty) continue;
      this.note(ck, this.encode(s), false);
      s.dirty = false;
    }
  }

  clearCache(): void {
    this.cache.clear();
    this.hand = null;
  }

  hand: IterableIterator<[StateKey, Slot]> | null = null;

  private admit(ck: StateKey, slot: Slot): void {
    this.cache.set(ck, slot);
    const cap = this.capacity;
    // Clock-style LRU: the oldest entry goes unless it was used since; then it moves to the back.
    while (this.cache.size > cap) {
      const [oldKey, old] = clockNext(this.cache, this);
      this.cache.delete(oldKey);
      if (old.hot === true && oldKey !== ck) {
        old.hot = false;
        this.cache.set(oldKey, old);
        continue;
      }
      if (old.dirty) this.note(oldKey, this.encode(old));
    }
  }
}

/** A value table: one record per state key. */
class ValueRecords extends SlotTable {
  count = 0;
  private cleanupFrom: Buffer | null = null;
  readonly refreshOnRead: boolean;

  constructor(backend: DiskStateBackend, id: number, name: string, ttl?: TtlConfig) {
    if (ttl !== undefined && !(ttl.ttlMs > 0))
      throw new Error(`state TTL must be positive, got ${ttl.ttlMs}`);
    super(backend, id, name, "value", ttl?.ttlMs ?? 0);
    this.refreshOnRead = (ttl?.update ?? "read-write") === "read-write";
  }

  keyBytes(ck: StateKey): Buffer {
    return valueRecordKey(this.prefix, ck);
  }

  *stored(): IterableIterator<[StateKey, Buffer]> {
    for (const { key, value } of this.raw()) yield [readValueRecordKey(key, 2), value];
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

  decodeRecord(bytes: Uint8Array, _ck: StateKey): Slot {
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
    for (const { key, value } of this.db.getRange({
      start: this.cleanupFrom ?? this.prefix,
      end: this.end,
      limit,
    })) {
      if (expired.length >= budget) break;
      scanned++;
      last = key as Buffer;
      const k = readValueRecordKey(last, 2);
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
    this.note(key, this.encode({ v, at: at ?? this.backend.clock(), dirty: false }));
  }

  override clear(): void {
    super.clear();
    this.count = 0;
    this.cleanupFrom = null;
  }
}

/** A cached list or map. */
interface CollectionSlot {
  /** The LMDB key of the state key's records, up to the header/segment tag, as latin1. */
  readonly ks: string;
  /** The whole list or map; undefined while only appended to (a list whose stored part was not read). */
  v: unknown[] | Map<unknown, unknown> | undefined;
  /** The stored header's inline segment (applied before the segments), if any. */
  inline: Buffer | null;
  at: number;
  /** The stored segments (LMDB or pending) are [first, next). */
  first: number;
  next: number;
  /** Whether its header is stored (LMDB or pending). */
  stored: boolean;
  /** Something is not stored yet: the header, and what `tail`, `puts`, `dels` or `rewrite` say. */
  dirty: boolean;
  hot: boolean;
  /** List: elements appended since the last stored segment (also at the end of `v` when loaded). */
  tail: unknown[] | null;
  /** Map: user keys set, and user keys deleted, since the last stored segment. */
  puts: Set<unknown> | null;
  dels: Set<unknown> | null;
  /** `v` replaces every stored segment. */
  rewrite: boolean;
  /** About how many bytes the cached content takes (counted in the table's `cachedBytes`). */
  bytes: number;
}

/** About how many bytes a list element or map entry part takes in the cache. */
function sizeOf(x: unknown): number {
  return typeof x === "string" ? x.length + 16 : 16;
}

/** Node's latin1 fast path (see row-codec.ts). */
interface Latin1Buffer extends Buffer {
  latin1Write(s: string, offset: number): number;
}

const SCRATCH_KEY = Buffer.allocUnsafe(4096) as Latin1Buffer;

/** A key without segments whose whole content encodes to at most this many bytes keeps it in its header (rewritten whole: below this, one record costs less than a header and a segment). */
const INLINE_BYTES = 4096;
/** A new key's first write keeps up to this many bytes in its header. */
const INLINE_FIRST_BYTES = 8192;

/** Stored segments past this many are compacted into one when the key is next written back whole. */
const COMPACT_SEGMENTS = 8;

/**
 * A list or map table. Per state key a small header and segments (see the layout in
 * state-files.ts), so that appending a row to a key writes only that row's segment when the
 * key leaves the cache, not the key's whole list again; a list is appended to without reading
 * what is stored. A key's segments are compacted into one once it has more than
 * {@link COMPACT_SEGMENTS} and is read whole.
 */
class CollectionRecords extends RecordTable {
  readonly cache = new Map<StateKey, CollectionSlot>();
  count = 0;
  private cleanupFrom: Buffer | null = null;
  readonly refreshOnRead: boolean;
  private readonly ttl: boolean;
  /** The estimated bytes of the cached slots' content. */
  private cachedBytes = 0;
  /** The records' key prefix of the state key `find` last looked up and found no slot for. */
  private missed: string | null = null;

  constructor(backend: DiskStateBackend, id: number, name: string, kind: "map" | "list", ttl?: TtlConfig) {
    if (ttl !== undefined && !(ttl.ttlMs > 0))
      throw new Error(`state TTL must be positive, got ${ttl.ttlMs}`);
    super(backend, id, name, kind, ttl?.ttlMs ?? 0);
    this.refreshOnRead = (ttl?.update ?? "read-write") === "read-write";
    this.ttl = this.ttlMs > 0;
  }

  /** The LMDB key, in a buffer reused by the next call (LMDB copies keys when called). */
  keyBytes(pk: PendingKey): Buffer {
    const k = pk as string;
    if (k.length > SCRATCH_KEY.length) return Buffer.from(k, "latin1");
    return SCRATCH_KEY.subarray(0, SCRATCH_KEY.latin1Write(k, 0));
  }

  private ksOf(key: StateKey): string {
    return collectionKey(this.prefix, key).toString("latin1");
  }

  private static headerPk(ks: string): string {
    return `${ks}\u0000`;
  }

  private static segmentPk(ks: string, seg: number): string {
    return `${ks}\u0001${String.fromCharCode(seg >>> 24, (seg >>> 16) & 0xff, (seg >>> 8) & 0xff, seg & 0xff)}`;
  }

  private get empty(): unknown[] | Map<unknown, unknown> {
    return this.kind === "list" ? [] : new Map();
  }

  /** The key's slot, cached, or undefined when it has none (or it expired; then it is deleted). */
  private find(key: StateKey, read: boolean): CollectionSlot | undefined {
    let s = this.cache.get(key);
    if (s !== undefined) s.hot = true;
    else {
      const ks = this.ksOf(key);
      this.missed = ks;
      const hpk = CollectionRecords.headerPk(ks);
      const p = this.pending.get(hpk);
      if (p === null) return undefined;
      const bytes = p ?? this.db.getBinaryFast(this.keyBytes(hpk));
      if (bytes === undefined) return undefined;
      const h = readCollectionHeader(bytes, this.ttl);
      s = {
        ks,
        v: undefined,
        // Copied: LMDB's fast reads reuse their buffer.
        inline: h.inline === null ? null : Buffer.from(h.inline),
        at: h.at,
        first: h.first,
        next: h.next,
        stored: true,
        dirty: false,
        hot: false,
        tail: null,
        puts: null,
        dels: null,
        rewrite: false,
        bytes: 64 + (h.inline?.length ?? 0),
      };
      this.cachedBytes += s.bytes;
      this.admit(key, s);
    }
    if (this.ttl) {
      const now = this.backend.clock();
      if (now - s.at >= this.ttlMs) {
        this.drop(key, s);
        return undefined;
      }
      if (read && this.refreshOnRead && s.at !== now) {
        s.at = now;
        s.dirty = true;
      }
    }
    return s;
  }

  /** The key's slot for a write: created (empty, counted) when it has none. */
  private slotForWrite(key: StateKey): CollectionSlot {
    this.missed = null;
    const found = this.find(key, false);
    if (found !== undefined) {
      if (this.ttl) found.at = this.backend.clock();
      found.dirty = true;
      return found;
    }
    this.count++;
    const s: CollectionSlot = {
      // The key `find` just looked for (it had no slot).
      ks: this.missed ?? this.ksOf(key),
      v: this.empty,
      inline: null,
      at: this.ttl ? this.backend.clock() : 0,
      first: 0,
      next: 0,
      stored: false,
      dirty: true,
      hot: false,
      tail: null,
      puts: null,
      dels: null,
      rewrite: false,
      bytes: 64,
    };
    this.cachedBytes += s.bytes;
    this.admit(key, s);
    return s;
  }

  /** The key's whole list or map, read from its segments if not cached. */
  private whole(s: CollectionSlot): unknown[] | Map<unknown, unknown> {
    if (s.v !== undefined) return s.v;
    const v = this.empty;
    let bytes = 0;
    if (s.inline !== null) {
      bytes += s.inline.length;
      applySegment(v, s.inline);
    }
    for (let seg = s.first; seg < s.next; seg++) {
      const pk = CollectionRecords.segmentPk(s.ks, seg);
      const p = this.pending.get(pk);
      const b = p === undefined ? this.db.getBinaryFast(this.keyBytes(pk)) : p;
      if (b === undefined || b === null) continue;
      bytes += b.length;
      applySegment(v, b);
    }
    if (s.tail !== null) for (const x of s.tail) (v as unknown[]).push(x);
    this.noteSize(bytes);
    this.grow(s, bytes);
    if (s.next - s.first > COMPACT_SEGMENTS) {
      s.rewrite = true;
      s.dirty = true;
    }
    s.v = v;
    return v;
  }

  // List operations.

  listGet(key: StateKey): unknown[] | undefined {
    const s = this.find(key, true);
    return s === undefined ? undefined : (this.whole(s) as unknown[]);
  }

  listAdd(key: StateKey, value: unknown): void {
    const s = this.slotForWrite(key);
    this.grow(s, sizeOf(value));
    if (s.v !== undefined) (s.v as unknown[]).push(value);
    if (!s.rewrite) (s.tail ??= []).push(value);
  }

  listUpdate(key: StateKey, values: unknown[]): void {
    if (values.length === 0) {
      this.delete(key);
      return;
    }
    const s = this.slotForWrite(key);
    let bytes = 0;
    for (const x of values) bytes += sizeOf(x);
    this.grow(s, bytes - s.bytes + 64);
    s.v = values;
    s.tail = null;
    s.rewrite = true;
  }

  // Map operations.

  mapGet(key: StateKey): Map<unknown, unknown> | undefined {
    const s = this.find(key, true);
    return s === undefined ? undefined : (this.whole(s) as Map<unknown, unknown>);
  }

  mapPut(key: StateKey, uk: unknown, value: unknown): void {
    const s = this.slotForWrite(key);
    const m = this.whole(s) as Map<unknown, unknown>;
    if (!m.has(uk)) this.grow(s, sizeOf(uk) + sizeOf(value));
    m.set(uk, value);
    if (!s.rewrite) (s.puts ??= new Set()).add(uk);
  }

  mapDelete(key: StateKey, uk: unknown): void {
    const s = this.find(key, false);
    if (s === undefined) return;
    const m = this.whole(s) as Map<unknown, unknown>;
    if (!m.delete(uk)) return;
    if (m.size === 0) {
      this.drop(key, s);
      return;
    }
    if (this.ttl) s.at = this.backend.clock();
    s.dirty = true;
    if (s.rewrite) return;
    // Deleted, then set again: the replay deletes it first, so it moves to the end as in the Map.
    s.puts?.delete(uk);
    (s.dels ??= new Set()).add(uk);
  }

  delete(key: StateKey): void {
    const s = this.find(key, false);
    if (s !== undefined) this.drop(key, s);
  }

  /** Deletes a key's header and segments. */
  private drop(key: StateKey, s: CollectionSlot): void {
    if (this.cache.get(key) === s) {
      this.cache.delete(key);
      this.cachedBytes -= s.bytes;
    }
    this.count--;
    for (let seg = s.first; seg < s.next; seg++) this.note(CollectionRecords.segmentPk(s.ks, seg), null);
    if (s.stored) this.note(CollectionRecords.headerPk(s.ks), null);
  }

  /**
   * Encodes what of a cached key is not stored into `pending`: a key without segments whose
   * whole content is small keeps it in its header (one record, rewritten whole); otherwise what
   * changed becomes one new segment, and a key read whole with too many segments (or rewritten)
   * is compacted.
   */
  private persist(s: CollectionSlot, flush: boolean): void {
    if (!s.dirty) return;
    const v = s.v;
    let done = false;
    if (v !== undefined && (s.rewrite || s.next - s.first > COMPACT_SEGMENTS || s.first === s.next)) {
      const body = encodeWhole(v);
      this.noteSize(body.length);
      // A new key's first write may be larger (one record instead of a header and a segment).
      const inline = body.length <= (s.stored ? INLINE_BYTES : INLINE_FIRST_BYTES);
      if (s.rewrite || s.next - s.first > COMPACT_SEGMENTS || inline) {
        for (let seg = s.first; seg < s.next; seg++)
          this.note(CollectionRecords.segmentPk(s.ks, seg), null, flush);
        s.first = s.next;
        if (inline) s.inline = body;
        else {
          s.inline = null;
          this.note(CollectionRecords.segmentPk(s.ks, s.next++), body, flush);
        }
        done = true;
      }
    } else if (v === undefined && s.first === s.next && s.tail !== null && s.tail.length > 0) {
      // Appended to without being read: folded into the inline segment while it stays small.
      const tail = stateCodec.pack(s.tail);
      const merged = s.inline === null ? tail : concatPackedArrays(s.inline, tail);
      if (merged !== null && merged.length <= INLINE_BYTES) {
        s.inline = merged;
        this.noteSize(merged.length);
        done = true;
      } else {
        this.noteSize(tail.length);
        this.note(CollectionRecords.segmentPk(s.ks, s.next++), tail, flush);
        done = true;
      }
    }
    if (done) {
      // Written above.
    } else if (s.tail !== null && s.tail.length > 0) {
      const body = stateCodec.pack(s.tail);
      if (v === undefined) this.noteSize(body.length);
      this.note(CollectionRecords.segmentPk(s.ks, s.next++), body, flush);
    } else if ((s.puts !== null && s.puts.size > 0) || (s.dels !== null && s.dels.size > 0)) {
      const m = v as Map<unknown, unknown>;
      const body = stateCodec.pack([s.dels === null ? [] : [...s.dels], flatten(m, s.puts ?? [])]);
      this.note(CollectionRecords.segmentPk(s.ks, s.next++), body, flush);
    }
    this.note(
      CollectionRecords.headerPk(s.ks),
      collectionHeader(s.first, s.next, this.ttl, s.at, s.inline),
      flush,
    );
    s.stored = true;
    s.dirty = false;
    s.rewrite = false;
    s.tail = null;
    s.puts = null;
    s.dels = null;
  }

  writeBack(): void {
    for (const s of this.cache.values()) this.persist(s, false);
  }

  clearCache(): void {
    this.cache.clear();
    this.cachedBytes = 0;
    this.hand = null;
  }

  private grow(s: CollectionSlot, n: number): void {
    s.bytes += n;
    this.cachedBytes += n;
  }

  hand: IterableIterator<[StateKey, CollectionSlot]> | null = null;

  /**
   * Caches a slot, evicting by the clock while the cache holds more than `'weir.state.cache-entries'`
   * keys or (beyond 16 keys) more than `'weir.state.cache-bytes'` of content by its estimate.
   */
  private admit(key: StateKey, s: CollectionSlot): void {
    this.cache.set(key, s);
    const entries = this.backend.cacheEntries;
    const bytes = this.backend.cacheBytes;
    while (this.cache.size > entries || (this.cachedBytes > bytes && this.cache.size > 16)) {
      const [oldKey, old] = clockNext(this.cache, this);
      this.cache.delete(oldKey);
      // Never the key being admitted: its caller changes the slot next.
      if (oldKey === key || old.hot) {
        old.hot = false;
        this.cache.set(oldKey, old);
        continue;
      }
      this.cachedBytes -= old.bytes;
      this.persist(old, true);
    }
  }

  /** Live keys with their lists or maps, from LMDB after a flush (a key's header, then its segments in order). */
  *live(): IterableIterator<[StateKey, unknown[] | Map<unknown, unknown>, number]> {
    this.backend.flush();
    const now = this.backend.clock();
    let cur: {
      key: StateKey;
      at: number;
      first: number;
      next: number;
      v: unknown[] | Map<unknown, unknown>;
    } | null = null;
    for (const { key, value } of this.raw()) {
      const { key: k, seg } = readCollectionKey(key, 2);
      if (seg < 0) {
        if (cur !== null && !(this.ttl && now - cur.at >= this.ttlMs)) yield [cur.key, cur.v, cur.at];
        const h = readCollectionHeader(value, this.ttl);
        cur = { key: k, at: h.at, first: h.first, next: h.next, v: this.empty };
        if (h.inline !== null) applySegment(cur.v, h.inline);
      } else if (cur !== null && cur.key === k && seg >= cur.first && seg < cur.next)
        applySegment(cur.v, value);
    }
    if (cur !== null && !(this.ttl && now - cur.at >= this.ttlMs)) yield [cur.key, cur.v, cur.at];
  }

  *liveKeys(): IterableIterator<StateKey> {
    for (const [k] of this.live()) yield k;
  }

  canonical(): Json[] {
    const rows: [number, Json][] = [];
    // Expired keys too (as the value table's canonical form): the restoring side expires them.
    this.backend.flush();
    let cur: {
      key: StateKey;
      at: number;
      first: number;
      next: number;
      v: unknown[] | Map<unknown, unknown>;
    } | null = null;
    const emit = () => {
      if (cur === null) return;
      const json = [encodeJson(cur.key), encodeJson(cur.v)];
      rows.push([cur.at, this.ttl ? [...json, cur.at] : json]);
    };
    for (const { key, value } of this.raw()) {
      const { key: k, seg } = readCollectionKey(key, 2);
      if (seg < 0) {
        emit();
        const h = readCollectionHeader(value, this.ttl);
        cur = { key: k, at: h.at, first: h.first, next: h.next, v: this.empty };
        if (h.inline !== null) applySegment(cur.v, h.inline);
      } else if (cur !== null && cur.key === k && seg >= cur.first && seg < cur.next)
        applySegment(cur.v, value);
    }
    emit();
    if (this.ttl) rows.sort((a, b) => a[0] - b[0]);
    return rows.map((r) => r[1]);
  }

  /** A key's whole list or map from a canonical snapshot. */
  load(key: StateKey, v: unknown, at: number | undefined): void {
    const ks = this.ksOf(key);
    const body = encodeWhole(v as unknown[] | Map<unknown, unknown>);
    this.count++;
    const inline = body.length <= INLINE_FIRST_BYTES;
    if (!inline) this.note(CollectionRecords.segmentPk(ks, 0), body);
    this.note(
      CollectionRecords.headerPk(ks),
      collectionHeader(0, inline ? 0 : 1, this.ttl, at ?? this.backend.clock(), inline ? body : null),
    );
  }

  /** Removes up to `budget` expired keys: cached ones, then LMDB's headers from where the last call stopped. */
  cleanup(budget: number, now: number): number {
    if (!this.ttl || budget <= 0 || this.count === 0) return 0;
    const limit = Math.max(64, budget * 8);
    const expired: StateKey[] = [];
    let seen = 0;
    for (const [k, s] of this.cache) {
      if (++seen > limit || expired.length >= budget) break;
      if (now - s.at >= this.ttlMs) expired.push(k);
    }
    // Headers written back but not in LMDB yet.
    for (const [pk, p] of this.pending) {
      if (++seen > 2 * limit || expired.length >= budget) break;
      if (p === null) continue;
      const { key: k, seg } = readCollectionKey(this.keyBytes(pk), 2);
      if (seg < 0 && !this.cache.has(k) && now - readCollectionHeader(p, true).at >= this.ttlMs)
        expired.push(k);
    }
    let scanned = 0;
    let last: Buffer | null = null;
    for (const { key, value } of this.db.getRange({
      start: this.cleanupFrom ?? this.prefix,
      end: this.end,
      limit,
    })) {
      if (expired.length >= budget) break;
      scanned++;
      last = key as Buffer;
      const { key: k, seg } = readCollectionKey(last, 2);
      if (seg >= 0 || this.cache.has(k) || this.pending.has(CollectionRecords.headerPk(this.ksOf(k))))
        continue; // judged above
      const at = readCollectionHeader(value as Buffer, true).at;
      if (now - at >= this.ttlMs) expired.push(k);
    }
    const before = this.count;
    // `find` drops an expired key.
    for (const k of expired) this.find(k, false);
    const removed = before - this.count;
    this.cleanupFrom =
      scanned < limit && expired.length < budget ? null : last === null ? null : successor(last);
    return removed;
  }

  override clear(): void {
    super.clear();
    this.count = 0;
    this.cleanupFrom = null;
  }
}

/**
 * The cache's next eviction candidate, from a long-lived iterator (the clock's hand). Taking the
 * Map's first entry each time instead costs a scan over the deleted entries V8 leaves at the
 * front until it rehashes: that scan was the largest cost of an evicting workload in a profile.
 * A Map iterator stays valid while the Map changes and sees entries re-inserted at the end.
 */
function clockNext<S>(
  cache: Map<StateKey, S>,
  owner: { hand: IterableIterator<[StateKey, S]> | null },
): [StateKey, S] {
  for (;;) {
    owner.hand ??= cache.entries();
    const r = owner.hand.next();
    if (r.done !== true) return r.value;
    owner.hand = null;
  }
}

/** A whole list or map as one segment. */
function encodeWhole(v: unknown[] | Map<unknown, unknown>): Buffer {
  return Array.isArray(v) ? stateCodec.pack(v) : stateCodec.pack([[], flatten(v, v.keys())]);
}

/** `[uk, v, uk, v, ...]` of `keys` in `m` (keys no longer in `m` skipped). */
function flatten(m: Map<unknown, unknown>, keys: Iterable<unknown>): unknown[] {
  const out: unknown[] = [];
  for (const k of keys) if (m.has(k)) out.push(k, m.get(k));
  return out;
}

/**
 * A time-indexed table: each entry is a record under its insertion sequence number holding
 * `[timestamp, key, value]`; the (timestamp → key → sequence) index stays in memory (keys and
 * numbers, no values), so buckets keep insertion order and timestamps iterate in order.
 */
class TimeRecords extends SlotTable {
  readonly index = new TimeBuckets<number>();
  nextSeq = 0;

  keyBytes(ck: StateKey): Buffer {
    const out = Buffer.allocUnsafe(10);
    this.prefix.copy(out, 0);
    writeOrderedNumber(out, 2, ck as number);
    return out;
  }

  *stored(): IterableIterator<[StateKey, Buffer]> {
    for (const { key, value } of this.raw()) yield [readOrderedNumber(key, 2), value];
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
  | { readonly kind: "value"; readonly table: ValueRecords }
  | { readonly kind: "map" | "list"; readonly table: CollectionRecords }
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
  private readonly fixedCacheEntries: number | undefined;
  private readonly fixedCacheBytes: number | undefined;
  /** How many of the shared cache budget's tables are this backend's. */
  private budgetTables = 0;
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
    this.fixedCacheEntries =
      options.cacheEntries === undefined ? undefined : Math.max(1, options.cacheEntries);
    this.fixedCacheBytes = options.cacheBytes === undefined ? undefined : Math.max(1, options.cacheBytes);
    this.maxDeltas = Math.max(0, options.maxDeltas ?? DEFAULT_MAX_DELTAS);
  }

  /** A table's cache bound in bytes: `'weir.state.cache-bytes'`, or its share of the heap budget. */
  get cacheBytes(): number {
    return this.fixedCacheBytes ?? sharedCacheBytes();
  }

  /** A table's cache bound in entries: `'weir.state.cache-entries'`, or one per 128 bytes of its bound. */
  get cacheEntries(): number {
    return this.fixedCacheEntries ?? Math.max(1024, Math.floor(this.cacheBytes / BYTES_PER_CACHE_ENTRY));
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
      // lmdb (a native addon) is loaded by the first job that keeps state on disk.
      const { open } = createRequire(import.meta.url)("lmdb") as typeof Lmdb;
      this.env = open<Buffer, Buffer>({
        path: this.options.dir,
        encoding: "binary",
        keyEncoding: "binary",
        compression: false,
        // The local store is rebuilt from a checkpoint after a crash: no fsync needed.
        noSync: true,
        noMetaSync: true,
        // Not `useWritemap`: measured, it saved ~10% of CPU on q7 but kept every written page
        // mapped in the process (the 0.8 GB proof test's file-backed RSS went from 56 MB to 858 MB).
      });
    }
    return this.env;
  }

  value<V>(name: string, options?: StateOptions): ValueState<V> {
    const t = new ValueRecords(this, this.nextId(), name, options?.ttl);
    this.declare(name, { kind: "value", table: t }, t);
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
    const t = this.collection(name, "map", options);
    return {
      get: (key, userKey) => t.mapGet(key)?.get(userKey) as V | undefined,
      put: (key, userKey, value) => t.mapPut(key, userKey, value),
      delete: (key, userKey) => t.mapDelete(key, userKey),
      entries: (key) => {
        const m = t.mapGet(key) as Map<UK, V> | undefined;
        return m === undefined ? new Map<UK, V>().entries() : m.entries();
      },
      clear: (key) => t.delete(key),
      keys: () => t.liveKeys(),
    };
  }

  list<V>(name: string, options?: StateOptions): ListState<V> {
    const t = this.collection(name, "list", options);
    return {
      get: (key) => (t.listGet(key) as V[] | undefined) ?? [],
      add: (key, value) => t.listAdd(key, value),
      update: (key, values) => t.listUpdate(key, values),
      clear: (key) => t.delete(key),
      keys: () => t.liveKeys(),
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
    const deltaBytes = this.chain.slice(1).reduce((n, f) => n + f.bytes, 0);
    const base =
      !this.incremental ||
      this.chain.length === 0 ||
      this.chain.length - 1 >= this.maxDeltas ||
      deltaBytes > this.chain[0]!.bytes;
    // A base walks LMDB: everything goes there first. A delta is written from the changed records'
    // current bytes (encoded into `pending`, read from there or LMDB): the pending writes reach
    // LMDB with the next batch, while the job runs, not in the checkpoint's pause.
    if (base) this.flush();
    else for (const r of this.records) r.writeBack();
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
    this.restoreCanonicalSnapshot(snapshot);
  }

  private restoreCanonicalSnapshot(snapshot: StateSnapshot): void {
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
    for (const r of this.records) r.changed?.clear();
    this.chain = [];
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    cacheBudget.tables -= this.budgetTables;
    this.budgetTables = 0;
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
    const tableList: [string, string, boolean, number][] = [];
    const whole: Record<string, unknown> = {};
    for (const [n, t] of this.tables) {
      if (t.kind === "timers") whole[n] = timersSnapshot(t.timers);
      else tableList[t.table.id] = [n, t.kind, t.table.ttlMs > 0, t.kind === "time" ? 0 : t.table.count];
    }
    const header: StateFileHeader = {
      format: "weir-state",
      version: STATE_FILE_VERSION,
      kind,
      tables: tableList,
      whole,
    };
    const w = new StateFileWriter(join(shared, name), `shared/${name}`, header);
    try {
      for (const r of this.records) {
        if (kind === "base") {
          for (const { key, value } of r.raw()) w.record(r.id, key.subarray(2), value);
        } else {
          for (const pk of r.changed ?? []) {
            const key = Buffer.from(r.keyBytes(pk).subarray(2));
            w.record(r.id, key, r.current(pk));
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
    let last: StateFileHeader | null = null;
    let batch: [Buffer, Buffer | null][] = [];
    const write = () => {
      if (batch.length === 0) return;
      const b = batch;
      batch = [];
      this.db.transactionSync(() => {
        for (const [k, v] of b) {
          if (v === null) this.db.remove(k);
          else this.db.put(k, v);
        }
      });
    };
    let oldFormat = false;
    for (const f of files) {
      readStateFile(
        f,
        (tableIdx, k, v) => {
          if (oldFormat) return;
          const r = ids[tableIdx];
          if (r === undefined || r === null || !(k instanceof Uint8Array)) return;
          const key = Buffer.allocUnsafe(2 + k.length);
          r.prefix.copy(key, 0);
          key.set(k, 2);
          batch.push([key, v === null ? null : Buffer.from(v.buffer, v.byteOffset, v.length)]);
          if (batch.length >= WRITE_BATCH) write();
        },
        (header) => {
          if (header.version === 1) oldFormat = true;
          ids = this.mapTables(header);
          last = header;
        },
      );
      if (oldFormat) break;
    }
    if (oldFormat) {
      // Format 1 (a key's whole list or map in one record): through the canonical form.
      this.restoreCanonicalSnapshot(canonicalOfNative(files));
      return;
    }
    write();
    const header = last as StateFileHeader | null;
    const counts = new Map<string, number>();
    for (const e of header?.tables ?? []) if (e !== null && e !== undefined) counts.set(e[0], e[3] ?? 0);
    for (const [name, t] of this.tables) {
      if (t.kind === "timers") {
        t.timers.eventTime.clear();
        t.timers.processingTime.clear();
        t.timers.watermark = Number.NEGATIVE_INFINITY;
        const s = header?.whole[name] as TableSnapshot | undefined;
        if (s !== undefined) restoreCanonical(t, s);
      } else if (t.kind === "time") t.table.reindex();
      else t.table.count = counts.get(name) ?? 0;
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

  private collection(name: string, kind: "map" | "list", options?: StateOptions): CollectionRecords {
    const t = new CollectionRecords(this, this.nextId(), name, kind, options?.ttl);
    this.declare(name, { kind, table: t }, t);
    return t;
  }

  private declare(name: string, table: DiskTable, records: RecordTable | null): void {
    if (this.tables.has(name)) throw new Error(`state table '${name}' is declared twice`);
    if (this.records.length >= 0xfffe) throw new Error("too many state tables in one task");
    this.tables.set(name, table);
    if (records !== null) {
      this.records.push(records);
      cacheBudget.tables++;
      this.budgetTables++;
      // The store opens (wiping what a killed run left) with the first table, not at the first write.
      this.openStore();
    }
  }
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
    // A canonical map is a Map (JSON-encoded), a list an array: `load` takes either.
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

/** The smallest key after `key` (its bytes followed by 0). */
function successor(key: Buffer): Buffer {
  return Buffer.concat([key, Buffer.from([0])]);
}
