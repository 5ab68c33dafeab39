import type { Span } from "../span.js";
import type { Identifier, QualifiedName } from "./common.js";
import type { OrderItem, Query } from "./query.js";
import type { DataTypeNode, IntervalQualifier, TimeUnit } from "./types.js";

/** A numeric literal; `text` is the source spelling (`1`, `1.50`, `2E-3`), never negative. */
export interface NumberLiteral {
  readonly kind: "NumberLiteral";
  readonly text: string;
  readonly span: Span;
}

/** `'text'`, `U&'...'` (decoded); `value` is the decoded content. */
export interface StringLiteral {
  readonly kind: "StringLiteral";
  readonly value: string;
  readonly span: Span;
}

/** `X'0AFF'`; `hex` is upper-case with an even number of digits. */
export interface BinaryLiteral {
  readonly kind: "BinaryLiteral";
  readonly hex: string;
  readonly span: Span;
}

export interface BooleanLiteral {
  readonly kind: "BooleanLiteral";
  readonly value: boolean;
  readonly span: Span;
}

export interface NullLiteral {
  readonly kind: "NullLiteral";
  readonly span: Span;
}

/** `DATE '2024-01-01'`, `TIME '12:00:00'`, `TIMESTAMP '2024-01-01 12:00:00'`; `value` is unparsed. */
export interface TypedLiteral {
  readonly kind: "TypedLiteral";
  readonly type: "DATE" | "TIME" | "TIMESTAMP";
  readonly value: string;
  readonly span: Span;
}

/**
 * `INTERVAL '1' MINUTE`, `INTERVAL '1:30' HOUR TO MINUTE`, `INTERVAL -'2' DAY`; without a qualifier
 * (`INTERVAL '1 minute'`) the unit is inside `value`. `value` is the unparsed string content.
 */
export interface IntervalLiteral {
  readonly kind: "IntervalLiteral";
  readonly negative: boolean;
  readonly value: string;
  readonly qualifier?: IntervalQualifier;
  readonly span: Span;
}

/**
 * An unqualified or qualified column reference as written (`a`, `t.a`, `t.a.b`). Whether a prefix
 * names a table or a row field is decided by the planner.
 */
export interface ColumnRef {
  readonly kind: "ColumnRef";
  readonly names: readonly Identifier[];
  readonly span: Span;
}

export type UnaryOperator = "-" | "+" | "NOT";

export interface UnaryExpr {
  readonly kind: "UnaryExpr";
  readonly op: UnaryOperator;
  readonly operand: Expr;
  readonly span: Span;
}

/** Binary operators; `!=` is normalised to `<>`. */
export type BinaryOperator =
  | "OR"
  | "AND"
  | "="
  | "<>"
  | "<"
  | ">"
  | "<="
  | ">="
  | "||"
  | "+"
  | "-"
  | "*"
  | "/"
  | "%";

export interface BinaryExpr {
  readonly kind: "BinaryExpr";
  readonly op: BinaryOperator;
  readonly left: Expr;
  readonly right: Expr;
  readonly span: Span;
}

/** `x IS [NOT] NULL | TRUE | FALSE | UNKNOWN`. */
export interface IsExpr {
  readonly kind: "IsExpr";
  readonly operand: Expr;
  readonly test: "NULL" | "TRUE" | "FALSE" | "UNKNOWN";
  readonly negated: boolean;
  readonly span: Span;
}

/** `x IS [NOT] DISTINCT FROM y`. */
export interface IsDistinctFromExpr {
  readonly kind: "IsDistinctFromExpr";
  readonly left: Expr;
  readonly right: Expr;
  readonly negated: boolean;
  readonly span: Span;
}

export interface BetweenExpr {
  readonly kind: "BetweenExpr";
  readonly operand: Expr;
  readonly low: Expr;
  readonly high: Expr;
  readonly negated: boolean;
  readonly symmetric: boolean;
  readonly span: Span;
}

export interface LikeExpr {
  readonly kind: "LikeExpr";
  readonly op: "LIKE" | "SIMILAR TO";
  readonly operand: Expr;
  readonly pattern: Expr;
  readonly escape?: Expr;
  readonly negated: boolean;
  readonly span: Span;
}

export interface InListExpr {
  readonly kind: "InListExpr";
  readonly operand: Expr;
  readonly list: readonly Expr[];
  readonly negated: boolean;
  readonly span: Span;
}

