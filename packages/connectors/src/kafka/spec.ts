import {
  type ConnectorSpec,
  type DataType,
  type DeliveryGuarantee,
  deliveryGuaranteeOption,
  type MetadataSpec,
  OptionReader,
  type OptionSpec,
  type OptionType,
  readDeliveryGuarantee,
  SINK_PARALLELISM_OPTION,
  type SinkSpec,
  type SourceChangelog,
  type SourceSpec,
  type SpecFinding,
} from "@weir/planner";
import { isBigint, isBytes, isMillisLtz, isString, metadataOf } from "../metadata-types.js";
import { exactlyOnceReport } from "../sink-specs.js";
import { topicList } from "./options.js";

/**
 * A `kafka` / `upsert-kafka` table's options as the source, the sink and `weir check` read them
 * (the key/value layout is `kafkaLayout`'s, from the same options, when a reader or writer opens).
 */
export interface KafkaConfig {
  /** `upsert-kafka`: keyed by the PRIMARY KEY, an upsert changelog, tombstones for deletes. */
  readonly upsert: boolean;
  /** `'topic'` as a list (`;`-separated). */
  readonly topics: readonly string[];
  readonly topicPattern: string | undefined;
  /** `'value.format'` or `'format'`. */
  readonly valueFormat: string | undefined;
  readonly changelog: SourceChangelog;
  /** `'scan.bounded.mode'` ends the read (anything but `unbounded`). */
  readonly bounded: boolean;
  readonly delivery: DeliveryGuarantee;
  readonly transactionalIdPrefix: string | undefined;
  /** `'properties.transaction.timeout.ms'` as written. */
  readonly transactionTimeout: string | undefined;
  readonly groupId: string | undefined;
  /** `'backfill.topic'` / `'backfill.group-id'`: what `weir run --backfill` reads instead. */
  readonly backfillTopic: string | undefined;
  readonly backfillGroupId: string | undefined;
}

/** The transaction timeout when `'properties.transaction.timeout.ms'` is not set (the client's default). */
export const DEFAULT_TRANSACTION_TIMEOUT_MS = 60_000;

const str = { kind: "string" } as const;
const duration = { kind: "duration" } as const;
const oneOf = (...values: string[]): OptionType => ({ kind: "enum", values });

const intOrBigint = (t: DataType) => t.kind === "INT" || t.kind === "BIGINT";

const KAFKA_METADATA: Readonly<Record<string, MetadataSpec>> = {
  topic: metadataOf("STRING", isString),
  partition: metadataOf("INT", intOrBigint),
  headers: metadataOf("MAP<STRING, BYTES>", (t) => t.kind === "MAP" && isString(t.key) && isBytes(t.value)),
  "leader-epoch": metadataOf("INT", intOrBigint),
  offset: metadataOf("BIGINT", isBigint),
  timestamp: metadataOf("TIMESTAMP_LTZ(3)", isMillisLtz),
  "timestamp-type": metadataOf("STRING", isString),
  key: metadataOf("BYTES", isBytes),
};

const startupModes = oneOf(
  "earliest-offset",
  "latest-offset",
  "group-offsets",
  "timestamp",
  "specific-offsets",
);

const KAFKA_OPTIONS: readonly OptionSpec[] = [
  { key: "topic", type: str, description: "topic name, or names separated by ';'" },
  { key: "topic-pattern", type: str, description: "regular expression of topics to read" },
  { key: "format", type: str, description: "value format" },
  { key: "value.format", type: str, description: "value format" },
  { key: "key.format", type: str, description: "key format" },
  { key: "key.fields", type: str, description: "key columns, separated by ';'" },
  { key: "key.fields-prefix", type: str, description: "prefix of key columns" },
  { key: "value.fields-include", type: oneOf("ALL", "EXCEPT_KEY"), description: "value columns" },
  { key: "scan.startup.mode", type: startupModes, description: "where reading starts" },
  { key: "scan.startup.specific-offsets", type: str, description: "partition:0,offset:42;..." },
  {
    key: "scan.startup.timestamp-millis",
    type: { kind: "int", min: 0 },
    description: "start at this timestamp",
  },
  {
    key: "scan.bounded.mode",
    type: oneOf("unbounded", "latest-offset", "group-offsets", "timestamp", "specific-offsets"),
    description: "where reading ends",
  },
  { key: "scan.bounded.specific-offsets", type: str, description: "partition:0,offset:42;..." },
  {
    key: "scan.bounded.timestamp-millis",
    type: { kind: "int", min: 0 },
    description: "end at this timestamp",
  },
  { key: "scan.topic-partition-discovery.interval", type: duration, description: "new partitions" },
  {
    key: "scan.restore.gap-policy",
    type: oneOf("fail", "skip"),
    description:
      "Weir: on restore, when a checkpoint's offsets point at records Kafka no longer has: 'fail' (default) or 'skip' to the earliest offset and count the loss",
  },
  {
    key: "sink.partitioner",
    type: oneOf("default", "fixed", "round-robin"),
    description: "default | fixed | round-robin",
  },
  deliveryGuaranteeOption(""),
  { key: "sink.transactional-id-prefix", type: str, description: "exactly-once transactional ids" },
  SINK_PARALLELISM_OPTION,
  { key: "backfill.topic", type: str, description: "backfill: the replay topic read instead of 'topic'" },
  {
    key: "backfill.group-id",
    type: str,
    description: "backfill: the replay's consumer group (default: the realtime group + '-backfill')",
  },
];

