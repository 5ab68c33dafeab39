import { randomUUID } from "node:crypto";
import { type DataType, parseDuration, type SourceNode } from "@weir/planner";
import {
  ChangeBatchBuilder,
  ConnectorError,
  type Json,
  Op,
  type PollResult,
  type Row,
  type SourceReader,
  type SourceReaderContext,
} from "@weir/runtime";
import { FormatError } from "../formats/errors.js";
import { FormatOptions, nestedProjectionOf } from "../formats/format.js";
import { parseNodeConfig } from "../node-config.js";
import type {
  KafkaAdmin,
  KafkaBatch,
  KafkaBatchEndPayload,
  KafkaClient,
  KafkaConnect,
  KafkaConsumer,
  KafkaCrashPayload,
  KafkaEvent,
  KafkaGroupJoinPayload,
  KafkaMessage,
  KafkaRecordRun,
  KafkaRecordView,
} from "./client.js";
import { KeyDecoder, type MessageDecoder, messageDecoder } from "./codec.js";
import {
  type MetadataGetter,
  metadataGetter,
  type ViewMetadataGetter,
  viewMetadataGetter,
} from "./metadata.js";
import { resolveRanges } from "./offsets.js";
import {
  connectionConfig,
  type KafkaColumn,
  type KafkaFormatSpec,
  type KafkaLayout,
  kafkaLayout,
  topicList,
} from "./options.js";
import { findRestoreGaps, gapSize, restoreGapError, type SavedPartition } from "./restore-gaps.js";
import { type KafkaConfig, kafkaSpecOf } from "./spec.js";

/**
 * Per topic-partition progress. Invariant: `next ≤ fetched`; the records in `[next, fetched)` are
 * buffered in `chunks` (and `head`), in offset order.
 */
interface PartitionState {
  readonly topic: string;
  readonly partition: number;
  /** The split id: `<topic>-<partition>`. */
  readonly split: string;
  /** Tie-break of the merge: partitions sort by topic, then partition number. */
  order: number;
  /**
   * Offset after the last record handed out by `poll` (the position). While `merge` runs it may
   * lag behind `passed`, which `settle` folds into it (so no record's offset is parsed per record).
   */
  next: number;
  /** The last record handed out (or passed over) whose offset `next` does not include yet. */
  passed: KafkaMessage | null;
  /** The same as an offset, for a record of a {@link KafkaRecordView} (-1: none; one of the two is set). */
  passedAt: number;
  /** Offset after the last record put into the buffer. */
  fetched: number;
  readonly end: number | null;
  /**
   * The offset up to which the broker is known to hold readable records (the last-stable offset
   * of a `read_committed` read, from the partition's offsets at open and every refresh); a
   * partition with `fetched < high` has records the merge must wait for.
   */
  high: number;
  /** Paused because its buffer is full (`PARTITION_HIGH_WATER`), or because it reached its end. */
  paused: boolean;
  readonly chunks: Chunk[];
  /** Buffered records not yet decoded into `head` or handed out. */
  buffered: number;
  /** The rows of the decoded next record (in `headOps`/`headRows`), waiting for its turn in the merge; 0: none. */
  headLength: number;
  readonly headOps: Op[];
  readonly headRows: Row[];
  /** The merge key of `head`: its event time (or the record timestamp without a watermark). */
  headTime: number;
  /** `head`'s record (null when it is record `headIndex` of `headView`, at offset `headAt`). */
  headMessage: KafkaMessage | null;
  headView: KafkaRecordView | null;
  headIndex: number;
  headAt: number;
}

/**
 * Fetched records of one partition, `messages[index..end)` (or the records `index..end` of
 * `view`), waiting for `poll`; `advanceTo` is where the chunk leaves `next` (-1: nowhere, a
 * chunk before the last of a batch).
 */
interface Chunk {
  readonly messages: KafkaMessage[] | null;
  readonly view: KafkaRecordView | null;
  index: number;
  readonly end: number;
  readonly advanceTo: number;
}

/**
 * The record of each row a merge hands out: `records[k]` itself (`indexes[k]` -1), or record
 * `indexes[k]` of the view `records[k]`.
 */
interface OriginLog {
  readonly records: (KafkaMessage | KafkaRecordView)[];
  readonly indexes: number[];
}

/**
 * `recordOrigins` of a merged batch: one record per row; the offsets (as kafkajs gives them,
 * decimal strings) and values are read only when a row's origin is asked for (a bad row).
 */
class MessageOrigins {
  private offsets: string[] | null = null;
  private values: unknown[] | null = null;

  constructor(private readonly log: OriginLog) {}

