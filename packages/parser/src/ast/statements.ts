import type { Span } from "../span.js";
import type { Identifier, OptionPair, QualifiedName, StringValue } from "./common.js";
import type { Expr } from "./expressions.js";
import type { Hint, Query } from "./query.js";
import type { DataTypeNode } from "./types.js";

/** `name TYPE [COMMENT '...']`. */
export interface PhysicalColumn {
  readonly kind: "PhysicalColumn";
  readonly name: Identifier;
  readonly type: DataTypeNode;
  readonly comment?: StringValue;
  readonly span: Span;
}

/** `name AS expr [COMMENT '...']`. */
export interface ComputedColumn {
  readonly kind: "ComputedColumn";
  readonly name: Identifier;
  readonly expr: Expr;
  readonly comment?: StringValue;
  readonly span: Span;
}

/** `name TYPE METADATA [FROM 'key'] [VIRTUAL] [COMMENT '...']`. */
export interface MetadataColumn {
  readonly kind: "MetadataColumn";
  readonly name: Identifier;
  readonly type: DataTypeNode;
  readonly from?: StringValue;
  readonly virtual: boolean;
  readonly comment?: StringValue;
  readonly span: Span;
}

export type ColumnDef = PhysicalColumn | ComputedColumn | MetadataColumn;

/** `WATERMARK FOR column AS expr`. */
export interface WatermarkDef {
  readonly kind: "WatermarkDef";
  readonly column: Identifier;
  readonly expr: Expr;
  readonly span: Span;
}

/**
 * `[CONSTRAINT name] PRIMARY KEY (cols) NOT ENFORCED`; a column-level `PRIMARY KEY NOT ENFORCED`
 * becomes the same node. Weir, like Flink, never enforces keys, so `enforced` is always false.
 */
export interface PrimaryKey {
  readonly kind: "PrimaryKey";
  readonly constraintName?: Identifier;
  readonly columns: readonly Identifier[];
  readonly enforced: false;
  readonly span: Span;
}

export type LikeOptionTarget =
  | "ALL"
  | "CONSTRAINTS"
  | "GENERATED"
  | "METADATA"
  | "OPTIONS"
  | "PARTITIONS"
  | "WATERMARKS";

/** `INCLUDING ALL`, `EXCLUDING OPTIONS`, `OVERWRITING WATERMARKS`, ... */
export interface LikeOption {
  readonly kind: "LikeOption";
  readonly mode: "INCLUDING" | "EXCLUDING" | "OVERWRITING";
  readonly target: LikeOptionTarget;
  readonly span: Span;
}

/** `LIKE source [(option ...)]` at the end of CREATE TABLE. */
export interface LikeClause {
  readonly kind: "LikeClause";
  readonly source: QualifiedName;
  readonly options: readonly LikeOption[];
  readonly span: Span;
}

/**
 * CREATE [TEMPORARY] TABLE. With `asQuery` (CREATE TABLE ... AS query) the column list may be empty.
 * Invariant: at most one primary key and one watermark.
 */
export interface CreateTable {
  readonly kind: "CreateTable";
  readonly temporary: boolean;
  readonly ifNotExists: boolean;
  readonly name: QualifiedName;
  readonly columns: readonly ColumnDef[];
  readonly watermark?: WatermarkDef;
  readonly primaryKey?: PrimaryKey;
  readonly comment?: StringValue;
  readonly partitionedBy: readonly Identifier[];
  readonly options: readonly OptionPair[];
  readonly like?: LikeClause;
  readonly asQuery?: Query;
  readonly span: Span;
}

export interface CreateView {
  readonly kind: "CreateView";
  readonly temporary: boolean;
  readonly ifNotExists: boolean;
  readonly name: QualifiedName;
  readonly columns: readonly Identifier[];
  readonly comment?: StringValue;
  readonly query: Query;
  readonly span: Span;
}

export interface CreateMaterializedView {
  readonly kind: "CreateMaterializedView";
  readonly ifNotExists: boolean;
  readonly name: QualifiedName;
  readonly comment?: StringValue;
  readonly options: readonly OptionPair[];
  readonly query: Query;
  readonly span: Span;
}

export interface Drop {
  readonly kind: "Drop";
  readonly objectType: "TABLE" | "VIEW" | "MATERIALIZED VIEW";
  readonly temporary: boolean;
  readonly ifExists: boolean;
  readonly name: QualifiedName;
  readonly span: Span;
}

/** `col = value` in a static `PARTITION (...)` clause of INSERT. */
export interface PartitionValue {
  readonly kind: "PartitionValue";
  readonly column: Identifier;
  readonly value: Expr;
  readonly span: Span;
}

export interface Insert {
  readonly kind: "Insert";
  readonly mode: "INTO" | "OVERWRITE";
  readonly table: QualifiedName;
  readonly hints: readonly Hint[];
  readonly partition: readonly PartitionValue[];
  readonly columns: readonly Identifier[];
  readonly query: Query;
  readonly span: Span;
}

/** `EXECUTE STATEMENT SET BEGIN insert; ... END`; `inserts` is never empty. */
export interface StatementSet {
  readonly kind: "StatementSet";
  readonly inserts: readonly Insert[];
  readonly span: Span;
}

/** `SET 'k' = 'v'`, or bare `SET` (list all) when `key` is absent; `value` is set iff `key` is. */
export interface SetStatement {
  readonly kind: "SetStatement";
  readonly key?: StringValue;
  readonly value?: StringValue;
  readonly span: Span;
}

/** `RESET 'k'`, or `RESET` (all keys). */
export interface ResetStatement {
  readonly kind: "ResetStatement";
  readonly key?: StringValue;
  readonly span: Span;
}

export type ShowObject = "TABLES" | "VIEWS" | "MATERIALIZED VIEWS" | "JOBS" | "FUNCTIONS";

export interface Show {
  readonly kind: "Show";
  readonly object: ShowObject;
  readonly span: Span;
}

export interface ShowCreate {
  readonly kind: "ShowCreate";
  readonly objectType: "TABLE" | "VIEW";
  readonly name: QualifiedName;
  readonly span: Span;
}

/** `DESCRIBE t` or `DESC t`. */
export interface Describe {
  readonly kind: "Describe";
  readonly name: QualifiedName;
  readonly span: Span;
}

export type ExplainDetail = "CHANGELOG_MODE" | "ESTIMATED_COST" | "JSON_EXECUTION_PLAN" | "PLAN_ADVICE";

/** `EXPLAIN [PLAN FOR | detail, ...] target`; `details` has no duplicates. */
export interface Explain {
  readonly kind: "Explain";
  readonly details: readonly ExplainDetail[];
  readonly target: QueryStatement | Insert | StatementSet;
  readonly span: Span;
}

/** `STOP JOB 'id' [WITH SAVEPOINT] [WITH DRAIN]`. */
export interface StopJob {
  readonly kind: "StopJob";
  readonly jobId: StringValue;
  readonly withSavepoint: boolean;
  readonly withDrain: boolean;
  readonly span: Span;
}

export interface QueryStatement {
  readonly kind: "QueryStatement";
  readonly query: Query;
  readonly span: Span;
}

export type Statement =
  | CreateTable
  | CreateView
  | CreateMaterializedView
  | Drop
  | Insert
  | StatementSet
  | SetStatement
  | ResetStatement
  | Show
  | ShowCreate
  | Describe
  | Explain
  | StopJob
  | QueryStatement;
