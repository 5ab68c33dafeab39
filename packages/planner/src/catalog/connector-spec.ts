import type { LookupConfig } from "../physical.js";
import type { DataType } from "../types.js";

/**
 * What a connector tells the planner, the runtime and the CLI about itself (the shape of Flink's
 * `DynamicTableFactory` + `DynamicTableSink.getChangelogMode`, and of Arroyo's `Connector`
 * trait). The planner defines only this interface and knows no connector: each connector's
 * folder in `@weir/connectors` has its `spec.ts`, and one list there feeds the catalog
 * (`ConnectorCatalog`) and the runtime registry.
 *
 * Invariants:
 * - `parse` is the one reader of a table's options: the catalog's validation (CREATE TABLE), the
 *   planner, the runtime's factories and `weir check` all take the typed config it returns, so an
 *   option means the same thing everywhere. It runs on options whose names and value types the
 *   catalog has already checked against `options` (it reports those problems itself), and must
 *   not throw on a bad value: it reads a default there and lets the catalog report it.
 * - A spec module imports no client library (kafkajs, pg, pglite, apache-arrow, lmdb): the
 *   planner and `weir check` load every spec, and only a job that uses a connector loads its
 *   client (`test/cli/spec-libraries.test.ts`).
 * - Every part but `parse` is optional: a connector without `source` cannot be read from, one
 *   without `sink` cannot be written to, one without `lookup` is no lookup join's dimension table.
 */
export interface ConnectorSpec<C = unknown> {
  /** The `'connector'` value. */
  readonly name: string;
  /**
   * Another connector's name when this one is the same connector under a second name (`jdbc` for
   * Weir's `postgres`): hints that suggest a connector list the original only.
   */
  readonly aliasOf?: string;
  /** Internal to the planner (the `collect` sink of a bare SELECT): no CREATE TABLE may name it. */
  readonly internal?: boolean;
  /**
   * The connector's own options. The planner adds the options of every source (idle timeouts,
   * `'late.*'`, `'quality.*'`: {@link ConnectorCatalog}) to a connector with a `source` part,
   * and the format's options when `formats` lists the table's format.
   */
  readonly options: readonly OptionSpec[];
  /** Free-form option families (`properties.*` passed to the client, `fields.*` of datagen). */
  readonly prefixes?: readonly string[];
  /** The value formats (`'format'` / `'value.format'`) and key formats (`'key.format'`) it reads and writes. */
  readonly formats?: { readonly value: readonly string[]; readonly key?: readonly string[] };
  /** Its metadata columns (`METADATA FROM 'key'`) by key; absent: none. */
  readonly metadata?: Readonly<Record<string, MetadataSpec>>;
  /** The typed config of a table's options, and the problems only this connector knows of. */
  parse(options: Options, ctx: ParseContext): Parsed<C>;
  readonly source?: SourceSpec<C>;
  readonly sink?: SinkSpec<C>;
  readonly lookup?: LookupSpec<C>;
  readonly backfill?: BackfillSpec<C>;
  /**
   * Optional parts that other front ends add per connector, by name (e.g. a Flink-cluster front
   * end's translation of the options into Flink's connector options). The planner never reads
   * them; each reader defines and checks the shape of its own entry.
   */
  readonly extensions?: Readonly<Record<string, unknown>>;
}

/** A table's `WITH (...)` options (with an `OPTIONS` hint's merged in, at a scan). */
export type Options = Readonly<Record<string, string>>;

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

/** One problem with a table's options; `key` names the option it is about (or 'connector'). */
export interface OptionProblem {
  readonly key: string;
  /** What the CLI points at: the option's key, its value, or the table (a missing option). */
  readonly at: "key" | "value" | "table";
  readonly message: string;
  readonly hint?: string;
}

export interface Parsed<C> {
  readonly config: C;
  readonly problems: readonly OptionProblem[];
}

/**
 * A record format (`'format' = 'json'`). Its options are written `<format>.<option>` (and
 * `key.<format>.` / `value.<format>.` for Kafka keys and values).
 */
export interface FormatSpec {
  readonly name: string;
  readonly options: readonly OptionSpec[];
  /** The changelog a record of the format carries: a row (insert-only) or a change (retract). */
  readonly changelog: "insert-only" | "retract";
  /** A problem with one of its options beyond its type (`key` is the option as written). */
  checkOption?(option: string, key: string, value: string): Omit<OptionProblem, "key"> | undefined;
}