export interface InSubqueryExpr {
  readonly kind: "InSubqueryExpr";
  readonly operand: Expr;
  readonly query: Query;
  readonly negated: boolean;
  readonly span: Span;
}

/** `EXISTS (query)`; `NOT EXISTS` is a `UnaryExpr` NOT around it. */
export interface ExistsExpr {
  readonly kind: "ExistsExpr";
  readonly query: Query;
  readonly span: Span;
}

export interface SubqueryExpr {
  readonly kind: "SubqueryExpr";
  readonly query: Query;
  readonly span: Span;
}

export interface CaseWhen {
  readonly kind: "CaseWhen";
  readonly when: Expr;
  readonly then: Expr;
  readonly span: Span;
}

/** Simple form when `operand` is set (`CASE x WHEN 1 THEN ...`), searched form otherwise. */
export interface CaseExpr {
  readonly kind: "CaseExpr";
  readonly operand?: Expr;
  readonly whens: readonly CaseWhen[];
  readonly else?: Expr;
  readonly span: Span;
}

/** `CAST(x AS t)`, or `TRY_CAST(x AS t)` when `safe`. */
export interface CastExpr {
  readonly kind: "CastExpr";
  readonly operand: Expr;
  readonly type: DataTypeNode;
  readonly safe: boolean;
  readonly span: Span;
}

/** Window frame bound; `offset` is set exactly for `PRECEDING` and `FOLLOWING`. */
export interface FrameBound {
  readonly kind: "FrameBound";
  readonly bound: "UNBOUNDED PRECEDING" | "UNBOUNDED FOLLOWING" | "CURRENT ROW" | "PRECEDING" | "FOLLOWING";
  readonly offset?: Expr;
  readonly span: Span;
}

/** `ROWS|RANGE BETWEEN start AND end`, or `ROWS|RANGE start` when `end` is absent. */
export interface WindowFrame {
  readonly kind: "WindowFrame";
  readonly unit: "ROWS" | "RANGE";
  readonly start: FrameBound;
  readonly end?: FrameBound;
  readonly span: Span;
}

/** `(base PARTITION BY ... ORDER BY ... frame)`; `base` names a window from the WINDOW clause. */
export interface WindowSpec {
  readonly kind: "WindowSpec";
  readonly base?: Identifier;
  readonly partitionBy: readonly Expr[];
  readonly orderBy: readonly OrderItem[];
  readonly frame?: WindowFrame;
  readonly span: Span;
}

/** `OVER w`: a reference to a window of the WINDOW clause. */
export interface WindowRef {
  readonly kind: "WindowRef";
  readonly name: Identifier;
  readonly span: Span;
}

/**
 * A function call. `star` is `COUNT(*)` (then `args` is empty); `noParens` marks niladic functions
 * written without parentheses (`CURRENT_TIMESTAMP`). `filter` is `FILTER (WHERE ...)`, `withinGroup`
 * is `WITHIN GROUP (ORDER BY ...)`, `over` an OVER window.
 */
export interface FunctionCall {
  readonly kind: "FunctionCall";
  readonly name: QualifiedName;
  readonly args: readonly Expr[];
  readonly distinct: boolean;
  readonly star: boolean;
  readonly noParens: boolean;
  readonly filter?: Expr;
  readonly withinGroup: readonly OrderItem[];
  readonly over?: WindowSpec | WindowRef;
  readonly span: Span;
}

/** `EXTRACT(unit FROM source)`. */
export interface ExtractExpr {
  readonly kind: "ExtractExpr";
  readonly unit: TimeUnit;
  readonly source: Expr;
  readonly span: Span;
}

/** `FLOOR(x TO unit)` / `CEIL(x TO unit)`; the plain `FLOOR(x)` is a `FunctionCall`. */
export interface FloorCeilExpr {
  readonly kind: "FloorCeilExpr";
  readonly fn: "FLOOR" | "CEIL";
  readonly operand: Expr;
  readonly unit: TimeUnit;
  readonly span: Span;
}

/** `TRIM([BOTH|LEADING|TRAILING] [chars] FROM source)` or `TRIM(source)`. */
export interface TrimExpr {
  readonly kind: "TrimExpr";
  readonly mode: "BOTH" | "LEADING" | "TRAILING";
  readonly chars?: Expr;
  readonly source: Expr;
  readonly span: Span;
}

