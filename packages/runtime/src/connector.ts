import type { Field, LookupJoinNode, SinkNode, SourceNode } from "@weir/planner";
import type { ChangeBatch, Row } from "./changelog.js";
import type { Json } from "./state/codec.js";

/**
 * The boundary between the runtime and the connectors package. Connectors read and write rows
 * (the JS values of planner `types.ts`); the runtime computes computed columns, watermarks and
 * everything downstream. A source's position and a sink's pending transaction are plain JSON so
 * that a checkpoint can store them.
 */

/** Rows read from one split (a file, a Kafka partition): the unit of watermark tracking. */
export interface SplitBatch {
  /** Stable id of the split, e.g. `orders-3` for a topic-partition or a file path. */
  readonly split: string;
  /** The physical and metadata column values, in the source node's column order (computed columns excluded). */
  readonly batch: ChangeBatch;
  /**
   * When present, the batch holds the rows of several splits in the order the reader merged
   * them: row i is of split `rowSplits[i]` (and `split` is the first row's).
   */
  readonly rowSplits?: readonly string[];
  /**
   * Where each row came from, when the source asked for it (`recordOrigins`): `at[i]` is row i's
   * position within its split (a file's line number, a partition's offset) and `raw[i]` its record
   * as read (text or bytes); rows decoded from one record share both. `raw` may be empty when the
   * source did not ask for it (`recordRaw`).
   */
  readonly origins?: RecordOrigins;
}

export interface RecordOrigins {
  readonly at: readonly (number | string)[];
  readonly raw: readonly unknown[];
}

export type PollResult =
  /** Some rows (from one or more splits). */
  | { readonly kind: "data"; readonly splits: readonly SplitBatch[] }
  /** Nothing now; poll again after at most `waitMs` (an unbounded source between records). */
  | { readonly kind: "idle"; readonly waitMs: number }
  /** A bounded source has nothing more: the job sends the final watermark (+∞) after this. */
  | { readonly kind: "end" };

export interface SourceReaderContext {
  readonly node: SourceNode;
  /** Counters the run summary shows (records read, skipped bad records, …), by name. */
  readonly metrics: Map<string, number>;
  readonly settings: Readonly<Record<string, string>>;
  /** Directory that relative `'path'` options resolve against (the script's working directory). */
  readonly cwd: string;
  /**
   * The event time (epoch ms) of a connector row — the table's rowtime column, computed columns
   * evaluated — or null/undefined when it has none; absent when the table declares no watermark.
   * Readers that merge several splits order them by it (see the Kafka source).
   */
  readonly rowtime?: (row: Row) => unknown;
  /**
   * The source wants each row's origin (`SplitBatch.origins`): for quality rules, quarantined
   * rows and errors that name a record's position. Readers that cannot tell leave it out.
   */
  readonly recordOrigins?: boolean;
  /**
   * With `recordOrigins`: the source wants `origins.raw` too (a quarantine table keeps each broken
   * row's record). Without it a reader may leave `raw` empty and keep only the positions, which is
   * all a failure message names.
   */
  readonly recordRaw?: boolean;
  /**
   * A record that does not parse (a format error), before the reader fails on it: returns true
   * when the source took care of it (quarantined or dropped by the table's quality rules), and
   * the reader then skips it; false: the reader fails (or skips it, per its format's
   * `ignore-parse-errors`) as without this callback.
   */
  readonly onBadRecord?: (split: string, at: number | string, raw: unknown, message: string) => boolean;
}

export interface SourceReader {
  /** Splits known at open (new ones may appear later in poll results). */
  open(ctx: SourceReaderContext): Promise<void>;
  /**
   * Splits known at open that hold the source's watermark back until they deliver rows or go
   * idle (`'scan.watermark.idle-timeout'`), as Kafka partitions do in Flink: an empty partition
   * keeps windows from firing until idleness is detected. Readers that read their splits one
   * after another (files) leave this out: a split counts from its first row.
   */
  splits?(): readonly string[];
  /**
   * A record's position as people read it, from its split and `origins.at`: e.g.
   * `file data/orders.jsonl line 12` or `topic orders partition 3 offset 1200`.
   */
  describe?(split: string, at: number | string): string;
  /** The next rows; never resolves with an empty `data` result. */
  poll(maxRows: number): Promise<PollResult>;
  /** The exact position after the last row returned by `poll` (next offset per split). */
  position(): Json;
  /** Resumes from a position that `position()` returned (before the first poll). */
  restore(position: Json): Promise<void>;
  /**
   * The checkpoint whose source position was `position` is complete (every task acknowledged and
   * the manifest is written): e.g. the Kafka source commits those offsets to its consumer group.
   */
  onCheckpointComplete?(position: Json): void | Promise<void>;
  /** Records on the service after the position, per split (Kafka: end offset − position). */
  lag?(): { readonly [split: string]: number };
  close(): Promise<void>;
}

export interface SinkWriterContext {
  readonly node: SinkNode;
  readonly metrics: Map<string, number>;
  readonly settings: Readonly<Record<string, string>>;
  readonly cwd: string;
  /** For the `collect` sink: where a bare SELECT's changes go (the CLI prints them). */
  readonly collect?: (batch: ChangeBatch, schema: readonly Field[]) => void;
  /**
   * The job's id (kept across restores) and the sink's stable task uid: what an exactly-once
   * sink records its last committed checkpoint under. Absent outside a job (unit tests).
   */
  readonly jobId?: string;
  readonly sinkId?: string;
  /** This sink subtask's index (0 of 1 today): part of a Kafka transactional id. */
  readonly subtaskIndex?: number;
  /** The checkpoint interval in ms; 0 or absent: the job takes no checkpoints. */
  readonly checkpointIntervalMs?: number;
  /**
   * The job restores a checkpoint: `restore` follows `open`, before any write, so the sink must
   * not truncate or discard output at open (a file sink continues its file).
   */
  readonly restoring?: boolean;
}