/** A metadata key a connector offers: its type (as Flink declares it) and the declared types that carry its value. */
export interface MetadataSpec {
  readonly type: string;
  readonly accepts: (t: DataType) => boolean;
}

/**
 * The table whose options are parsed: as CREATE TABLE declares it, or as a plan node carries it
 * at run time (`tableShapeOf`). `primaryKey` indexes `columns`.
 */
export interface TableShape {
  readonly name: string;
  readonly columns: readonly TableColumn[];
  readonly primaryKey: readonly number[] | null;
}

export interface TableColumn {
  readonly name: string;
  readonly type: DataType;
  readonly kind: "physical" | "metadata" | "computed";
}

export interface ParseContext {
  readonly table: TableShape;
  /** The formats the catalog knows, by name. */
  format(name: string): FormatSpec | undefined;
}

/** What a source produces: rows, a full changelog, or upserts by the table's PRIMARY KEY. */
export type SourceChangelog = "insert-only" | "retract" | "upsert";

export interface SourceSpec<C> {
  /** The changelog of its rows; `upsert` needs a PRIMARY KEY (the planner refuses a table without one). */
  changelog(config: C): SourceChangelog;
  /** Whether reading ends by itself (files, a bounded read, a number of rows). */
  bounded(config: C): boolean;
  /** `weir check`: the rows are generated in the job (no producer that retries, no producer clock). */
  readonly generated?: boolean;
  /**
   * `weir check`: the rows come from producers that retry, through partitions that can go quiet:
   * the system's name as findings name it (`Kafka`) and why a row can then arrive twice.
   */
  readonly producers?: { readonly system: string; readonly duplicates: string };
  /** `weir check`: findings of its own about a source table (`eventTime`: it declares a WATERMARK). */
  findings?(config: C, table: { readonly name: string; readonly eventTime: boolean }): readonly SpecFinding[];
  /** Metrics: the topic and partition a split id names (`orders-3`), when its splits are partitions. */
  topicPartition?(split: string): { readonly topic: string; readonly partition: string } | null;
  /**
   * Errors: when a failed record's location (`topic t partition p offset o`) is one of this
   * source's records, the format whose `ignore-parse-errors` would skip it; else null.
   */
  recordFormat?(config: C, location: string): string | null;
}

export type DeliveryGuarantee = "none" | "at-least-once" | "exactly-once";

export interface SinkSpec<C> {
  /** What it writes to, for `weir check`: a console (keeps nothing), a file, a topic or a table. */
  readonly kind: "console" | "file" | "topic" | "table";
  /** Whether it takes the updates of a changelog (-U/+U/-D) into this table, and if not, why. */
  accepts(
    config: C,
    table: TableShape,
  ): { readonly updates: true } | { readonly updates: false; readonly why: string };
  /** It upserts by the table's PRIMARY KEY: the planner names it when a sink cannot take updates. */
  readonly upsertsByKey?: boolean;
  /** `'sink.delivery-guarantee'` as the sink honours it ({@link readDeliveryGuarantee}). */
  delivery(config: C): DeliveryGuarantee;
  /**
   * What stops exactly-once beyond needing checkpoints ({@link deliveryProblem}): a format
   * without an exactly-once mode, or a setting exactly-once needs (Kafka's transactional ids).
   */
  exactlyOnceProblem?(config: C, checkpointIntervalMs: number): string | null;
  /** `weir check`: what the sink guarantees for its input (absent or null: "depends on the connector"). */
  report?(config: C, ctx: SinkReportContext): SpecFinding | null;
  /** The `WITH (...)` options of an example table of this connector, for hints (e.g. a quarantine table). */
  example?(table: string): string;
  /** It can hold a materialised view's table (`CREATE MATERIALIZED VIEW`). */
  readonly materializedView?: MaterializedViewSpec;
}

/** How a sink holds a materialised view: the options the view decides, and its table's options. */
export interface MaterializedViewSpec {
  /** Options the view sets itself (a view's WITH may not set them). */
  readonly owned: readonly string[];
  /** Which options a view takes, for the hint of a refused one. */
  readonly hint: string;
  /**
   * The options of the view's table: the view's own, with `tableName` (the view's name as a
   * table name) unless it names one, and `defaultUrl` (an embedded server) unless it has one.
   */
  tableOptions(view: Options, tableName: string, defaultUrl: string | undefined): Record<string, string>;
}

