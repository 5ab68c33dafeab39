import type { TableQuality } from "./catalog/quality.js";
import type { Expr } from "./expr.js";
import type { DataType } from "./types.js";

/**
 * The physical plan: what the planner hands the runtime. Plain, JSON-serialisable, versioned
 * data; the runtime builds one operator per node through a registry keyed by `kind`.
 *
 * Invariants:
 * - `nodes` are in topological order: a node's `inputs` name earlier nodes by `id`.
 * - Every node states its output `schema`, `changelogMode`, `streamKey` (the columns that
 *   identify a row in its output, or null when unknown) and `watermarkColumn` (the output
 *   column that carries event time and is aligned with the watermarks it emits, or null).
 * - Intervals and sizes are milliseconds; event times are epoch milliseconds.
 */
export interface PhysicalDag {
  readonly version: typeof PHYSICAL_DAG_VERSION;
  readonly nodes: readonly PhysicalNode[];
  /** Ids of the sink nodes; a job ends when every sink has seen `end`. */
  readonly sinks: readonly number[];
  /** Effective settings of the job (`SET` statements and `--set`), e.g. 'table.local-time-zone'. */
  readonly settings: Readonly<Record<string, string>>;
}

export const PHYSICAL_DAG_VERSION = 1 as const;

export interface Field {
  readonly name: string;
  readonly type: DataType;
}

/**
 * - insert-only: only `+I`.
 * - upsert: `+I`/`+U` carry the full new row for `key`; `-D` deletes by key; no `-U`.
 * - retract: every change; an update is a `-U` immediately followed by its `+U`.
 */
export type ChangelogMode =
  | { readonly kind: "insert-only" }
  | { readonly kind: "upsert"; readonly key: readonly number[] }
  | { readonly kind: "retract" };

/** Where in the SQL text a node came from, for plan-time and run-time errors. */
export interface SourceSpan {
  readonly line: number;
  readonly column: number;
  readonly offset: number;
  readonly end: number;
}

interface NodeBase {
  readonly id: number;
  readonly inputs: readonly number[];
  readonly schema: readonly Field[];
  readonly changelogMode: ChangelogMode;
  readonly streamKey: readonly number[] | null;
  readonly watermarkColumn: number | null;
  readonly span?: SourceSpan;
  /**
   * What the task does with the late rows it hands to its late-row channel (event-time
   * operators only; absent = drop and count). Set from the source tables' `'late.*'` options.
   */
  readonly late?: LateHandling;
}

/**
 * A late-data policy (`'late.policy'` of the source table whose rows reach the operator):
 * - drop: late rows are dropped and counted (`numLateRecordsDropped`);
 * - side-output: late rows go to the side-output port `late-<input>` (a {@link SideOutputNode});
 * - update / retract: windows keep their state until the watermark passes window end +
 *   `allowedLatenessMs`; a row in that period corrects the window's result (an upsert `+U`, or a
 *   `-U`/`+U` pair); rows later than that are dropped, or side-output when `sideOutput` is set.
 */
export type LatePolicy = "drop" | "side-output" | "update" | "retract";

export interface LateHandling {
  readonly policy: LatePolicy;
  readonly allowedLatenessMs: number;
  /** Per input: whether late rows of that input go to side-output port `late-<input>`. */
  readonly sideOutput: readonly boolean[];
}

/** The columns a task adds to a late row on its side-output port, after the row's own columns. */
export const LATE_REPORT_COLUMNS = ["observed_at", "current_watermark", "lateness_ms", "reason"] as const;

export type PhysicalNode =
  | SourceNode
  | ValuesNode
  | CalcNode
  | ExpandNode
  | UnionNode
  | WindowTableFunctionNode
  | WindowAggregateNode
  | GroupAggregateNode
  | JoinNode
  | IntervalJoinNode
  | TemporalJoinNode
  | LookupJoinNode
  | WindowJoinNode
  | RankNode
  | DeduplicateNode
  | WindowRankNode
  | WindowDeduplicateNode
  | OverAggregateNode
  | UnnestNode
  | ChangelogNormalizeNode
  | SideOutputNode
  | SinkNode;

