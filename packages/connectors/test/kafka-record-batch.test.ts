// The record batch decoder and `Batch` put in kafkajs's place (src/kafka/record-batch.ts) against
// kafkajs 2.2.4's own, on batches built by kafkajs's encoder and then altered: both must return
// the same records (field for field, key order, the bytes' views) or throw the same error.
import { createRequire } from "node:module";
import { isDeepStrictEqual } from "node:util";
import { describe, expect, it } from "vitest";
import {
  kafkajsInternals,
  LazyMessages,
  LazyRecords,
  makeBatch,
  makeDecodeMessages,
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
const kafkajsDecodeMessages = original("protocol/requests/fetch/v4/decodeMessages.js") as (
  d: unknown,
) => Promise<unknown>;
const fastDecodeMessages = makeDecodeMessages(require, makeRecordBatchDecoder(kafkajsInternals(require))) as (
  d: unknown,
) => Promise<unknown>;
const KafkajsBatch = original("consumer/batch.js") as new (...a: unknown[]) => Record<string, () => unknown>;
const FastBatch = makeBatch(require) as new (...a: unknown[]) => Record<string, () => unknown>;
const KajsBatchT = KafkajsBatch;

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

/** A fetch response's record set of one partition: its size, then the batches. */
function recordSet(batches: Buffer): Buffer {
  const size = Buffer.alloc(4);
  size.writeInt32BE(batches.length);
  return Buffer.concat([size, batches]);
}

/** What a `decodeMessages` gives for `set`: the records (a LazyMessages' materialized), or the error. */
async function messagesOutcome(
  decode: (d: unknown) => Promise<unknown>,
  set: Buffer,
): Promise<{ records: unknown; lazy: LazyMessages | null }> {
  try {
    const r = await decode(new Decoder(set));
    return r instanceof LazyMessages ? { records: r.materialize(), lazy: r } : { records: r, lazy: null };
  } catch (e) {
    return { records: { error: (e as Error).name, message: (e as Error).message }, lazy: null };
  }
}

/** The accessors of every lazily kept record agree with its record object. */
function expectViewsAgree(lazy: LazyMessages): void {
  for (const b of lazy.batches) {
    for (let i = 0; i < b.length; i++) {
      const m = b.message(i) as { offset: string; timestamp: string; value: Buffer | null };
      expect(b.offsetAt(i)).toBe(Number(m.offset));
      expect(String(b.offsetAt(i))).toBe(m.offset);
      expect(b.timestampAt(i)).toBe(Number(m.timestamp));
      if (m.value === null) expect(b.valueLength(i)).toBe(-1);
      else {
        expect(b.valueLength(i)).toBe(m.value.length);
        expect(b.buffer.subarray(b.valueStart(i), b.valueStart(i) + b.valueLength(i)).equals(m.value)).toBe(
          true,
        );
      }
    }
  }
}

async function expectSameMessages(set: Buffer): Promise<LazyMessages | null> {
  input = set;
  const a = await messagesOutcome(kafkajsDecodeMessages, set);
  const b = await messagesOutcome(fastDecodeMessages, set);
  if (!same(a.records, b.records)) expect(b.records).toEqual(a.records);
  expect(same(a.records, b.records)).toBe(true);
  if (b.lazy !== null) expectViewsAgree(b.lazy);
  return b.lazy;
}

describe("fetch decodeMessages replacement (lazily decoded records)", () => {
  it("keeps plain, gzip, control, transactional and LOG_APPEND_TIME batches lazily, records as kafkajs's", async () => {
    const set = recordSet(
      Buffer.concat([
        await batch({ records: plain }),
        await batch({ compression: Compression.GZIP, firstOffset: "7", records: plain }),
        await batch({ transactional: true, firstOffset: "14", records: plain }),
        withAttributes(
          await batch({
            transactional: true,
            firstOffset: "21",
            records: [{ key: Buffer.from([0, 0, 0, 1]), value: "m" }],
          }),
          0x20,
        ),
        withAttributes(await batch({ firstOffset: "22", records: plain }), 0x08),
      ]),
    );
    const lazy = await expectSameMessages(set);
    expect(lazy).not.toBeNull();
    expect(lazy!.batches.length).toBe(5);
    expect(lazy!.length).toBe(4 * plain.length + 1);
    expect(lazy!.batches.every((b) => b instanceof LazyRecords)).toBe(true);
  });

  it("falls back to kafkajs's record objects for headers, offsets and timestamps beyond 2^53, partial tails", async () => {
    const ok = await batch({ records: plain });
    const sets = [
      Buffer.concat([ok, await batch({ firstOffset: "7", records: headered })]),
      Buffer.concat([ok, await batch({ firstOffset: "9007199254740990", records: plain })]),
      Buffer.concat([
        ok,
        await batch({ firstOffset: "7", firstTimestamp: "9007199254740000", records: plain }),
      ]),
    ];
    for (const s of sets) expect(await expectSameMessages(recordSet(s))).toBeNull();
    // a partial batch at the end is dropped, as kafkajs drops it; the batches before it stay lazy
    const two = Buffer.concat([ok, await batch({ firstOffset: "7", records: plain })]);
    for (let cut = two.length - 1; cut > two.length - 120; cut -= 7) {
      const lazy = await expectSameMessages(recordSet(two.subarray(0, cut)));
      expect(lazy?.length).toBe(plain.length);
    }
    expect(await expectSameMessages(recordSet(Buffer.alloc(0)))).toBeNull();
  });

  it("agrees with kafkajs on 3,000 randomly damaged record sets", async () => {
    const random = rng(11);
    const bases = [
      Buffer.concat([await batch({ records: plain }), await batch({ firstOffset: "7", records: plain })]),
      await batch({ compression: Compression.GZIP, records: plain }),
      Buffer.concat([await batch({ records: plain }), await batch({ firstOffset: "7", records: headered })]),
    ];
    let lazyCount = 0;
    for (let n = 0; n < 3000; n++) {
      const b = Buffer.from(bases[n % bases.length]);
      const hits = 1 + Math.floor(random() * 3);
      for (let h = 0; h < hits; h++) {
        const at = 61 + Math.floor(random() * (b.length - 61));
        b[at] = Math.floor(random() * 256);
      }
      if ((await expectSameMessages(recordSet(b))) !== null) lazyCount++;
    }
    // both paths were taken
    expect(lazyCount).toBeGreaterThan(100);
    expect(lazyCount).toBeLessThan(2900);
  });
});

describe("kafkajs Batch replacement over lazily decoded records", () => {
  const methods = [
    "isEmpty",
    "isEmptyIncludingFiltered",
    "isEmptyDueToFiltering",
    "isEmptyControlRecord",
    "isEmptyDueToLogCompactedMessages",
    "firstOffset",
    "lastOffset",
    "offsetLag",
    "offsetLagLow",
  ];

  it("filters, and answers every method, as kafkajs's does over kafkajs's records", async () => {
    // offsets 0-4, 70000, 70001; the marker 70002; 70003-70005
    const rising = plain.map((r, i) => (i === 6 ? { ...r, o: 70_001 } : r));
    const plainSet = recordSet(
      Buffer.concat([
        await batch({ records: rising, transactional: true }),
        withAttributes(
          await batch({
            transactional: true,
            firstOffset: "70002",
            records: [{ key: Buffer.from([0, 0, 0, 0]), value: "m" }],
          }),
          0x20,
        ),
        await batch({ firstOffset: "70003", records: plain.slice(0, 3) }),
      ]),
    );
    const controlOnly = recordSet(
      withAttributes(
        await batch({ transactional: true, firstOffset: "5", records: [{ key: Buffer.from([0, 0, 0, 1]) }] }),
        0x20,
      ),
    );
    const cases: { set: Buffer; fetched: string; aborted?: unknown[]; lazy: boolean }[] = [
      ...["0", "1", "3", "70000", "70001", "70002", "70003", "70005", "70006", "90000"].map((fetched) => ({
        set: plainSet,
        fetched,
        lazy: true,
      })),
      { set: controlOnly, fetched: "5", lazy: true },
      { set: controlOnly, fetched: "6", lazy: true },
      // an aborted transaction, a fetched offset kafkajs's Long compares: kafkajs's record objects
      { set: plainSet, fetched: "0", aborted: [{ producerId: "7", firstOffset: "1" }], lazy: false },
      { set: plainSet, fetched: "01", lazy: false },
      // offsets that do not rise (70000 before 6)
      { set: recordSet(await batch({ records: plain })), fetched: "2", lazy: false },
    ];
    for (const c of cases) {
      input = c.set;
      const theirs = await kafkajsDecodeMessages(new Decoder(c.set));
      const ours = await fastDecodeMessages(new Decoder(c.set));
      expect(ours).toBeInstanceOf(LazyMessages);
      const data = (messages: unknown) => ({
        partition: 1,
        highWatermark: "70010",
        abortedTransactions: c.aborted ?? [],
        messages,
      });
      const a = new KajsBatchT("t", c.fetched, data(theirs));
      const b = new FastBatch("t", c.fetched, data(ours));
      const what = `${c.fetched} ${c.aborted ? "aborted" : ""}`;
      expect(b.weirRuns !== undefined, what).toBe(c.lazy);
      for (const f of ["rawMessages", "messagesWithinOffset", "messages"]) {
        const x = a[f] as unknown as unknown[];
        const y = b[f] as unknown as unknown[];
        expect(same(x, y), `${what} ${f}`).toBe(true);
        // read backwards, spread, iterated: the same records (each built once)
        expect(same([...x], [...y])).toBe(true);
        if (y.length > 0) expect(y[y.length - 1]).toBe(y[y.length - 1]);
        expect(same(x.slice().reverse(), y.slice().reverse())).toBe(true);
      }
      for (const m of methods) expect(b[m](), `${what} ${m}`).toEqual(a[m]());
      if (b.weirRuns !== undefined) {
        // the runs are the records of `messages`, in order
        const runs = b.weirRuns as unknown as { records: LazyRecords; from: number; to: number }[];
        const fromRuns: unknown[] = [];
        for (const r of runs) for (let i = r.from; i < r.to; i++) fromRuns.push(r.records.message(i));
        expect(same(a.messages, fromRuns), what).toBe(true);
      }
    }
  });
});
