import { createHash } from "node:crypto";
import { closeSync, fsyncSync, openSync, readSync, rmSync, writeSync } from "node:fs";
import { createRequire } from "node:module";
import type * as Msgpackr from "msgpackr";
import { STATE_SNAPSHOT_VERSION, type StateSnapshot, type TableSnapshot } from "./api.js";
import { encodeJson, type Json } from "./codec.js";

/**
 * The value codec of the on-disk backend and of its checkpoint files: MessagePack (msgpackr) with
 * records for plain objects and MessagePack maps for `Map`s, 64-bit integers as bigint. Holds what
 * state holds (arrays, plain objects, Maps, bigints, Uint8Arrays, undefined, NaN, ±∞); `-0` comes
 * back as `0` (MessagePack writes integral numbers as integers). msgpackr is loaded (its CommonJS
 * build, synchronously) on the first value packed or unpacked: a job without checkpoints or the
 * on-disk backend never loads it.
 */
export const stateCodec: Pick<Msgpackr.Packr, "pack" | "unpack"> = {
  pack: (value, encodeOptions) => packr().pack(value, encodeOptions),
  unpack: (bytes, options) => packr().unpack(bytes, options),
};

let packrInstance: Msgpackr.Packr | undefined;
function packr(): Msgpackr.Packr {
  if (packrInstance === undefined) {
    const { Packr } = createRequire(import.meta.url)("msgpackr") as typeof Msgpackr;
    packrInstance = new Packr({
      // Bytes are copied out: LMDB's fast reads reuse one buffer, so a view into it would change later.
      copyBuffers: true,
      useRecords: true,
      mapsAsObjects: false,
      moreTypes: true,
      int64AsType: "bigint",
    });
  }
  return packrInstance;
}

/** A file of a native (incremental or full) snapshot, shared between the checkpoints that need it. */
export interface SharedStateFile {
  /** Relative to the job's checkpoint directory (`shared/<name>`). */
  readonly file: string;
  readonly bytes: number;
  readonly sha256: string;
  /** Set when a checkpoint is loaded: where the file is now. */
  readonly path?: string;
}

/**
 * The native file format this Weir writes. Version 1 (one record per state key: a key's whole
 * list or map was one record) is still read, through the canonical form; version 2 holds the
 * on-disk backend's records as they are in LMDB (see the layout below).
 */
export const STATE_FILE_VERSION = 2;

/** The header frame of a native snapshot file. */
export interface StateFileHeader {
  readonly format: "weir-state";
  readonly version: 1 | 2;
  /** A base holds every record; a delta the records changed since the previous file (null = deleted). */
  readonly kind: "base" | "delta";
  /**
   * Table names, kinds and whether they have a TTL, in the order of the records' table index;
   * version 2 adds the table's key count (value, map and list tables) at the time of the file.
   */
  readonly tables: readonly (readonly [string, string, boolean, number?])[];
  /** Tables kept whole in every file (timers), in the canonical JSON form. */
  readonly whole: { readonly [name: string]: unknown };
}

/**
 * One record: table index, record key, value bytes or null (deleted). Version 1: the key is the
 * state key (or a time table's sequence number); version 2: the LMDB key after the table prefix.
 */
export type StateFileRecord = readonly [number, string | number | Uint8Array, Uint8Array | null];

/*
 * The on-disk backend's records (file version 2), keys after the table's 2-byte prefix:
 * - value table: `valueRecordKey(key)` → [last access f64 LE, if TTL] + MessagePack value;
 * - time table: order-preserving f64 of the insertion number → MessagePack [ts, key, value];
 * - list and map tables, per state key a header and segments, so that appending to a key writes
 *   only what was appended: `collectionKey(key)` + 0 → header (first and next segment number,
 *   u32 LE each, then last access f64 LE if TTL, then optionally an inline segment: a small key
 *   keeps its whole content in its header, one record); `collectionKey(key)` + 1 + segment number
 *   (u32 BE) → a segment. A list's segment is a MessagePack array of elements (the list is the
 *   inline segment's and then the segments' elements in order); a map's is `[deleted user keys,
 *   [uk, v, uk, v, ...]]`, applied in order (deletions first), so the map keeps its insertion order.
 */

/** 1 + an order-preserving float64 (numbers) or 2 + UTF-8 (strings). */
export function valueRecordKey(prefix: Buffer, k: string | number): Buffer {
  if (typeof k === "number") {
    const out = Buffer.allocUnsafe(prefix.length + 9);
    prefix.copy(out, 0);
    out[prefix.length] = 1;
    writeOrderedNumber(out, prefix.length + 1, k);
    return out;
  }
  const len = Buffer.byteLength(k);
  const out = Buffer.allocUnsafe(prefix.length + 1 + len);
  prefix.copy(out, 0);
  out[prefix.length] = 2;
  out.write(k, prefix.length + 1, "utf8");
  return out;
}

