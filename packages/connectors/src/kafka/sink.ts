import { deliveryProblem, type SinkNode } from "@weir/planner";
import {
  type ChangeBatch,
  ConnectorError,
  type Json,
  Op,
  type SinkWriter,
  type SinkWriterContext,
} from "@weir/runtime";
import { FormatOptions } from "../formats/format.js";
import type { KafkaAdmin, KafkaClient, KafkaConnect, KafkaOutgoingMessage, KafkaProducer } from "./client.js";
import { type MessageEncoder, messageEncoder } from "./codec.js";
import { connectionConfig, type KafkaColumn, type KafkaLayout, kafkaLayout, topicList } from "./options.js";
import { DEFAULT_TRANSACTION_TIMEOUT_MS, type KafkaConfig, kafkaSpecOf } from "./spec.js";

/** Messages per `send`: each send is awaited before the next, so order is kept across them. */
const SEND_CHUNK = 5_000;
const CHANGELOG_FORMATS = new Set(["changelog-json", "debezium-json"]);

type Partitioner = "default" | "fixed" | "round-robin";

/** Exactly-once: the messages of one epoch (between two checkpoints), staged until it commits. */
interface KafkaEpoch {
  readonly id: number;
  readonly messages: readonly KafkaOutgoingMessage[];
  /** The same, as checkpoint JSON. */
  readonly json: Json;
}

/**
 * The `kafka` and `upsert-kafka` sinks, through an idempotent producer (`maxInFlightRequests` 1,
 * `acks` all): at-least-once, and per partition in the order of `write`. `write` only encodes;
 * `flush` sends and waits for the acknowledgements.
 *
 * - `kafka` with an append-only format (json, csv, raw) takes only `+I`/`+U`;
 * - `kafka` with a changelog format writes one message per change; messages are keyed by
 *   `key.fields`, else the PRIMARY KEY, else the input's stream key (as JSON unless `key.format`);
 * - `upsert-kafka` keys each message by the PRIMARY KEY: `+I`/`+U` write the row, `-D` a
 *   tombstone (null value), `-U` nothing (the `+U` that follows overwrites the key).
 */
/**
 * What a Kafka sink refuses before it connects (also checked by `weir run --dry-run`): one
 * `'topic'`, and only the writable metadata keys. Returns the topic.
 */
export function checkKafkaSink(node: SinkNode): string {
  const options = node.options;
  const topics = topicList(options);
  if (topics.length !== 1 || options["topic-pattern"] !== undefined) {
    throw new ConnectorError(
      `table ${node.table}: a Kafka sink writes to exactly one 'topic'`,
      "user",
      undefined,
      false,
      {
        table: node.table,
        option: options["topic-pattern"] !== undefined ? "topic-pattern" : "topic",
      },
    );
  }
  for (const m of node.metadataColumns ?? []) {
    if (m.key !== "timestamp" && m.key !== "headers") {
      throw new ConnectorError(
        `table ${node.table}: metadata column '${node.tableSchema[m.column]?.name}' (key '${m.key}') is read-only; a Kafka sink writes only 'timestamp' and 'headers' (declare it VIRTUAL)`,
        "user",
        undefined,
        false,
        { table: node.table },
      );
    }
  }
  return topics[0]!;
}

/** The checks a Kafka sink makes of its table when it opens, without connecting (for `--dry-run`). */
export function checkKafkaSinkTable(node: SinkNode, config: KafkaConfig): void {
  new KafkaSinkWriter(() => {
    throw new Error("not connected");
  }, config).configure(node);
}

export class KafkaSinkWriter implements SinkWriter {
  private client!: KafkaClient;
  private producer: KafkaProducer | null = null;
  private topic = "";
  private layout!: KafkaLayout;
  private value!: MessageEncoder;
  private key: MessageEncoder | null = null;
  private upsert = false;
  private changelog = false;
  private partitioner: Partitioner = "default";
  private partitions = 1;
  private roundRobin = 0;
  private pending: KafkaOutgoingMessage[] = [];
  private table = "";
  /** Exactly-once: the progress group and its admin client, and the staged epochs. */
  private exactlyOnce: { readonly group: string; readonly admin: KafkaAdmin } | null = null;
  private staged: KafkaEpoch[] = [];
  private eosRequested = false;