/** `SUBSTRING(s FROM i [FOR n])`; the comma form `SUBSTRING(s, i, n)` is a `FunctionCall`. */
export interface SubstringExpr {
  readonly kind: "SubstringExpr";
  readonly source: Expr;
  readonly from: Expr;
  readonly for?: Expr;
  readonly span: Span;
}

/** `POSITION(needle IN haystack)`. */
export interface PositionExpr {
  readonly kind: "PositionExpr";
  readonly needle: Expr;
  readonly haystack: Expr;
  readonly span: Span;
}

/** `OVERLAY(source PLACING replacement FROM start [FOR length])`. */
export interface OverlayExpr {
  readonly kind: "OverlayExpr";
  readonly source: Expr;
  readonly replacement: Expr;
  readonly from: Expr;
  readonly for?: Expr;
  readonly span: Span;
}

/** What JSON_VALUE gives when the path selects nothing (ON EMPTY) or fails (ON ERROR). */
export type JsonBehavior =
  | { readonly kind: "NULL" }
  | { readonly kind: "ERROR" }
  | { readonly kind: "DEFAULT"; readonly value: Expr };

/**
 * `JSON_VALUE(json, path [RETURNING type] [{NULL | ERROR | DEFAULT e} ON EMPTY]
 * [{NULL | ERROR | DEFAULT e} ON ERROR])`.
 */
export interface JsonValueExpr {
  readonly kind: "JsonValueExpr";
  readonly json: Expr;
  readonly path: Expr;
  readonly returning?: DataTypeNode;
  readonly onEmpty?: JsonBehavior;
  readonly onError?: JsonBehavior;
  readonly span: Span;
}

/** `TIMESTAMPADD(unit, n, ts)` / `TIMESTAMPDIFF(unit, a, b)`; `args` has exactly two elements. */
export interface TimestampArithExpr {
  readonly kind: "TimestampArithExpr";
  readonly fn: "TIMESTAMPADD" | "TIMESTAMPDIFF";
  readonly unit: TimeUnit;
  readonly args: readonly [Expr, Expr];
  readonly span: Span;
}

export interface ArrayConstructor {
  readonly kind: "ArrayConstructor";
  readonly elements: readonly Expr[];
  readonly span: Span;
}

export interface MapEntry {
  readonly kind: "MapEntry";
  readonly key: Expr;
  readonly value: Expr;
  readonly span: Span;
}

/** `MAP[k1, v1, k2, v2]`. */
export interface MapConstructor {
  readonly kind: "MapConstructor";
  readonly entries: readonly MapEntry[];
  readonly span: Span;
}

/** `ROW(a, b)` when `explicit`, or a parenthesised tuple `(a, b)` of at least two elements. */
export interface RowConstructor {
  readonly kind: "RowConstructor";
  readonly fields: readonly Expr[];
  readonly explicit: boolean;
  readonly span: Span;
}

/** `target[index]`: array element (1-based) or map lookup. */
export interface SubscriptExpr {
  readonly kind: "SubscriptExpr";
  readonly target: Expr;
  readonly index: Expr;
  readonly span: Span;
}

/** `target.field` where `target` is not a plain name (`f(x).a`, `arr[1].b`); see `ColumnRef`. */
export interface FieldAccessExpr {
  readonly kind: "FieldAccessExpr";
  readonly target: Expr;
  readonly field: Identifier;
  readonly span: Span;
}

export type Literal =
  | NumberLiteral
  | StringLiteral
  | BinaryLiteral
  | BooleanLiteral
  | NullLiteral
  | TypedLiteral
  | IntervalLiteral;

export type Expr =
  | Literal
  | ColumnRef
  | UnaryExpr
  | BinaryExpr
  | IsExpr
  | IsDistinctFromExpr
  | BetweenExpr
  | LikeExpr
  | InListExpr
  | InSubqueryExpr
  | ExistsExpr
  | SubqueryExpr
  | CaseExpr
  | CastExpr
  | FunctionCall
  | ExtractExpr
  | FloorCeilExpr
  | TrimExpr
  | SubstringExpr
  | PositionExpr
  | OverlayExpr
  | JsonValueExpr
  | TimestampArithExpr
  | ArrayConstructor
  | MapConstructor
  | RowConstructor
  | SubscriptExpr
  | FieldAccessExpr;