export function readValueRecordKey(b: Uint8Array, off: number): string | number {
  const buf = Buffer.from(b.buffer, b.byteOffset, b.length);
  return buf[off] === 1 ? readOrderedNumber(buf, off + 1) : buf.toString("utf8", off + 1);
}

/** A state key as the (prefix-free) start of its list or map records: 1 + f64, or 2 + u32 BE length + UTF-8. */
export function collectionKey(prefix: Buffer, k: string | number): Buffer {
  if (typeof k === "number") return valueRecordKey(prefix, k);
  const len = Buffer.byteLength(k);
  const out = Buffer.allocUnsafe(prefix.length + 5 + len);
  prefix.copy(out, 0);
  out[prefix.length] = 2;
  out.writeUInt32BE(len, prefix.length + 1);
  out.write(k, prefix.length + 5, "utf8");
  return out;
}

/** A list's or map's record key at `off`: the state key, header (seg -1) or segment number. */
export function readCollectionKey(b: Uint8Array, off: number): { key: string | number; seg: number } {
  const buf = Buffer.from(b.buffer, b.byteOffset, b.length);
  let key: string | number;
  let at: number;
  if (buf[off] === 1) {
    key = readOrderedNumber(buf, off + 1);
    at = off + 9;
  } else {
    const len = buf.readUInt32BE(off + 1);
    key = buf.toString("utf8", off + 5, off + 5 + len);
    at = off + 5 + len;
  }
  return { key, seg: buf[at] === 0 ? -1 : buf.readUInt32BE(at + 1) };
}

/**
 * A list's or map's header: its segments are [first, next); `inline`, when present, is a segment
 * kept in the header itself (a small key's whole content), applied before them.
 */
export function readCollectionHeader(
  b: Uint8Array,
  ttl: boolean,
): { first: number; next: number; at: number; inline: Uint8Array | null } {
  const buf = Buffer.from(b.buffer, b.byteOffset, b.length);
  const off = ttl ? 16 : 8;
  return {
    first: buf.readUInt32LE(0),
    next: buf.readUInt32LE(4),
    at: ttl ? buf.readDoubleLE(8) : 0,
    inline: buf.length > off ? buf.subarray(off) : null,
  };
}

export function collectionHeader(
  first: number,
  next: number,
  ttl: boolean,
  at: number,
  inline: Uint8Array | null,
): Buffer {
  const off = ttl ? 16 : 8;
  const out = Buffer.allocUnsafe(off + (inline?.length ?? 0));
  out.writeUInt32LE(first, 0);
  out.writeUInt32LE(next, 4);
  if (ttl) out.writeDoubleLE(at, 8);
  if (inline !== null) out.set(inline, off);
  return out;
}

/**
 * Two MessagePack arrays as one (`a`'s elements, then `b`'s), without decoding the elements;
 * null when either is not an array this handles.
 */
export function concatPackedArrays(a: Uint8Array, b: Uint8Array): Buffer | null {
  const ha = arrayHead(a);
  const hb = arrayHead(b);
  if (ha === null || hb === null) return null;
  const n = ha[0] + hb[0];
  const head = n < 16 ? 1 : n < 0x10000 ? 3 : 5;
  const out = Buffer.allocUnsafe(head + a.length - ha[1] + b.length - hb[1]);
  if (n < 16) out[0] = 0x90 | n;
  else if (n < 0x10000) {
    out[0] = 0xdc;
    out.writeUInt16BE(n, 1);
  } else {
    out[0] = 0xdd;
    out.writeUInt32BE(n, 1);
  }
  out.set(a.subarray(ha[1]), head);
  out.set(b.subarray(hb[1]), head + a.length - ha[1]);
  return out;
}

/** A MessagePack array's [length, offset of its first element], or null when `x` does not start with an array. */
function arrayHead(x: Uint8Array): [number, number] | null {
  const t = x[0]!;
  if ((t & 0xf0) === 0x90) return [t & 0x0f, 1];
  if (t === 0xdc) return [(x[1]! << 8) | x[2]!, 3];
  if (t === 0xdd) return [((x[1]! << 24) >>> 0) + ((x[2]! << 16) | (x[3]! << 8) | x[4]!), 5];
  return null;
}

/** Applies one segment to a list (array) or map being assembled. */
export function applySegment(into: unknown[] | Map<unknown, unknown>, bytes: Uint8Array): number {
  const seg = stateCodec.unpack(bytes) as unknown[];
  if (Array.isArray(into)) {
    for (let i = 0; i < seg.length; i++) into.push(seg[i]);
    return seg.length;
  }
  const [dels, puts] = seg as [unknown[], unknown[]];
  for (let i = 0; i < dels.length; i++) into.delete(dels[i]);
  for (let i = 0; i < puts.length; i += 2) into.set(puts[i], puts[i + 1]);
  return dels.length + puts.length / 2;
}

