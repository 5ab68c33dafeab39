import { createRequire, Module } from "node:module";

/**
 * A drop-in for kafkajs 2.2.4's record batch decoder (`src/protocol/recordBatch/v0/decoder.js`,
 * MIT), which the fetch path requires at the first fetch. It returns exactly what kafkajs's own
 * returns — the same record objects, field for field and in the same key order, the same errors
 * — but reads each record straight from the batch's bytes: kafkajs slices a buffer and builds a
 * decoder per record, parses the batch's first offset and timestamp from their decimal strings
 * into two BigInt `Long`s per record, decodes the timestamp delta through `Long` arithmetic and
 * folds the headers with an object spread per header. Here the offset and timestamp are
 * computed as numbers when they are safe integers (the sum is then the same decimal string), and
 * any record the fast path is not sure of (a length, varint or header it does not read, a read
 * past the record's end) is decoded by kafkajs's own record decoder over the same bytes.
 * `test/kafka-record-batch.test.ts` compares the two on batches built by kafkajs's encoder.
 *
 * Lazily decoded records: the fetch's `decodeMessages` (`makeDecodeMessages`) keeps a partition's
 * record batches as {@link LazyRecords} — the record bytes and typed arrays of what the Kafka
 * source needs — when every one is readable so, and `Batch` hands them to the source as runs
 * (`weirRuns`); a record object is built only where something reads it (`Batch.messages` is an
 * array that builds each element when it is read; the source asks for one for keys, metadata
 * columns, record origins and bad records).
 */

type Buf = Buffer;
interface KDecoder {
  buffer: Buf;
  offset: number;
  readInt8(): number;
  readInt16(): number;
  readInt32(): number;
  readInt64(): { toString(): string };
  readArray<T>(reader: (d: KDecoder) => T): T[];
  readVarIntBytes(): Buf | null;
  readAll(): Buf;
  slice(size: number): KDecoder;
  forward(size: number): void;
}
interface Internals {
  Decoder: new (buffer: Buf) => KDecoder;
  KafkaJSPartialMessageError: new (message: string) => Error;
  lookupCodecByAttributes: (attributes: number) => { decompress(b: Buf): Promise<Buf> } | null;
  RecordDecoder: (decoder: KDecoder, ctx: object) => unknown;
  LOG_APPEND_TIME: number;
  CREATE_TIME: number;
  Long: {
    fromValue(v: unknown): { add(x: unknown): { toString(): string } };
    fromNumber(n: number): unknown;
  };
}

const TIMESTAMP_TYPE_FLAG_MASK = 0x8;
const TRANSACTIONAL_FLAG_MASK = 0x10;
const CONTROL_FLAG_MASK = 0x20;

/** Per batch: what the fast path needs of the record context. */
interface Fast {
  readonly ctx: BatchContext;
  readonly firstOffset: number;
  readonly firstTimestamp: number;
  readonly isControlBatch: boolean;
  /** The record timestamp is the batch's max timestamp (LOG_APPEND_TIME). */
  readonly appendTime: boolean;
  /**
   * The last timestamp written and its text: records of a batch often share a timestamp (a
   * producer's batch, to the millisecond), and the same string serves them all.
   */
  lastTimestamp: number;
  lastTimestampText: string;
}

interface BatchContext {
  firstOffset: string;
  firstTimestamp: string;
  isControlBatch?: boolean;
  timestampType: number;
  maxTimestamp: string;
  magicByte: number;
}

/** The decimal string as a number when it is a safe integer written canonically, else NaN. */
function safeNumber(s: string): number {
  const n = Number(s);
  return Number.isSafeInteger(n) && String(n) === s ? n : Number.NaN;
}

/**
 * A decoded record batch that built no record objects: its (decompressed) record bytes and, per
 * record, where it starts, its offset, timestamp and value bytes. Only batches the fast path reads
 * whole are kept so (no headers, offsets and timestamps safe integers, every length read); the
 * record object of `message(i)` is the one the eager decoder returns, built when asked for.
 */