const UPSERT_KAFKA_OPTIONS: readonly OptionSpec[] = [
  { key: "topic", type: str, required: true, description: "topic name" },
  { key: "key.format", type: str, required: true, description: "key format" },
  { key: "value.format", type: str, required: true, description: "value format" },
  { key: "key.fields-prefix", type: str, description: "prefix of key columns" },
  { key: "value.fields-include", type: oneOf("ALL", "EXCEPT_KEY"), description: "value columns" },
  {
    key: "scan.bounded.mode",
    type: oneOf("unbounded", "latest-offset"),
    description: "where reading ends",
  },
  { key: "sink.buffer-flush.max-rows", type: { kind: "int", min: 0 }, description: "buffered rows per key" },
  { key: "sink.buffer-flush.interval", type: duration, description: "buffer flush interval" },
  SINK_PARALLELISM_OPTION,
];

function parseKafka(upsert: boolean): ConnectorSpec<KafkaConfig>["parse"] {
  return (options, ctx) => {
    const r = new OptionReader(options);
    const valueFormat = r.string("value.format") ?? r.string("format");
    const mode = r.string("scan.bounded.mode");
    const config: KafkaConfig = {
      upsert,
      topics: topicList(options),
      topicPattern: r.string("topic-pattern"),
      valueFormat,
      changelog: upsert
        ? "upsert"
        : ((valueFormat === undefined ? undefined : ctx.format(valueFormat)?.changelog) ?? "insert-only"),
      bounded: mode !== undefined && mode !== "unbounded",
      delivery: readDeliveryGuarantee(options),
      transactionalIdPrefix: r.string("sink.transactional-id-prefix"),
      transactionTimeout: r.string("properties.transaction.timeout.ms"),
      groupId: r.string("properties.group.id"),
      backfillTopic: r.string("backfill.topic"),
      backfillGroupId: r.string("backfill.group-id"),
    };
    const problems =
      !upsert && !r.has("topic") && !r.has("topic-pattern")
        ? [
            {
              key: "topic",
              at: "table" as const,
              message: "connector 'kafka' requires 'topic' or 'topic-pattern'",
            },
          ]
        : [];
    return { config, problems };
  };
}

const PRODUCERS = {
  system: "Kafka",
  duplicates: "Kafka producers retry: the same event can arrive twice and is then counted twice.",
};

/** Splits are `<topic>-<partition>`. */
function topicPartition(split: string): { topic: string; partition: string } | null {
  const m = /^(.*)-(\d+)$/.exec(split);
  return m ? { topic: m[1]!, partition: m[2]! } : null;
}

/** A record's location as the source names it: `topic orders partition 3 offset 1200`. */
function recordFormat(c: KafkaConfig, location: string): string | null {
  const m = /^topic (\S+) partition \d+ offset \d+$/.exec(location);
  if (!m || !c.topics.includes(m[1]!)) return null;
  return c.valueFormat ?? "json";
}

const kafkaSource: SourceSpec<KafkaConfig> = {
  changelog: (c) => c.changelog,
  bounded: (c) => c.bounded,
  producers: PRODUCERS,
  topicPartition,
  recordFormat,
  findings(c, table): SpecFinding[] {
    // A replay into the realtime topic is an event-time problem: its watermark goes back and forth.
    if (!table.eventTime || c.backfillTopic !== undefined) return [];
    return [
      {
        area: "source",
        severity: "info",
        code: "source.no-replay-topic",
        message: `Kafka table '${table.name}' declares no replay topic ('backfill.topic')`,
        why: "A replay published to the realtime topic moves its watermark back and forth, floods late data and lets old results overwrite newer ones; the seeds keep backfills on their own topic, job and staging table.",
        fix: "Declare 'backfill.topic' (and 'backfill.group-id') on the table and replay with weir run --backfill REPLAY_ID, which merges into the target under its version column (docs/data-contracts.md).",
        at: "table",
      },
    ];
  },
};

/**
 * What stops exactly-once besides checkpointing: a `'sink.transactional-id-prefix'` and a
 * transaction timeout longer than the checkpoint interval. Checked at open and by `--dry-run`.
 */
