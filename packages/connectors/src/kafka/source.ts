import { randomUUID } from "node:crypto";
import type { DataType, SourceNode } from "@weir/planner";
import {
  ChangeBatchBuilder,
  ConnectorError,
  type Json,
  Op,
  type PollResult,
  type Row,
  type SourceReader,
  type SourceReaderContext,
  type SplitBatch,
} from "@weir/runtime";
import { FormatError } from "../formats/errors.js";
import type {
  KafkaAdmin,
  KafkaBatch,
  KafkaBatchEndPayload,
  KafkaClient,
  KafkaConnect,
  KafkaConsumer,
  KafkaCrashPayload,
  KafkaEvent,
  KafkaMessage,
} from "./client.js";
import { KeyDecoder, type MessageDecoder, messageDecoder } from "./codec.js";
import { type MetadataGetter, metadataGetter } from "./metadata.js";
import { resolveRanges } from "./offsets.js";
import { connectionConfig, type KafkaColumn, type KafkaLayout, kafkaLayout, topicList } from "./options.js";
import { findRestoreGaps, gapSize, restoreGapError, type SavedPartition } from "./restore-gaps.js";

/** Per topic-partition progress. Invariant: `next ≤ fetched`; records in `[next, fetched)` are buffered. */
interface PartitionState {
  readonly topic: string;
  readonly partition: number;
  /** The split id: `<topic>-<partition>`. */
  readonly split: string;
  /** Offset after the last record handed out by `poll` (the position). */
  next: number;
  /** Offset after the last record put into the buffer. */
  fetched: number;
  readonly end: number | null;
  paused: boolean;
}

/** Fetched records of one partition, waiting for `poll`; `advanceTo` is where the chunk leaves `next`. */
interface Chunk {
  readonly part: PartitionState;
  readonly messages: KafkaMessage[];
  index: number;
  readonly advanceTo: number;
}

/** Buffered records above which the consumer is paused, and below which it resumes. */
const HIGH_WATER = 20_000;
const LOW_WATER = 5_000;
const IDLE_WAIT_MS = 50;

/**
 * The `kafka` and `upsert-kafka` sources. Each topic-partition is a split. Start and end offsets
 * are resolved once at open; the consumer is a kafkajs group member of a private group (so that
 * partitions are never shared with another consumer of `'properties.group.id'`), seeks to the
 * exact next offset of each partition on every assignment, and fills a bounded buffer that
 * `poll` drains (the consumer is paused while the buffer is full). The position — the next
 * offset per partition — is Weir's source of truth; offsets are committed to
 * `'properties.group.id'` only as a courtesy, when positions are taken and at close.
 */
export class KafkaSourceReader implements SourceReader {
  private client!: KafkaClient;
  private admin!: KafkaAdmin;
  private consumer: KafkaConsumer | null = null;
  private node!: SourceNode;
  private metrics!: Map<string, number>;
  private layout!: KafkaLayout;
  private upsert = false;
  private valueDecoder!: MessageDecoder;
  private keyDecoder: KeyDecoder | null = null;
  /** Decode the key of every record (EXCEPT_KEY, or tombstones of upsert-kafka). */
  private keyAlways = false;
  private metadata: { column: number; get: MetadataGetter }[] = [];
  private readonly parts = new Map<string, PartitionState>();
  private queue: Chunk[] = [];
  private head = 0;
  private buffered = 0;
  private pausedAll = false;
  private failure: Error | null = null;
  private readonly scratch = new ChangeBatchBuilder(4);
  private commits: Promise<void> = Promise.resolve();
  private groupId: string | undefined;
  private committing = false;

  constructor(private readonly connect: KafkaConnect) {}

