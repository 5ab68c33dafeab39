import { createHash } from "node:crypto";
import { closeSync, fsyncSync, openSync, readSync, rmSync, writeSync } from "node:fs";
import { Packr } from "msgpackr";
import { STATE_SNAPSHOT_VERSION, type StateSnapshot, type TableSnapshot } from "./api.js";
import { encodeJson, type Json } from "./codec.js";

/**
 * The value codec of the on-disk backend and of its checkpoint files: MessagePack (msgpackr) with
 * records for plain objects and MessagePack maps for `Map`s, 64-bit integers as bigint. Holds what
 * state holds (arrays, plain objects, Maps, bigints, Uint8Arrays, undefined, NaN, ±∞); `-0` comes
 * back as `0` (MessagePack writes integral numbers as integers).
 */
export const stateCodec = new Packr({
  // Bytes are copied out: LMDB's fast reads reuse one buffer, so a view into it would change later.
  copyBuffers: true,
  useRecords: true,
  mapsAsObjects: false,
  moreTypes: true,
  int64AsType: "bigint",
});

/** A file of a native (incremental or full) snapshot, shared between the checkpoints that need it. */
export interface SharedStateFile {
  /** Relative to the job's checkpoint directory (`shared/<name>`). */
  readonly file: string;
  readonly bytes: number;
  readonly sha256: string;
  /** Set when a checkpoint is loaded: where the file is now. */
  readonly path?: string;
}

/** The header frame of a native snapshot file. */
export interface StateFileHeader {
  readonly format: "weir-state";
  readonly version: 1;
  /** A base holds every record; a delta the records changed since the previous file (null = deleted). */
  readonly kind: "base" | "delta";
  /** Table names and kinds in the order of the records' table index. */
  readonly tables: readonly (readonly [string, string, boolean])[];
  /** Tables kept whole in every file (timers), in the canonical JSON form. */
  readonly whole: { readonly [name: string]: unknown };
}

/** One record: table index, record key (state key or sequence number), value bytes or null (deleted). */
export type StateFileRecord = readonly [number, string | number, Uint8Array | null];

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

  record(table: number, key: string | number, value: Uint8Array | null): void {
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
  onRecord: (table: number, key: string | number, value: Uint8Array | null) => void,
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
          if (header.format !== "weir-state" || header.version !== 1)
            throw new Error(`${path} is not a Weir state file (version 1)`);
          onHeader?.(header);
        } else {
          const [t, k, v] = stateCodec.unpack(body) as [number, string | number, Uint8Array | null];
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
        if (v === null) m.delete(k);
        else m.set(k, v);
      },
      (h) => {
        header = h;
      },
    );
  }
  if (header === null) throw new Error("cannot restore: the native state snapshot lists no files");
  const h = header as StateFileHeader;
  const tables: Record<string, TableSnapshot> = {};
  for (const entry of h.tables) {
    if (entry === null || entry === undefined) continue;
    const [name, kind, ttl] = entry;
    const m = records.get(name) ?? new Map<string | number, Uint8Array>();
    if (kind === "time") {
      const rows = [...m].sort((a, b) => (a[0] as number) - (b[0] as number));
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
    } else {
      const rows: [number, Json][] = [];
      for (const [k, bytes] of m) {
        const b = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
        if (ttl) {
          const at = b.readDoubleLE(0);
          rows.push([at, [encodeJson(k), encodeJson(stateCodec.unpack(b.subarray(8))), at]]);
        } else rows.push([0, [encodeJson(k), encodeJson(stateCodec.unpack(b))]]);
      }
      if (ttl) rows.sort((a, b) => a[0] - b[0]);
      tables[name] = { kind: kind as "value" | "map" | "list", entries: rows.map((r) => r[1]) };
    }
  }
  for (const [name, s] of Object.entries(h.whole)) tables[name] = s as TableSnapshot;
  return { version: STATE_SNAPSHOT_VERSION, tables };
}
