// Shared helpers of the Kafka connector integration tests: a real broker from KAFKA_BROKERS
// (the tests fail, not skip, without one), unique topics, producing records, hand-built source
// nodes for reader-level tests, and running SQL scripts through the CLI's Engine.
import { randomUUID } from "node:crypto";
import { mkdtempSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connectKafkajs, createConnectorRegistry, KafkaSourceReader } from "@weir/connectors";
import type { DataType, SourceColumn, SourceNode } from "@weir/planner";
import { ChangeBatch, type Json, type Op, opDisplay, type Row } from "@weir/runtime";
import { Engine } from "../../packages/cli/src/engine/engine.js";
import type * as KafkaJs from "../../packages/connectors/node_modules/kafkajs/types/index.js";

export const kafkajs = createRequire(new URL("../../packages/connectors/package.json", import.meta.url))(
  "kafkajs",
) as typeof KafkaJs;

const MISSING_BROKER =
  "KAFKA_BROKERS is not set. Run the suite with scripts/test.sh, which starts a single-node broker " +
  "with scripts/kafka.sh, or start one yourself (`scripts/kafka.sh start` prints its address) and " +
  "run with KAFKA_BROKERS=<host:port>.";

export function brokers(): string {
  const b = (process.env.KAFKA_BROKERS ?? "").trim();
  if (b === "") throw new Error(MISSING_BROKER);
  return b;
}

export class KafkaFixture {
  readonly run = randomUUID().slice(0, 8);
  private kafka: KafkaJs.Kafka | null = null;
  private adminClient: KafkaJs.Admin | null = null;
  private readonly topics: string[] = [];

  async admin(): Promise<KafkaJs.Admin> {
    if (this.adminClient === null) {
      this.kafka = new kafkajs.Kafka({
        clientId: `weir-it-${this.run}`,
        brokers: brokers().split(","),
        logLevel: kafkajs.logLevel.NOTHING,
      });
      this.adminClient = this.kafka.admin();
      await this.adminClient.connect();
    }
    return this.adminClient;
  }

  /** A new topic `<prefix>-<name>-<run>` (deleted by `close`). */
  async topic(name: string, partitions: number, prefix = "weir-it"): Promise<string> {
    const admin = await this.admin();
    const topic = `${prefix}-${name}-${this.run}`;
    await admin.createTopics({
      topics: [{ topic, numPartitions: partitions, replicationFactor: 1 }],
      waitForLeaders: true,
    });
    this.topics.push(topic);
    return topic;
  }

  /** Sends the messages in order with an idempotent producer and waits for the acks. */
  async produce(topic: string, messages: KafkaJs.Message[]): Promise<void> {
    await this.admin();
    const producer = this.kafka!.producer({
      idempotent: true,
      maxInFlightRequests: 1,
      createPartitioner: kafkajs.Partitioners.DefaultPartitioner,
    });
    await producer.connect();
    try {
      await producer.send({ topic, acks: -1, messages });
    } finally {
      await producer.disconnect();
    }
  }

  /**
   * Produces `count` records fast (acks from the leader, batches of thousands, several requests in
   * flight): `make(i)` gives record i's partition and value. For topics of millions of records.
   */
  async produceBulk(
    topic: string,
    count: number,
    make: (i: number) => { partition: number; value: string },
    from = 0,
  ): Promise<void> {
    await this.admin();
    const producer = this.kafka!.producer({ allowAutoTopicCreation: false });
    await producer.connect();
    const chunk = 4_000;
    const inflight: Promise<unknown>[] = [];
    try {
      for (let i = from; i < from + count; i += chunk) {
        const byPartition = new Map<number, KafkaJs.Message[]>();
        for (let j = i; j < Math.min(from + count, i + chunk); j++) {
          const r = make(j);
          let list = byPartition.get(r.partition);
          if (list === undefined) byPartition.set(r.partition, (list = []));
          list.push({ partition: r.partition, value: r.value });
        }
        inflight.push(
          producer.sendBatch({
            acks: 1,
            topicMessages: [...byPartition.values()].map((messages) => ({ topic, messages })),
          }),
        );
        if (inflight.length >= 8) await inflight.shift();
      }
      await Promise.all(inflight);
    } finally {
      await producer.disconnect();
    }
  }

  /** Every record of `topic` (earliest to the end offsets at call time), per partition in order. */
  async readAll(
    topic: string,
  ): Promise<{ partition: number; offset: number; key: string | null; value: string | null }[]> {
    const admin = await this.admin();
    const ends = await admin.fetchTopicOffsets(topic);
    const total = ends.reduce((n, o) => n + Number(o.high) - Number(o.low), 0);
    const consumer = this.kafka!.consumer({ groupId: `weir-it-read-${randomUUID()}`, maxWaitTimeInMs: 100 });
    const out: { partition: number; offset: number; key: string | null; value: string | null }[] = [];
    await consumer.connect();
    try {
      await consumer.subscribe({ topic, fromBeginning: true });
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`read ${out.length} of ${total} from ${topic}`)),
          15_000,
        );
        if (total === 0) {
          clearTimeout(timer);
          resolve();
        }
        void consumer.run({
          eachMessage: async ({ partition, message }) => {
            out.push({
              partition,
              offset: Number(message.offset),
              key: message.key?.toString() ?? null,
              value: message.value?.toString() ?? null,
            });
            if (out.length >= total) {
              clearTimeout(timer);
              resolve();
            }
          },
        });
      });
    } finally {
      await consumer.disconnect();
    }
    return out.sort((a, b) => a.partition - b.partition || a.offset - b.offset);
  }

  async close(): Promise<void> {
    if (this.adminClient === null) return;
    if (this.topics.length > 0) await this.adminClient.deleteTopics({ topics: this.topics }).catch(() => {});
    await this.adminClient.disconnect();
  }
}