  get at(): readonly string[] {
    this.offsets ??= this.log.records.map((r, k) => {
      const i = this.log.indexes[k];
      // a view's offsets are safe integers: their text is kafkajs's
      return i < 0 ? (r as KafkaMessage).offset : String((r as KafkaRecordView).offsetAt(i));
    });
    return this.offsets;
  }

  get raw(): readonly unknown[] {
    this.values ??= this.log.records.map((r, k) => {
      const i = this.log.indexes[k];
      return i < 0 ? (r as KafkaMessage).value : (r as KafkaRecordView).message(i).value;
    });
    return this.values;
  }
}

/**
 * Buffered records of one partition above which its fetching is paused, and below which it
 * resumes: a partition that runs ahead in the merge waits without holding unbounded memory.
 */
const PARTITION_HIGH_WATER = 32_768;
const PARTITION_LOW_WATER = 16_384;
const IDLE_WAIT_MS = 50;
/** How often an unbounded source refreshes the partitions' end offsets (consumer lag, the merge). */
const OFFSETS_REFRESH_MS = 1_000;
/** Flink's default `'scan.topic-partition-discovery.interval'`; `0` turns discovery off. */
const DEFAULT_DISCOVERY_MS = 5 * 60_000;
/** kafkajs's metadata age when discovery is off (it still refreshes metadata after errors). */
const NEVER_REFRESH_MS = 2_147_483_647;

/**
 * The `kafka` and `upsert-kafka` sources. Each topic-partition is a split. Start and end offsets
 * are resolved once at open; the consumer is a kafkajs group member of a private group (so that
 * partitions are never shared with another consumer of `'properties.group.id'`), seeks to the
 * exact next offset of each partition on every assignment, and fills a bounded buffer per
 * partition that `poll` drains (a partition is paused while its buffer is full). The position —
 * the next offset per partition — is Weir's source of truth; offsets are committed to
 * `'properties.group.id'` only as a courtesy, when a checkpoint completes (the checkpoint's
 * offsets, as Flink does) and at close.
 *
 * **The merge.** `poll` hands out records in an order that depends only on the topic's contents,
 * never on fetch timing: the next record is always the one with the smallest event time (the
 * table's rowtime; the record timestamp when the table has no watermark) among the next records
 * of the partitions, ties broken by topic and partition. A partition whose buffer is empty but
 * that has records on the broker not yet fetched (`fetched < high`) holds the merge until they
 * arrive; a partition that has read everything the broker had (caught up, or empty) does not.
 * So a re-run, and a run restored from any checkpoint, interleave the partitions identically,
 * and which rows are late does not depend on how the client's fetches interleave.
 */
export class KafkaSourceReader implements SourceReader {
  private client!: KafkaClient;
  private admin!: KafkaAdmin;
  private consumer: KafkaConsumer | null = null;
  private node!: SourceNode;
  private metrics!: Map<string, number>;
  private layout!: KafkaLayout;
  /** An all-null connector row (packed), which `assemble` copies. */
  private blankRow: unknown[] = [];
  private upsert = false;
  private valueDecoder!: MessageDecoder;
  private keyDecoder: KeyDecoder | null = null;
  /** The value decoder's rows are the connector rows (see `open`). */
  private valueIsRow = false;
  /** Decode the key of every record (EXCEPT_KEY, or tombstones of upsert-kafka). */
  private keyAlways = false;
  /**
   * A record's rows need only its value bytes, offset and timestamp (no key; only metadata a view
   * gives): records of a {@link KafkaRecordView} are decoded from its bytes, no record object built.
   */
  private valuesOnly = false;
  private metadata: { column: number; get: MetadataGetter; getAt: ViewMetadataGetter | null }[] = [];
  private readonly parts = new Map<string, PartitionState>();
  /** `parts` in merge order (topic, partition). */
  private ordered: PartitionState[] = [];
  private failure: Error | null = null;
  /** Where `merge` collects the rows it hands out. */
  private readonly out = new ChangeBatchBuilder(1024);
  /** Where the value decoder puts a record's rows. */
  private readonly scratch = new ChangeBatchBuilder(4);
  private commits: Promise<void> = Promise.resolve();
  private groupId: string | undefined;
  private committing = false;
  private rowtime: ((row: Row) => unknown) | null = null;
  /** `recordOrigins`: the record of each row handed out by the current merge. */
  private origins: OriginLog | null = null;
  private onBadRecord: SourceReaderContext["onBadRecord"];
  private bounded = false;
  private discoveryMs = 0;
  private refreshing = false;
  private lastRefresh = 0;
  private topicNames: string[] = [];
  /** The merge stopped at a partition whose records are still being fetched. */
  private blocked = false;
  /** Wakes a poll that waits for a batch (see `batchArrival`). */
  private arrival: (() => void) | null = null;

