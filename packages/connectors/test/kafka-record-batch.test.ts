// The record batch decoder and `Batch` put in kafkajs's place (src/kafka/record-batch.ts) against
// kafkajs 2.2.4's own, on batches built by kafkajs's encoder and then altered: both must return
// the same records (field for field, key order, the bytes' views) or throw the same error.
import { createRequire } from "node:module";
import { isDeepStrictEqual } from "node:util";
import { describe, expect, it } from "vitest";
import {
  kafkajsInternals,
  makeBatch,
  makeRecordBatchDecoder,
  smallOffset,
} from "../src/kafka/record-batch.js";

const require = createRequire(new URL("../package.json", import.meta.url));
const src = (p: string) => require(`kafkajs/src/${p}`);

/** kafkajs's own module `name`, evaluated afresh if a replacement sits in the module cache. */
function original(name: string): unknown {
  const path = require.resolve(`kafkajs/src/${name}`);
  const saved = require.cache[path];
  delete require.cache[path];
  try {
    return require(path);
  } finally {
    if (saved !== undefined) require.cache[path] = saved;
    else delete require.cache[path];
  }
}

const Decoder = src("protocol/decoder");
const Long = src("utils/long");
const { RecordBatch } = src("protocol/recordBatch/v0/index");
const Record = src("protocol/recordBatch/record/v0/index");
const { Types: Compression } = src("protocol/message/compression");
const kafkajsDecode = original("protocol/recordBatch/v0/decoder.js") as (d: unknown) => Promise<unknown>;
const fastDecode = makeRecordBatchDecoder(kafkajsInternals(require)) as (d: unknown) => Promise<unknown>;
const KafkajsBatch = original("consumer/batch.js") as new (...a: unknown[]) => Record<string, () => unknown>;
const FastBatch = makeBatch(require) as new (...a: unknown[]) => Record<string, () => unknown>;

/** Deterministic pseudo-random numbers. */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/** The bytes being decoded. */
let input: Buffer | undefined;

/** Same value and, for objects, the same key order (recursively); Buffers: same bytes and view. */
function same(a: unknown, b: unknown, path = ""): boolean {
  const r = same1(a, b, path);
  if (!r && process.env.DEBUG_SAME) console.log("differs at", path, a, b);
  return r;
}
function same1(a: unknown, b: unknown, path: string): boolean {
  if (Buffer.isBuffer(a) || Buffer.isBuffer(b)) {
    return (
      Buffer.isBuffer(a) &&
      Buffer.isBuffer(b) &&
      a.equals(b) &&
      // a view of the fetched bytes (a decompressed batch is a new buffer in each decode)
      (a.buffer === b.buffer) === (a.buffer === input?.buffer) &&
      (a.buffer !== b.buffer || a.byteOffset === b.byteOffset)
    );
  }
  if (Array.isArray(a))
    return Array.isArray(b) && a.length === b.length && a.every((x, i) => same(x, b[i], `${path}[${i}]`));
  if (a !== null && typeof a === "object") {
    if (b === null || typeof b !== "object" || Array.isArray(b)) return false;
    const ka = Object.keys(a);
    const kb = Object.keys(b);
    if (ka.join("\u0000") !== kb.join("\u0000")) return false;
    if (Object.getPrototypeOf(a) !== Object.getPrototypeOf(b)) return false;
    return ka.every((k) =>
      same((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], `${path}.${k}`),
    );
  }
  return Object.is(a, b);
}

async function outcome(decode: (d: unknown) => Promise<unknown>, bytes: Buffer): Promise<unknown[]> {
  const d = new Decoder(bytes);
  const out: unknown[] = [];
  try {
    // as kafkajs's fetch reads a record set: batches while 49 bytes are left
    while (d.canReadBytes(49)) out.push(await decode(d));
    out.push(d.offset);
  } catch (e) {
    out.push({ error: (e as Error).name, message: (e as Error).message, at: d.offset });
  }
  return out;
}

async function expectSame(bytes: Buffer): Promise<void> {
  input = bytes;
  const a = await outcome(kafkajsDecode, bytes);
  const b = await outcome(fastDecode, bytes);
  if (!same(a, b)) expect(b).toEqual(a);
  expect(same(a, b)).toBe(true);
}

interface Spec {
  compression?: number;
  firstOffset?: string;
  firstTimestamp?: string;
  transactional?: boolean;
  records: { key?: unknown; value?: unknown; headers?: Record<string, unknown>; t?: number; o?: number }[];
}

async function batch(spec: Spec): Promise<Buffer> {
  const records = spec.records.map((r, i) =>
    Record({
      offsetDelta: r.o ?? i,
      timestampDelta: r.t ?? i * 10,
      key: r.key === undefined ? null : r.key,
      value: r.value === undefined ? null : r.value,
      headers: r.headers ?? {},
    }),
  );
  const enc = await RecordBatch({
    compression: spec.compression ?? Compression.None,
    firstOffset: Long.fromValue(spec.firstOffset ?? "0"),
    firstTimestamp: Long.fromValue(spec.firstTimestamp ?? "1782259200000"),
    maxTimestamp: Long.fromValue("1782259299999"),
    lastOffsetDelta: Math.max(0, spec.records.length - 1),
    transactional: spec.transactional ?? false,
    producerId: Long.fromValue(spec.transactional ? 7 : -1),
    records,
  });
  return (enc as { buffer: Buffer }).buffer;
}