  async open(ctx: SourceReaderContext): Promise<void> {
    const { node } = ctx;
    this.node = node;
    this.metrics = ctx.metrics;
    this.upsert = node.connector === "upsert-kafka";
    // upsert-kafka reads the whole compacted topic (Flink's connector has no startup mode).
    const options: Readonly<Record<string, string>> =
      this.upsert && node.options["scan.startup.mode"] === undefined
        ? { ...node.options, "scan.startup.mode": "earliest-offset" }
        : node.options;
    this.groupId = options["properties.group.id"];
    const columns: KafkaColumn[] = [];
    const outputToColumn = new Map<number, number>();
    node.columns.forEach((c, i) => {
      if (c.kind === "computed") return;
      outputToColumn.set(i, columns.length);
      const type = node.schema[i].type as DataType;
      if (c.kind === "physical") columns.push({ name: c.name, type, kind: "physical" });
      else {
        this.metadata.push({ column: columns.length, get: metadataGetter(c.key, node.table) });
        columns.push({ name: node.schema[i].name, type, kind: "metadata" });
      }
    });
    const pk = node.primaryKey ? node.primaryKey.map((i) => outputToColumn.get(i) ?? -1) : null;
    this.layout = kafkaLayout(node.table, this.upsert ? "upsert-kafka" : "kafka", options, columns, pk);
    this.valueDecoder = messageDecoder(this.layout.value);
    if (this.layout.key !== null) {
      this.keyDecoder = new KeyDecoder(this.layout.key);
      this.keyAlways = !this.layout.valueFieldsIncludeAll;
    }

    this.client = this.connect(connectionConfig(options, node.table));
    this.admin = this.client.admin();
    await this.external(() => this.admin.connect(), "cannot connect to Kafka");
    const topics = await this.external(() => this.topics(), "cannot list topics");
    const metadata = await this.external(
      () => this.admin.fetchTopicMetadata({ topics }),
      `cannot read the metadata of ${topics.join(", ")}`,
    );
    const partitions = new Map<string, number[]>();
    for (const t of metadata.topics) {
      partitions.set(
        t.name,
        t.partitions.map((p) => p.partitionId).sort((a, b) => a - b),
      );
    }
    const ranges = await resolveRanges(this.admin, node.table, options, partitions);
    for (const r of ranges) {
      const split = `${r.topic}-${r.partition}`;
      this.parts.set(split, {
        topic: r.topic,
        partition: r.partition,
        split,
        next: r.start,
        fetched: r.start,
        end: r.end,
        paused: false,
      });
    }
  }

  private async topics(): Promise<string[]> {
    const options = this.node.options;
    const pattern = options["topic-pattern"];
    if (pattern !== undefined) {
      let re: RegExp;
      try {
        re = new RegExp(`^(?:${pattern})$`);
      } catch (e) {
        throw new ConnectorError(`option 'topic-pattern': ${(e as Error).message}`, "user");
      }
      const all = await this.admin.listTopics();
      const hits = all.filter((t) => !t.startsWith("__") && re.test(t)).sort();
      if (hits.length === 0) {
        throw new ConnectorError(
          `table ${this.node.table}: no topic matches 'topic-pattern' '${pattern}'`,
          "user",
        );
      }
      return hits;
    }
    const topics = topicList(options);
    if (topics.length === 0) {
      throw new ConnectorError(
        `table ${this.node.table}: option 'topic' (or 'topic-pattern') is required`,
        "user",
      );
    }
    const existing = new Set(await this.admin.listTopics());
    const missing = topics.filter((t) => !existing.has(t));
    if (missing.length > 0) {
      throw new ConnectorError(
        `table ${this.node.table}: topic ${missing.join(", ")} does not exist`,
        "user",
      );
    }
    return topics;
  }