export class LazyRecords {
  constructor(
    readonly buffer: Buf,
    readonly length: number,
    readonly isControlBatch: boolean,
    private readonly starts: Int32Array,
    private readonly offsets: Float64Array,
    private readonly timestamps: Float64Array,
    private readonly valueStarts: Int32Array,
    /** The value's byte length, -1 for a null value. */
    private readonly valueLengths: Int32Array,
    private readonly build: (start: number) => unknown,
  ) {}

  offsetAt(i: number): number {
    return this.offsets[i];
  }

  timestampAt(i: number): number {
    return this.timestamps[i];
  }

  valueStart(i: number): number {
    return this.valueStarts[i];
  }

  valueLength(i: number): number {
    return this.valueLengths[i];
  }

  /** The record object kafkajs's decoder returns for record `i`. */
  message(i: number): unknown {
    return this.build(this.starts[i]);
  }

  materialize(): unknown[] {
    const out = new Array(this.length);
    for (let i = 0; i < this.length; i++) out[i] = this.build(this.starts[i]);
    return out;
  }
}

type BatchDecoder = ((fetchDecoder: KDecoder) => Promise<unknown>) & {
  /** The same, but `records` is a {@link LazyRecords} where the batch allows it. */
  lazy: (fetchDecoder: KDecoder) => Promise<{ records: unknown[] | LazyRecords }>;
};

