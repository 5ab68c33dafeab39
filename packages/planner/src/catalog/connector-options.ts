import { type DataType, formatType } from "../types.js";
import { parseDuration, parseMemorySize } from "./durations.js";
import { QUALITY_CHECK_PREFIX, QUALITY_OPTIONS, QUALITY_PREFIX } from "./quality.js";
import { redactUrl } from "./secrets.js";

/**
 * What each connector and format accepts in `WITH (...)`, checked at plan time so that a typo
 * is an error pointing at the option, before anything runs. The runtime reads the same keys.
 */
export type OptionType =
  | { readonly kind: "string" }
  | { readonly kind: "int"; readonly min?: number }
  | { readonly kind: "boolean" }
  | { readonly kind: "duration" }
  | { readonly kind: "memory" }
  | { readonly kind: "enum"; readonly values: readonly string[] }
  /** A Flink option Weir knows but does not implement: any value is refused with `reason`. */
  | { readonly kind: "refused"; readonly reason: string };

export interface OptionSpec {
  readonly key: string;
  readonly type: OptionType;
  readonly required?: boolean;
  readonly description: string;
}

export interface ConnectorSpec {
  readonly name: string;
  readonly source: boolean;
  readonly sink: boolean;
  readonly options: readonly OptionSpec[];
  /** Free-form option families (`properties.*` passed to the client, `fields.*` of datagen). */
  readonly prefixes: readonly string[];
  /** Whether `'format'` (and the format's own options) apply. */
  readonly formats: readonly string[] | null;
  /** Key formats (`'key.format'`), for Kafka. */
  readonly keyFormats?: readonly string[];
}

export interface FormatSpec {
  readonly name: string;
  readonly options: readonly OptionSpec[];
  /** Changelog the format can carry when read: insert-only rows, or a full changelog. */
  readonly changelog: "insert-only" | "retract";
}

/** One problem with a table's options; `key` names the option it is about (or 'connector'). */
export interface OptionProblem {
  readonly key: string;
  readonly at: "key" | "value" | "table";
  readonly message: string;
  readonly hint?: string;
}

const str = { kind: "string" } as const;
const int = (min = 0): OptionType => ({ kind: "int", min });
const bool = { kind: "boolean" } as const;
const duration = { kind: "duration" } as const;
const oneOf = (...values: string[]): OptionType => ({ kind: "enum", values });

const timestampStandard: OptionSpec = {
  key: "timestamp-format.standard",
  type: oneOf("SQL", "ISO-8601"),
  description: "how TIMESTAMP values are written: 'SQL' (yyyy-MM-dd HH:mm:ss.SSS) or 'ISO-8601'",
};

/** How the JSON formats write MAP keys and DECIMAL values (Flink's options of the same names). */
const jsonEncodingOptions: readonly OptionSpec[] = [
  {
    key: "map-null-key.mode",
    type: oneOf("FAIL", "DROP", "LITERAL"),
    description: "a MAP entry with a NULL key: FAIL the job (default), DROP the entry, or write the LITERAL",
  },
  {
    key: "map-null-key.literal",
    type: str,
    description: "the key written for NULL in LITERAL mode, default 'null'",
  },
  {
    key: "encode.decimal-as-plain-number",
    type: bool,
    description: "DECIMAL always in plain notation (default false: Java's BigDecimal.toString, 1E-7)",
  },
];