  /** `config`: the spec's parse of the node's options (`kafkaSpec`); by default read from them at open. */
  constructor(
    private readonly connect: KafkaConnect,
    private readonly config?: KafkaConfig,
  ) {}

  async open(ctx: SourceReaderContext): Promise<void> {
    const { node } = ctx;
    this.node = node;
    this.metrics = ctx.metrics;
    this.rowtime = ctx.rowtime ?? null;
    this.onBadRecord = ctx.onBadRecord;
    if (ctx.recordOrigins) this.origins = { records: [], indexes: [] };
    const config = this.config ?? parseNodeConfig(kafkaSpecOf(node.connector), node);
    this.upsert = config.upsert;
    // upsert-kafka reads the whole compacted topic (Flink's connector has no startup mode).
    const options: Readonly<Record<string, string>> =
      this.upsert && node.options["scan.startup.mode"] === undefined
        ? { ...node.options, "scan.startup.mode": "earliest-offset" }
        : node.options;
    this.groupId = config.groupId;
    this.bounded = config.bounded;
    // A bounded read ends at the end offsets resolved at open: it discovers no partitions.
    const discovery = options["scan.topic-partition-discovery.interval"];
    this.discoveryMs = this.bounded
      ? 0
      : discovery === undefined
        ? DEFAULT_DISCOVERY_MS
        : (parseDuration(discovery) ?? DEFAULT_DISCOVERY_MS);
    const columns: KafkaColumn[] = [];
    const outputToColumn = new Map<number, number>();
    node.columns.forEach((c, i) => {
      if (c.kind === "computed") return;
      outputToColumn.set(i, columns.length);
      const type = node.schema[i].type as DataType;
      if (c.kind === "physical") columns.push({ name: c.name, type, kind: "physical" });
      else {
        this.metadata.push({
          column: columns.length,
          get: metadataGetter(c.key, node.table),
          getAt: viewMetadataGetter(c.key),
        });
        columns.push({ name: node.schema[i].name, type, kind: "metadata" });
      }
    });
    const pk = node.primaryKey ? node.primaryKey.map((i) => outputToColumn.get(i) ?? -1) : null;
    this.layout = kafkaLayout(node.table, this.upsert ? "upsert-kafka" : "kafka", options, columns, pk);
    this.blankRow = [];
    for (let i = 0; i < this.layout.width; i++) this.blankRow.push(null);
    this.valueDecoder = messageDecoder(this.valueSpec(outputToColumn));
    // The value decoder's row is the connector row as it is: no key, no metadata, same columns.
    this.valueIsRow =
      this.layout.key === null &&
      this.metadata.length === 0 &&
      this.layout.value.fields.length === this.layout.width &&
      this.layout.value.fields.every((f, i) => f.column === i);
    if (this.layout.key !== null) {
      this.keyDecoder = new KeyDecoder(this.layout.key);
      this.keyAlways = !this.layout.valueFieldsIncludeAll;
    }

    this.valuesOnly = this.keyDecoder === null && this.metadata.every((md) => md.getAt !== null);

    this.client = this.connect(connectionConfig(options, node.table));
    this.admin = this.client.admin();
    await this.external(() => this.admin.connect(), "cannot connect to Kafka");
    const topics = await this.external(() => this.topics(), "cannot list topics");
    this.topicNames = topics;
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
    for (const r of ranges) this.addPartition(r.topic, r.partition, r.start, r.end, r.high);
    this.lastRefresh = Date.now();
  }

  /**
   * The value format with the columns the query reads (projection push-down: the format may leave
   * the others NULL without converting them, as the filesystem source's) and, when the reader
   * appends a computed rowtime to each row, a spare slot for it.
   */
  private valueSpec(outputToColumn: ReadonlyMap<number, number>): KafkaFormatSpec {
    const spec = this.layout.value;
    const node = this.node;
    let projection: Set<number> | undefined;
    let nested: ReturnType<typeof nestedProjectionOf>;
    if (node.projectedColumns !== null) {
      const wanted = new Set<number>();
      for (const i of node.projectedColumns) {
        const c = outputToColumn.get(i);
        if (c !== undefined) wanted.add(c);
      }
      projection = new Set();
      spec.fields.forEach((f, k) => {
        if (wanted.has(f.column)) projection!.add(k);
      });
      if (projection.size === spec.fields.length) projection = undefined;
      nested = nestedProjectionOf(node.projectedPaths, (i) => {
        const c = outputToColumn.get(i);
        const k = c === undefined ? -1 : spec.fields.findIndex((f) => f.column === c);
        return k < 0 ? undefined : k;
      });
    }
    const wm = node.watermark?.column;
    const spare = this.rowtime !== null && wm !== undefined && node.columns[wm]?.kind === "computed" ? 1 : 0;
    if (projection === undefined && nested === undefined && spare === 0) return spec;
    const o = spec.options;
    return {
      ...spec,
      options: new FormatOptions(o.all, o.prefix, projection ?? o.projection, spare, nested ?? o.nested),
    };
  }