export function makeRecordBatchDecoder(k: Internals): BatchDecoder {
  const { Decoder, Long } = k;

  function slowRecord(decoder: KDecoder, ctx: object): unknown {
    const recordBuffer = decoder.readVarIntBytes();
    return k.RecordDecoder(new Decoder(recordBuffer as Buf), ctx);
  }

  /** kafkajs's `decodeRecord` (a length-prefixed record), or null where the fast path is unsure. */
  function fastRecord(decoder: KDecoder, f: Fast): unknown {
    const buf = decoder.buffer;
    const size = buf.length;
    let p = decoder.offset;
    // readVarInt, exactly as kafkajs computes it. Written out at each of its uses on purpose: a
    // shared helper (the next position through a module variable) decoded 3-6% slower
    // (BENCHMARKS.md, "Kafka record batch decoder: one zig-zag varint helper, rejected").
    let b: number;
    let r = 0;
    let i = 0;
    do {
      if (p >= size) return null;
      b = buf[p++];
      r += (b & 0x7f) << i;
      i += 7;
    } while (b >= 0x80);
    const length = (r >>> 1) ^ -(r & 1);
    if (length < 0 || p + length > size) return null;
    const start = p;
    const end = p + length;
    if (p >= end) return null;
    const attributes = (buf[p++] << 24) >> 24;
    // timestampDelta: a zig-zag varlong, read as a number up to 7 bytes (49 bits: exact)
    let t = 0;
    let mul = 1;
    let n = 0;
    do {
      if (p >= end || n === 7) return null;
      b = buf[p++];
      t += (b & 0x7f) * mul;
      mul *= 128;
      n++;
    } while (b >= 0x80);
    const timestampDelta = t % 2 === 0 ? t / 2 : -(t + 1) / 2;
    let timestamp: string;
    if (f.appendTime) timestamp = f.ctx.maxTimestamp;
    else {
      const ts = f.firstTimestamp + timestampDelta;
      if (ts === f.lastTimestamp) timestamp = f.lastTimestampText;
      else if (Number.isSafeInteger(ts)) {
        timestamp = String(ts);
        f.lastTimestamp = ts;
        f.lastTimestampText = timestamp;
      } else timestamp = Long.fromValue(f.ctx.firstTimestamp).add(Long.fromNumber(timestampDelta)).toString();
    }
    r = 0;
    i = 0;
    do {
      if (p >= end) return null;
      b = buf[p++];
      r += (b & 0x7f) << i;
      i += 7;
    } while (b >= 0x80);
    const offsetDelta = (r >>> 1) ^ -(r & 1);
    const off = f.firstOffset + offsetDelta;
    const offset = Number.isSafeInteger(off)
      ? String(off)
      : Long.fromValue(f.ctx.firstOffset).add(offsetDelta).toString();
    // key, value: varint length, -1 for null
    let key: Buf | null = null;
    let value: Buf | null = null;
    for (let j = 0; j < 2; j++) {
      r = 0;
      i = 0;
      do {
        if (p >= end) return null;
        b = buf[p++];
        r += (b & 0x7f) << i;
        i += 7;
      } while (b >= 0x80);
      const len = (r >>> 1) ^ -(r & 1);
      if (len === -1) continue;
      if (len < 0 || p + len > end) return null;
      if (j === 0) key = buf.slice(p, p + len);
      else value = buf.slice(p, p + len);
      p += len;
    }
    // headers: only none (0 or -1) here; kafkajs folds any others
    if (p >= end) return null;
    b = buf[p];
    if (b !== 0 && b !== 1) return null;
    decoder.offset = start + length;
    return {
      magicByte: f.ctx.magicByte,
      attributes,
      timestamp,
      offset,
      key,
      value,
      headers: {},
      isControlRecord: f.isControlBatch,
      batchContext: f.ctx,
    };
  }

  function decodeRecord(decoder: KDecoder, f: Fast): unknown {
    return fastRecord(decoder, f) ?? slowRecord(decoder, f.ctx);
  }

  /**
   * The `count` records from `buf[at..]` as {@link LazyRecords}, or null where `fastRecord` would
   * not read one of them (it reads the same bytes the same way, so `message(i)` is `fastRecord`'s
   * record and the eager decoder, run instead on null, gives the same records or error).
   */
  function lazyRecords(buf: Buf, at: number, count: number, f: Fast): LazyRecords | null {
    if (count <= 0 || !(f.appendTime || Number.isSafeInteger(f.firstTimestamp))) return null;
    if (!Number.isSafeInteger(f.firstOffset)) return null;
    const appendTs = f.appendTime ? Number(f.ctx.maxTimestamp) : 0;
    if (f.appendTime && !Number.isSafeInteger(appendTs)) return null;
    const size = buf.length;
    const starts = new Int32Array(count);
    const offsets = new Float64Array(count);
    const timestamps = new Float64Array(count);
    const valueStarts = new Int32Array(count);
    const valueLengths = new Int32Array(count);
    let p = at;
    let b: number;
    let r: number;
    let i: number;
    for (let k = 0; k < count; k++) {
      starts[k] = p;
      r = 0;
      i = 0;
      do {
        if (p >= size) return null;
        b = buf[p++];
        r += (b & 0x7f) << i;
        i += 7;
      } while (b >= 0x80);
      const length = (r >>> 1) ^ -(r & 1);
      if (length < 0 || p + length > size) return null;
      const end = p + length;
      if (p >= end) return null;
      p++; // attributes
      let t = 0;
      let mul = 1;
      let n = 0;
      do {
        if (p >= end || n === 7) return null;
        b = buf[p++];
        t += (b & 0x7f) * mul;
        mul *= 128;
        n++;
      } while (b >= 0x80);
      if (f.appendTime) timestamps[k] = appendTs;
      else {
        const ts = f.firstTimestamp + (t % 2 === 0 ? t / 2 : -(t + 1) / 2);
        if (!Number.isSafeInteger(ts)) return null;
        timestamps[k] = ts;
      }
      r = 0;
      i = 0;
      do {
        if (p >= end) return null;
        b = buf[p++];
        r += (b & 0x7f) << i;
        i += 7;
      } while (b >= 0x80);
      const off = f.firstOffset + ((r >>> 1) ^ -(r & 1));
      if (!Number.isSafeInteger(off)) return null;
      offsets[k] = off;
      for (let j = 0; j < 2; j++) {
        r = 0;
        i = 0;
        do {
          if (p >= end) return null;
          b = buf[p++];
          r += (b & 0x7f) << i;
          i += 7;
        } while (b >= 0x80);
        const len = (r >>> 1) ^ -(r & 1);
        if (j === 1) {
          valueStarts[k] = p;
          valueLengths[k] = len;
        }
        if (len === -1) continue;
        if (len < 0 || p + len > end) return null;
        p += len;
      }
      if (p >= end) return null;
      b = buf[p];
      if (b !== 0 && b !== 1) return null;
      p = end;
    }
    const build = (start: number): unknown => {
      const d = new Decoder(buf);
      d.offset = start;
      return fastRecord(d, f) ?? slowRecord(d, f.ctx);
    };
    return new LazyRecords(
      buf,
      count,
      f.isControlBatch,
      starts,
      offsets,
      timestamps,
      valueStarts,
      valueLengths,
      build,
    );
  }

  async function decodeRecords(
    codec: ReturnType<Internals["lookupCodecByAttributes"]>,
    recordsDecoder: KDecoder,
    ctx: BatchContext,
    lazy: boolean,
  ): Promise<unknown[] | LazyRecords> {
    const { isControlBatch = false, timestampType, maxTimestamp } = ctx;
    const f: Fast = {
      ctx,
      firstOffset: safeNumber(ctx.firstOffset),
      firstTimestamp: safeNumber(ctx.firstTimestamp),
      isControlBatch,
      appendTime: timestampType === k.LOG_APPEND_TIME && Boolean(maxTimestamp),
      lastTimestamp: Number.NaN,
      lastTimestampText: "",
    };
    if (!codec) {
      const buf = recordsDecoder.buffer;
      const at = recordsDecoder.offset;
      if (lazy && at + 4 <= buf.length) {
        const v = lazyRecords(buf, at + 4, buf.readInt32BE(at), f);
        if (v !== null) return v;
      }
      return recordsDecoder.readArray((decoder) => decodeRecord(decoder, f));
    }
    const length = recordsDecoder.readInt32();
    if (length <= 0) return [];
    const compressedRecordsBuffer = recordsDecoder.readAll();
    const decompressedRecordBuffer = await codec.decompress(compressedRecordsBuffer);
    if (lazy) {
      const v = lazyRecords(decompressedRecordBuffer, 0, length, f);
      if (v !== null) return v;
    }
    const decompressedRecordDecoder = new Decoder(decompressedRecordBuffer);
    const records = new Array(length);
    for (let i = 0; i < length; i++) records[i] = decodeRecord(decompressedRecordDecoder, f);
    return records;
  }

  async function decodeBatch(fetchDecoder: KDecoder, lazy: boolean) {
    const firstOffset = fetchDecoder.readInt64().toString();
    const length = fetchDecoder.readInt32();
    const decoder = fetchDecoder.slice(length);
    fetchDecoder.forward(length);
    const remainingBytes = Buffer.byteLength(decoder.buffer);
    if (remainingBytes < length) {
      throw new k.KafkaJSPartialMessageError(
        `Tried to decode a partial record batch: remainingBytes(${remainingBytes}) < recordBatchLength(${length})`,
      );
    }
    const partitionLeaderEpoch = decoder.readInt32();
    const magicByte = decoder.readInt8();
    decoder.readInt32(); // crc (kafkajs does not check it)
    const attributes = decoder.readInt16();
    const lastOffsetDelta = decoder.readInt32();
    const firstTimestamp = decoder.readInt64().toString();
    const maxTimestamp = decoder.readInt64().toString();
    const producerId = decoder.readInt64().toString();
    const producerEpoch = decoder.readInt16();
    const firstSequence = decoder.readInt32();
    const inTransaction = (attributes & TRANSACTIONAL_FLAG_MASK) > 0;
    const isControlBatch = (attributes & CONTROL_FLAG_MASK) > 0;
    const timestampType = (attributes & TIMESTAMP_TYPE_FLAG_MASK) > 0 ? k.LOG_APPEND_TIME : k.CREATE_TIME;
    const codec = k.lookupCodecByAttributes(attributes);
    const recordContext = {
      firstOffset,
      firstTimestamp,
      partitionLeaderEpoch,
      inTransaction,
      isControlBatch,
      lastOffsetDelta,
      producerId,
      producerEpoch,
      firstSequence,
      maxTimestamp,
      timestampType,
    };
    const records = await decodeRecords(codec, decoder, { ...recordContext, magicByte }, lazy);
    return { ...recordContext, records };
  }

  const decode = ((fetchDecoder: KDecoder) => decodeBatch(fetchDecoder, false)) as BatchDecoder;
  decode.lazy = (fetchDecoder) => decodeBatch(fetchDecoder, true);
  return decode;
}