/** Sets attribute bits (control batch 0x20, LOG_APPEND_TIME 0x08) of the batch at `at`. */
function withAttributes(bytes: Buffer, bits: number, at = 0): Buffer {
  const b = Buffer.from(bytes);
  b.writeInt16BE(b.readInt16BE(at + 21) | bits, at + 21);
  return b;
}

const plain: Spec["records"] = [
  { value: '{"a":1}' },
  { key: "k", value: "v" },
  { key: null, value: null },
  { value: "" },
  { key: "", value: Buffer.from([0, 255, 128]) },
  { value: "x".repeat(300), t: 2 ** 40, o: 70_000 },
  { value: "neg", t: -5 },
];
const headered: Spec["records"] = [
  { value: "h1", headers: { a: "1", b: Buffer.from([1, 2]) } },
  { value: "h2", headers: { a: ["1", "2", "3"], __proto__x: "p" } },
  { value: "h3", headers: { toString: "t" } },
  { value: "plain after headers" },
];

describe("kafkajs record batch decoder replacement", () => {
  it("returns kafkajs's records for plain, keyed, null and binary records", async () => {
    await expectSame(await batch({ records: plain }));
  });

  it("returns kafkajs's records for headers (repeated keys too), which it leaves to kafkajs", async () => {
    await expectSame(await batch({ records: headered }));
  });

  it("returns kafkajs's records for gzip-compressed batches", async () => {
    await expectSame(await batch({ compression: Compression.GZIP, records: [...plain, ...headered] }));
  });

  it("handles offsets and timestamps beyond 2^53, negative and the no-timestamp -1", async () => {
    for (const firstOffset of ["0", "9007199254740990", "9223372036854775000", "123456789012"]) {
      for (const firstTimestamp of ["-1", "0", "9007199254740000", "1782259200000"]) {
        await expectSame(
          await batch({
            firstOffset,
            firstTimestamp,
            records: [
              { value: "a", t: 0, o: 0 },
              { value: "b", t: 2 ** 45, o: 2 ** 30 },
              { value: "c", t: -(2 ** 44) },
            ],
          }),
        );
      }
    }
  });

  it("returns kafkajs's timestamps for records sharing one (the text reused), then another, then it again", async () => {
    for (const firstTimestamp of ["1782259200000", "9007199254740000", "-1"]) {
      await expectSame(
        await batch({
          firstTimestamp,
          records: [0, 0, 0, 5, 5, 0, -3, -3, 2 ** 45, 2 ** 45, 0].map((t) => ({ value: `t${t}`, t })),
        }),
      );
    }
    // batch after batch: the reused text is the batch's own (each batch starts afresh)
    await expectSame(
      Buffer.concat([
        await batch({
          firstTimestamp: "1000",
          records: [
            { value: "a", t: 5 },
            { value: "b", t: 5 },
          ],
        }),
        await batch({
          firstTimestamp: "1005",
          firstOffset: "2",
          records: [
            { value: "c", t: 0 },
            { value: "d", t: 1 },
          ],
        }),
        await batch({
          firstTimestamp: "2000",
          firstOffset: "4",
          records: [
            { value: "e", t: 5 },
            { value: "f", t: 5 },
          ],
        }),
      ]),
    );
  });

  it("handles control, transactional and LOG_APPEND_TIME batches, several in a row", async () => {
    const txn = await batch({ transactional: true, firstOffset: "10", records: plain });
    const marker = withAttributes(
      await batch({
        transactional: true,
        firstOffset: "17",
        records: [{ key: Buffer.from([0, 0, 0, 0]), value: "m" }],
      }),
      0x20,
    );
    const append = withAttributes(await batch({ firstOffset: "18", records: plain }), 0x08);
    await expectSame(Buffer.concat([txn, marker, append]));
  });

  it("throws what kafkajs throws for a partial batch at the end of a fetch", async () => {
    const whole = Buffer.concat([
      await batch({ records: plain }),
      await batch({ firstOffset: "7", records: plain }),
    ]);
    for (let cut = whole.length - 1; cut > whole.length - 120; cut -= 7)
      await expectSame(whole.subarray(0, cut));
  });

  it("agrees with kafkajs on 3,000 randomly damaged batches", async () => {
    const random = rng(9);
    const bases = [
      await batch({ records: plain }),
      await batch({ records: headered }),
      await batch({ compression: Compression.GZIP, records: plain }),
    ];
    for (let n = 0; n < 3000; n++) {
      const b = Buffer.from(bases[n % bases.length]);
      // past the batch header (61 bytes), where the records are; a few bytes each
      const hits = 1 + Math.floor(random() * 3);
      for (let h = 0; h < hits; h++) {
        const at = 61 + Math.floor(random() * (b.length - 61));
        b[at] = Math.floor(random() * 256);
      }
      await expectSame(b);
    }
  });
});

