import type { Span } from "../span.js";
import type { Identifier, OptionPair, QualifiedName } from "./common.js";
import type { Expr, RowConstructor, WindowSpec } from "./expressions.js";

/**
 * A complete query: optional WITH, a body, and the ORDER BY / LIMIT / OFFSET / FETCH that apply to
 * the body as a whole. `limit` (`LIMIT n`) and `fetch` (`FETCH FIRST n ROWS ONLY`) are never both set.
 */
export interface Query {
  readonly kind: "Query";
  readonly with?: With;
  readonly body: QueryBody;
  readonly orderBy: readonly OrderItem[];
  readonly limit?: Expr;
  readonly offset?: Expr;
  readonly fetch?: Expr;
  readonly span: Span;
}

export type QueryBody = Select | SetOperation | Values | ParenQuery | TableQuery;

export interface With {
  readonly kind: "With";
  readonly ctes: readonly Cte[];
  readonly span: Span;
}

/** `name [(col, ...)] AS (query)`. */
export interface Cte {
  readonly kind: "Cte";
  readonly name: Identifier;
  readonly columns: readonly Identifier[];
  readonly query: Query;
  readonly span: Span;
}

export interface OrderItem {
  readonly kind: "OrderItem";
  readonly expr: Expr;
  readonly direction?: "ASC" | "DESC";
  readonly nulls?: "FIRST" | "LAST";
  readonly span: Span;
}

/** `name(args)` or `name` in a `/*+ ... *\/` hint: `options` for key-value hints, else `args`. */
export interface Hint {
  readonly kind: "Hint";
  readonly name: Identifier;
  readonly options: readonly OptionPair[];
  readonly args: readonly Identifier[];
  readonly span: Span;
}

export interface Select {
  readonly kind: "Select";
  readonly hints: readonly Hint[];
  readonly distinct: boolean;
  readonly items: readonly SelectItem[];
  /** Comma-separated FROM items; each item may itself be a join tree. Empty without FROM. */
  readonly from: readonly TableRef[];
  readonly where?: Expr;
  readonly groupBy: readonly GroupingElement[];
  readonly having?: Expr;
  readonly windows: readonly NamedWindow[];
  readonly span: Span;
}

export interface SelectExpr {
  readonly kind: "SelectExpr";
  readonly expr: Expr;
  readonly alias?: Identifier;
  readonly span: Span;
}

/** `*` or `t.*`. */
export interface SelectStar {
  readonly kind: "SelectStar";
  readonly qualifier?: QualifiedName;
  readonly span: Span;
}

export type SelectItem = SelectExpr | SelectStar;

export interface GroupingExpr {
  readonly kind: "GroupingExpr";
  readonly expr: Expr;
  readonly span: Span;
}

export interface GroupingSets {
  readonly kind: "GroupingSets";
  readonly sets: readonly GroupingElement[];
  readonly span: Span;
}

/** `ROLLUP(...)` / `CUBE(...)`; an element that is a tuple `(a, b)` is a `RowConstructor`. */
export interface RollupCube {
  readonly kind: "RollupCube";
  readonly op: "ROLLUP" | "CUBE";
  readonly exprs: readonly Expr[];
  readonly span: Span;
}

/** `()` inside GROUPING SETS (or `GROUP BY ()`). */
export interface EmptyGroupingSet {
  readonly kind: "EmptyGroupingSet";
  readonly span: Span;
}

export type GroupingElement = GroupingExpr | GroupingSets | RollupCube | EmptyGroupingSet;

/** `WINDOW name AS (spec)`. */
export interface NamedWindow {
  readonly kind: "NamedWindow";
  readonly name: Identifier;
  readonly spec: WindowSpec;
  readonly span: Span;
}

/** `left UNION|INTERSECT|EXCEPT [ALL] right`; set operations are left-associative, INTERSECT binds tighter. */
export interface SetOperation {
  readonly kind: "SetOperation";
  readonly op: "UNION" | "INTERSECT" | "EXCEPT";
  readonly all: boolean;
  readonly left: QueryBody;
  readonly right: QueryBody;
  readonly span: Span;
}