/** The records of one partition of a fetch response, as {@link LazyRecords} per record batch. */
export class LazyMessages {
  readonly length: number;
  private all: unknown[] | null = null;

  constructor(readonly batches: readonly LazyRecords[]) {
    let n = 0;
    for (const b of batches) n += b.length;
    this.length = n;
  }

  /** What kafkajs's `decodeMessages` returns: every batch's records, in order. */
  materialize(): unknown[] {
    if (this.all === null) {
      const all: unknown[] = [];
      for (const b of this.batches) for (let i = 0; i < b.length; i++) all.push(b.message(i));
      this.all = all;
    }
    return this.all;
  }
}

/**
 * kafkajs 2.2.4's fetch `decodeMessages` (`src/protocol/requests/fetch/v4/decodeMessages.js`, MIT),
 * used by fetch v4 to v11: the same, but the record batches of a partition are kept as
 * {@link LazyMessages} when every one of them is lazily readable (else the record objects, as
 * kafkajs's). Only Weir's `Batch` reads a `LazyMessages`, so only with it installed.
 */
export function makeDecodeMessages(require: NodeJS.Require, decodeBatch: BatchDecoder): unknown {
  const src = (p: string) => require(`kafkajs/src/${p}`);
  const Decoder = src("protocol/decoder") as new (
    b: Buf,
  ) => KDecoder & {
    canReadBytes(n: number): boolean;
    readBytes(n: number): Buf;
  };
  const MessageSetDecoder = src("protocol/messageSet/decoder") as (d: KDecoder, size: number) => unknown;
  const { MAGIC_BYTE } = src("protocol/recordBatch/v0/index") as { MAGIC_BYTE: number };
  const MAGIC_OFFSET = 16;
  const RECORD_BATCH_OVERHEAD = 49;
  return async (decoder: KDecoder & { canReadBytes(n: number): boolean; readBytes(n: number): Buf }) => {
    const messagesSize = decoder.readInt32();
    if (messagesSize <= 0 || !decoder.canReadBytes(messagesSize)) return [];
    const messagesBuffer = decoder.readBytes(messagesSize);
    const messagesDecoder = new Decoder(messagesBuffer);
    const magicByte = messagesBuffer.slice(MAGIC_OFFSET).readInt8(0);
    if (magicByte === MAGIC_BYTE) {
      const parts: (unknown[] | LazyRecords)[] = [];
      let allLazy = true;
      while (messagesDecoder.canReadBytes(RECORD_BATCH_OVERHEAD)) {
        try {
          const recordBatch = await decodeBatch.lazy(messagesDecoder);
          parts.push(recordBatch.records);
          if (!(recordBatch.records instanceof LazyRecords)) allLazy = false;
        } catch (e) {
          if ((e as Error).name === "KafkaJSPartialMessageError") break;
          throw e;
        }
      }
      if (allLazy && parts.length > 0) return new LazyMessages(parts as LazyRecords[]);
      const records: unknown[] = [];
      for (const p of parts) records.push(...(p instanceof LazyRecords ? p.materialize() : p));
      return records;
    }
    return MessageSetDecoder(messagesDecoder, messagesSize);
  };
}