export interface LookupSpec<C> {
  /** How hints name such a dimension table, e.g. `'postgres'` or `a bounded 'filesystem' table`. */
  readonly describe: string;
  /**
   * Its cache (`LookupConfig.cache` / `full`) from the table's options (with an OPTIONS hint's),
   * refusing with `fail` what it cannot look up (an unbounded table, a changelog, a cache it has
   * not); `lookup-options.ts` reads Flink's `'lookup.*'` cache options.
   */
  plan(config: C, options: Options, fail: LookupFail): Pick<LookupConfig, "cache" | "full">;
}

export type LookupFail = (message: string, hint?: string) => never;

/** `weir run --backfill` (docs/data-contracts.md). */
export interface BackfillSpec<C> {
  /** A source's replay input instead of its realtime one. */
  readonly replay?: {
    /** What it replays, for the message of a source that cannot: `files ('backfill.path')`. */
    readonly describe: string;
    /** The replay's options from the table's, or why there is none. */
    options(
      config: C,
      options: Options,
      table: string,
    ): { readonly options: Record<string, string> } | { readonly problem: string };
  };
  /** A sink a replay writes to a staging table of, then merges into under the version column. */
  readonly staging?: {
    /** What it merges into, for the message of a sink that cannot: `a Postgres table`. */
    readonly describe: string;
    /** The staging sink's options: the target's, writing `table` (created) at least once. */
    options(options: Options, table: string): Record<string, string>;
  };
}

/** A finding of `weir check` a spec answers (the CLI adds the area, the node and the SQL position). */
export interface SpecFinding {
  readonly area?: "source" | "time" | "sink";
  readonly severity: "info" | "warning" | "error";
  /** Stable and machine-readable, e.g. `sink.at-least-once`. */
  readonly code: string;
  readonly message: string;
  readonly why: string;
  readonly fix: string;
  /** Where: the table's CREATE TABLE, an option's key or value; absent: the node's SQL. */
  readonly at?: "table" | { readonly option: string; readonly part: "key" | "value" };
}

/** What `weir check` knows of a sink when it asks the spec for its report. */
export interface SinkReportContext {
  /** How findings name the sink: `sink 'out' (kafka, node 3)`. */
  readonly subject: string;
  readonly table: string;
  /** `insert-only rows` or `an updating changelog (retract)`. */
  readonly receives: string;
  /** The PRIMARY KEY's column names (`a, b`), or null. */
  readonly primaryKey: string | null;
  readonly columns: readonly string[];
  /** The table is a materialised view's own (the view is its only writer). */
  readonly viewTable: boolean;
  /** Some source upstream never ends. */
  readonly unbounded: boolean;
}

/** The text of every exactly-once sink that runs without checkpoints. */
export const EXACTLY_ONCE_NEEDS_CHECKPOINTS =
  "'sink.delivery-guarantee' = 'exactly-once' commits at checkpoints: enable checkpointing (SET 'execution.checkpointing.interval' = '10 s' and 'execution.checkpointing.dir'), or use 'at-least-once'";

export const DELIVERY_GUARANTEE_OPTION = "sink.delivery-guarantee";

/**
 * `'sink.delivery-guarantee'` as every sink reads it: Flink's values (checked at plan time), any
 * case and surrounding blanks allowed at run time; absent or unknown: `at-least-once`, the default.
 */
export function readDeliveryGuarantee(options: Options): DeliveryGuarantee {
  const v = options[DELIVERY_GUARANTEE_OPTION]?.trim().toLowerCase();
  return v === "none" || v === "exactly-once" ? v : "at-least-once";
}

/** The `'sink.delivery-guarantee'` option, described for one connector. */
export function deliveryGuaranteeOption(description: string): OptionSpec {
  return {
    key: DELIVERY_GUARANTEE_OPTION,
    type: { kind: "enum", values: ["none", "at-least-once", "exactly-once"] },
    description,
  };
}

/**
 * What stops a sink's `'sink.delivery-guarantee'` from being honoured with this checkpoint
 * interval (0: the job takes no checkpoints), or null: exactly-once commits at checkpoints, so it
 * needs checkpointing, and the connector may need more (`exactlyOnceProblem`). The one check
 * `weir run` (before the job), `--dry-run`, `weir check` and the sinks at open make.
 */
export function deliveryProblem<C>(
  sink: SinkSpec<C>,
  config: C,
  checkpointIntervalMs: number,
): string | null {
  if (sink.delivery(config) !== "exactly-once") return null;
  const own = sink.exactlyOnceProblem?.(config, checkpointIntervalMs) ?? null;
  if (own !== null) return own;
  return checkpointIntervalMs > 0 ? null : EXACTLY_ONCE_NEEDS_CHECKPOINTS;
}