  get transactional(): boolean {
    return this.eosRequested;
  }

  /** Index in the row of the writable `timestamp` / `headers` metadata columns, or -1. */
  private timestampColumn = -1;
  private headersColumn = -1;

  constructor(
    private readonly connect: KafkaConnect,
    private readonly config: KafkaConfig,
  ) {}

  /**
   * Everything the sink checks of its table before it connects (topic, metadata columns, key and
   * value layout and formats, partitioner); `--dry-run` runs it too ({@link checkKafkaSinkTable}).
   */
  configure(node: SinkNode): void {
    const options = node.options;
    this.table = node.table;
    this.upsert = this.config.upsert;
    this.topic = checkKafkaSink(node);
    const metadata = new Map((node.metadataColumns ?? []).map((m) => [m.column, m.key]));
    this.timestampColumn = [...metadata].find(([, k]) => k === "timestamp")?.[0] ?? -1;
    this.headersColumn = [...metadata].find(([, k]) => k === "headers")?.[0] ?? -1;
    const columns: KafkaColumn[] = node.tableSchema.map((f, i) => ({
      name: f.name,
      type: f.type,
      kind: metadata.has(i) ? "metadata" : "physical",
    }));
    this.layout = kafkaLayout(
      node.table,
      this.upsert ? "upsert-kafka" : "kafka",
      options,
      columns,
      node.primaryKey,
    );
    this.changelog = !this.upsert && CHANGELOG_FORMATS.has(this.layout.value.name);
    this.value = messageEncoder(this.layout.value);
    this.key = this.keyEncoder(node, columns);
    const partitioner = options["sink.partitioner"] ?? "default";
    if (partitioner !== "default" && partitioner !== "fixed" && partitioner !== "round-robin") {
      throw new ConnectorError(
        `table ${node.table}: 'sink.partitioner' = '${partitioner}' is not supported (default, fixed, round-robin)`,
        "user",
      );
    }
    this.partitioner = partitioner;
  }

  async open(ctx: SinkWriterContext): Promise<void> {
    const node = ctx.node;
    const options = node.options;
    this.configure(node);
    this.eosRequested = this.config.delivery === "exactly-once";
    const problem = deliveryProblem(
      kafkaSpecOf(node.connector).sink!,
      this.config,
      ctx.checkpointIntervalMs ?? 0,
    );
    if (problem !== null) throw new ConnectorError(problem, "user", `table ${node.table}`);
    if (this.eosRequested && !(ctx.jobId && ctx.sinkId))
      throw new ConnectorError(
        "'sink.delivery-guarantee' = 'exactly-once' runs only in a checkpointed job",
        "user",
        `table ${node.table}`,
      );

    this.client = this.connect(connectionConfig(options, node.table));
    if (this.partitioner === "round-robin") {
      const admin = this.client.admin();
      try {
        await admin.connect();
        const meta = await admin.fetchTopicMetadata({ topics: [this.topic] });
        this.partitions = meta.topics[0]?.partitions.length || 1;
      } catch (e) {
        throw new ConnectorError(
          `cannot read topic ${this.topic}: ${(e as Error).message}`,
          "external",
          `table ${node.table}`,
          true,
        );
      } finally {
        await admin.disconnect().catch(() => undefined);
      }
    }
    let transactionalId: string | undefined;
    if (this.eosRequested) {
      // Stable per sink subtask: a restarted job's producer fences the crashed one's.
      transactionalId = `${this.config.transactionalIdPrefix}-${ctx.subtaskIndex ?? 0}`;
      const admin = this.client.admin();
      try {
        await admin.connect();
      } catch (e) {
        throw new ConnectorError(
          `cannot connect to Kafka: ${(e as Error).message}`,
          "external",
          `table ${node.table}`,
          true,
        );
      }
      this.exactlyOnce = { group: `${transactionalId}.weir-progress.${ctx.jobId}`, admin };
    }
    const timeout = this.config.transactionTimeout;
    const producer = this.client.producer({
      idempotent: true,
      maxInFlightRequests: 1,
      ...(transactionalId !== undefined
        ? {
            transactionalId,
            transactionTimeout: timeout === undefined ? DEFAULT_TRANSACTION_TIMEOUT_MS : Number(timeout),
          }
        : {}),
    });
    try {
      await producer.connect();
    } catch (e) {
      throw new ConnectorError(
        `cannot connect to Kafka: ${(e as Error).message}`,
        "external",
        `table ${node.table}`,
        true,
      );
    }
    this.producer = producer;
  }