export const FORMATS: Readonly<Record<string, FormatSpec>> = {
  json: {
    name: "json",
    changelog: "insert-only",
    options: [
      { key: "ignore-parse-errors", type: bool, description: "skip (and count) malformed records" },
      { key: "fail-on-missing-field", type: bool, description: "fail when a field is missing" },
      timestampStandard,
      ...jsonEncodingOptions,
    ],
  },
  csv: {
    name: "csv",
    changelog: "insert-only",
    options: [
      { key: "field-delimiter", type: str, description: "field delimiter, default ','" },
      { key: "quote-character", type: str, description: "quote character, default '\"'" },
      { key: "disable-quote-character", type: bool, description: "no quoting" },
      { key: "allow-comments", type: bool, description: "skip lines starting with '#'" },
      { key: "ignore-parse-errors", type: bool, description: "skip (and count) malformed records" },
      { key: "array-element-delimiter", type: str, description: "array element delimiter, default ';'" },
      { key: "escape-character", type: str, description: "escape character" },
      { key: "null-literal", type: str, description: "text read as NULL" },
      { key: "header", type: bool, description: "first line is a header (Weir extension)" },
    ],
  },
  raw: {
    name: "raw",
    changelog: "insert-only",
    options: [
      { key: "charset", type: str, description: "charset of text values: UTF-8 only (others are refused)" },
      {
        key: "endianness",
        type: oneOf("big-endian", "little-endian"),
        description: "byte order of numeric raw values; STRING and BYTES (Weir's raw types) have none",
      },
    ],
  },
  "changelog-json": {
    name: "changelog-json",
    changelog: "retract",
    options: [
      { key: "ignore-parse-errors", type: bool, description: "skip (and count) malformed records" },
      timestampStandard,
      ...jsonEncodingOptions,
    ],
  },
  "debezium-json": {
    name: "debezium-json",
    changelog: "retract",
    options: [
      { key: "ignore-parse-errors", type: bool, description: "skip (and count) malformed records" },
      { key: "schema-include", type: bool, description: "messages carry a schema envelope" },
      timestampStandard,
      ...jsonEncodingOptions,
    ],
  },
  arrow: { name: "arrow", changelog: "insert-only", options: [] },
};

const startupModes = oneOf(
  "earliest-offset",
  "latest-offset",
  "group-offsets",
  "timestamp",
  "specific-offsets",
);
const idleTimeout: OptionSpec = {
  key: "scan.watermark.idle-timeout",
  type: duration,
  description: "a split without data for this long stops holding the watermark back",
};
const idleAdvance: OptionSpec = {
  key: "scan.watermark.idle-advance",
  type: duration,
  description:
    "once every split has been without data for this long, the watermark advances with processing time (quiet streams)",
};
/** Late-data policy of the table's rows (see docs/time-and-watermarks.md, Late data). */
const latePolicy: OptionSpec = {
  key: "late.policy",
  type: oneOf("drop", "side-output", "update", "retract"),
  description:
    "what event-time operators do with late rows of this table: drop (default), side-output to 'late.side-output', update (upserts) or retract (-U/+U) within 'late.allowed-lateness'",
};
const lateSideOutput: OptionSpec = {
  key: "late.side-output",
  type: str,
  description: "the table late rows are written to, with observed_at, current_watermark, lateness_ms, reason",
};
const lateAllowed: OptionSpec = {
  key: "late.allowed-lateness",
  type: duration,
  description: "with 'update' or 'retract': how long after a window's end late rows still correct its result",
};
const emitStrategy: OptionSpec = {
  key: "scan.watermark.emit.strategy",
  type: oneOf("on-event", "on-periodic"),
  description: "emit the watermark after each row that advances it (default) or once per read batch",
};
const sinkBuffer: OptionSpec[] = [
  { key: "sink.buffer-flush.max-rows", type: int(0), description: "flush after this many rows" },
  { key: "sink.buffer-flush.interval", type: duration, description: "flush at least this often" },
  { key: "sink.max-retries", type: int(0), description: "retries of a failed flush" },
  { key: "sink.parallelism", type: oneOf("1"), description: "one writer (Weir writes with parallelism 1)" },
  {
    key: "sink.delivery-guarantee",
    type: oneOf("none", "at-least-once", "exactly-once"),
    description:
      "'exactly-once': each checkpoint's changes in one transaction with a progress row (weir_sink_progress), at commit",
  },
];

/** A `postgres` / `jdbc` table as the dimension of a lookup join (Flink's JDBC lookup options). */
const lookupOptions: OptionSpec[] = [
  {
    key: "lookup.cache",
    type: oneOf("NONE", "PARTIAL", "FULL", "none", "partial", "full"),
    description:
      "NONE (default: every probe row queries the table) or PARTIAL (cache rows as they are looked up)",
  },
  {
    key: "lookup.partial-cache.max-rows",
    type: int(1),
    description: "PARTIAL: at most this many keys cached (least recently used evicted first)",
  },
  {
    key: "lookup.partial-cache.expire-after-write",
    type: duration,
    description: "PARTIAL: a cached key expires this long after it was looked up",
  },
  {
    key: "lookup.partial-cache.expire-after-access",
    type: duration,
    description: "PARTIAL: a cached key expires this long after it was last read",
  },
  {
    key: "lookup.partial-cache.cache-missing-key",
    type: bool,
    description: "PARTIAL: cache keys the table has no row for (default true)",
  },
  { key: "lookup.max-retries", type: int(0), description: "retries of a failed lookup query (default 3)" },
  {
    key: "lookup.cache.max-rows",
    type: int(1),
    description: "deprecated (Flink): 'lookup.partial-cache.max-rows' with 'lookup.cache' = 'PARTIAL'",
  },
  {
    key: "lookup.cache.ttl",
    type: duration,
    description: "deprecated (Flink): 'lookup.partial-cache.expire-after-write'",
  },
  {
    key: "lookup.cache.caching-missing-key",
    type: bool,
    description: "deprecated (Flink): 'lookup.partial-cache.cache-missing-key'",
  },
];