export function writeOrderedNumber(out: Buffer, off: number, x: number): void {
  out.writeDoubleBE(x === 0 ? 0 : x, off);
  if (out[off]! & 0x80) for (let i = off; i < off + 8; i++) out[i] = ~out[i]! & 0xff;
  else out[off] = out[off]! | 0x80;
}

export function readOrderedNumber(b: Buffer, off: number): number {
  const tmp = Buffer.from(b.subarray(off, off + 8));
  if (tmp[0]! & 0x80) tmp[0] = tmp[0]! & 0x7f;
  else for (let i = 0; i < 8; i++) tmp[i] = ~tmp[i]! & 0xff;
  return tmp.readDoubleBE(0);
}

const FLUSH_BYTES = 1 << 20;

/**
 * Writes a native snapshot file: length-prefixed MessagePack frames, the header first. The file
 * is fsynced on `close`, which returns its handle.
 */
export class StateFileWriter {
  private readonly fd: number;
  private readonly hash = createHash("sha256");
  private chunks: Buffer[] = [];
  private pending = 0;
  private bytes = 0;

  constructor(
    private readonly path: string,
    private readonly file: string,
    header: StateFileHeader,
  ) {
    this.fd = openSync(path, "w");
    this.frame(stateCodec.pack(header));
  }

  record(table: number, key: string | number | Uint8Array, value: Uint8Array | null): void {
    this.frame(stateCodec.pack([table, key, value]));
  }

  close(): SharedStateFile {
    this.flush();
    fsyncSync(this.fd);
    closeSync(this.fd);
    return { file: this.file, bytes: this.bytes, sha256: this.hash.digest("hex") };
  }

  /** Closes and deletes the unfinished file (no checkpoint lists it). */
  abort(): void {
    try {
      closeSync(this.fd);
    } catch {
      // already closed
    }
    rmSync(this.path, { force: true });
  }

  private frame(body: Buffer): void {
    const len = Buffer.allocUnsafe(4);
    len.writeUInt32LE(body.length, 0);
    this.chunks.push(len, body);
    this.pending += 4 + body.length;
    if (this.pending >= FLUSH_BYTES) this.flush();
  }

  private flush(): void {
    if (this.chunks.length === 0) return;
    const buf = Buffer.concat(this.chunks, this.pending);
    this.hash.update(buf);
    let off = 0;
    while (off < buf.length) off += writeSync(this.fd, buf, off, buf.length - off);
    this.bytes += buf.length;
    this.chunks = [];
    this.pending = 0;
  }
}

/**
 * Reads a native snapshot file frame by frame (in 1 MiB reads, so a large base never sits in
 * memory whole), checking its size and hash against the handle. `onRecord` gets each record.
 */
export function readStateFile(
  handle: SharedStateFile,
  onRecord: (table: number, key: string | number | Uint8Array, value: Uint8Array | null) => void,
  onHeader?: (header: StateFileHeader) => void,
): StateFileHeader {
  const path = handle.path ?? handle.file;
  const fd = openSync(path, "r");
  const hash = createHash("sha256");
  let header: StateFileHeader | null = null;
  let total = 0;
  try {
    let buf = Buffer.alloc(0);
    const chunk = Buffer.allocUnsafe(FLUSH_BYTES);
    for (;;) {
      const n = readSync(fd, chunk, 0, chunk.length, null);
      if (n > 0) {
        const part = chunk.subarray(0, n);
        hash.update(part);
        total += n;
        buf = buf.length === 0 ? Buffer.from(part) : Buffer.concat([buf, part]);
      }
      let off = 0;
      while (buf.length - off >= 4) {
        const len = buf.readUInt32LE(off);
        if (buf.length - off - 4 < len) break;
        const body = buf.subarray(off + 4, off + 4 + len);
        off += 4 + len;
        if (header === null) {
          header = stateCodec.unpack(body) as StateFileHeader;
          if (header.format !== "weir-state") throw new Error(`${path} is not a Weir state file`);
          if (header.version !== 1 && header.version !== STATE_FILE_VERSION)
            throw new Error(
              `${path} is a Weir state file of format ${header.version}; this Weir reads formats 1 and ${STATE_FILE_VERSION} (restore it with the Weir that wrote it and take a savepoint, which every version reads)`,
            );
          onHeader?.(header);
        } else {
          const [t, k, v] = stateCodec.unpack(body) as [
            number,
            string | number | Uint8Array,
            Uint8Array | null,
          ];
          onRecord(t, k, v);
        }
      }
      buf = buf.subarray(off);
      if (n === 0) break;
    }
    if (buf.length !== 0) throw new Error(`${path} is truncated`);
  } finally {
    closeSync(fd);
  }
  if (total !== handle.bytes || hash.digest("hex") !== handle.sha256)
    throw new Error(`state file ${path} is damaged (size or hash differs from the checkpoint's)`);
  if (header === null) throw new Error(`${path} is empty`);
  return header;
}