  private addPartition(
    topic: string,
    partition: number,
    start: number,
    end: number | null,
    high: number,
  ): PartitionState {
    const split = `${topic}-${partition}`;
    const part: PartitionState = {
      topic,
      partition,
      split,
      order: 0,
      next: start,
      passed: null,
      passedAt: -1,
      fetched: start,
      end,
      high,
      paused: false,
      chunks: [],
      buffered: 0,
      headLength: 0,
      headOps: [],
      headRows: [],
      headTime: 0,
      headMessage: null,
      headView: null,
      headIndex: 0,
      headAt: -1,
    };
    this.parts.set(split, part);
    this.ordered = [...this.parts.values()].sort((a, b) =>
      a.topic === b.topic ? a.partition - b.partition : a.topic < b.topic ? -1 : 1,
    );
    this.ordered.forEach((p, i) => {
      p.order = i;
    });
    return part;
  }

  /** The offset after the last readable record of every partition of `topics` (`split` → offset). */
  private async fetchHighs(topics: readonly string[]): Promise<Map<string, number>> {
    const out = new Map<string, number>();
    for (const topic of topics) {
      for (const o of await this.admin.fetchTopicOffsets(topic)) {
        out.set(`${topic}-${o.partition}`, Number(o.high));
      }
    }
    return out;
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
    for (const p of this.ordered) if (p.end === null || p.next < p.end) out.push(p.split);
    return out;
  }

  position(): Json {
    const out: { [topic: string]: { [partition: string]: number } } = {};
    for (const p of this.ordered) {
      out[p.topic] ??= {};
      out[p.topic][String(p.partition)] = p.next;
    }
    return out;
  }

  describe(split: string, at: number | string): string {
    const p = this.parts.get(split);
    return p === undefined
      ? `split ${split} offset ${at}`
      : `topic ${p.topic} partition ${p.partition} offset ${at}`;
  }

  /** A checkpoint is complete: its offsets are committed to `'properties.group.id'` (as Flink does). */
  onCheckpointComplete(position: Json): void {
    const byTopic = new Map<string, { partition: number; offset: string }[]>();
    for (const [topic, partitions] of Object.entries(position as Record<string, Record<string, number>>)) {
      byTopic.set(
        topic,
        Object.entries(partitions).map(([p, o]) => ({ partition: Number(p), offset: String(o) })),
      );
    }
    this.commitCourtesy(byTopic);
  }

  /**
   * Consumer lag per partition: the records on the broker after the position (the end offset
   * of a bounded read, else the partition's end offset at the last refresh, about every second).
   */
  lag(): { readonly [split: string]: number } {
    const out: { [split: string]: number } = {};
    for (const p of this.ordered) out[p.split] = Math.max(0, (p.end ?? p.high) - p.next);
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
    if (!this.bounded) this.refreshHighs();
    // The job loop runs without yielding to I/O while rows flow: let kafkajs take in its fetches.
    await yieldToIo();
    let result = this.merge(maxRows);
    if (result === null && this.blocked) {
      // Waiting for a partition's fetch: wake when a batch arrives rather than on a timer.
      await this.batchArrival(IDLE_WAIT_MS);
      result = this.merge(maxRows);
    }
    if (result !== null) return result;
    return this.finished() ? { kind: "end" } : { kind: "idle", waitMs: IDLE_WAIT_MS };
  }

