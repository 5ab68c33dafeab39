import type { CatalogTable } from "./catalog/catalog.js";
import type { Expr } from "./expr.js";
import type { AggregateCall, Field, JoinType, SortKey, SourceSpan, WindowSpec } from "./physical.js";

/**
 * The logical plan: what the binder builds from a query, before rewrites choose physical
 * operators. A tree (a CTE or view used twice is bound twice). Every node knows its output
 * `schema`; expressions refer to the fields of the node's input (for joins: left fields then
 * right fields) by position.
 */
export type LogicalNode =
  | LogicalScan
  | LogicalValues
  | LogicalProject
  | LogicalFilter
  | LogicalAggregate
  | LogicalJoin
  | LogicalWindowTableFunction
  | LogicalUnion
  | LogicalSort
  | LogicalOver
  | LogicalUnnest
  | LogicalSetOp;

export type LogicalNodeKind = LogicalNode["kind"];

interface LogicalBase {
  readonly schema: readonly Field[];
  /** The SQL text the node was bound from, for errors and EXPLAIN. */
  readonly span?: SourceSpan;
}

/** Reads a catalog table: output = physical + metadata + computed columns, in declaration order. */
export interface LogicalScan extends LogicalBase {
  readonly kind: "scan";
  readonly table: CatalogTable;
  /** `/*+ OPTIONS(...) *\/` hints merged over the table's options. */
  readonly hintOptions: Readonly<Record<string, string>>;
}

export interface LogicalValues extends LogicalBase {
  readonly kind: "values";
  /** Constant expressions (literals, casts of literals, constructors). */
  readonly rows: readonly (readonly Expr[])[];
}

export interface LogicalProject extends LogicalBase {
  readonly kind: "project";
  readonly input: LogicalNode;
  readonly exprs: readonly Expr[];
}

export interface LogicalFilter extends LogicalBase {
  readonly kind: "filter";
  readonly input: LogicalNode;
  readonly condition: Expr;
}

/**
 * GROUP BY. Output = group keys (in `groupKeys` order) then aggregates; with grouping sets, the
 * keys not in a row's set are NULL and a trailing `$g` BIGINT column holds the grouping id
 * (Flink's `$e`). Aggregate arguments and filters are input columns (the binder projects them).
 */
export interface LogicalAggregate extends LogicalBase {
  readonly kind: "aggregate";
  readonly input: LogicalNode;
  readonly groupKeys: readonly number[];
  /** null = plain GROUP BY; else each set is a subset of `groupKeys` (by position in groupKeys). */
  readonly groupingSets: readonly (readonly number[])[] | null;
  readonly aggregates: readonly AggregateCall[];
  /**
   * Legacy group window `GROUP BY TUMBLE(ts, INTERVAL ...)` etc.; its window_start, window_end
   * and window_time (rowtime) columns follow the aggregates (TUMBLE_START … read them).
   */
  readonly groupWindow: { readonly window: WindowSpec; readonly timeColumn: number } | null;
}

export interface LogicalJoin extends LogicalBase {
  readonly kind: "join";
  readonly joinType: JoinType;
  readonly left: LogicalNode;
  readonly right: LogicalNode;
  /**
   * Over left fields then right fields; null for CROSS JOIN. For `semi` / `anti` joins (the
   * binder's form of `IN (subquery)` / `EXISTS`) the output is the left fields only; an uncorrelated
   * `EXISTS` has the condition TRUE.
   */
  readonly condition: Expr | null;
  /** `JOIN t FOR SYSTEM_TIME AS OF l.time`: a temporal join (event time or processing time). */
  readonly temporal?: TemporalJoinInfo;
}

/**
 * `leftTime` is the AS OF expression over the left fields (a time attribute column of the left
 * input). `rightTimeColumn` is the right input's rowtime column (a versioned table), absent when
 * the right table has none (a processing-time / lookup join).
 */
export interface TemporalJoinInfo {
  readonly kind: "event-time" | "processing-time";
  readonly leftTime: Expr;
  readonly rightTimeColumn?: number;
}

/** TABLE(TUMBLE/HOP/CUMULATE/SESSION(...)): input columns + window_start, window_end, window_time. */
export interface LogicalWindowTableFunction extends LogicalBase {
  readonly kind: "window-tvf";
  readonly input: LogicalNode;
  readonly window: WindowSpec;
  readonly timeColumn: number;
}

export interface LogicalUnion extends LogicalBase {
  readonly kind: "union";
  readonly inputs: readonly LogicalNode[];
  /** UNION (without ALL) is a union followed by a distinct aggregate, built by the binder. */
  readonly all: true;
}

/** INTERSECT / EXCEPT [ALL]. */
export interface LogicalSetOp extends LogicalBase {
  readonly kind: "setop";
  readonly op: "intersect" | "except";
  readonly all: boolean;
  readonly left: LogicalNode;
  readonly right: LogicalNode;
}

/** ORDER BY [LIMIT/OFFSET]. On a stream only Top-N (with LIMIT) or time-ordered sorts plan. */
export interface LogicalSort extends LogicalBase {
  readonly kind: "sort";
  readonly input: LogicalNode;
  readonly orderBy: readonly SortKey[];
  readonly offset: number;
  readonly limit: number | null;
}

/**
 * OVER windows: output = input columns + one column per call. ROW_NUMBER/RANK/DENSE_RANK are
 * calls here too; the rewrites turn `ROW_NUMBER() ... WHERE rn <= N` into Top-N/deduplication.
 */
export interface LogicalOver extends LogicalBase {
  readonly kind: "over";
  readonly input: LogicalNode;
  readonly calls: readonly OverCall[];
}

export interface OverCall {
  readonly fn: string;
  readonly args: readonly number[];
  readonly argTypes: LogicalBase["schema"][number]["type"][];
  readonly distinct: boolean;
  readonly filterColumn: number | null;
  readonly partitionKeys: readonly number[];
  readonly orderBy: readonly SortKey[];
  /** null for ranking functions (no frame); rows/range preceding (null = unbounded) to current row. */
  readonly frame: { readonly kind: "rows" | "range"; readonly preceding: number | null } | null;
  readonly type: Field["type"];
  /** Constant arguments (LAG: offset and whether the argument is a [value, default] pair). */
  readonly constants?: readonly (string | number | boolean | null)[];
  readonly name: string;
}

/** CROSS JOIN UNNEST(expr) / LEFT JOIN UNNEST ... ON TRUE: input columns + element column(s). */
export interface LogicalUnnest extends LogicalBase {
  readonly kind: "unnest";
  readonly input: LogicalNode;
  readonly array: Expr;
  readonly withOrdinality: boolean;
  readonly leftOuter: boolean;
}

/** Children of a node, left to right. */
export function logicalInputs(node: LogicalNode): readonly LogicalNode[] {
  switch (node.kind) {
    case "scan":
    case "values":
      return [];
    case "project":
    case "filter":
    case "aggregate":
    case "window-tvf":
    case "sort":
    case "over":
    case "unnest":
      return [node.input];
    case "join":
    case "setop":
      return [node.left, node.right];
    case "union":
      return node.inputs;
    default: {
      const _exhaustive: never = node;
      return _exhaustive;
    }
  }
}
