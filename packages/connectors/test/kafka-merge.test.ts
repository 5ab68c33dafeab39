// The Kafka reader's partition merge against a fake client whose fetches arrive in orders the
// test chooses: the rows handed out, and the positions, depend only on the topic's contents.
// (The same properties against the real broker, at volume: test/integration/kafka-volume.test.ts.)
// Each fetch arrives either as record objects or, as Weir's decoder gives them, as lazily decoded
// record batches (kafkajs-encoded, decoded by Weir's decodeMessages and Batch): the same rows.
import { createRequire } from "node:module";
import { type SourceNode, T } from "@weir/planner";
import { type Op, opDisplay, type PollResult, type Row } from "@weir/runtime";
import { describe, expect, it } from "vitest";
import type { KafkaBatch, KafkaClient, KafkaConsumer, KafkaMessage } from "../src/kafka/client.js";
import {
  kafkajsInternals,
  makeBatch,
  makeDecodeMessages,
  makeRecordBatchDecoder,
} from "../src/kafka/record-batch.js";
import { KafkaSourceReader } from "../src/kafka/source.js";

const require = createRequire(new URL("../package.json", import.meta.url));
const kjs = (p: string) => require(`kafkajs/src/${p}`);
const Decoder = kjs("protocol/decoder");
const Long = kjs("utils/long");
const { RecordBatch } = kjs("protocol/recordBatch/v0/index");
const Record = kjs("protocol/recordBatch/record/v0/index");
const decodeMessages = makeDecodeMessages(require, makeRecordBatchDecoder(kafkajsInternals(require))) as (
  d: unknown,
) => Promise<unknown>;
const WeirBatch = makeBatch(require) as new (...a: unknown[]) => KafkaBatch;

/** Records `[from, to)` of a partition (event times `times`) as a fetch of two record batches, through Weir's decoder. */
async function lazyBatch(
  partition: number,
  times: readonly number[],
  from: number,
  to: number,
): Promise<KafkaBatch> {
  const mid = to - from >= 2 ? from + Math.floor((to - from) / 2) : to;
  const parts: Buffer[] = [];
  for (const [a, b] of [
    [from, mid],
    [mid, to],
  ]) {
    if (a === b) continue;
    const t0 = times[a];
    const enc = await RecordBatch({
      firstOffset: Long.fromValue(String(a)),
      firstTimestamp: Long.fromValue(String(t0)),
      maxTimestamp: Long.fromValue(String(Math.max(...times.slice(a, b)))),
      lastOffsetDelta: b - a - 1,
      records: times.slice(a, b).map((t, i) =>
        Record({
          offsetDelta: i,
          timestampDelta: t - t0,
          key: null,
          value: JSON.stringify({ id: partition * 1000 + a + i, t }),
          headers: {},
        }),
      ),
    });
    parts.push((enc as { buffer: Buffer }).buffer);
  }
  const body = Buffer.concat(parts);
  const size = Buffer.alloc(4);
  size.writeInt32BE(body.length);
  const messages = await decodeMessages(new Decoder(Buffer.concat([size, body])));
  const batch = new WeirBatch("t", String(from), {
    partition,
    highWatermark: String(times.length),
    abortedTransactions: [],
    messages,
  });
  expect(batch.weirRuns?.length).toBe(parts.length);
  return batch;
}

/** Partition → the event times of its records (offsets 0, 1, …); value `{"id":…,"t":…}`. */
type Topic = Record<number, readonly number[]>;

class FakeConsumer {
  eachBatch: ((p: { batch: KafkaBatch }) => Promise<void>) | null = null;
  readonly paused = new Set<number>();
  readonly events = { GROUP_JOIN: "join", CRASH: "crash", END_BATCH_PROCESS: "end" };
  private readonly listeners = new Map<string, (e: { payload: unknown }) => void>();
  async connect(): Promise<void> {}
  async disconnect(): Promise<void> {}
  async subscribe(): Promise<void> {}
  async run(config: { eachBatch: (p: { batch: KafkaBatch }) => Promise<void> }): Promise<void> {
    this.eachBatch = config.eachBatch;
  }
  seek(): void {}
  pause(tps: { partitions?: number[] }[]): void {
    for (const tp of tps) for (const p of tp.partitions ?? []) this.paused.add(p);
  }
  resume(tps: { partitions?: number[] }[]): void {
    for (const tp of tps) for (const p of tp.partitions ?? []) this.paused.delete(p);
  }
  on(event: string, listener: (e: { payload: unknown }) => void): () => void {
    this.listeners.set(event, listener);
    return () => undefined;
  }
}

function message(partition: number, offset: number, t: number): KafkaMessage {
  return {
    key: null,
    value: Buffer.from(JSON.stringify({ id: partition * 1000 + offset, t })),
    timestamp: String(t),
    offset: String(offset),
  };
}