  /**
   * Continues from the checkpoint's next offset per partition, after checking each against the
   * partition's earliest available offset (see {@link findRestoreGaps}): a gap or a partition
   * that cannot be looked up fails the restore, unless `'scan.restore.gap-policy' = 'skip'`,
   * which continues a gapped partition from its earliest offset and counts the lost records
   * (`restoreGapRecords`, `restoreGapPartitions`). An unknown partition is never skipped.
   */
  async restore(position: Json): Promise<void> {
    if (position === null || typeof position !== "object" || Array.isArray(position)) {
      throw new ConnectorError("cannot restore the Kafka source: malformed position", "internal");
    }
    const saved: SavedPartition[] = [];
    for (const [topic, partitions] of Object.entries(position)) {
      if (partitions === null || typeof partitions !== "object" || Array.isArray(partitions)) continue;
      for (const [p, offset] of Object.entries(partitions)) {
        if (typeof offset !== "number") continue;
        const part = this.parts.get(`${topic}-${p}`);
        saved.push({ topic, partition: Number(p), next: offset, end: part?.end ?? null });
      }
    }
    const earliest = new Map<string, Map<number, number> | { error: string }>();
    for (const topic of new Set(saved.map((s) => s.topic))) {
      try {
        const offsets = await this.admin.fetchTopicOffsets(topic);
        earliest.set(topic, new Map(offsets.map((o) => [o.partition, Number(o.low)])));
      } catch (e) {
        earliest.set(topic, { error: `cannot fetch its offsets: ${(e as Error).message}` });
      }
    }
    const gaps = findRestoreGaps(saved, earliest);
    const skip = this.node.options["scan.restore.gap-policy"] === "skip";
    if (gaps.length > 0 && (!skip || gaps.some((g) => g.kind === "unknown"))) {
      throw restoreGapError(this.node.table, gaps, skip);
    }
    const resumeAt = new Map<string, number>();
    for (const g of gaps) {
      if (g.kind !== "gap") continue;
      resumeAt.set(`${g.topic}-${g.partition}`, g.earliest);
      this.count("restoreGapRecords", gapSize(g));
      this.count("restoreGapPartitions", 1);
    }
    for (const s of saved) {
      const part = this.parts.get(`${s.topic}-${s.partition}`);
      if (part === undefined) continue;
      const at = resumeAt.get(part.split) ?? s.next;
      part.next = at;
      part.fetched = at;
    }
  }

  private count(name: string, n: number): void {
    this.metrics.set(name, (this.metrics.get(name) ?? 0) + n);
  }

  /** Every assigned partition that still has records to read holds the watermark back. */
  splits(): readonly string[] {
    const out: string[] = [];
    for (const p of this.parts.values()) if (p.end === null || p.next < p.end) out.push(p.split);
    return out;
  }

  position(): Json {
    const out: { [topic: string]: { [partition: string]: number } } = {};
    for (const p of this.parts.values()) {
      out[p.topic] ??= {};
      out[p.topic][String(p.partition)] = p.next;
    }
    this.commitCourtesy();
    return out;
  }

  async poll(maxRows: number): Promise<PollResult> {
    if (this.failure !== null) {
      throw new ConnectorError(
        `the Kafka consumer failed: ${this.failure.message}`,
        "external",
        undefined,
        true,
      );
    }
    if (this.finished()) return { kind: "end" };
    if (this.consumer === null) await this.start();
    const out = new Map<PartitionState, ChangeBatchBuilder>();
    let rows = 0;
    let taken = 0;
    while (this.head < this.queue.length && rows < maxRows) {
      const chunk = this.queue[this.head];
      const { part, messages } = chunk;
      let builder = out.get(part);
      while (chunk.index < messages.length && rows < maxRows) {
        const m = messages[chunk.index++];
        taken++;
        builder ??= new ChangeBatchBuilder(Math.min(maxRows, messages.length));
        rows += this.decode(m, part, builder);
        part.next = Number(m.offset) + 1;
      }
      if (builder !== undefined && builder.length > 0) out.set(part, builder);
      if (chunk.index === messages.length) {
        if (chunk.advanceTo > part.next) part.next = chunk.advanceTo;
        this.queue[this.head++] = undefined as unknown as Chunk;
      }
    }
    if (this.head === this.queue.length) {
      this.queue = [];
      this.head = 0;
    }
    this.buffered -= taken;
    if (this.pausedAll && this.buffered <= LOW_WATER) this.resumeAll();
    if (rows > 0) {
      const splits: SplitBatch[] = [];
      for (const [part, b] of out) splits.push({ split: part.split, batch: b.finish() });
      return { kind: "data", splits };
    }
    return this.finished() ? { kind: "end" } : { kind: "idle", waitMs: IDLE_WAIT_MS };
  }