/** The kafkajs internals the decoder uses, from the kafkajs that `require` resolves. */
export function kafkajsInternals(require: NodeJS.Require): Internals {
  const src = (p: string) => require(`kafkajs/src/${p}`);
  const ts = src("protocol/timestampTypes");
  return {
    Decoder: src("protocol/decoder"),
    KafkaJSPartialMessageError: src("errors").KafkaJSPartialMessageError,
    lookupCodecByAttributes: src("protocol/message/compression").lookupCodecByAttributes,
    RecordDecoder: src("protocol/recordBatch/record/v0/decoder"),
    LOG_APPEND_TIME: ts.LOG_APPEND_TIME,
    CREATE_TIME: ts.CREATE_TIME,
    Long: src("utils/long"),
  };
}

const DECODER = "kafkajs/src/protocol/recordBatch/v0/decoder.js";
const BATCH = "kafkajs/src/consumer/batch.js";
const DECODE_MESSAGES = "kafkajs/src/protocol/requests/fetch/v4/decodeMessages.js";

/** Puts `exports` in the module cache as `require`'s module `name`, unless that is loaded already. */
function preload(require: NodeJS.Require, name: string, make: () => object): boolean {
  const path = require.resolve(name);
  const cached = require.cache[path];
  if (cached !== undefined) return (cached.exports as { weirFast?: boolean }).weirFast === true;
  const m = new Module(path);
  m.filename = path;
  m.loaded = true;
  m.exports = Object.assign(make(), { weirFast: true });
  require.cache[path] = m;
  return true;
}