/** A `filesystem` table as the dimension of a lookup join: a FULL cache (Flink's LookupOptions). */
const fullCacheOptions: OptionSpec[] = [
  {
    key: "lookup.cache",
    type: oneOf("NONE", "PARTIAL", "FULL", "none", "partial", "full"),
    description:
      "as a lookup join's dimension table: FULL (the default; the file is loaded whole into an index on the lookup keys); NONE and PARTIAL are refused",
  },
  {
    key: "lookup.full-cache.reload-strategy",
    type: oneOf("PERIODIC", "TIMED", "periodic", "timed"),
    description: "PERIODIC (default); TIMED is refused",
  },
  {
    key: "lookup.full-cache.periodic-reload.interval",
    type: duration,
    description: "reload the file every interval while the job runs (default: load it once)",
  },
  {
    key: "lookup.full-cache.periodic-reload.schedule-mode",
    type: oneOf("FIXED_DELAY", "FIXED_RATE", "fixed_delay", "fixed_rate"),
    description:
      "FIXED_DELAY (default: the interval runs from the end of a load) or FIXED_RATE (from its start)",
  },
  {
    key: "lookup.full-cache.timed-reload.iso-time",
    type: str,
    description: "TIMED reloads: refused (Weir reloads PERIODIC only)",
  },
  {
    key: "lookup.full-cache.timed-reload.interval-in-days",
    type: int(1),
    description: "TIMED reloads: refused (Weir reloads PERIODIC only)",
  },
];

/** What `weir run --backfill` reads instead of a realtime source, and how it merges a sink (docs/data-contracts.md). */
const backfillSink: OptionSpec[] = [
  {
    key: "backfill.staging-table",
    type: str,
    description: "backfill: the staging table (default: the target's table-name + '_staging')",
  },
  {
    key: "backfill.version-column",
    type: str,
    description: "backfill: the target's version column of the merge's guard (default 'version')",
  },
  {
    key: "backfill.cutover",
    type: str,
    description: "backfill: merge only rows whose event time is before this instant (ISO-8601 with a zone)",
  },
];
const BACKFILL_OPTIONS: Readonly<Record<string, readonly OptionSpec[]>> = {
  filesystem: [
    { key: "backfill.path", type: str, description: "backfill: the files to replay instead of 'path'" },
  ],
  kafka: [
    { key: "backfill.topic", type: str, description: "backfill: the replay topic read instead of 'topic'" },
    {
      key: "backfill.group-id",
      type: str,
      description: "backfill: the replay's consumer group (default: the realtime group + '-backfill')",
    },
  ],
  postgres: backfillSink,
  jdbc: backfillSink,
};