  /**
   * Hands out up to `maxRows` rows in merge order, as runs of one split each; null when none can
   * be handed out now (`blocked` says whether a partition's fetch is awaited).
   */
  private merge(maxRows: number): PollResult | null {
    const out = this.out;
    // Per-row split ids only once a second split appears (a single split needs none).
    let first: string | null = null;
    let rowSplits: string[] | null = null;
    const ordered = this.ordered;
    while (out.length < maxRows) {
      // The partition with the smallest next event time; none while one must still be fetched.
      let best: PartitionState | null = null;
      let blocked = false;
      for (let i = 0; i < ordered.length; i++) {
        const p = ordered[i];
        if (p.headLength === 0 && !this.fillHead(p)) {
          if (this.mustWait(p)) {
            blocked = true;
            break;
          }
          continue;
        }
        if (best === null || p.headTime < best.headTime) best = p;
      }
      this.blocked = blocked;
      if (blocked || best === null) break;
      const { headOps, headRows, headLength, split } = best;
      first ??= split;
      if (rowSplits === null && split !== first) rowSplits = new Array<string>(out.length).fill(first);
      for (let i = 0; i < headLength; i++) {
        out.push(headOps[i], headRows[i]);
        rowSplits?.push(split);
      }
      const m = best.headMessage;
      const origins = this.origins;
      if (m === null) {
        if (origins !== null) {
          const view = best.headView!;
          const index = best.headIndex;
          for (let i = 0; i < headLength; i++) {
            origins.records.push(view);
            origins.indexes.push(index);
          }
        }
        pass(best, null, best.headAt);
      } else {
        if (origins !== null) {
          for (let i = 0; i < headLength; i++) {
            origins.records.push(m);
            origins.indexes.push(-1);
          }
        }
        pass(best, m, -1);
      }
      best.headLength = 0;
    }
    for (const p of ordered) {
      settle(p);
      if (p.paused && !this.atEnd(p) && p.buffered <= PARTITION_LOW_WATER) this.resumePartition(p);
    }
    if (out.length === 0 || first === null) return null;
    const batch = out.finish();
    const origins = this.origins === null ? undefined : new MessageOrigins(this.origins);
    if (origins !== undefined) this.origins = { records: [], indexes: [] };
    return {
      kind: "data",
      splits: [
        {
          split: first,
          batch,
          ...(rowSplits !== null ? { rowSplits } : {}),
          ...(origins !== undefined ? { origins } : {}),
        },
      ],
    };
  }