describe("kafkajs Batch replacement", () => {
  const offsets = ["3", "4", "5", "6", "7"];
  const message = (offset: string, extra: Record<string, unknown> = {}) => ({
    offset,
    key: null,
    value: Buffer.from("v"),
    isControlRecord: false,
    batchContext: { producerId: "-1", inTransaction: false },
    ...extra,
  });
  const cases: {
    fetched: string;
    messages: ReturnType<typeof message>[];
    aborted?: unknown[];
    hw?: string;
  }[] = [
    { fetched: "5", messages: offsets.map((o) => message(o)) },
    { fetched: "0", messages: offsets.map((o) => message(o)) },
    { fetched: "8", messages: offsets.map((o) => message(o)) },
    { fetched: "9", messages: [], hw: "12" },
    {
      fetched: "9223372036854775800",
      messages: ["9223372036854775799", "9223372036854775800"].map((o) => message(o)),
    },
    {
      fetched: "999999999999999",
      messages: ["999999999999998", "1000000000000000", "1000000000000001"].map((o) => message(o)),
    },
    { fetched: "4", messages: offsets.map((o) => message(o, { isControlRecord: o === "7" })) },
    {
      fetched: "3",
      messages: [
        message("3"),
        message("4", { batchContext: { producerId: "7", inTransaction: true } }),
        message("5", { batchContext: { producerId: "7", inTransaction: true } }),
        message("6", {
          key: Buffer.from([0, 0, 0, 0]),
          isControlRecord: true,
          batchContext: { producerId: "7", inTransaction: true },
        }),
        message("7"),
      ],
      aborted: [{ producerId: "7", firstOffset: "4" }],
    },
    // offsets not written canonically (compared as kafkajs's Long compares them), and a hole
    { fetched: "4", messages: ["03", "4", "05", "-1", "6"].map((o) => message(o)) },
    { fetched: "05", messages: offsets.map((o) => message(o)) },
    { fetched: "-1", messages: ["-1", "0", "1"].map((o) => message(o)) },
    {
      fetched: "3",
      // biome-ignore lint/suspicious/noSparseArray: a hole, which filter passes over
      messages: [message("3"), , message("5")] as ReturnType<typeof message>[],
    },
    { fetched: "3", messages: offsets.map((o) => message(o, { isControlRecord: o === "3" })) },
  ];

  it("reads a small offset as Number() does where String() gives the text back, else NaN", () => {
    const reference = (s: unknown): number => {
      if (typeof s !== "string" || s.length >= 16) return Number.NaN;
      const n = Number(s);
      return Number.isInteger(n) && String(n) === s ? n : Number.NaN;
    };
    const texts: unknown[] = [
      ...["", "0", "-0", "00", "01", "-01", "1", "-1", "-", "+1", " 1", "1 ", "1e3", "1.0", "0x10", "1_0"],
      ...["999999999999999", "-99999999999999", "1000000000000000", "-999999999999999", "12a", "٣"],
      ...[5, null, undefined, 1n],
    ];
    const random = rng(3);
    for (let n = 0; n < 2000; n++) {
      const len = 1 + Math.floor(random() * 17);
      let t = random() < 0.2 ? "-" : "";
      for (let k = 0; k < len; k++) t += "0123456789-e."[Math.floor(random() * (random() < 0.9 ? 10 : 13))];
      texts.push(t);
    }
    for (const t of texts) expect(Object.is(smallOffset(t), reference(t)), String(t)).toBe(true);
  });

  it("filters, and answers every method, as kafkajs's does", () => {
    for (const c of cases) {
      const data = {
        partition: 2,
        highWatermark: c.hw ?? "8",
        abortedTransactions: c.aborted ?? [],
        messages: c.messages,
      };
      const a = new KafkajsBatch("t", c.fetched, data);
      const b = new FastBatch("t", c.fetched, data);
      for (const f of [
        "topic",
        "partition",
        "highWatermark",
        "fetchedOffset",
        "rawMessages",
        "messagesWithinOffset",
        "messages",
      ]) {
        expect(isDeepStrictEqual(b[f], a[f]), `${c.fetched} ${f}`).toBe(true);
      }
      // arrays of their own, as kafkajs's filters make them
      expect(b.messagesWithinOffset === b.rawMessages).toBe(a.messagesWithinOffset === a.rawMessages);
      expect(b.messages === b.messagesWithinOffset).toBe(a.messages === a.messagesWithinOffset);
      for (const m of [
        "isEmpty",
        "isEmptyIncludingFiltered",
        "isEmptyDueToFiltering",
        "isEmptyControlRecord",
        "isEmptyDueToLogCompactedMessages",
        "firstOffset",
        "lastOffset",
        "offsetLag",
        "offsetLagLow",
      ]) {
        expect(b[m](), `${c.fetched} ${m}`).toEqual(a[m]());
      }
    }
  });
});