export const CONNECTORS: Readonly<Record<string, ConnectorSpec>> = {
  filesystem: {
    name: "filesystem",
    source: true,
    sink: true,
    formats: ["json", "csv", "raw", "changelog-json", "debezium-json", "arrow"],
    prefixes: [],
    options: [
      { key: "path", type: str, required: true, description: "file or directory" },
      { key: "format", type: str, required: true, description: "record format" },
      idleTimeout,
      idleAdvance,
      latePolicy,
      lateSideOutput,
      lateAllowed,
      emitStrategy,
      {
        key: "source.monitor-interval",
        type: duration,
        description: "unbounded: list the path again every interval and read the new files",
      },
      ...["file-size", "rollover-interval", "check-interval", "inactivity-interval"].map((k) => ({
        key: `sink.rolling-policy.${k}`,
        type: {
          kind: "refused",
          reason: "Weir's filesystem sink writes one file and does not roll part files; remove the option",
        } as const,
        description: "refused: the sink writes one file, with no rolling",
      })),
      {
        key: "sink.parallelism",
        type: oneOf("1"),
        description: "one writer (Weir writes with parallelism 1)",
      },
      {
        key: "sink.delivery-guarantee",
        type: oneOf("none", "at-least-once", "exactly-once"),
        description:
          "'exactly-once': output is written to a hidden in-progress file and becomes visible when its checkpoint commits",
      },
      ...fullCacheOptions,
    ],
  },
  datagen: {
    name: "datagen",
    source: true,
    sink: false,
    formats: null,
    prefixes: ["fields."],
    options: [
      { key: "rows-per-second", type: int(1), description: "rate of an unbounded source" },
      { key: "number-of-rows", type: int(0), description: "bounded: emit this many rows" },
      { key: "seed", type: int(), description: "seed for reproducible random values (Weir extension)" },
      idleTimeout,
      idleAdvance,
      latePolicy,
      lateSideOutput,
      lateAllowed,
      emitStrategy,
    ],
  },
  print: {
    name: "print",
    source: false,
    sink: true,
    formats: null,
    prefixes: [],
    options: [
      { key: "print-identifier", type: str, description: "prefix of each printed line" },
      { key: "standard-error", type: bool, description: "print to standard error" },
      {
        key: "sink.parallelism",
        type: oneOf("1"),
        description: "one writer (Weir writes with parallelism 1)",
      },
    ],
  },
  blackhole: { name: "blackhole", source: false, sink: true, formats: null, prefixes: [], options: [] },
  nexmark: {
    name: "nexmark",
    source: true,
    sink: false,
    formats: null,
    prefixes: [],
    options: [
      { key: "first-event.rate", type: int(1), description: "events per second of event time" },
      { key: "next-event.rate", type: int(1), description: "events per second of event time" },
      { key: "events.num", type: int(0), description: "bounded: generate this many events" },
      { key: "person.proportion", type: int(0), description: "persons per 50 events" },
      { key: "auction.proportion", type: int(0), description: "auctions per 50 events" },
      { key: "bid.proportion", type: int(0), description: "bids per 50 events" },
      { key: "seed", type: int(), description: "seed of the generator" },
      {
        key: "base-time",
        type: str,
        description: "event time of the first event: epoch ms or 'yyyy-MM-dd HH:mm:ss' (UTC)",
      },
      {
        key: "rate.limited",
        type: bool,
        description: "pace events to their event time against the wall clock",
      },
      { key: "rate.shape", type: str, description: "accepted for compatibility (one generator: SQUARE)" },
      { key: "rate.period", type: str, description: "accepted for compatibility" },
      { key: "person.avg-size", type: str, description: "average person size, e.g. 200b" },
      { key: "auction.avg-size", type: str, description: "average auction size, e.g. 500b" },
      { key: "bid.avg-size", type: str, description: "average bid size, e.g. 100b" },
      { key: "bid.hot-ratio.auctions", type: int(1), description: "1 in n bids goes to a hot auction" },
      { key: "bid.hot-ratio.bidders", type: int(1), description: "1 in n bids comes from a hot bidder" },
      { key: "auction.hot-ratio.sellers", type: int(1), description: "1 in n auctions has a hot seller" },
      { key: "num.active.people", type: int(0), description: "people that bid and sell" },
      { key: "num.in.flight.auctions", type: int(0), description: "auctions open at a time" },
      idleTimeout,
      idleAdvance,
      latePolicy,
      lateSideOutput,
      lateAllowed,
      emitStrategy,
    ],
  },
  kafka: {
    name: "kafka",
    source: true,
    sink: true,
    formats: ["json", "csv", "raw", "changelog-json", "debezium-json"],
    keyFormats: ["json", "csv", "raw"],
    prefixes: ["properties."],
    options: [
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
      { key: "scan.startup.timestamp-millis", type: int(), description: "start at this timestamp" },
      {
        key: "scan.bounded.mode",
        type: oneOf("unbounded", "latest-offset", "group-offsets", "timestamp", "specific-offsets"),
        description: "where reading ends",
      },
      { key: "scan.bounded.specific-offsets", type: str, description: "partition:0,offset:42;..." },
      { key: "scan.bounded.timestamp-millis", type: int(), description: "end at this timestamp" },
      { key: "scan.topic-partition-discovery.interval", type: duration, description: "new partitions" },
      {
        key: "scan.restore.gap-policy",
        type: oneOf("fail", "skip"),
        description:
          "Weir: on restore, when a checkpoint's offsets point at records Kafka no longer has: 'fail' (default) or 'skip' to the earliest offset and count the loss",
      },
      idleTimeout,
      idleAdvance,
      latePolicy,
      lateSideOutput,
      lateAllowed,
      emitStrategy,
      {
        key: "sink.partitioner",
        type: oneOf("default", "fixed", "round-robin"),
        description: "default | fixed | round-robin",
      },
      {
        key: "sink.delivery-guarantee",
        type: oneOf("none", "at-least-once", "exactly-once"),
        description: "",
      },
      { key: "sink.transactional-id-prefix", type: str, description: "exactly-once transactional ids" },
      {
        key: "sink.parallelism",
        type: oneOf("1"),
        description: "one writer (Weir writes with parallelism 1)",
      },
    ],
  },
  "upsert-kafka": {
    name: "upsert-kafka",
    source: true,
    sink: true,
    formats: ["json", "csv", "raw"],
    keyFormats: ["json", "csv", "raw"],
    prefixes: ["properties."],
    options: [
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
      idleTimeout,
      idleAdvance,
      latePolicy,
      lateSideOutput,
      lateAllowed,
      emitStrategy,
      { key: "sink.buffer-flush.max-rows", type: int(0), description: "buffered rows per key" },
      { key: "sink.buffer-flush.interval", type: duration, description: "buffer flush interval" },
      {
        key: "sink.parallelism",
        type: oneOf("1"),
        description: "one writer (Weir writes with parallelism 1)",
      },
    ],
  },
  postgres: {
    name: "postgres",
    source: true,
    sink: true,
    formats: null,
    prefixes: [],
    options: [
      { key: "url", type: str, description: "postgres://user@host:port/db (default: the PG* variables)" },
      { key: "table-name", type: str, description: "target table (schema.table); default the table name" },
      { key: "username", type: str, description: "user name" },
      { key: "password", type: str, description: "password" },
      { key: "sink.version-column", type: str, description: "an older version never overwrites a newer" },
      {
        key: "sink.final-column",
        type: str,
        description:
          "a BOOLEAN column: a row stored with TRUE is never overwritten or deleted by a change with FALSE",
      },
      { key: "sink.create-table", type: bool, description: "create the target table if missing" },
      ...sinkBuffer,
      { key: "scan.fetch-size", type: int(1), description: "rows fetched per round trip" },
      ...lookupOptions,
    ],
  },
  jdbc: {
    name: "jdbc",
    source: true,
    sink: true,
    formats: null,
    prefixes: [],
    options: [
      { key: "url", type: str, required: true, description: "jdbc:postgresql://host:port/db" },
      { key: "table-name", type: str, required: true, description: "target table" },
      { key: "username", type: str, description: "user name" },
      { key: "password", type: str, description: "password" },
      { key: "driver", type: str, description: "accepted for Flink compatibility" },
      { key: "sink.version-column", type: str, description: "an older version never overwrites a newer" },
      {
        key: "sink.final-column",
        type: str,
        description:
          "a BOOLEAN column: a row stored with TRUE is never overwritten or deleted by a change with FALSE",
      },
      { key: "sink.create-table", type: bool, description: "create the target table if missing" },
      ...sinkBuffer,
      { key: "scan.fetch-size", type: int(1), description: "rows fetched per round trip" },
      ...lookupOptions,
    ],
  },
};

