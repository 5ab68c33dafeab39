import type { SinkNode } from "@weir/planner";
import { type ChangeBatch, ConnectorError, Op, type SinkWriter, type SinkWriterContext } from "@weir/runtime";
import { FormatOptions } from "../formats/format.js";
import type { KafkaClient, KafkaConnect, KafkaOutgoingMessage, KafkaProducer } from "./client.js";
import { type MessageEncoder, messageEncoder } from "./codec.js";
import { connectionConfig, type KafkaColumn, type KafkaLayout, kafkaLayout, topicList } from "./options.js";

/** Messages per `send`: each send is awaited before the next, so order is kept across them. */
const SEND_CHUNK = 5_000;
const CHANGELOG_FORMATS = new Set(["changelog-json", "debezium-json"]);

type Partitioner = "default" | "fixed" | "round-robin";

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

  /** Index in the row of the writable `timestamp` / `headers` metadata columns, or -1. */
  private timestampColumn = -1;
  private headersColumn = -1;

  constructor(private readonly connect: KafkaConnect) {}

  async open(ctx: SinkWriterContext): Promise<void> {
    const node = ctx.node;
    const options = node.options;
    this.table = node.table;
    this.upsert = node.connector === "upsert-kafka";
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
    const guarantee = options["sink.delivery-guarantee"] ?? "at-least-once";
    if (guarantee === "exactly-once") {
      throw new ConnectorError(
        `table ${node.table}: 'sink.delivery-guarantee' = 'exactly-once' is not implemented yet (use 'at-least-once')`,
        "user",
      );
    }

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
    const producer = this.client.producer({ idempotent: true, maxInFlightRequests: 1 });
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

  async flush(): Promise<void> {
    const producer = this.producer;
    if (producer === null || this.pending.length === 0) return;
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

  async close(): Promise<void> {
    const producer = this.producer;
    if (producer === null) return;
    try {
      await this.flush();
    } finally {
      this.producer = null;
      await producer.disconnect().catch(() => undefined);
    }
  }
}