  /** Bounded and every partition reached its end offset. */
  private finished(): boolean {
    for (const p of this.parts.values()) if (p.end === null || p.next < p.end) return false;
    return true;
  }

  /** Counts a record whose value is null, empty or blank (it holds no row); returns 0. */
  private skippedEmpty(): number {
    this.metrics.set("emptyValuesSkipped", (this.metrics.get("emptyValuesSkipped") ?? 0) + 1);
    return 0;
  }

  /** Decodes one record into rows of `out`; returns how many. Bad records fail or are skipped. */
  private decode(m: KafkaMessage, part: PartitionState, out: ChangeBatchBuilder): number {
    const keyed = this.keyDecoder;
    try {
      if (m.value === null) {
        if (!this.upsert || keyed === null) return this.skippedEmpty(); // Flink drops them; Weir counts them.
        const key = keyed.decode(m.key);
        if (key === null) throw new FormatError("a tombstone without a key");
        out.push(Op.DELETE, this.assemble(null, key, m, part));
        return 1;
      }
      const scratch = this.scratch;
      this.valueDecoder.decode(m.value, scratch);
      if (scratch.length === 0) return this.skippedEmpty(); // an empty or blank value: no record
      const key = keyed !== null && this.keyAlways ? keyed.decode(m.key) : null;
      const decoded = scratch.finish();
      for (let i = 0; i < decoded.length; i++) {
        out.push(decoded.ops[i] as Op, this.assemble(decoded.rows[i], key, m, part));
      }
      return decoded.length;
    } catch (e) {
      this.scratch.finish();
      if (!(e instanceof FormatError)) throw e;
      const ignore = this.valueDecoder.ignoreParseErrors || (keyed?.ignoreParseErrors ?? false);
      if (ignore) {
        this.metrics.set("skippedRecords", (this.metrics.get("skippedRecords") ?? 0) + 1);
        return 0;
      }
      throw new ConnectorError(
        e.message,
        "user",
        `topic ${part.topic} partition ${part.partition} offset ${m.offset}`,
      );
    }
  }

  /** The connector row: key fields from the key, value fields from the value (they win under ALL), metadata. */
  private assemble(value: Row | null, key: Row | null, m: KafkaMessage, part: PartitionState): Row {
    const layout = this.layout;
    const row = new Array<unknown>(layout.width).fill(null);
    if (key !== null && layout.key !== null) {
      const kf = layout.key.fields;
      for (let i = 0; i < kf.length; i++) row[kf[i].column] = key[i];
    }
    if (value !== null) {
      const vf = layout.value.fields;
      for (let i = 0; i < vf.length; i++) row[vf[i].column] = value[i];
    }
    for (const md of this.metadata) row[md.column] = md.get(m, part.topic, part.partition);
    return row;
  }

  private async start(): Promise<void> {
    const consumer = this.client.consumer({
      groupId: `weir-${this.node.table}-${randomUUID()}`,
      readUncommitted:
        (this.node.options["properties.isolation.level"] ?? "read_committed") === "read_uncommitted",
      maxWaitTimeInMs: 100,
      allowAutoTopicCreation: false,
    });
    this.consumer = consumer;
    consumer.on(consumer.events.CRASH, (e: KafkaEvent<KafkaCrashPayload>) => {
      if (!e.payload.restart) this.failure = e.payload.error;
    });
    consumer.on(consumer.events.GROUP_JOIN, () => this.seekAll());
    consumer.on(consumer.events.END_BATCH_PROCESS, (e: KafkaEvent<KafkaBatchEndPayload>) => {
      // A batch of only transaction markers or aborted records never reaches eachBatch: advance past it.
      if (e.payload.batchSize === 0)
        this.onBatch(e.payload.topic, e.payload.partition, [], e.payload.lastOffset);
    });
    const topics = [...new Set([...this.parts.values()].map((p) => p.topic))];
    await this.external(() => consumer.connect(), "cannot connect the Kafka consumer");
    await this.external(() => consumer.subscribe({ topics, fromBeginning: true }), "cannot subscribe");
    await this.external(
      () =>
        consumer.run({
          autoCommit: false,
          eachBatchAutoResolve: false,
          partitionsConsumedConcurrently: 1,
          eachBatch: async ({ batch }: { batch: KafkaBatch }) => {
            this.onBatch(batch.topic, batch.partition, batch.messages, batch.lastOffset());
          },
        }),
      "cannot start the Kafka consumer",
    );
    this.seekAll();
  }