/**
 * Checks a table's options against its connector and formats. `usage` says how the table is
 * used in this plan (a source-only connector used as a sink is an error).
 */
/** A metadata key a connector offers: its type (as Flink declares it) and the declared types that carry its value. */
interface MetadataSpec {
  readonly type: string;
  readonly accepts: (t: DataType) => boolean;
}

const isString = (t: DataType) => t.kind === "VARCHAR" || t.kind === "CHAR";
const intOrBigint = (t: DataType) => t.kind === "INT" || t.kind === "BIGINT";
const meta = (type: string, accepts: (t: DataType) => boolean): MetadataSpec => ({ type, accepts });
/** TIMESTAMP_LTZ(0..3): (4..9) would be bigint nanos at run time, and metadata values are not cast. */
const millisLtz = (t: DataType): boolean => t.kind === "TIMESTAMP_LTZ" && t.precision <= 3;
const KAFKA_METADATA: Readonly<Record<string, MetadataSpec>> = {
  topic: meta("STRING", isString),
  partition: meta("INT", intOrBigint),
  headers: meta(
    "MAP<STRING, BYTES>",
    (t) => t.kind === "MAP" && isString(t.key) && (t.value.kind === "VARBINARY" || t.value.kind === "BINARY"),
  ),
  "leader-epoch": meta("INT", intOrBigint),
  offset: meta("BIGINT", (t) => t.kind === "BIGINT"),
  timestamp: meta("TIMESTAMP_LTZ(3)", millisLtz),
  "timestamp-type": meta("STRING", isString),
  key: meta("BYTES", (t) => t.kind === "VARBINARY" || t.kind === "BINARY"),
};

