import type { BinaryOperator, Expr } from "./ast/expressions.js";

/**
 * Binding strength, weakest first. The parser climbs these levels and the printer uses the same
 * table to decide where parentheses are needed, so the two cannot disagree.
 */
export const Prec = {
  OR: 1,
  AND: 2,
  NOT: 3,
  /** `= <> < > <= >=`, IS, LIKE, SIMILAR TO, IN, BETWEEN. */
  COMPARISON: 4,
  /** `||`, binary `+` and `-`. */
  ADDITIVE: 5,
  /** `*`, `/`, `%`. */
  MULTIPLICATIVE: 6,
  /** Unary `-` and `+`. */
  UNARY: 7,
  /** Field access `a.b`, subscript `a[i]` and everything atomic. */
  POSTFIX: 8,
} as const;

export function binaryPrec(op: BinaryOperator): number {
  switch (op) {
    case "OR":
      return Prec.OR;
    case "AND":
      return Prec.AND;
    case "=":
    case "<>":
    case "<":
    case ">":
    case "<=":
    case ">=":
      return Prec.COMPARISON;
    case "||":
    case "+":
    case "-":
      return Prec.ADDITIVE;
    case "*":
    case "/":
    case "%":
      return Prec.MULTIPLICATIVE;
    default: {
      const _exhaustive: never = op;
      return _exhaustive;
    }
  }
}

/** The level of an expression's outermost operator (`POSTFIX` for atoms). */
export function exprPrec(e: Expr): number {
  switch (e.kind) {
    case "BinaryExpr":
      return binaryPrec(e.op);
    case "UnaryExpr":
      return e.op === "NOT" ? Prec.NOT : Prec.UNARY;
    case "IsExpr":
    case "IsDistinctFromExpr":
    case "BetweenExpr":
    case "LikeExpr":
    case "InListExpr":
    case "InSubqueryExpr":
      return Prec.COMPARISON;
    case "IntervalLiteral":
      // `INTERVAL '1' DAY` followed by `.x` or `[i]` would be ambiguous; treat as unary-level.
      return Prec.UNARY;
    case "NumberLiteral":
    case "StringLiteral":
    case "BinaryLiteral":
    case "BooleanLiteral":
    case "NullLiteral":
    case "TypedLiteral":
    case "ColumnRef":
    case "ExistsExpr":
    case "SubqueryExpr":
    case "CaseExpr":
    case "CastExpr":
    case "FunctionCall":
    case "ExtractExpr":
    case "FloorCeilExpr":
    case "TrimExpr":
    case "SubstringExpr":
    case "PositionExpr":
    case "OverlayExpr":
    case "JsonValueExpr":
    case "TimestampArithExpr":
    case "ArrayConstructor":
    case "MapConstructor":
    case "RowConstructor":
    case "SubscriptExpr":
    case "FieldAccessExpr":
      return Prec.POSTFIX;
    default: {
      const _exhaustive: never = e;
      return _exhaustive;
    }
  }
}