/**
 * Puts the record batch decoder, `Batch` and the fetch's `decodeMessages` in kafkajs's place, for
 * kafkajs 2.2.4 only, each only if kafkajs's own is not loaded yet (the decoders are at the first
 * fetch, `Batch` with kafkajs); returns which are in place. `decodeMessages` (the lazily decoded
 * records, `lazy`) only with both others, as only Weir's `Batch` reads what it returns. Every
 * consumer of this kafkajs in the process gets them — harmless, since what they return is the
 * same. `WEIR_KAFKAJS_DECODER=kafkajs` keeps kafkajs's own; `=eager` keeps kafkajs's
 * `decodeMessages` (Weir's decoder and `Batch`, building every record object).
 */
export function installRecordBatchDecoder(require: NodeJS.Require = createRequire(import.meta.url)): {
  decoder: boolean;
  batch: boolean;
  lazy: boolean;
} {
  const none = { decoder: false, batch: false, lazy: false };
  const mode = process.env.WEIR_KAFKAJS_DECODER;
  if (mode === "kafkajs") return none;
  try {
    if (require("kafkajs/package.json").version !== "2.2.4") return none;
    const decoder = preload(require, DECODER, () => makeRecordBatchDecoder(kafkajsInternals(require)));
    const batch = preload(require, BATCH, () => makeBatch(require) as object);
    const lazy =
      decoder &&
      batch &&
      mode !== "eager" &&
      preload(require, DECODE_MESSAGES, () => makeDecodeMessages(require, require(DECODER)) as object);
    return { decoder, batch, lazy };
  } catch {
    return none;
  }
}

interface KMessage {
  readonly offset: string;
  readonly isControlRecord?: boolean;
}
interface LongT {
  gte(o: LongT): boolean;
  add(x: LongT | number): LongT;
  multiply(x: number): LongT;
  toString(): string;
}

/**
 * A decimal offset below 10^15 written canonically (as kafkajs writes them) as a number, else NaN:
 * what `Number(s)` is where `String(Number(s)) === s` and it is an integer, for `s` shorter than
 * 16 characters — read digit by digit, without the string `String` would build for each record.
 */
export function smallOffset(s: unknown): number {
  if (typeof s !== "string") return Number.NaN;
  const len = s.length;
  if (len === 0 || len >= 16) return Number.NaN;
  const neg = s.charCodeAt(0) === 45;
  let i = neg ? 1 : 0;
  if (i === len) return Number.NaN;
  // a leading 0 only as "0" itself ("-0" is written "0", "01" is not canonical)
  if (s.charCodeAt(i) === 48) return len === 1 ? 0 : Number.NaN;
  let n = 0;
  for (; i < len; i++) {
    const c = s.charCodeAt(i) - 48;
    if (c < 0 || c > 9) return Number.NaN;
    n = n * 10 + c;
  }
  return neg ? -n : n;
}

/** The same elements as `a.filter(keep)`: a copy when all of `a` is kept (no growing). */
function keepAll<T>(a: T[], keep: (x: T) => boolean): T[] {
  for (let i = 0; i < a.length; i++) {
    const x = a[i];
    if ((x === undefined && !(i in a)) || !keep(x)) return a.filter(keep);
  }
  return a.slice();
}

/** Records `records[from..to)` of one lazily decoded record batch. */
export interface RecordRun {
  readonly records: LazyRecords;
  readonly from: number;
  readonly to: number;
}

/** Records of a `Batch` kept as runs; `array` is the record objects, built when first asked for. */
class Lazy {
  private built: KMessage[] | null = null;
  constructor(
    readonly runs: readonly RecordRun[],
    readonly length: number,
  ) {}

  get array(): KMessage[] {
    this.built ??= lazyArray(this.runs, this.length);
    return this.built;
  }
}

function arrayOf(m: KMessage[] | Lazy): KMessage[] {
  return m instanceof Lazy ? m.array : m;
}

function hasAborted(abortedTransactions: unknown): boolean {
  return Boolean(abortedTransactions) && (abortedTransactions as unknown[]).length > 0;
}