/**
 * The metadata keys of each connector (`METADATA FROM 'key'`); a connector not listed has none.
 * The values are not cast: a metadata column is declared with its key's type (any precision of a
 * timestamp up to 3 — the values are milliseconds —, INT or BIGINT for an INT key) and converted
 * in a computed column or the query.
 */
export const CONNECTOR_METADATA: Readonly<Record<string, Readonly<Record<string, MetadataSpec>>>> = {
  kafka: KAFKA_METADATA,
  "upsert-kafka": KAFKA_METADATA,
  filesystem: {
    "file.path": meta("STRING", isString),
    "file.name": meta("STRING", isString),
    "file.size": meta("BIGINT", (t) => t.kind === "BIGINT"),
    "file.modification-time": meta("TIMESTAMP_LTZ(3)", millisLtz),
  },
};

/**
 * What is wrong with a metadata column of a table of `connector` (declared as `type`, reading
 * `key`), or undefined.
 */
export function checkMetadataColumn(
  connector: string,
  column: string,
  key: string,
  type: DataType,
): { message: string; hint?: string } | undefined {
  const keys = CONNECTOR_METADATA[connector];
  if (keys === undefined || Object.keys(keys).length === 0)
    return {
      message: `connector '${connector}' has no metadata columns (column '${column}' reads '${key}')`,
      hint: "declare it as a physical column, or compute it",
    };
  const spec = keys[key];
  if (spec === undefined)
    return {
      message: `unknown metadata key '${key}' for connector '${connector}' (column '${column}')`,
      hint: `${suggest(key, Object.keys(keys), "known keys")}`,
    };
  if (!spec.accepts(type))
    return {
      message: `metadata column '${column}' (key '${key}') must be declared ${spec.type}, not ${formatType(type)}`,
      hint: `declare it as ${spec.type} and convert it where it is used (e.g. a computed column CAST(${column} AS ...))`,
    };
  return undefined;
}