  /** Seeks every partition to its fetch position (records before it are dropped if still delivered). */
  private seekAll(): void {
    const consumer = this.consumer;
    if (consumer === null) return;
    for (const p of this.parts.values()) {
      consumer.seek({ topic: p.topic, partition: p.partition, offset: String(p.fetched) });
      if (p.end !== null && p.fetched >= p.end) this.pausePartition(p);
    }
  }

  private onBatch(topic: string, partition: number, messages: KafkaMessage[], lastOffset: string): void {
    const part = this.parts.get(`${topic}-${partition}`);
    if (part === undefined) return;
    const accepted: KafkaMessage[] = [];
    for (const m of messages) {
      const o = Number(m.offset);
      if (o < part.fetched) continue; // fetched before a seek
      if (part.end !== null && o >= part.end) break;
      accepted.push(m);
    }
    let advanceTo = Math.max(Number(lastOffset) + 1, part.fetched);
    if (part.end !== null && advanceTo > part.end) advanceTo = part.end;
    if (accepted.length === 0 && advanceTo === part.fetched) return;
    part.fetched = advanceTo;
    this.queue.push({ part, messages: accepted, index: 0, advanceTo });
    this.buffered += accepted.length;
    if (part.end !== null && part.fetched >= part.end) this.pausePartition(part);
    if (!this.pausedAll && this.buffered >= HIGH_WATER) this.pauseAll();
  }

  private pausePartition(p: PartitionState): void {
    if (p.paused) return;
    p.paused = true;
    this.consumer?.pause([{ topic: p.topic, partitions: [p.partition] }]);
  }

  private pauseAll(): void {
    this.pausedAll = true;
    this.consumer?.pause(
      [...new Set([...this.parts.values()].map((p) => p.topic))].map((topic) => ({ topic })),
    );
  }

  private resumeAll(): void {
    this.pausedAll = false;
    const byTopic = new Map<string, number[]>();
    for (const p of this.parts.values()) {
      if (p.paused) continue;
      const list = byTopic.get(p.topic) ?? [];
      list.push(p.partition);
      byTopic.set(p.topic, list);
    }
    this.consumer?.resume([...byTopic].map(([topic, partitions]) => ({ topic, partitions })));
  }

  /**
   * Commits the positions to `'properties.group.id'` in the background; failures are ignored.
   * While one commit is in flight, newer positions wait for the next call (or close).
   */
  private commitCourtesy(): void {
    const groupId = this.groupId;
    if (groupId === undefined || this.admin === undefined || this.committing) return;
    const byTopic = new Map<string, { partition: number; offset: string }[]>();
    for (const p of this.parts.values()) {
      const list = byTopic.get(p.topic) ?? [];
      list.push({ partition: p.partition, offset: String(p.next) });
      byTopic.set(p.topic, list);
    }
    this.committing = true;
    this.commits = (async () => {
      for (const [topic, partitions] of byTopic) {
        await this.admin.setOffsets({ groupId, topic, partitions }).catch(() => undefined);
      }
      this.committing = false;
    })();
  }

  async close(): Promise<void> {
    if (this.admin === undefined) return;
    await this.commits;
    this.commitCourtesy();
    await this.commits;
    const consumer = this.consumer;
    this.consumer = null;
    await consumer?.disconnect().catch(() => undefined);
    await this.admin.disconnect().catch(() => undefined);
  }

  private async external<T>(f: () => Promise<T>, what: string): Promise<T> {
    try {
      return await f();
    } catch (e) {
      if (e instanceof ConnectorError) throw e;
      throw new ConnectorError(
        `${what}: ${(e as Error).message}`,
        "external",
        `table ${this.node.table}`,
        true,
      );
    }
  }
}