export type PhysicalNodeKind = PhysicalNode["kind"];

/**
 * A table scan. The output row is the physical columns (as the connector reads them, metadata
 * columns included) followed by the computed columns, in declaration order — `schema` is that
 * full row. Virtual metadata columns are read but never written by sinks.
 */
export interface SourceNode extends NodeBase {
  readonly kind: "source";
  readonly table: string;
  readonly connector: string;
  readonly options: Readonly<Record<string, string>>;
  /** Per output column: where its value comes from. */
  readonly columns: readonly SourceColumn[];
  /** Over the output row (computed columns included). */
  readonly watermark: { readonly column: number; readonly expr: Expr } | null;
  /** `'scan.watermark.idle-timeout'` or `'table.exec.source.idle-timeout'`; 0 = never idle. */
  readonly idleTimeoutMs: number;
  /**
   * `'scan.watermark.idle-advance'`: once every split has been without data for this long, the
   * watermark advances with processing time; absent or 0 = never (the watermark waits for rows).
   */
  readonly idleAdvanceMs?: number;
  readonly primaryKey: readonly number[] | null;
  /** Only these output columns are needed downstream (projection push-down); null = all. */
  readonly projectedColumns: readonly number[] | null;
  /**
   * Nested projection push-down: of a projected physical ROW column read only through field
   * accesses, the fields read, as paths `[column, field, field...]` (positions; a path ends at a
   * field read whole). A format may leave the other fields of such a row NULL. A projected column
   * no path starts with is read whole. Absent: every projected column is read whole.
   */
  readonly projectedPaths?: readonly (readonly number[])[];
  /**
   * The table's `'quality.*'` rules (expressions over the output row). A row that breaks one
   * goes to the `quarantine` side output (a sink node with `sideOutput` reads it), or is dropped
   * and counted, or fails the job; it never moves the watermark.
   */
  readonly quality?: TableQuality;
}

export type SourceColumn =
  | { readonly kind: "physical"; readonly name: string }
  | { readonly kind: "metadata"; readonly key: string; readonly virtual: boolean }
  | { readonly kind: "computed"; readonly expr: Expr };

export interface ValuesNode extends NodeBase {
  readonly kind: "values";
  /** Constant expressions (no input references), evaluated once when the job starts. */
  readonly rows: readonly (readonly Expr[])[];
}

/** Projection and filter, fused. Rewrites update pairs by the filter rule (see runtime). */
export interface CalcNode extends NodeBase {
  readonly kind: "calc";
  readonly projections: readonly Expr[];
  readonly condition: Expr | null;
}

/** Emits each input row once per projection list (GROUPING SETS / ROLLUP / CUBE). */
export interface ExpandNode extends NodeBase {
  readonly kind: "expand";
  readonly projections: readonly (readonly Expr[])[];
}

export interface UnionNode extends NodeBase {
  readonly kind: "union";
}

export type WindowSpec =
  | { readonly kind: "tumble"; readonly size: number; readonly offset: number }
  | { readonly kind: "hop"; readonly size: number; readonly slide: number; readonly offset: number }
  | { readonly kind: "cumulate"; readonly maxSize: number; readonly step: number; readonly offset: number }
  | { readonly kind: "session"; readonly gap: number; readonly partitionKeys: readonly number[] };

/**
 * A window TVF not fused into an aggregate: output = input columns + window_start, window_end,
 * window_time; one output row per window the row belongs to. Rows late for every window they
 * belong to are dropped and counted.
 */
export interface WindowTableFunctionNode extends NodeBase {
  readonly kind: "window-table-function";
  readonly window: WindowSpec;
  readonly timeColumn: number;
}

export interface AggregateCall {
  /** COUNT, SUM, AVG, MIN, MAX, FIRST_VALUE, LAST_VALUE, LISTAGG, STDDEV_POP, ... */
  readonly fn: string;
  /** Input columns (arguments are pre-projected); empty for COUNT(*). */
  readonly args: readonly number[];
  readonly argTypes: readonly DataType[];
  readonly distinct: boolean;
  /** A BOOLEAN input column: only rows where it is TRUE are aggregated (FILTER (WHERE ...)). */
  readonly filterColumn: number | null;
  readonly type: DataType;
  /** Constant arguments (e.g. LISTAGG's separator), in `Literal.value` encoding. */
  readonly constants?: readonly (string | number | boolean | null)[];
  readonly name: string;
}