export function validateOptions(
  options: ReadonlyMap<string, string>,
  usage: "source" | "sink" | "declared",
): OptionProblem[] {
  const problems: OptionProblem[] = [];
  const connectorName = options.get("connector");
  if (connectorName === undefined) {
    problems.push({
      key: "connector",
      at: "table",
      message: "the table has no 'connector' option",
      hint: `add WITH ('connector' = '...'); known connectors: ${Object.keys(CONNECTORS).join(", ")}`,
    });
    return problems;
  }
  const spec = CONNECTORS[connectorName];
  if (!spec) {
    problems.push({
      key: "connector",
      at: "value",
      message: `unknown connector '${connectorName}'`,
      hint: suggest(connectorName, Object.keys(CONNECTORS), "known connectors"),
    });
    return problems;
  }
  if (usage === "source" && !spec.source) {
    problems.push({
      key: "connector",
      at: "value",
      message: `connector '${spec.name}' can only be written to`,
    });
  }
  if (usage === "sink" && !spec.sink) {
    problems.push({
      key: "connector",
      at: "value",
      message: `connector '${spec.name}' can only be read from`,
    });
  }

  const known = new Map<string, OptionSpec>();
  for (const o of spec.options) known.set(o.key, o);
  const formatKeys = ["format", "value.format", "key.format"];
  for (const fk of formatKeys) {
    const fmt = options.get(fk);
    if (fmt === undefined || !spec.formats) continue;
    const allowed = fk === "key.format" ? (spec.keyFormats ?? []) : spec.formats;
    const fspec = FORMATS[fmt];
    if (!fspec || !allowed.includes(fmt)) {
      problems.push({
        key: fk,
        at: "value",
        message: `connector '${spec.name}' does not support format '${fmt}'`,
        hint: `supported: ${allowed.join(", ")}`,
      });
      continue;
    }
    const prefix = fk === "key.format" ? `key.${fmt}.` : fk === "value.format" ? `value.${fmt}.` : `${fmt}.`;
    for (const o of fspec.options) {
      known.set(prefix + o.key, o);
      if (fk === "value.format") known.set(`${fmt}.${o.key}`, o);
    }
  }

  if (spec.source) for (const o of QUALITY_OPTIONS) known.set(o.key, o);
  for (const o of BACKFILL_OPTIONS[spec.name] ?? []) known.set(o.key, o);
  for (const [key, value] of options) {
    if (key === "connector") continue;
    if (spec.source && key.startsWith(QUALITY_CHECK_PREFIX)) {
      const name = key.slice(QUALITY_CHECK_PREFIX.length);
      if (!/^[A-Za-z_][A-Za-z0-9_-]*$/.test(name)) {
        problems.push({
          key,
          at: "key",
          message: `option '${key}': a check name is letters, digits, '_' and '-', starting with a letter`,
        });
      } else if (value.trim() === "") {
        problems.push({ key, at: "value", message: `option '${key}': expected a SQL boolean expression` });
      }
      continue;
    }
    if (!spec.source && key.startsWith(QUALITY_PREFIX)) {
      problems.push({
        key,
        at: "key",
        message: `option '${key}': quality rules apply to sources, and connector '${spec.name}' can only be written to`,
      });
      continue;
    }
    const o = known.get(key);
    if (!o) {
      if (spec.prefixes.some((p) => key.startsWith(p) && key.length > p.length)) continue;
      problems.push({
        key,
        at: "key",
        message: `unsupported option '${key}' for connector '${spec.name}'`,
        hint: suggest(key, [...known.keys()], "supported options"),
      });
      continue;
    }
    const bad = checkValue(o.type, value);
    if (bad) problems.push({ key, at: "value", message: `option '${key}': ${bad}` });
  }
  for (const o of spec.options) {
    if (o.required && !options.has(o.key)) {
      problems.push({
        key: o.key,
        at: "table",
        message: `connector '${spec.name}' requires the option '${o.key}' (${o.description})`,
      });
    }
  }
  if (
    spec.formats &&
    spec.name !== "upsert-kafka" &&
    !options.has("format") &&
    !options.has("value.format")
  ) {
    if (!spec.options.some((o) => o.key === "format" && o.required)) {
      problems.push({
        key: "format",
        at: "table",
        message: `connector '${spec.name}' requires 'format' (or 'value.format')`,
        hint: `one of: ${spec.formats.join(", ")}`,
      });
    }
  }
  for (const [key, value] of options) {
    // Flink's raw.charset takes any Java charset; Weir's line readers and writers are UTF-8.
    if (!key.endsWith("raw.charset") || known.get(key) === undefined) continue;
    if (/^utf-?8$/i.test(value.trim())) continue;
    problems.push({
      key,
      at: "value",
      message: `option '${key}' = '${value}' is not supported: Weir reads and writes raw text as UTF-8 only (lines are split and decoded as UTF-8 before the format sees them)`,
      hint: "remove the option or set it to 'UTF-8' (and convert the data to UTF-8)",
    });
  }
  const url = options.get("url");
  if ((spec.name === "postgres" || spec.name === "jdbc") && url !== undefined) {
    // Both spellings work for both connector names (the Postgres client takes either).
    const ok = /^(postgres(ql)?:|jdbc:postgresql:)/.test(url);
    if (!ok) {
      problems.push({
        key: "url",
        at: "value",
        message: `option 'url' = '${redactUrl(url)}' is not a PostgreSQL URL`,
        hint:
          spec.name === "jdbc"
            ? "Weir's jdbc connector speaks to PostgreSQL: jdbc:postgresql://host:port/database (or postgres://...)"
            : "postgres://user@host:port/database (or jdbc:postgresql://host:port/database)",
      });
    }
  }
  if (
    (spec.name === "postgres" || spec.name === "jdbc") &&
    options.get("lookup.cache")?.toUpperCase() === "FULL"
  ) {
    problems.push({
      key: "lookup.cache",
      at: "value",
      message:
        "option 'lookup.cache' = 'FULL' is not supported for connector '" +
        spec.name +
        "': Flink's JDBC lookup source caches NONE or PARTIAL, and so does Weir's",
      hint: "use 'PARTIAL' with 'lookup.partial-cache.expire-after-write' (or 'max-rows'), or 'NONE'",
    });
  }
  if (
    spec.name === "filesystem" &&
    options.get("format") === "arrow" &&
    options.has("source.monitor-interval")
  ) {
    problems.push({
      key: "source.monitor-interval",
      at: "key",
      message:
        "'source.monitor-interval' is not supported with format 'arrow' (Arrow files are read bounded)",
      hint: "use a line format (json, csv, ...) to watch a directory, or leave the option out",
    });
  }
  if (spec.name === "kafka" && !options.has("topic") && !options.has("topic-pattern")) {
    problems.push({
      key: "topic",
      at: "table",
      message: "connector 'kafka' requires 'topic' or 'topic-pattern'",
    });
  }
  return problems;
}