function fake(topic: Topic, lazy = false) {
  const consumer = new FakeConsumer();
  const admin = {
    connect: async () => undefined,
    disconnect: async () => undefined,
    listTopics: async () => ["t"],
    fetchTopicMetadata: async () => ({
      topics: [{ name: "t", partitions: Object.keys(topic).map((p) => ({ partitionId: Number(p) })) }],
    }),
    fetchTopicOffsets: async () =>
      Object.entries(topic).map(([p, times]) => ({
        partition: Number(p),
        offset: String(times.length),
        low: "0",
        high: String(times.length),
      })),
    setOffsets: async () => undefined,
  };
  const client = { admin: () => admin, consumer: () => consumer } as unknown as KafkaClient;
  /** Delivers records `[from, to)` of a partition as one fetched batch. */
  const deliver = async (partition: number, from: number, to: number) => {
    if (lazy) {
      await consumer.eachBatch!({ batch: await lazyBatch(partition, topic[partition], from, to) });
      return;
    }
    const messages = topic[partition].slice(from, to).map((t, i) => message(partition, from + i, t));
    await consumer.eachBatch!({
      batch: { topic: "t", partition, messages, lastOffset: () => String(to - 1) },
    });
  };
  return { connect: () => client, consumer: consumer as unknown as KafkaConsumer & FakeConsumer, deliver };
}

function node(bounded = true): SourceNode {
  return {
    kind: "source",
    id: 0,
    inputs: [],
    schema: [
      { name: "id", type: T.int() },
      { name: "t", type: T.bigint() },
    ],
    changelogMode: { kind: "insert-only" },
    streamKey: null,
    watermarkColumn: null,
    table: "t",
    connector: "kafka",
    options: {
      topic: "t",
      "properties.bootstrap.servers": "fake:9092",
      "scan.startup.mode": "earliest-offset",
      ...(bounded ? { "scan.bounded.mode": "latest-offset" } : {}),
      format: "json",
    },
    columns: [
      { kind: "physical", name: "id" },
      { kind: "physical", name: "t" },
    ],
    watermark: null,
    idleTimeoutMs: 0,
    primaryKey: null,
    projectedColumns: null,
  } as unknown as SourceNode;
}

/** `split id` per row, in the order `poll` handed them out. */
function rowsOf(result: PollResult): string[] {
  if (result.kind !== "data") return [];
  return result.splits.flatMap((s) =>
    s.batch.rows.map(
      (r: Row, i) => `${s.rowSplits?.[i] ?? s.split} ${opDisplay(s.batch.ops[i] as Op)} ${r[0]} t=${r[1]}`,
    ),
  );
}

/**
 * Reads the whole topic, delivering the fetches of `schedule` ([partition, from, to] each) one
 * at a time and polling `pollsPerFetch` times (up to `maxRows` rows each) after each.
 */
async function readAll(
  topic: Topic,
  schedule: readonly [number, number, number][],
  maxRows: number,
  rowtime: boolean,
  lazy = false,
): Promise<string[]> {
  const f = fake(topic, lazy);
  const reader = new KafkaSourceReader(f.connect);
  await reader.open({
    node: node(),
    metrics: new Map(),
    settings: {},
    cwd: ".",
    ...(rowtime ? { rowtime: (row: Row) => row[1] } : {}),
  });
  const out: string[] = [];
  await reader.poll(maxRows); // starts the consumer; nothing fetched yet
  for (const [p, from, to] of schedule) {
    await f.deliver(p, from, to);
    for (let i = 0; i < 3; i++) out.push(...rowsOf(await reader.poll(maxRows)));
  }
  for (;;) {
    const r = await reader.poll(maxRows);
    if (r.kind === "end") break;
    expect(r.kind, "every record was delivered: the reader must not wait").toBe("data");
    out.push(...rowsOf(r));
  }
  await reader.close();
  return out;
}

// Event times interleave across partitions, out of order within each; partition 3 is empty.
const TOPIC: Topic = {
  0: [10, 30, 20, 50, 40, 90, 60],
  1: [15, 15, 35, 25, 80],
  2: [5, 70, 65, 100],
  3: [],
};