/**
 * The canonical JSON form of a native snapshot (base + deltas): how a backend other than the
 * on-disk one restores it (switching backends between a checkpoint and a restore).
 */
export function canonicalOfNative(files: readonly SharedStateFile[]): StateSnapshot {
  // By table name: record key (v1: the state key; v2: the LMDB key as a latin1 string) → bytes.
  const records = new Map<string, Map<string | number, Uint8Array>>();
  let header: StateFileHeader | null = null;
  for (const f of files) {
    readStateFile(
      f,
      (t, k, v) => {
        const name = header!.tables[t]?.[0];
        if (name === undefined) return;
        let m = records.get(name);
        if (m === undefined) records.set(name, (m = new Map()));
        const key =
          k instanceof Uint8Array ? Buffer.from(k.buffer, k.byteOffset, k.length).toString("latin1") : k;
        if (v === null) m.delete(key);
        else m.set(key, v);
      },
      (h) => {
        if (header !== null && h.version !== header.version)
          throw new Error(
            `cannot restore: the native state snapshot mixes file formats ${header.version} and ${h.version}`,
          );
        header = h;
      },
    );
  }
  if (header === null) throw new Error("cannot restore: the native state snapshot lists no files");
  const h = header as StateFileHeader;
  const v2 = h.version === 2;
  const tables: Record<string, TableSnapshot> = {};
  for (const entry of h.tables) {
    if (entry === null || entry === undefined) continue;
    const [name, kind, ttl] = entry;
    const m = records.get(name) ?? new Map<string | number, Uint8Array>();
    if (kind === "time") {
      const rows = v2
        ? [...m].sort((a, b) => ((a[0] as string) < (b[0] as string) ? -1 : 1))
        : [...m].sort((a, b) => (a[0] as number) - (b[0] as number));
      const byTs = new Map<number, Json[]>();
      for (const [, bytes] of rows) {
        const [ts, k, v] = stateCodec.unpack(bytes) as [number, unknown, unknown];
        let flat = byTs.get(ts);
        if (flat === undefined) byTs.set(ts, (flat = []));
        flat.push(encodeJson(k), encodeJson(v));
      }
      tables[name] = {
        kind: "time",
        buckets: [...byTs].sort((a, b) => a[0] - b[0]).map(([ts, flat]) => [encodeJson(ts), flat]),
      };
    } else if (v2 && kind !== "value") {
      const rows: [number, Json][] = [];
      // Sorted, a key's header comes before its segments, in segment order.
      const sorted = [...m].sort((a, b) => ((a[0] as string) < (b[0] as string) ? -1 : 1));
      let cur: {
        key: string | number;
        at: number;
        first: number;
        next: number;
        v: unknown[] | Map<unknown, unknown>;
      } | null = null;
      const emit = () => {
        if (cur === null) return;
        const json = [encodeJson(cur.key), encodeJson(cur.v)];
        rows.push([cur.at, ttl ? [...json, cur.at] : json]);
        cur = null;
      };
      for (const [k, bytes] of sorted) {
        const { key, seg } = readCollectionKey(Buffer.from(k as string, "latin1"), 0);
        if (seg < 0) {
          emit();
          const hd = readCollectionHeader(bytes, ttl);
          cur = { key, at: hd.at, first: hd.first, next: hd.next, v: kind === "list" ? [] : new Map() };
          if (hd.inline !== null) applySegment(cur.v, hd.inline);
        } else if (cur !== null && cur.key === key && seg >= cur.first && seg < cur.next)
          applySegment(cur.v, bytes);
      }
      emit();
      if (ttl) rows.sort((a, b) => a[0] - b[0]);
      tables[name] = { kind: kind as "map" | "list", entries: rows.map((r) => r[1]) };
    } else {
      const rows: [number, Json][] = [];
      for (const [k, bytes] of m) {
        const key = v2 ? readValueRecordKey(Buffer.from(k as string, "latin1"), 0) : k;
        const b = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
        if (ttl) {
          const at = b.readDoubleLE(0);
          rows.push([at, [encodeJson(key), encodeJson(stateCodec.unpack(b.subarray(8))), at]]);
        } else rows.push([0, [encodeJson(key), encodeJson(stateCodec.unpack(b))]]);
      }
      if (ttl) rows.sort((a, b) => a[0] - b[0]);
      tables[name] = { kind: kind as "value" | "map" | "list", entries: rows.map((r) => r[1]) };
    }
  }
  for (const [name, s] of Object.entries(h.whole)) tables[name] = s as TableSnapshot;
  return { version: STATE_SNAPSHOT_VERSION, tables };
}