/** The per-column options of datagen (`fields.<column>.<option>`), as Flink's datagen has them. */
export const DATAGEN_FIELD_OPTIONS: readonly string[] = [
  "end",
  "kind",
  "length",
  "max",
  "max-past",
  "min",
  "null-rate",
  "start",
  "var-len",
];

/**
 * The `fields.*` options of a datagen table that name no physical column or no per-column option:
 * refused, as Flink's datagen refuses them ("Unsupported options found for 'datagen'"), instead of
 * being ignored.
 */
export function checkDatagenFields(
  options: ReadonlyMap<string, string>,
  physicalColumns: readonly string[],
): OptionProblem[] {
  if (options.get("connector") !== "datagen") return [];
  const problems: OptionProblem[] = [];
  const columns = new Set(physicalColumns);
  for (const key of options.keys()) {
    if (!key.startsWith("fields.")) continue;
    const rest = key.slice("fields.".length);
    const dot = rest.lastIndexOf(".");
    const column = dot < 0 ? "" : rest.slice(0, dot);
    const option = dot < 0 ? rest : rest.slice(dot + 1);
    if (!columns.has(column)) {
      problems.push({
        key,
        at: "key",
        message: `Unsupported options found for 'datagen': '${key}' (the table has no physical column '${column}'; per-column options are 'fields.<column>.<option>')`,
        hint:
          physicalColumns.length === 0
            ? "the table has no physical column"
            : `physical columns: ${physicalColumns.join(", ")}`,
      });
    } else if (!DATAGEN_FIELD_OPTIONS.includes(option)) {
      problems.push({
        key,
        at: "key",
        message: `Unsupported options found for 'datagen': '${key}'`,
        hint: `supported options of column '${column}': ${DATAGEN_FIELD_OPTIONS.map((o) => `fields.${column}.${o}`).join(", ")}`,
      });
    }
  }
  return problems;
}

function checkValue(type: OptionType, value: string): string | undefined {
  switch (type.kind) {
    case "string":
      return undefined;
    case "int": {
      if (!/^-?\d+$/.test(value.trim())) return `expected an integer, got '${value}'`;
      const n = Number(value);
      if (type.min !== undefined && n < type.min) return `must be at least ${type.min}, got ${n}`;
      return undefined;
    }
    case "boolean":
      return /^(true|false)$/i.test(value) ? undefined : `expected 'true' or 'false', got '${value}'`;
    case "duration":
      return parseDuration(value) === undefined
        ? `expected a duration such as '10 s', '5 min' or '100 ms', got '${value}'`
        : undefined;
    case "memory":
      return parseMemorySize(value) === undefined
        ? `expected a size such as '128 mb', got '${value}'`
        : undefined;
    case "refused":
      return `not supported: ${type.reason}`;
    case "enum":
      return type.values.includes(value)
        ? undefined
        : `expected one of ${type.values.join(", ")}, got '${value}'`;
    default: {
      const _exhaustive: never = type;
      return _exhaustive;
    }
  }
}

/** "did you mean 'x'?" for the nearest candidate, else the list of candidates. */
export function suggest(word: string, candidates: readonly string[], what: string): string {
  let best: string | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const c of candidates) {
    const d = editDistance(word.toLowerCase(), c.toLowerCase());
    if (d < bestDistance) {
      bestDistance = d;
      best = c;
    }
  }
  if (best !== undefined && bestDistance <= Math.max(2, Math.floor(word.length / 3))) {
    return `did you mean '${best}'?`;
  }
  return `${what}: ${[...candidates].sort().join(", ")}`;
}

function editDistance(a: string, b: string): number {
  const prev = new Array<number>(b.length + 1);
  for (let j = 0; j <= b.length; j++) prev[j] = j;
  for (let i = 1; i <= a.length; i++) {
    let diag = prev[0]!;
    prev[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const tmp = prev[j]!;
      prev[j] = Math.min(prev[j]! + 1, prev[j - 1]! + 1, diag + (a[i - 1] === b[j - 1] ? 0 : 1));
      diag = tmp;
    }
  }
  return prev[b.length]!;
}