function kafkaExactlyOnceProblem(c: KafkaConfig, checkpointIntervalMs: number): string | null {
  if (checkpointIntervalMs <= 0) return null;
  const prefix = c.transactionalIdPrefix;
  if (prefix === undefined || prefix.trim() === "")
    return "'sink.delivery-guarantee' = 'exactly-once' needs 'sink.transactional-id-prefix' (unique per job writing to the cluster, stable across restores)";
  const text = c.transactionTimeout;
  const timeout = text === undefined ? DEFAULT_TRANSACTION_TIMEOUT_MS : Number(text);
  if (!Number.isInteger(timeout) || timeout <= 0)
    return `'properties.transaction.timeout.ms' = '${text}' is not a positive number of milliseconds`;
  if (timeout <= checkpointIntervalMs)
    return `'properties.transaction.timeout.ms' (${timeout} ms${text === undefined ? ", the default" : ""}) must be larger than the checkpoint interval (${checkpointIntervalMs} ms): raise it (at most the broker's transaction.max.timeout.ms) or checkpoint more often`;
  return null;
}

const kafkaSink: SinkSpec<KafkaConfig> = {
  kind: "topic",
  accepts: (c) =>
    c.changelog === "retract"
      ? { updates: true }
      : { updates: false, why: `format '${c.valueFormat ?? ""}' writes an append-only stream` },
  delivery: (c) => c.delivery,
  exactlyOnceProblem: kafkaExactlyOnceProblem,
  report: (c, ctx) =>
    c.delivery === "exactly-once"
      ? exactlyOnceReport(
          `${ctx.subject} appends ${ctx.receives} to a topic, exactly once: one Kafka transaction per completed checkpoint`,
          "A restore (weir run --restore) re-commits the restored checkpoint and skips what was committed: a read_committed consumer sees every row once. A read_uncommitted consumer also sees aborted transactions, and a run started without --restore is a new job that writes its rows again.",
          "Consumers must read with isolation.level=read_committed (Weir's Kafka source does by default); output is visible about one checkpoint interval late.",
        )
      : {
          severity: "warning",
          code: "sink.at-least-once",
          message: `${ctx.subject} appends ${ctx.receives} to a topic, at least once`,
          why: "After a restart or a restore from a checkpoint, the rows since the last checkpoint are written again: consumers see duplicates (and, for a changelog, repeated changes).",
          fix: "Set 'sink.delivery-guarantee' = 'exactly-once' (with 'sink.transactional-id-prefix' and checkpointing; consumers read_committed), use 'upsert-kafka' with a PRIMARY KEY (a compacted topic converges), or have consumers deduplicate by a deterministic key.",
        },
};

/** Flink's `kafka`: a topic (or topics) of records in a value format, optionally keyed. */
export const kafkaSpec: ConnectorSpec<KafkaConfig> = {
  name: "kafka",
  formats: { value: ["json", "csv", "raw", "changelog-json", "debezium-json"], key: ["json", "csv", "raw"] },
  prefixes: ["properties."],
  options: KAFKA_OPTIONS,
  metadata: KAFKA_METADATA,
  parse: parseKafka(false),
  source: kafkaSource,
  sink: kafkaSink,
  backfill: {
    replay: {
      describe: "a Kafka topic ('backfill.topic')",
      options(c, o, table) {
        const topic = c.backfillTopic;
        if (topic === undefined)
          return {
            problem: `source table '${table}' has no replay topic: set 'backfill.topic' (a backfill never reads the realtime topic '${o.topic ?? o["topic-pattern"]}')`,
          };
        const options: Record<string, string> = { ...o, topic };
        delete options["topic-pattern"];
        const group = c.backfillGroupId ?? `${c.groupId ?? table}-backfill`;
        if (group === c.groupId)
          return {
            problem: `source table '${table}': 'backfill.group-id' is the realtime consumer group '${group}'; a backfill has its own`,
          };
        options["properties.group.id"] = group;
        // A replay ends (the merge follows it): the whole replay topic, as it is when the run starts.
        options["scan.startup.mode"] = "earliest-offset";
        options["scan.bounded.mode"] = "latest-offset";
        return { options };
      },
    },
  },
};

/** Flink's `upsert-kafka`: a compacted topic as a table keyed by its PRIMARY KEY. */
export const upsertKafkaSpec: ConnectorSpec<KafkaConfig> = {
  name: "upsert-kafka",
  formats: { value: ["json", "csv", "raw"], key: ["json", "csv", "raw"] },
  prefixes: ["properties."],
  options: UPSERT_KAFKA_OPTIONS,
  metadata: KAFKA_METADATA,
  parse: parseKafka(true),
  source: { ...kafkaSource, findings: undefined },
  sink: {
    kind: "topic",
    accepts: () => ({ updates: true }),
    upsertsByKey: true,
    delivery: (c) => c.delivery,
    report: (_c, ctx) =>
      ctx.primaryKey === null
        ? null
        : {
            severity: "info",
            code: "sink.idempotent",
            message: `${ctx.subject} upserts by its PRIMARY KEY (${ctx.primaryKey})`,
            why: "A replayed change rewrites the same key: a compacted topic converges to the same rows.",
            fix: "Consumers must read the topic as a table (last value per key), not as a stream of events.",
          },
  },
};

/** The spec of a Kafka node's connector (`kafka` or `upsert-kafka`). */
export function kafkaSpecOf(connector: string): ConnectorSpec<KafkaConfig> {
  return connector === upsertKafkaSpec.name ? upsertKafkaSpec : kafkaSpec;
}