/**
 * What `Batch` keeps of lazily decoded records: all of them, those at or after the fetched offset
 * `f`, and those of them that are not control records (there are no aborted transactions); null
 * unless the offsets rise (the records before `f` are then a prefix).
 */
function lazyPlan(m: LazyMessages, f: number): { raw: Lazy; within: Lazy; kept: Lazy } | null {
  const all: RecordRun[] = [];
  const within: RecordRun[] = [];
  const kept: RecordRun[] = [];
  let prev = Number.NEGATIVE_INFINITY;
  let nWithin = 0;
  let nKept = 0;
  for (const records of m.batches) {
    const n = records.length;
    let from = n;
    for (let i = 0; i < n; i++) {
      const o = records.offsetAt(i);
      if (!(o > prev)) return null;
      prev = o;
      if (from === n && o >= f) from = i;
    }
    all.push({ records, from: 0, to: n });
    if (from === n) continue;
    if (nWithin > 0 && from > 0) return null;
    const run = { records, from, to: n };
    within.push(run);
    nWithin += n - from;
    if (!records.isControlBatch) {
      kept.push(run);
      nKept += n - from;
    }
  }
  return { raw: new Lazy(all, m.length), within: new Lazy(within, nWithin), kept: new Lazy(kept, nKept) };
}

/**
 * An array of the runs' record objects that builds each only when it is read (kafkajs's runner
 * reads the last one and the length of every batch; other readers get every element as a plain
 * array's). Any other use — writing, listing keys — builds them all first.
 */
function lazyArray(runs: readonly RecordRun[], length: number): KMessage[] {
  const target: KMessage[] = new Array(length);
  let full = false;
  const at = (i: number): KMessage => {
    let k = i;
    for (const r of runs) {
      const n = r.to - r.from;
      if (k < n) return r.records.message(r.from + k) as KMessage;
      k -= n;
    }
    throw new Error(`record ${i} out of range`);
  };
  const index = (prop: string | symbol): number => {
    if (typeof prop !== "string") return -1;
    const i = Number(prop);
    return Number.isInteger(i) && i >= 0 && i < length && String(i) === prop ? i : -1;
  };
  const fill = (): void => {
    if (full) return;
    full = true;
    for (let i = 0; i < length; i++) if (!(i in target)) target[i] = at(i);
  };
  const one = (i: number): void => {
    if (!full && !(i in target)) target[i] = at(i);
  };
  return new Proxy(target, {
    get(t, prop, receiver) {
      const i = index(prop);
      if (i >= 0) one(i);
      return Reflect.get(t, prop, receiver);
    },
    has(t, prop) {
      return index(prop) >= 0 || Reflect.has(t, prop);
    },
    getOwnPropertyDescriptor(t, prop) {
      const i = index(prop);
      if (i >= 0) one(i);
      return Reflect.getOwnPropertyDescriptor(t, prop);
    },
    ownKeys(t) {
      fill();
      return Reflect.ownKeys(t);
    },
    set(t, prop, value, receiver) {
      fill();
      return Reflect.set(t, prop, value, receiver);
    },
    defineProperty(t, prop, d) {
      fill();
      return Reflect.defineProperty(t, prop, d);
    },
    deleteProperty(t, prop) {
      fill();
      return Reflect.deleteProperty(t, prop);
    },
  });
}

/**
 * kafkajs 2.2.4's consumer `Batch` (`src/consumer/batch.js`, MIT) as it is, but the records
 * before the fetched offset are found by comparing numbers when both offsets are below 10^15
 * (exact), instead of a BigInt `Long` parsed from each record's offset.
 */
