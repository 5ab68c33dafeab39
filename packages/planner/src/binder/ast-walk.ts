import type * as ast from "@weir/parser";
import { isAggregateFunction } from "../functions/aggregates.js";

/** Direct sub-expressions of an AST expression (subqueries are not entered). */
export function exprChildren(e: ast.Expr): ast.Expr[] {
  switch (e.kind) {
    case "NumberLiteral":
    case "StringLiteral":
    case "BinaryLiteral":
    case "BooleanLiteral":
    case "NullLiteral":
    case "TypedLiteral":
    case "IntervalLiteral":
    case "ColumnRef":
    case "ExistsExpr":
    case "SubqueryExpr":
      return [];
    case "UnaryExpr":
      return [e.operand];
    case "BinaryExpr":
      return [e.left, e.right];
    case "IsExpr":
      return [e.operand];
    case "IsDistinctFromExpr":
      return [e.left, e.right];
    case "BetweenExpr":
      return [e.operand, e.low, e.high];
    case "LikeExpr":
      return e.escape ? [e.operand, e.pattern, e.escape] : [e.operand, e.pattern];
    case "InListExpr":
      return [e.operand, ...e.list];
    case "InSubqueryExpr":
      return [e.operand];
    case "CaseExpr": {
      const out: ast.Expr[] = e.operand ? [e.operand] : [];
      for (const w of e.whens) out.push(w.when, w.then);
      if (e.else) out.push(e.else);
      return out;
    }
    case "CastExpr":
      return [e.operand];
    case "FunctionCall": {
      const out = [...e.args];
      if (e.filter) out.push(e.filter);
      return out;
    }
    case "ExtractExpr":
      return [e.source];
    case "FloorCeilExpr":
      return [e.operand];
    case "TrimExpr":
      return e.chars ? [e.chars, e.source] : [e.source];
    case "SubstringExpr":
      return e.for ? [e.source, e.from, e.for] : [e.source, e.from];
    case "PositionExpr":
      return [e.needle, e.haystack];
    case "OverlayExpr":
      return e.for ? [e.source, e.replacement, e.from, e.for] : [e.source, e.replacement, e.from];
    case "JsonValueExpr": {
      const out = [e.json, e.path];
      for (const x of [e.onEmpty, e.onError]) if (x?.kind === "DEFAULT") out.push(x.value);
      return out;
    }
    case "TimestampArithExpr":
      return [...e.args];
    case "ArrayConstructor":
      return [...e.elements];
    case "MapConstructor":
      return e.entries.flatMap((x) => [x.key, x.value]);
    case "RowConstructor":
      return [...e.fields];
    case "SubscriptExpr":
      return [e.target, e.index];
    case "FieldAccessExpr":
      return [e.target];
    default: {
      const _exhaustive: never = e;
      return _exhaustive;
    }
  }
}

export function functionName(call: ast.FunctionCall): string {
  return call.name.parts.map((p) => p.value).join(".");
}

export const RANKING_FUNCTIONS = new Set(["ROW_NUMBER", "RANK", "DENSE_RANK"]);

/** An aggregate call of GROUP BY (not an OVER window call). */
export function isAggregateCall(e: ast.Expr): boolean {
  return (
    e.kind === "FunctionCall" &&
    e.over === undefined &&
    e.name.parts.length === 1 &&
    isAggregateFunction(functionName(e))
  );
}

/** `GROUPING(...)` / `GROUPING_ID(...)`, answered from the grouping sets. */
export function isGroupingCall(e: ast.Expr): boolean {
  if (e.kind !== "FunctionCall" || e.over !== undefined) return false;
  const n = functionName(e).toUpperCase();
  return n === "GROUPING" || n === "GROUPING_ID";
}

export function isOverCall(e: ast.Expr): boolean {
  return e.kind === "FunctionCall" && e.over !== undefined;
}

/** TUMBLE_START(...) and friends: read the legacy group window's columns. */
export function groupWindowAuxiliary(e: ast.Expr): { window: string; part: string } | undefined {
  if (e.kind !== "FunctionCall" || e.over !== undefined) return undefined;
  const m = /^(TUMBLE|HOP|SESSION)_(START|END|ROWTIME|PROCTIME)$/.exec(functionName(e).toUpperCase());
  return m ? { window: m[1]!, part: m[2]! } : undefined;
}

/** Collects the outermost function calls satisfying `pred`, left to right, not descending into matches. */
export function collect(
  e: ast.Expr,
  pred: (e: ast.Expr) => boolean,
  out: ast.FunctionCall[] = [],
): ast.FunctionCall[] {
  if (e.kind === "FunctionCall" && pred(e)) {
    out.push(e);
    return out;
  }
  for (const c of exprChildren(e)) collect(c, pred, out);
  return out;
}

export function contains(e: ast.Expr, pred: (e: ast.Expr) => boolean): boolean {
  if (pred(e)) return true;
  return exprChildren(e).some((c) => contains(c, pred));
}
