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

export function makeRecordBatchDecoder(k: Internals): (fetchDecoder: KDecoder) => Promise<unknown> {
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

  async function decodeRecords(
    codec: ReturnType<Internals["lookupCodecByAttributes"]>,
    recordsDecoder: KDecoder,
    ctx: BatchContext,
  ) {
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
    if (!codec) return recordsDecoder.readArray((decoder) => decodeRecord(decoder, f));
    const length = recordsDecoder.readInt32();
    if (length <= 0) return [];
    const compressedRecordsBuffer = recordsDecoder.readAll();
    const decompressedRecordBuffer = await codec.decompress(compressedRecordsBuffer);
    const decompressedRecordDecoder = new Decoder(decompressedRecordBuffer);
    const records = new Array(length);
    for (let i = 0; i < length; i++) records[i] = decodeRecord(decompressedRecordDecoder, f);
    return records;
  }

  return async (fetchDecoder) => {
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
    const records = await decodeRecords(codec, decoder, { ...recordContext, magicByte });
    return { ...recordContext, records };
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
 * Puts the record batch decoder and `Batch` in kafkajs's place, for kafkajs 2.2.4 only, each only
 * if kafkajs's own is not loaded yet (the decoder is at the first fetch, `Batch` with kafkajs);
 * returns which are in place. Every consumer of this kafkajs in the process gets them — harmless,
 * since what they return is the same. `WEIR_KAFKAJS_DECODER=kafkajs` keeps kafkajs's own.
 */
export function installRecordBatchDecoder(require: NodeJS.Require = createRequire(import.meta.url)): {
  decoder: boolean;
  batch: boolean;
} {
  const none = { decoder: false, batch: false };
  if (process.env.WEIR_KAFKAJS_DECODER === "kafkajs") return none;
  try {
    if (require("kafkajs/package.json").version !== "2.2.4") return none;
    return {
      decoder: preload(require, DECODER, () => makeRecordBatchDecoder(kafkajsInternals(require))),
      batch: preload(require, BATCH, () => makeBatch(require) as object),
    };
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
    rawMessages: KMessage[];
    messagesWithinOffset: KMessage[];
    messages: KMessage[];
    constructor(
      topic: string,
      fetchedOffset: string,
      partitionData: {
        abortedTransactions: unknown;
        messages: KMessage[];
        partition: number;
        highWatermark: string;
      },
    ) {
      this.fetchedOffset = fetchedOffset;
      const { abortedTransactions, messages } = partitionData;
      this.topic = topic;
      this.partition = partitionData.partition;
      this.highWatermark = partitionData.highWatermark;
      this.rawMessages = messages;
      const f = smallOffset(fetchedOffset);
      if (!Number.isNaN(f)) {
        let longFetched: LongT | null = null;
        this.messagesWithinOffset = keepAll(messages, (m) => {
          const n = smallOffset(m.offset);
          if (!Number.isNaN(n)) return n >= f;
          longFetched ??= Long.fromValue(fetchedOffset);
          return Long.fromValue(m.offset).gte(longFetched);
        });
      } else {
        const longFetchedOffset = Long.fromValue(fetchedOffset);
        this.messagesWithinOffset = messages.filter((m) => Long.fromValue(m.offset).gte(longFetchedOffset));
      }
      this.messages = filterAbortedMessages({
        messages: this.messagesWithinOffset,
        abortedTransactions,
      });
      this.messages = keepAll(this.messages, (message) => !message.isControlRecord);
    }

    isEmpty(): boolean {
      return this.messages.length === 0;
    }

    isEmptyIncludingFiltered(): boolean {
      return this.messagesWithinOffset.length === 0;
    }

    isEmptyDueToFiltering(): boolean {
      return this.isEmpty() && this.rawMessages.length > 0;
    }

    isEmptyControlRecord(): boolean {
      return this.isEmpty() && this.messagesWithinOffset.some(({ isControlRecord }) => isControlRecord);
    }

    isEmptyDueToLogCompactedMessages(): boolean {
      const hasMessages = this.rawMessages.length > 0;
      return hasMessages && this.isEmptyIncludingFiltered();
    }

    firstOffset(): string | null {
      return this.isEmptyIncludingFiltered() ? null : this.messagesWithinOffset[0].offset;
    }

    lastOffset(): string {
      if (this.isEmptyDueToLogCompactedMessages()) return this.fetchedOffset;
      if (this.isEmptyIncludingFiltered()) return Long.fromValue(this.highWatermark).add(-1).toString();
      return this.messagesWithinOffset[this.messagesWithinOffset.length - 1].offset;
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