/**
 * Window aggregation (window TVF + GROUP BY window_start, window_end, ...), and the legacy
 * GROUP BY TUMBLE/HOP/SESSION windows. Output row: group keys, aggregate values, window_start,
 * window_end, window_time. Insert-only: a window emits once, when the watermark passes
 * window_end − 1. Rows for slices already fired are late: dropped and counted.
 */
export interface WindowAggregateNode extends NodeBase {
  readonly kind: "window-aggregate";
  readonly window: WindowSpec;
  /** The input's time attribute column: event time (rowtime) or PROCTIME() (proctime). */
  readonly timeColumn: number;
  /**
   * How windows fire; absent means `rowtime`. `rowtime`: when the watermark reaches
   * window_end − 1; rows of fired windows are late. `proctime`: a row belongs to the windows of
   * its time column's value (its PROCTIME(), taken when it was read), but never to one that has
   * already fired — it joins the earliest open one, so there are no late rows; windows fire when
   * processing time reaches window_end − 1, and at the end of a bounded input (the +∞ watermark)
   * every open window fires. Input watermarks are forwarded unchanged and fire nothing.
   */
  readonly timeKind?: "rowtime" | "proctime";
  readonly groupKeys: readonly number[];
  readonly aggregates: readonly AggregateCall[];
  /**
   * Set when the input already carries its windows (Flink's window-attached windowing): the
   * input is the insert-only output of a window operator, `start`/`end` are its window_start and
   * window_end columns (both grouped by), and each row belongs to exactly that window. `window`
   * is then the upstream window (for EXPLAIN), `timeColumn` is `end`, and `timeKind` is rowtime:
   * a window fires when the watermark reaches window_end − 1, and its state is dropped.
   */
  readonly attachedWindow?: WindowColumns;
}

/**
 * Unbounded GROUP BY. Output row: group keys then aggregate values. Emits +I for a new group,
 * -U/+U when its result changes (nothing when it does not), -D when its last row is retracted.
 */
export interface GroupAggregateNode extends NodeBase {
  readonly kind: "group-aggregate";
  readonly groupKeys: readonly number[];
  readonly aggregates: readonly AggregateCall[];
  /** Set by the planner when the input is insert-only (no retraction needed). */
  readonly inputInsertOnly: boolean;
}

export type JoinType = "inner" | "left" | "right" | "full" | "semi" | "anti";

/** Regular (unbounded) join over inputs that may retract. Output row: left columns, right columns. */
export interface JoinNode extends NodeBase {
  readonly kind: "join";
  readonly joinType: JoinType;
  readonly leftKeys: readonly number[];
  readonly rightKeys: readonly number[];
  /** Residual non-equi condition over the concatenated row, or null. */
  readonly condition: Expr | null;
}

/**
 * `l.t BETWEEN r.t + lowerBound AND r.t + upperBound` (bounds inclusive, in ms), plus equi keys.
 * State older than the bounds allow is cleaned as the watermark passes.
 */
export interface IntervalJoinNode extends NodeBase {
  readonly kind: "interval-join";
  readonly joinType: "inner" | "left" | "right" | "full";
  readonly leftKeys: readonly number[];
  readonly rightKeys: readonly number[];
  readonly leftTimeColumn: number;
  readonly rightTimeColumn: number;
  readonly lowerBound: number;
  readonly upperBound: number;
  readonly condition: Expr | null;
}

/**
 * Event-time temporal join (`JOIN versioned FOR SYSTEM_TIME AS OF l.rowtime ON l.k = r.pk`): each
 * left row joins the version of the right row (by key) that was valid at the left row's time, the
 * latest right change with `rightTime <= leftTime`; a left row is emitted once the watermark (the
 * minimum over both inputs) passes its time. A right delete ends the version: no match from its
 * time on. Output: left columns, right columns; the left row's change kind.
 */