describe("KafkaSourceReader: the partition merge", () => {
  it("hands out the next record with the smallest event time, whatever order the fetches arrive in", async () => {
    const schedules: [number, number, number][][] = [
      [
        [0, 0, 7],
        [1, 0, 5],
        [2, 0, 4],
      ],
      [
        [2, 0, 4],
        [1, 0, 5],
        [0, 0, 7],
      ],
      [
        [1, 0, 1],
        [0, 0, 2],
        [2, 0, 1],
        [0, 2, 5],
        [1, 1, 5],
        [2, 1, 4],
        [0, 5, 7],
      ],
    ];
    const runs: string[][] = [];
    for (const schedule of schedules) {
      for (const maxRows of [1, 3, 1024]) {
        runs.push(await readAll(TOPIC, schedule, maxRows, true));
        runs.push(await readAll(TOPIC, schedule, maxRows, true, true));
      }
    }
    for (const r of runs) expect(r).toEqual(runs[0]);
    // The merge of the partitions' heads by event time, ties by partition.
    expect(runs[0]).toEqual([
      "t-2 +I 2000 t=5",
      "t-0 +I 0 t=10",
      "t-1 +I 1000 t=15",
      "t-1 +I 1001 t=15",
      "t-0 +I 1 t=30",
      "t-0 +I 2 t=20",
      "t-1 +I 1002 t=35",
      "t-1 +I 1003 t=25",
      "t-0 +I 3 t=50",
      "t-0 +I 4 t=40",
      "t-2 +I 2001 t=70",
      "t-2 +I 2002 t=65",
      "t-1 +I 1004 t=80",
      "t-0 +I 5 t=90",
      "t-0 +I 6 t=60",
      "t-2 +I 2003 t=100",
    ]);
  });

  it("without a watermark merges by record timestamp, just as reproducibly", async () => {
    const a = await readAll(
      TOPIC,
      [
        [0, 0, 7],
        [1, 0, 5],
        [2, 0, 4],
      ],
      2,
      false,
    );
    const lazy = await readAll(
      TOPIC,
      [
        [0, 0, 7],
        [1, 0, 5],
        [2, 0, 4],
      ],
      2,
      false,
      true,
    );
    expect(lazy).toEqual(a);
    const b = await readAll(
      TOPIC,
      [
        [2, 0, 4],
        [0, 0, 7],
        [1, 0, 5],
      ],
      1024,
      false,
    );
    expect(a).toEqual(b);
    expect(a[0]).toBe("t-2 +I 2000 t=5");
  });

  for (const lazy of [false, true])
    it(`waits for a partition with unfetched records, keeps exact positions, and an empty partition holds nothing${lazy ? " (lazy batches)" : ""}`, async () => {
      const f = fake(TOPIC, lazy);
      const reader = new KafkaSourceReader(f.connect);
      await reader.open({
        node: node(),
        metrics: new Map(),
        settings: {},
        cwd: ".",
        rowtime: (r: Row) => r[1],
      });
      expect((await reader.poll(100)).kind).toBe("idle");
      await f.deliver(0, 0, 7);
      await f.deliver(1, 0, 5);
      // Partition 2 has records on the broker that are not fetched: nothing may be handed out yet.
      expect((await reader.poll(100)).kind).toBe("idle");
      expect(reader.position()).toEqual({ t: { "0": 0, "1": 0, "2": 0, "3": 0 } });
      expect(reader.lag()).toEqual({ "t-0": 7, "t-1": 5, "t-2": 4, "t-3": 0 });
      await f.deliver(2, 0, 1);
      // With partition 2's first record (t=5) fetched, the merge runs until it needs partition 2 again.
      expect(rowsOf(await reader.poll(100))).toEqual(["t-2 +I 2000 t=5"]);
      expect(reader.position()).toEqual({ t: { "0": 0, "1": 0, "2": 1, "3": 0 } });
      expect((await reader.poll(100)).kind).toBe("idle");
      await f.deliver(2, 1, 4);
      const rest = rowsOf(await reader.poll(100));
      expect(rest).toHaveLength(15);
      expect(reader.position()).toEqual({ t: { "0": 7, "1": 5, "2": 4, "3": 0 } });
      expect(reader.lag()).toEqual({ "t-0": 0, "t-1": 0, "t-2": 0, "t-3": 0 });
      expect((await reader.poll(100)).kind).toBe("end");
      await reader.close();
    });

  for (const lazy of [false, true])
    it(`pauses a partition whose buffer is full and resumes it once drained${lazy ? " (lazy batches)" : ""}`, async () => {
      const big: Topic = { 0: Array.from({ length: 40_000 }, (_, i) => i), 1: [1_000_000] };
      const f = fake(big, lazy);
      const reader = new KafkaSourceReader(f.connect);
      await reader.open({
        node: node(false),
        metrics: new Map(),
        settings: {},
        cwd: ".",
        rowtime: (r: Row) => r[1],
      });
      await reader.poll(10);
      await f.deliver(0, 0, 40_000);
      expect(f.consumer.paused.has(0)).toBe(true);
      await f.deliver(1, 0, 1);
      let n = 0;
      while (n < 40_001) {
        const r = await reader.poll(4096);
        if (r.kind !== "data") break;
        n += r.splits.reduce((k, s) => k + s.batch.length, 0);
        if (n > 30_000) expect(f.consumer.paused.has(0)).toBe(false);
      }
      expect(n).toBe(40_001);
      await reader.close();
    });
});