  /** Resolves when the next batch is buffered, or after `ms`. */
  private batchArrival(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const t = setTimeout(done, ms);
      const self = this;
      function done(): void {
        clearTimeout(t);
        if (self.arrival === done) self.arrival = null;
        resolve();
      }
      this.arrival = done;
    });
  }

  /**
   * Decodes `p`'s next buffered record into `head` (records that give no rows are passed over,
   * advancing the position). Returns false when the buffer is empty.
   */
  private fillHead(p: PartitionState): boolean {
    const chunks = p.chunks;
    while (chunks.length > 0) {
      const chunk = chunks[0];
      if (chunk.index === chunk.end) {
        settle(p);
        if (chunk.advanceTo > p.next) p.next = chunk.advanceTo;
        chunks.shift();
        continue;
      }
      const view = chunk.view;
      const i = chunk.index++;
      p.buffered--;
      let m: KafkaMessage;
      if (view === null) m = chunk.messages![i];
      else if (this.valuesOnly) {
        const n = this.decodeAt(view, i, p, p.headOps, p.headRows);
        const offset = view.offsetAt(i);
        if (n === 0) {
          pass(p, null, offset);
          continue;
        }
        p.headLength = n;
        p.headMessage = null;
        p.headView = view;
        p.headIndex = i;
        p.headAt = offset;
        p.headTime = this.rowtime !== null ? this.eventTime(p.headRows[0]) : view.timestampAt(i);
        return true;
      } else m = view.message(i);
      const n = this.decode(m, p, p.headOps, p.headRows);
      if (n === 0) {
        pass(p, m, -1);
        continue;
      }
      p.headLength = n;
      p.headMessage = m;
      p.headTime = this.mergeKey(p.headRows[0], m);
      return true;
    }
    return false;
  }

  /** The merge key of a record: the row's event time, else the record's timestamp. */
  private mergeKey(row: Row, m: KafkaMessage): number {
    return this.rowtime !== null ? this.eventTime(row) : Number(m.timestamp);
  }

  private eventTime(row: Row): number {
    const t = this.rowtime!(row);
    if (typeof t === "number") return t;
    // NULL or invalid event times fail (or are routed) in the source operator; merge them first.
    return Number.NEGATIVE_INFINITY;
  }

  /** An empty-buffered partition the merge waits for: it has records on the broker not yet fetched. */
  private mustWait(p: PartitionState): boolean {
    // A discovered partition before its first batch (fetched < 0) does not hold the merge.
    if (p.fetched < 0 || this.atEnd(p)) return false;
    const readable = p.end === null ? p.high : Math.min(p.end, p.high);
    return p.fetched < readable;
  }

  private atEnd(p: PartitionState): boolean {
    return p.end !== null && p.fetched >= p.end && p.chunks.length === 0 && p.headLength === 0;
  }

  /** Bounded and every partition reached its end offset. */
  private finished(): boolean {
    for (const p of this.ordered) if (p.end === null || p.next < p.end) return false;
    return true;
  }

  /**
   * Refreshes the end offsets (for consumer lag and the merge) about every second, and looks for
   * new partitions every `'scan.topic-partition-discovery.interval'`; in the background.
   */
  private refreshHighs(): void {
    const now = Date.now();
    if (this.refreshing || now - this.lastRefresh < OFFSETS_REFRESH_MS) return;
    this.refreshing = true;
    this.lastRefresh = now;
    void this.fetchHighs(this.topicNames)
      .then((highs) => {
        for (const [split, high] of highs) {
          const p = this.parts.get(split);
          if (p !== undefined && high > p.high) p.high = high;
        }
      })
      .catch(() => undefined)
      .finally(() => {
        this.refreshing = false;
      });
  }

  /** Counts a record whose value is null, empty or blank (it holds no row); returns 0. */
  private skippedEmpty(): number {
    this.metrics.set("emptyValuesSkipped", (this.metrics.get("emptyValuesSkipped") ?? 0) + 1);
    return 0;
  }

  /** Decodes one record into rows (`ops[0..n)`, `rows[0..n)`); returns n. Bad records fail or are skipped. */
  private decode(m: KafkaMessage, part: PartitionState, ops: Op[], rows: Row[]): number {
    const keyed = this.keyDecoder;
    try {
      if (m.value === null) {
        if (!this.upsert || keyed === null) return this.skippedEmpty(); // Flink drops them; Weir counts them.
        const key = keyed.decode(m.key);
        if (key === null) throw new FormatError("a tombstone without a key");
        ops[0] = Op.DELETE;
        rows[0] = this.assemble(null, key, m, part);
        return 1;
      }
      const scratch = this.scratch;
      this.valueDecoder.decode(m.value, scratch);
      const n = scratch.length;
      if (n === 0) return this.skippedEmpty(); // an empty or blank value: no record
      const key = keyed !== null && this.keyAlways ? keyed.decode(m.key) : null;
      for (let i = 0; i < n; i++) {
        ops[i] = scratch.opAt(i);
        rows[i] = this.valueIsRow ? scratch.rowAt(i) : this.assemble(scratch.rowAt(i), key, m, part);
      }
      scratch.clear();
      return n;
    } catch (e) {
      this.scratch.clear();
      if (!(e instanceof FormatError)) throw e;
      return this.badRecord(e, m, part);
    }
  }

  /** {@link decode} for record `i` of `view`, read from its value bytes (`valuesOnly`). */
  private decodeAt(view: KafkaRecordView, i: number, part: PartitionState, ops: Op[], rows: Row[]): number {
    try {
      const length = view.valueLength(i);
      if (length === -1) return this.skippedEmpty(); // Flink drops them; Weir counts them.
      const scratch = this.scratch;
      const start = view.valueStart(i);
      this.valueDecoder.decodeRange(view.buffer, start, start + length, scratch);
      const n = scratch.length;
      if (n === 0) return this.skippedEmpty(); // an empty or blank value: no record
      for (let k = 0; k < n; k++) {
        ops[k] = scratch.opAt(k);
        rows[k] = this.valueIsRow ? scratch.rowAt(k) : this.assembleAt(scratch.rowAt(k), view, i, part);
      }
      scratch.clear();
      return n;
    } catch (e) {
      this.scratch.clear();
      if (!(e instanceof FormatError)) throw e;
      return this.badRecord(e, view.message(i), part);
    }
  }

  /** A record that does not decode: routed, skipped (returns 0) or failed. */
  private badRecord(e: FormatError, m: KafkaMessage, part: PartitionState): number {
    if (this.onBadRecord?.(part.split, Number(m.offset), m.value, e.message)) return 0;
    const ignore = this.valueDecoder.ignoreParseErrors || (this.keyDecoder?.ignoreParseErrors ?? false);
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

  /** The connector row: key fields from the key, value fields from the value (they win under ALL), metadata. */
  private assemble(value: Row | null, key: Row | null, m: KafkaMessage, part: PartitionState): Row {
    const layout = this.layout;
    const row = this.blankRow.slice();
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

  /** {@link assemble} for record `i` of `view` (`valuesOnly`: no key, view metadata getters). */
  private assembleAt(value: Row, view: KafkaRecordView, i: number, part: PartitionState): Row {
    const row = this.blankRow.slice();
    const vf = this.layout.value.fields;
    for (let k = 0; k < vf.length; k++) row[vf[k].column] = value[k];
    for (const md of this.metadata) row[md.column] = md.getAt!(view, i, part.topic, part.partition);
    return row;
  }

  private async start(): Promise<void> {
    const consumer = this.client.consumer({
      groupId: `weir-${this.node.table}-${randomUUID()}`,
      readUncommitted:
        (this.node.options["properties.isolation.level"] ?? "read_committed") === "read_uncommitted",
      maxWaitTimeInMs: 100,
      allowAutoTopicCreation: false,
      // kafkajs notices new partitions of the subscribed topics when it refreshes its metadata.
      metadataMaxAge: this.discoveryMs > 0 ? this.discoveryMs : NEVER_REFRESH_MS,
    });
    this.consumer = consumer;
    consumer.on(consumer.events.CRASH, (e: KafkaEvent<KafkaCrashPayload>) => {
      if (!e.payload.restart) this.failure = e.payload.error;
    });
    consumer.on(consumer.events.GROUP_JOIN, (e: KafkaEvent<KafkaGroupJoinPayload>) =>
      this.onAssignment(e.payload.memberAssignment),
    );
    consumer.on(consumer.events.END_BATCH_PROCESS, (e: KafkaEvent<KafkaBatchEndPayload>) => {
      // A batch of only transaction markers or aborted records never reaches eachBatch: advance past it.
      if (e.payload.batchSize === 0)
        this.onBatch(e.payload.topic, e.payload.partition, [], e.payload.lastOffset);
    });
    const topics = [...new Set(this.ordered.map((p) => p.topic))];
    await this.external(() => consumer.connect(), "cannot connect the Kafka consumer");
    await this.external(() => consumer.subscribe({ topics, fromBeginning: true }), "cannot subscribe");
    await this.external(
      () =>
        consumer.run({
          autoCommit: false,
          // Each batch is taken whole into the buffer: kafkajs fetches on from after it.
          eachBatchAutoResolve: true,
          partitionsConsumedConcurrently: 1,
          eachBatch: async ({ batch }: { batch: KafkaBatch }) => {
            const runs = batch.weirRuns;
            if (runs !== undefined) this.onRuns(batch.topic, batch.partition, runs, batch.lastOffset());
            else this.onBatch(batch.topic, batch.partition, batch.messages, batch.lastOffset());
          },
        }),
      "cannot start the Kafka consumer",
    );
    this.seekAll();
  }

  /**
   * A (re)assignment: partitions of the subscribed topics that the source did not know yet were
   * added to a topic while it ran (partition discovery); they are read from their earliest offset
   * (kafkajs starts a private group there) and join the merge and the watermark. Unbounded only.
   */
  private onAssignment(assignment: Readonly<Record<string, readonly number[]>> | undefined): void {
    if (assignment !== undefined && !this.bounded && this.discoveryMs > 0) {
      for (const [topic, partitions] of Object.entries(assignment)) {
        for (const partition of partitions) {
          if (this.parts.has(`${topic}-${partition}`)) continue;
          this.addPartition(topic, partition, 0, null, 0).fetched = -1;
          this.count("partitionsDiscovered", 1);
        }
      }
    }
    this.seekAll();
    // A join after kafkajs restarted its consumer (a retriable crash) is a new consumer group that
    // knows nothing of the pauses made before: apply them again.
    const consumer = this.consumer;
    if (consumer !== null)
      for (const p of this.ordered)
        if (p.paused) whileGroupRuns(() => consumer.pause([{ topic: p.topic, partitions: [p.partition] }]));
  }

  /** Seeks every partition to its fetch position (records before it are dropped if still delivered). */
  private seekAll(): void {
    const consumer = this.consumer;
    if (consumer === null) return;
    for (const p of this.ordered) {
      if (p.fetched < 0) continue; // discovered: kafkajs reads it from the earliest offset
      whileGroupRuns(() =>
        consumer.seek({ topic: p.topic, partition: p.partition, offset: String(p.fetched) }),
      );
      if (p.end !== null && p.fetched >= p.end) this.pausePartition(p);
    }
  }

  private onBatch(topic: string, partition: number, messages: KafkaMessage[], lastOffset: string): void {
    const part = this.parts.get(`${topic}-${partition}`);
    if (part === undefined) return;
    if (part.fetched < 0) {
      // A discovered partition's first batch: it starts at the partition's earliest record.
      const first = messages.length > 0 ? Number(messages[0].offset) : Number(lastOffset) + 1;
      part.fetched = first;
      part.next = first;
    }
    // A partition's records come in offset order: those fetched before a seek are a prefix,
    // those at or after the end offset a suffix; the chunk is the rest (the array is not copied).
    let from = 0;
    let to = messages.length;
    while (from < to && Number(messages[from].offset) < part.fetched) from++;
    if (part.end !== null) while (to > from && Number(messages[to - 1].offset) >= part.end) to--;
    let advanceTo = Math.max(Number(lastOffset) + 1, part.fetched);
    if (part.end !== null && advanceTo > part.end) advanceTo = part.end;
    if (from === to && advanceTo === part.fetched) return;
    part.fetched = advanceTo;
    if (advanceTo > part.high) part.high = advanceTo;
    part.chunks.push({ messages, view: null, index: from, end: to, advanceTo });
    this.buffer(part, to - from);
  }

  /** {@link onBatch} for a batch kept as runs of record views: one chunk per run. */
  private onRuns(
    topic: string,
    partition: number,
    runs: readonly KafkaRecordRun[],
    lastOffset: string,
  ): void {
    const part = this.parts.get(`${topic}-${partition}`);
    if (part === undefined) return;
    if (part.fetched < 0) {
      const first = runs.length > 0 ? runs[0].records.offsetAt(runs[0].from) : Number(lastOffset) + 1;
      part.fetched = first;
      part.next = first;
    }
    // The same cuts as onBatch's: the offsets rise through the runs.
    const cut: { view: KafkaRecordView; from: number; to: number }[] = [];
    let n = 0;
    for (const run of runs) {
      const view = run.records;
      let from = run.from;
      let to = run.to;
      while (from < to && view.offsetAt(from) < part.fetched) from++;
      if (part.end !== null) while (to > from && view.offsetAt(to - 1) >= part.end) to--;
      if (from < to) {
        cut.push({ view, from, to });
        n += to - from;
      }
    }
    let advanceTo = Math.max(Number(lastOffset) + 1, part.fetched);
    if (part.end !== null && advanceTo > part.end) advanceTo = part.end;
    if (n === 0 && advanceTo === part.fetched) return;
    part.fetched = advanceTo;
    if (advanceTo > part.high) part.high = advanceTo;
    if (cut.length === 0) part.chunks.push({ messages: [], view: null, index: 0, end: 0, advanceTo });
    for (let i = 0; i < cut.length; i++) {
      const c = cut[i];
      part.chunks.push({
        messages: null,
        view: c.view,
        index: c.from,
        end: c.to,
        advanceTo: i === cut.length - 1 ? advanceTo : -1,
      });
    }
    this.buffer(part, n);
  }

  /** `n` records were buffered for `part`: wake a waiting poll, pause a full or finished partition. */
  private buffer(part: PartitionState, n: number): void {
    part.buffered += n;
    this.arrival?.();
    if (part.end !== null && part.fetched >= part.end) this.pausePartition(part);
    else if (part.buffered >= PARTITION_HIGH_WATER) this.pausePartition(part);
  }

  private pausePartition(p: PartitionState): void {
    if (p.paused) return;
    p.paused = true;
    const consumer = this.consumer;
    if (consumer !== null)
      whileGroupRuns(() => consumer.pause([{ topic: p.topic, partitions: [p.partition] }]));
  }

  private resumePartition(p: PartitionState): void {
    if (!p.paused) return;
    p.paused = false;
    const consumer = this.consumer;
    if (consumer !== null)
      whileGroupRuns(() => consumer.resume([{ topic: p.topic, partitions: [p.partition] }]));
  }

  /**
   * Commits the positions to `'properties.group.id'` in the background; failures are ignored.
   * While one commit is in flight, newer positions wait for the next call (or close).
   */
  private commitCourtesy(positions?: Map<string, { partition: number; offset: string }[]>): void {
    const groupId = this.groupId;
    if (groupId === undefined || this.admin === undefined || this.committing) return;
    let byTopic = positions;
    if (byTopic === undefined) {
      byTopic = new Map();
      for (const p of this.ordered) {
        const list = byTopic.get(p.topic) ?? [];
        list.push({ partition: p.partition, offset: String(p.next) });
        byTopic.set(p.topic, list);
      }
    }
    this.committing = true;
    const commits = byTopic;
    this.commits = (async () => {
      for (const [topic, partitions] of commits) {
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

/** Folds the last record handed out or passed over into the partition's position. */
function settle(p: PartitionState): void {
  const m = p.passed;
  if (m !== null) {
    p.passed = null;
    p.next = Number(m.offset) + 1;
  } else if (p.passedAt >= 0) {
    p.next = p.passedAt + 1;
    p.passedAt = -1;
  }
}

/** The record `m` (or, for a view's record, the one at `offset`) was handed out or passed over. */
function pass(p: PartitionState, m: KafkaMessage | null, offset: number): void {
  p.passed = m;
  p.passedAt = m === null ? offset : -1;
}

function yieldToIo(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/**
 * Runs a seek, pause or resume on the kafkajs consumer, unless kafkajs is between a retriable crash
 * and its restart (it drops its consumer group then, and these calls throw "Consumer group was not
 * initialized"): the positions and pauses are then applied again when the restarted consumer joins
 * (`onAssignment`), so nothing is lost by skipping the call. Any other error is thrown.
 */
function whileGroupRuns(call: () => void): void {
  try {
    call();
  } catch (e) {
    if (!/Consumer group was not initialized/.test((e as Error).message ?? "")) throw e;
  }
}