export interface TemporalJoinNode extends NodeBase {
  readonly kind: "temporal-join";
  readonly joinType: "inner" | "left";
  readonly leftKeys: readonly number[];
  readonly rightKeys: readonly number[];
  readonly leftTimeColumn: number;
  readonly rightTimeColumn: number;
  /** Residual condition over the concatenated row, or null. */
  readonly condition: Expr | null;
}

/**
 * Lookup join (`JOIN dim FOR SYSTEM_TIME AS OF l.proc_time ON ...` against a table whose
 * connector looks up: queried by key, or held in a FULL cache): one input, the probe side. Each probe row queries the dimension table by
 * `dimKeys = probe[leftKeys]` when it arrives (through the connector's lookup source, with the
 * table's `'lookup.*'` cache and retries, and 'table.exec.async-lookup.*' for requests in
 * flight), then `condition` filters the joined rows; a LEFT join pads a row without a match.
 * Output: probe columns, dimension columns, with the probe row's change kind.
 */
export interface LookupJoinNode extends NodeBase {
  readonly kind: "lookup-join";
  readonly joinType: "inner" | "left";
  /** The dimension table: its name, connector and options (hints merged). */
  readonly table: string;
  readonly connector: string;
  readonly options: Readonly<Record<string, string>>;
  /** The dimension table's columns (all physical), as the join's right half. */
  readonly dimSchema: readonly Field[];
  /** Probe columns, and the dimension columns they equal (same length, same types). */
  readonly leftKeys: readonly number[];
  readonly dimKeys: readonly number[];
  /** Residual condition over the concatenated row (probe, dimension), or null. */
  readonly condition: Expr | null;
  /** The table's `'lookup.*'` options and the job's `'table.exec.async-lookup.*'`, checked. */
  readonly lookup: LookupConfig;
}

export interface LookupConfig {
  /** `'lookup.cache'` = 'PARTIAL' (null: NONE). */
  readonly cache: {
    /** `'lookup.partial-cache.max-rows'`: keys kept (least recently used evicted); null = unbounded. */
    readonly maxRows: number | null;
    readonly expireAfterWriteMs: number | null;
    readonly expireAfterAccessMs: number | null;
    readonly cacheMissingKey: boolean;
  } | null;
  /**
   * A FULL cache (a table that cannot be queried by key, such as files): the whole table is
   * loaded into an index on the lookup keys when the job starts (and on restore), and probe rows
   * are answered from it at once. null: the table is queried by key.
   */
  readonly full?: {
    /** `'lookup.full-cache.periodic-reload.interval'`: reload every interval; null = load once. */
    readonly reloadIntervalMs: number | null;
    /** `'lookup.full-cache.periodic-reload.schedule-mode'` = FIXED_RATE (default FIXED_DELAY). */
    readonly fixedRate: boolean;
  } | null;
  /** `'lookup.max-retries'` (default 3). */
  readonly maxRetries: number;
  /** `'table.exec.async-lookup.buffer-capacity'`: probe rows in flight at most (default 100). */
  readonly bufferCapacity: number;
  /** `'table.exec.async-lookup.timeout'` (default 3 min). */
  readonly timeoutMs: number;
  /** `'table.exec.async-lookup.output-mode'`: ORDERED (default) keeps the input order. */
  readonly ordered: boolean;
}

/** Join of two window TVF outputs on window_start, window_end and keys; emits when the window fires. */
/**
 * Where a windowed input carries its window: the window_start and window_end columns, and whether
 * they are wall-clock values of 'table.local-time-zone' (windows over a TIMESTAMP_LTZ time
 * column), in which case the operator compares them with the watermark in that zone.
 */
export interface WindowColumns {
  readonly start: number;
  readonly end: number;
  readonly timeZoneAligned?: boolean;
}

export interface WindowJoinNode extends NodeBase {
  readonly kind: "window-join";
  readonly joinType: JoinType;
  readonly leftKeys: readonly number[];
  readonly rightKeys: readonly number[];
  readonly leftWindow: WindowColumns;
  readonly rightWindow: WindowColumns;
  readonly condition: Expr | null;
}