/**
 * A sink. `write` is synchronous and only buffers (the job's hot loop has no `await`); the job
 * awaits `flush` at batch boundaries it chooses, at checkpoints (`preCommit`) and at the end.
 * Exactly-once sinks stage writes in `preCommit(checkpointId)` and make them visible in
 * `commit(checkpointId)` once the checkpoint is complete.
 */
export interface SinkWriter {
  open(ctx: SinkWriterContext): Promise<void>;
  write(batch: ChangeBatch): void;
  /** Writes out what is buffered (at-least-once point). */
  flush(): Promise<void>;
  preCommit?(checkpointId: number): Promise<Json>;
  /**
   * Checkpoint `checkpointId` is complete: make what `preCommit` returned for it visible. Also
   * called on restore with the restored checkpoint's pre-commit (after `restore`), so it must be
   * idempotent: a commit the crash had already done is skipped.
   */
  commit?(checkpointId: number, preCommitted: Json): Promise<void>;
  /**
   * The job restores checkpoint `checkpointId` whose pre-commit for this sink was `preCommitted`
   * (null without one): the sink continues after it (e.g. a file sink cuts what it wrote after
   * the checkpoint). Called after `open`, before `commit` of the same checkpoint.
   */
  restore?(checkpointId: number, preCommitted: Json): Promise<void>;
  /**
   * True when the sink makes writes visible only at `commit` (exactly-once): the job then takes
   * a final checkpoint when its input ends, so that the last epoch is committed too.
   */
  readonly transactional?: boolean;
  /**
   * The rows now in the sink's target table, as last counted by the sink (null: not counted
   * yet). Only sinks that write a table a reader can count (Postgres) have it; see the sink's
   * docs for when it counts.
   */
  tableRows?(): number | null;
  /** Counts the rows in the target table now (the job calls it after the final flush). */
  countTableRows?(): Promise<void>;
  close(): Promise<void>;
}

/** Source and sink factories by connector name. */
export interface ConnectorRegistry {
  source(node: SourceNode): SourceReader;
  sink(node: SinkNode): SinkWriter;
  /** The dimension table of a lookup join (`postgres` / `jdbc` / `filesystem`); absent: no connector looks up. */
  lookup?(node: LookupJoinNode, ctx: LookupSourceContext): LookupSource;
}

/** What a lookup source may need besides its node (a file's path resolves against `cwd`). */
export interface LookupSourceContext {
  readonly settings: Readonly<Record<string, string>>;
  /** Directory that relative `'path'` options resolve against (the script's working directory). */
  readonly cwd: string;
}

/**
 * A table queried by key (a lookup join's dimension table, Flink's LookupTableSource). Several
 * `lookup` calls may be in flight at once; the source orders or pools them as it needs. Failures
 * are retried by the source (`'lookup.max-retries'`, reconnecting), and the promise rejects only
 * when the retries are spent.
 */
export interface LookupSource {
  /** Connects and checks the table (its columns and types), before the first lookup. */
  open(): Promise<void>;
  /**
   * The rows (the dimension table's columns, in its Weir column order) whose key columns equal
   * each of `keys` (values in `node.dimKeys` order, none NULL): one array of rows per key.
   */
  lookup(keys: readonly (readonly unknown[])[]): Promise<Row[][]>;
  /**
   * A source that holds its whole table in memory (a FULL cache) answers at once, after `open`:
   * the rows whose key columns equal `key` (values in `node.dimKeys` order, none NULL). The
   * lookup join then never calls `lookup`. It throws when the table could not be loaded again
   * (a failed reload), which fails the job.
   */
  lookupNow?(key: readonly unknown[]): readonly Row[];
  close(): Promise<void>;
  /** Keys held in a FULL cache (the operator's `lookupCacheSize`). */
  readonly cacheSize?: number;
  /** Statements retried and connections opened so far (the operator's `lookupRetries`, `lookupConnects`). */
  readonly retries?: number;
  readonly connects?: number;
}

/** A run-time failure in a connector or format, with where it happened and whose fault it is. */
export class ConnectorError extends Error {
  constructor(
    message: string,
    /** `user`: bad input or options; `external`: a service failed; `internal`: a Weir bug. */
    readonly domain: "user" | "external" | "internal",
    /** Where: e.g. `file sql/data/x.jsonl line 12` or `topic orders partition 3 offset 1200`. */
    readonly location?: string,
    readonly retryable = false,
    /**
     * The Weir table whose connector failed (the CLI prints the error at that table's DDL) and
     * what the user can do about it.
     */
    readonly context: {
      readonly table?: string;
      readonly hint?: string;
      /** The table option the error is about (`'path'`): the CLI points at its value. */
      readonly option?: string;
    } = {},
  ) {
    super(location ? `${location}: ${message}` : message);
    this.name = "ConnectorError";
    this.reason = message;
  }

  /** The message without the location prefix. */
  readonly reason: string;

  get table(): string | undefined {
    return this.context.table;
  }

  get hint(): string | undefined {
    return this.context.hint;
  }

  /** This error, naming `table` when it names no table yet. */
  ofTable(table: string): ConnectorError {
    if (this.context.table !== undefined) return this;
    return new ConnectorError(this.reason, this.domain, this.location, this.retryable, {
      ...this.context,
      table,
    });
  }
}

/** A row's physical/metadata values before the source operator adds computed columns. */
export type SourceRow = Row;