export function makeBatch(require: NodeJS.Require): unknown {
  const Long = require("kafkajs/src/utils/long") as { fromValue(v: unknown): LongT };
  const filterAbortedMessages = require("kafkajs/src/consumer/filterAbortedMessages") as (o: {
    messages: KMessage[];
    abortedTransactions: unknown;
  }) => KMessage[];
  return class Batch {
    fetchedOffset: string;
    topic: string;
    partition: number;
    highWatermark: string;
    /**
     * Where kafkajs's decoder gave {@link LazyMessages}: the records of `messages`, as runs of
     * lazily decoded record batches (Weir's Kafka source reads these, building no record objects).
     */
    readonly weirRuns?: readonly RecordRun[];
    private raw: KMessage[] | Lazy;
    private within: KMessage[] | Lazy;
    private kept: KMessage[] | Lazy;
    constructor(
      topic: string,
      fetchedOffset: string,
      partitionData: {
        abortedTransactions: unknown;
        messages: KMessage[] | LazyMessages;
        partition: number;
        highWatermark: string;
      },
    ) {
      this.fetchedOffset = fetchedOffset;
      const { abortedTransactions } = partitionData;
      this.topic = topic;
      this.partition = partitionData.partition;
      this.highWatermark = partitionData.highWatermark;
      let messages = partitionData.messages;
      const f = smallOffset(fetchedOffset);
      if (messages instanceof LazyMessages) {
        const plan = Number.isNaN(f) || hasAborted(abortedTransactions) ? null : lazyPlan(messages, f);
        if (plan !== null) {
          this.raw = plan.raw;
          this.within = plan.within;
          this.kept = plan.kept;
          this.weirRuns = plan.kept.runs;
          return;
        }
        messages = messages.materialize() as KMessage[];
      }
      this.raw = messages;
      if (!Number.isNaN(f)) {
        let longFetched: LongT | null = null;
        this.within = keepAll(messages, (m) => {
          const n = smallOffset(m.offset);
          if (!Number.isNaN(n)) return n >= f;
          longFetched ??= Long.fromValue(fetchedOffset);
          return Long.fromValue(m.offset).gte(longFetched);
        });
      } else {
        const longFetchedOffset = Long.fromValue(fetchedOffset);
        this.within = messages.filter((m) => Long.fromValue(m.offset).gte(longFetchedOffset));
      }
      this.kept = filterAbortedMessages({ messages: this.within, abortedTransactions });
      this.kept = keepAll(this.kept, (message) => !message.isControlRecord);
    }

    get rawMessages(): KMessage[] {
      return arrayOf(this.raw);
    }

    get messagesWithinOffset(): KMessage[] {
      return arrayOf(this.within);
    }

    get messages(): KMessage[] {
      return arrayOf(this.kept);
    }

    isEmpty(): boolean {
      return this.kept.length === 0;
    }

    isEmptyIncludingFiltered(): boolean {
      return this.within.length === 0;
    }

    isEmptyDueToFiltering(): boolean {
      return this.isEmpty() && this.raw.length > 0;
    }

    isEmptyControlRecord(): boolean {
      const w = this.within;
      if (!this.isEmpty()) return false;
      if (w instanceof Lazy) return w.runs.some((r) => r.records.isControlBatch);
      return w.some(({ isControlRecord }) => isControlRecord);
    }

    isEmptyDueToLogCompactedMessages(): boolean {
      const hasMessages = this.raw.length > 0;
      return hasMessages && this.isEmptyIncludingFiltered();
    }

    firstOffset(): string | null {
      const w = this.within;
      if (this.isEmptyIncludingFiltered()) return null;
      if (w instanceof Lazy) return String(w.runs[0].records.offsetAt(w.runs[0].from));
      return w[0].offset;
    }

    lastOffset(): string {
      if (this.isEmptyDueToLogCompactedMessages()) return this.fetchedOffset;
      if (this.isEmptyIncludingFiltered()) return Long.fromValue(this.highWatermark).add(-1).toString();
      const w = this.within;
      if (w instanceof Lazy) {
        const last = w.runs[w.runs.length - 1];
        return String(last.records.offsetAt(last.to - 1));
      }
      return w[w.length - 1].offset;
    }

    offsetLag(): string {
      const lastOffsetOfPartition = Long.fromValue(this.highWatermark).add(-1);
      const lastConsumedOffset = Long.fromValue(this.lastOffset());
      return lastOffsetOfPartition.add(lastConsumedOffset.multiply(-1)).toString();
    }

    offsetLagLow(): string {
      if (this.isEmptyIncludingFiltered()) return "0";
      const lastOffsetOfPartition = Long.fromValue(this.highWatermark).add(-1);
      const firstConsumedOffset = Long.fromValue(this.firstOffset());
      return lastOffsetOfPartition.add(firstConsumedOffset.multiply(-1)).toString();
    }
  };
}