export interface SortKey {
  readonly column: number;
  readonly descending: boolean;
  readonly nullsFirst: boolean;
}

/** Top-N: ROW_NUMBER/RANK/DENSE_RANK over a partition, kept while rank <= rankEnd. */
export interface RankNode extends NodeBase {
  readonly kind: "rank";
  readonly rankFunction: "ROW_NUMBER" | "RANK" | "DENSE_RANK";
  readonly partitionKeys: readonly number[];
  readonly orderBy: readonly SortKey[];
  readonly rankStart: number;
  readonly rankEnd: number;
  /** Append the rank number as the last output column. */
  readonly outputRank: boolean;
}

/** ROW_NUMBER() OVER (PARTITION BY k ORDER BY time [DESC]) = 1. */
export interface DeduplicateNode extends NodeBase {
  readonly kind: "deduplicate";
  readonly keys: readonly number[];
  readonly keepLast: boolean;
  readonly timeColumn: number;
  readonly timeKind: "rowtime" | "proctime";
}

export interface WindowRankNode extends NodeBase {
  readonly kind: "window-rank";
  readonly window: WindowColumns;
  readonly rankFunction: "ROW_NUMBER" | "RANK" | "DENSE_RANK";
  readonly partitionKeys: readonly number[];
  readonly orderBy: readonly SortKey[];
  readonly rankStart: number;
  readonly rankEnd: number;
  readonly outputRank: boolean;
}

export interface WindowDeduplicateNode extends NodeBase {
  readonly kind: "window-deduplicate";
  readonly window: WindowColumns;
  readonly keys: readonly number[];
  readonly keepLast: boolean;
  readonly timeColumn: number;
}

export interface OverFrame {
  readonly kind: "rows" | "range";
  /** Rows or milliseconds preceding; null = UNBOUNDED PRECEDING. */
  readonly preceding: number | null;
}

/** OVER aggregation ordered by rowtime; output = input columns + one column per aggregate. */
export interface OverAggregateNode extends NodeBase {
  readonly kind: "over-aggregate";
  readonly partitionKeys: readonly number[];
  readonly timeColumn: number;
  readonly frame: OverFrame;
  readonly aggregates: readonly AggregateCall[];
}

/** CROSS JOIN UNNEST(arr): output = input columns + the element column(s) [+ ordinality]. */
export interface UnnestNode extends NodeBase {
  readonly kind: "unnest";
  readonly array: Expr;
  readonly withOrdinality: boolean;
  readonly leftOuter: boolean;
}

/** Turns an upsert stream (by `key`) into a retract stream, keeping the last row per key. */
export interface ChangelogNormalizeNode extends NodeBase {
  readonly kind: "changelog-normalize";
  readonly key: readonly number[];
}

/**
 * Rows a task routes from inside itself on a named side-output port (late rows: `late-<input>`),
 * projected to a sink table's columns. `inputs[0]` is the producing task: the graph delivers that
 * task's side rows on `port` here, and only its watermarks, barriers and end of input — never its
 * main output. A sink reads this node like any other input, so the rows are part of checkpoints
 * and exactly-once delivery like any sink's. Insert-only.
 */
export interface SideOutputNode extends NodeBase {
  readonly kind: "side-output";
  readonly port: string;
  /** Per output column: the index in the producer's side row, or −1 for NULL. */
  readonly columns: readonly number[];
}

export interface SinkNode extends NodeBase {
  readonly kind: "sink";
  readonly table: string;
  readonly connector: string;
  readonly options: Readonly<Record<string, string>>;
  /** The sink table's columns (what is written). */
  readonly tableSchema: readonly Field[];
  readonly primaryKey: readonly number[] | null;
  /** What the input delivers, after the planner's checks. */
  readonly inputMode: ChangelogMode;
  /**
   * Columns of `tableSchema` that are writable metadata (`METADATA [FROM 'key']` without
   * VIRTUAL): the connector writes them as record metadata (a Kafka record's timestamp or
   * headers), never as fields of the value.
   */
  readonly metadataColumns?: readonly { readonly column: number; readonly key: string }[];
}