  /** The key encoder: the layout's key, or for a changelog topic the PRIMARY KEY / stream key as JSON. */
  private keyEncoder(node: SinkNode, columns: readonly KafkaColumn[]): MessageEncoder | null {
    if (this.layout.key !== null) return messageEncoder(this.layout.key);
    if (!this.changelog) return null;
    const key = node.primaryKey ?? node.streamKey;
    if (key === null || key.length === 0) return null;
    return messageEncoder({
      name: "json",
      fields: key.map((i) => ({ name: columns[i].name, type: columns[i].type, column: i })),
      options: new FormatOptions({}, "json"),
    });
  }

  write(batch: ChangeBatch): void {
    const { ops, rows, length } = batch;
    for (let i = 0; i < length; i++) {
      const op = ops[i] as Op;
      const row = rows[i];
      let value: Buffer | string | null;
      if (this.upsert) {
        if (op === Op.UPDATE_BEFORE) continue;
        value = op === Op.DELETE ? null : this.value.encode(Op.INSERT, row);
      } else {
        if (!this.changelog && (op === Op.UPDATE_BEFORE || op === Op.DELETE)) {
          throw new ConnectorError(
            `table ${this.table}: format '${this.layout.value.name}' writes an append-only topic and cannot write a retraction (the planner should have rejected this)`,
            "internal",
          );
        }
        value = this.value.encode(op, row);
      }
      const key = this.key === null ? null : this.key.encode(Op.INSERT, row);
      const message: KafkaOutgoingMessage = { key, value };
      if (this.timestampColumn >= 0) {
        const ts = row[this.timestampColumn];
        if (typeof ts === "number") message.timestamp = String(ts);
      }
      if (this.headersColumn >= 0) {
        const headers = row[this.headersColumn];
        if (headers instanceof Map) {
          const out: Record<string, Buffer> = {};
          for (const [k, v] of headers) {
            if (typeof k === "string" && v instanceof Uint8Array) out[k] = Buffer.from(v);
          }
          message.headers = out;
        }
      }
      if (this.partitioner === "fixed") message.partition = 0;
      else if (this.partitioner === "round-robin") message.partition = this.roundRobin++ % this.partitions;
      this.pending.push(message);
    }
  }

  /** Sends the buffer (at-least-once); exactly-once keeps it for the checkpoint's epoch. */
  async flush(): Promise<void> {
    const producer = this.producer;
    if (producer === null || this.pending.length === 0 || this.exactlyOnce !== null) return;
    const messages = this.pending;
    this.pending = [];
    for (let i = 0; i < messages.length; i += SEND_CHUNK) {
      try {
        await producer.send({ topic: this.topic, acks: -1, messages: messages.slice(i, i + SEND_CHUNK) });
      } catch (e) {
        throw new ConnectorError(
          `cannot write to topic ${this.topic}: ${(e as Error).message}`,
          "external",
          `table ${this.table}`,
          true,
        );
      }
    }
  }

  /**
   * Exactly-once: the buffer becomes epoch `checkpointId`; the checkpoint holds every epoch not yet
   * committed (this one and those of aborted checkpoints), encoded, so that a restored job can
   * write them if the crash came before the commit.
   */
  async preCommit(checkpointId: number): Promise<Json> {
    if (this.exactlyOnce === null) return null;
    if (this.pending.length > 0) {
      const messages = this.pending;
      this.pending = [];
      this.staged.push({ id: checkpointId, messages, json: messages.map(encodeMessage) });
    }
    return {
      version: 1,
      epochs: this.staged.map((e) => ({ id: e.id, messages: e.json })),
    };
  }