export interface Column {
  readonly name: string;
  readonly type: DataType;
  /** A metadata key: the column is a (virtual) metadata column. */
  readonly metadata?: string;
}

/** A source node as the planner would build it for a table of these columns (no computed columns). */
export function sourceNode(
  columns: readonly Column[],
  options: Record<string, string>,
  extra: { connector?: string; primaryKey?: number[] } = {},
): SourceNode {
  const sourceColumns: SourceColumn[] = columns.map((c) =>
    c.metadata === undefined
      ? { kind: "physical", name: c.name }
      : { kind: "metadata", key: c.metadata, virtual: true },
  );
  return {
    kind: "source",
    id: 0,
    inputs: [],
    schema: columns.map((c) => ({ name: c.name, type: c.type })),
    changelogMode: { kind: "insert-only" },
    streamKey: extra.primaryKey ?? null,
    watermarkColumn: null,
    table: "t",
    connector: extra.connector ?? "kafka",
    options: { "properties.bootstrap.servers": brokers(), ...options },
    columns: sourceColumns,
    watermark: null,
    idleTimeoutMs: 0,
    primaryKey: extra.primaryKey ?? null,
    projectedColumns: null,
  };
}

export interface Read {
  readonly split: string;
  readonly change: string;
}

/** Opens a reader over `node` (restored to `position` if given). */
export async function openReader(
  node: SourceNode,
  position?: Json,
): Promise<{ reader: KafkaSourceReader; metrics: Map<string, number> }> {
  const reader = new KafkaSourceReader(connectKafkajs);
  const metrics = new Map<string, number>();
  await reader.open({ node, metrics, settings: {}, cwd: process.cwd() });
  if (position !== undefined) await reader.restore(position);
  return { reader, metrics };
}

/** Polls until `count` changes arrived (or the source ended, for bounded ones); 20 s at most. */
export async function pollChanges(
  reader: KafkaSourceReader,
  count: number,
  maxRows = 1000,
): Promise<{ reads: Read[]; ended: boolean }> {
  const reads: Read[] = [];
  const deadline = Date.now() + 20_000;
  while (reads.length < count) {
    if (Date.now() > deadline) throw new Error(`got ${reads.length} of ${count} changes`);
    const r = await reader.poll(Math.min(maxRows, count - reads.length));
    if (r.kind === "end") return { reads, ended: true };
    if (r.kind === "idle") {
      await new Promise((res) => setTimeout(res, 20));
      continue;
    }
    for (const s of r.splits) {
      ChangeBatch.toArray(s.batch).forEach(([op, row], i) => {
        reads.push({ split: s.rowSplits?.[i] ?? s.split, change: show(op, row) });
      });
    }
  }
  return { reads, ended: false };
}

/** Polls a bounded reader to its end. */
export async function pollToEnd(reader: KafkaSourceReader, maxRows = 1000): Promise<Read[]> {
  const { reads, ended } = await pollChanges(reader, Number.POSITIVE_INFINITY, maxRows);
  if (!ended) throw new Error("the source did not end");
  return reads;
}

function show(op: Op, row: Row): string {
  return `${opDisplay(op)} ${row.map((v) => (v instanceof Uint8Array ? `b'${Buffer.from(v).toString()}'` : v instanceof Map ? JSON.stringify(Object.fromEntries([...v].map(([k, b]) => [k, Buffer.from(b as Uint8Array).toString()]))) : String(v))).join(" ")}`;
}

/** Runs a SQL script through the CLI's Engine; returns the exit code and what it printed. */
export async function runSql(
  sql: string,
  opts: { maxRuntimeMs?: number; cwd?: string } = {},
): Promise<{ code: number; out: string[]; err: string[] }> {
  const out: string[] = [];
  const err: string[] = [];
  const engine = new Engine({
    cwd: opts.cwd ?? process.cwd(),
    out: { out: (l) => out.push(l), err: (l) => err.push(l) },
    connectors: createConnectorRegistry(),
  });
  const code = await engine.runScript(sql, {
    file: "test.sql",
    ...(opts.maxRuntimeMs ? { maxRuntimeMs: opts.maxRuntimeMs } : {}),
  });
  return { code, out, err };
}

export function tempDir(): string {
  return mkdtempSync(join(tmpdir(), "weir-kafka-"));
}

export function readLines(path: string): string[] {
  return readFileSync(path, "utf8")
    .split("\n")
    .filter((l) => l !== "");
}

/** The materialised result of changelog-json lines: the multiset of rows, sorted. */
export function materialize(lines: readonly string[]): string[] {
  const rows = new Map<string, number>();
  for (const line of lines) {
    const { op, data } = JSON.parse(line) as { op: string; data: unknown };
    const k = JSON.stringify(data);
    const sign = op === "+I" || op === "+U" ? 1 : -1;
    const n = (rows.get(k) ?? 0) + sign;
    if (n === 0) rows.delete(k);
    else rows.set(k, n);
  }
  const out: string[] = [];
  for (const [k, n] of rows) {
    if (n < 0) throw new Error(`row ${k} retracted more often than inserted`);
    for (let i = 0; i < n; i++) out.push(k);
  }
  return out.sort();
}