/** `VALUES (1, 'a'), ROW(2, 'b')`; every row is a `RowConstructor`, and `VALUES 1, 2` has one-value rows. */
export interface Values {
  readonly kind: "Values";
  readonly rows: readonly RowConstructor[];
  readonly span: Span;
}

/** A parenthesised query used as a set-operation operand or a query body. */
export interface ParenQuery {
  readonly kind: "ParenQuery";
  readonly query: Query;
  readonly span: Span;
}

/** `TABLE t` as a query. */
export interface TableQuery {
  readonly kind: "TableQuery";
  readonly name: QualifiedName;
  readonly span: Span;
}

/** `AS alias [(c1, c2)]` after a table reference. */
export interface TableAlias {
  readonly kind: "TableAlias";
  readonly name: Identifier;
  readonly columns: readonly Identifier[];
  readonly span: Span;
}

/** `name [/*+ hints *\/] [FOR SYSTEM_TIME AS OF expr] [[AS] alias]`. */
export interface NamedTable {
  readonly kind: "NamedTable";
  readonly name: QualifiedName;
  readonly hints: readonly Hint[];
  readonly systemTime?: Expr;
  readonly alias?: TableAlias;
  readonly span: Span;
}

/** `[LATERAL] (query) [[AS] alias]`; Weir allows a derived table without an alias. */
export interface DerivedTable {
  readonly kind: "DerivedTable";
  readonly lateral: boolean;
  readonly query: Query;
  readonly alias?: TableAlias;
  readonly span: Span;
}

/** `TABLE(fn(args))` or `LATERAL TABLE(fn(args))` in FROM. */
export interface TableFunctionRef {
  readonly kind: "TableFunctionRef";
  readonly lateral: boolean;
  readonly call: TableFunctionCall;
  readonly alias?: TableAlias;
  readonly span: Span;
}

/** `UNNEST(a, ...) [WITH ORDINALITY] [AS t(c, ...)]`. */
export interface UnnestRef {
  readonly kind: "UnnestRef";
  readonly args: readonly Expr[];
  readonly withOrdinality: boolean;
  readonly alias?: TableAlias;
  readonly span: Span;
}

export type JoinType = "INNER" | "LEFT" | "RIGHT" | "FULL" | "CROSS";

export interface JoinOn {
  readonly kind: "JoinOn";
  readonly expr: Expr;
  readonly span: Span;
}

export interface JoinUsing {
  readonly kind: "JoinUsing";
  readonly columns: readonly Identifier[];
  readonly span: Span;
}

/**
 * A join; `condition` is absent exactly for CROSS and NATURAL joins. Joins are left-deep:
 * `a JOIN b JOIN c` is `(a JOIN b) JOIN c`.
 */
export interface Join {
  readonly kind: "Join";
  readonly joinType: JoinType;
  readonly natural: boolean;
  readonly left: TableRef;
  readonly right: TableRef;
  readonly condition?: JoinOn | JoinUsing;
  readonly span: Span;
}

export type TableRef = NamedTable | DerivedTable | TableFunctionRef | UnnestRef | Join;

/** `fn(arg, ...)` inside `TABLE(...)`; named and positional arguments may mix. */
export interface TableFunctionCall {
  readonly kind: "TableFunctionCall";
  readonly name: QualifiedName;
  readonly args: readonly TableFunctionArg[];
  readonly span: Span;
}

/** One argument: `[name =>] value`. */
export interface TableFunctionArg {
  readonly kind: "TableFunctionArg";
  readonly name?: Identifier;
  readonly value: Expr | TableArg | DescriptorArg;
  readonly span: Span;
}

/** `TABLE t [PARTITION BY k | (k1, k2)]` as a table-function argument. */
export interface TableArg {
  readonly kind: "TableArg";
  readonly table: QualifiedName;
  readonly partitionBy: readonly Expr[];
  readonly span: Span;
}

/** `DESCRIPTOR(c, ...)` as a table-function argument. */
export interface DescriptorArg {
  readonly kind: "DescriptorArg";
  readonly columns: readonly Identifier[];
  readonly span: Span;
}