  /**
   * Exactly-once: checkpoint `checkpointId` is complete. Unless the progress group says it was
   * committed already (a restore of a checkpoint whose commit ran), one transaction writes the
   * staged epochs after the last committed checkpoint and, through `sendOffsets`, records
   * `checkpointId` as the progress group's offset of partition 0 of the topic: the records and
   * the progress become visible to `read_committed` consumers together, or not at all.
   */
  async commit(checkpointId: number, preCommitted: Json): Promise<void> {
    const eo = this.exactlyOnce;
    const producer = this.producer;
    if (eo === null || producer === null) return;
    const pre = preCommitted as { epochs?: { id: number; messages: Json[] }[] } | null;
    const epochs = (pre?.epochs ?? []).filter((e) => e.id <= checkpointId);
    const where = `table ${this.table}`;
    let last: number;
    try {
      last = await this.committedCheckpoint(eo);
    } catch (e) {
      throw new ConnectorError(
        `cannot read the progress of group ${eo.group}: ${(e as Error).message}`,
        "external",
        where,
        true,
      );
    }
    if (last < checkpointId) {
      const txn = await producer.transaction();
      try {
        for (const e of epochs) {
          if (e.id <= last) continue;
          const messages = e.messages.map(decodeMessage);
          for (let i = 0; i < messages.length; i += SEND_CHUNK)
            await txn.send({ topic: this.topic, acks: -1, messages: messages.slice(i, i + SEND_CHUNK) });
        }
        await txn.sendOffsets({
          consumerGroupId: eo.group,
          topics: [{ topic: this.topic, partitions: [{ partition: 0, offset: String(checkpointId) }] }],
        });
        await txn.commit();
      } catch (e) {
        await txn.abort().catch(() => undefined);
        throw new ConnectorError(
          `cannot commit the transaction of checkpoint ${checkpointId} to topic ${this.topic}: ${(e as Error).message}`,
          "external",
          where,
          true,
        );
      }
    }
    this.staged = this.staged.filter((e) => e.id > checkpointId);
  }

  /** The last checkpoint the progress group recorded as committed (−1: none). */
  private async committedCheckpoint(eo: { group: string; admin: KafkaAdmin }): Promise<number> {
    const offsets = await eo.admin.fetchOffsets({ groupId: eo.group, topics: [this.topic] });
    const p0 = offsets.find((t) => t.topic === this.topic)?.partitions.find((p) => p.partition === 0);
    const n = p0 === undefined ? -1 : Number(p0.offset);
    return Number.isFinite(n) ? n : -1;
  }

  async close(): Promise<void> {
    const producer = this.producer;
    if (producer === null) return;
    try {
      await this.flush();
    } finally {
      this.producer = null;
      await producer.disconnect().catch(() => undefined);
      await this.exactlyOnce?.admin.disconnect().catch(() => undefined);
    }
  }
}

/** A message as checkpoint JSON: key, value and header values in base64. */
function encodeMessage(m: KafkaOutgoingMessage): Json {
  const b64 = (x: Buffer | string | null) => (x === null ? null : Buffer.from(x).toString("base64"));
  const out: { [k: string]: Json } = { k: b64(m.key), v: b64(m.value) };
  if (m.partition !== undefined) out.p = m.partition;
  if (m.timestamp !== undefined) out.t = m.timestamp;
  if (m.headers !== undefined)
    out.h = Object.fromEntries(Object.entries(m.headers).map(([k, v]) => [k, v.toString("base64")]));
  return out;
}

function decodeMessage(j: Json): KafkaOutgoingMessage {
  const o = j as { k: string | null; v: string | null; p?: number; t?: string; h?: Record<string, string> };
  const buf = (x: string | null) => (x === null ? null : Buffer.from(x, "base64"));
  const m: KafkaOutgoingMessage = { key: buf(o.k), value: buf(o.v) };
  if (o.p !== undefined) m.partition = o.p;
  if (o.t !== undefined) m.timestamp = o.t;
  if (o.h !== undefined)
    m.headers = Object.fromEntries(Object.entries(o.h).map(([k, v]) => [k, Buffer.from(v, "base64")]));
  return m;
}
