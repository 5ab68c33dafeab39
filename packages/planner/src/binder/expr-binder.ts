import type * as ast from "@weir/parser";
import type { Expr, Literal } from "../expr.js";
import { E } from "../expr.js";
import { isAggregateFunction } from "../functions/aggregates.js";
import { decimalRoundType } from "../functions/decimal-types.js";
import { canonicalFunctionName, inferCall, isScalarFunction } from "../functions/infer.js";
import { OPERATORS } from "../functions/operators.js";
import { ALIASES, SCALAR_FUNCTIONS } from "../functions/scalar-functions.js";
import { canCast, commonType } from "../functions/type-rules.js";
import type { DataType } from "../types.js";
import { formatType, materialize, T, withNullable } from "../types.js";
import { functionName, groupWindowAuxiliary, RANKING_FUNCTIONS } from "./ast-walk.js";
import { bindDataType } from "./data-types.js";
import { didYouMean, fail } from "./errors.js";
import { bindInterval, bindNumber, bindTypedLiteral } from "./literals.js";
import type { Scope } from "./scope.js";
import { toTimestampLtzType } from "./timestamp-precision.js";

/**
 * How to bind expressions of one clause. `hook` sees every sub-expression first (outermost
 * first) and may answer it (aggregate calls, group keys, OVER calls, select aliases).
 */
export interface ExprContext {
  readonly scope: Scope;
  /** For messages: "WHERE", "ON", "GROUP BY", "a computed column", ... */
  readonly clause: string;
  readonly hook?: (e: ast.Expr) => Expr | undefined;
}

/** Structural identity of a bound expression (for matching GROUP BY keys and deduplication). */
export function exprKey(e: Expr): string {
  return JSON.stringify(e);
}

export function sameType(a: DataType, b: DataType): boolean {
  return (
    exprKeyOfType(withNullable(materialize(a), true)) === exprKeyOfType(withNullable(materialize(b), true))
  );
}

function exprKeyOfType(t: DataType): string {
  return JSON.stringify(t);
}

/** Casts `e` to `target` (keeping `e`'s nullability) unless it already has that type. */
export function coerce(e: Expr, target: DataType): Expr {
  if (target.kind === "NULL" || sameType(e.type, target)) return e;
  const t = withNullable(target, e.type.nullable);
  if (e.kind === "literal") {
    const folded = foldLiteral(e, t);
    if (folded !== undefined) return folded;
  }
  return E.cast(e, t);
}

/** A literal converted to `t` at bind time when the conversion is exact (numeric widening, CHAR → VARCHAR). */
function foldLiteral(e: Literal, t: DataType): Literal | undefined {
  if (e.value === null) return E.literal(null, t);
  const from = e.type.kind;
  const integral = from === "TINYINT" || from === "SMALLINT" || from === "INT" || from === "BIGINT";
  switch (t.kind) {
    case "SMALLINT":
    case "INT":
    case "BIGINT":
      return integral ? E.literal(e.value, t) : undefined;
    case "FLOAT":
    case "DOUBLE":
      return integral || from === "DECIMAL" || from === "FLOAT" || from === "DOUBLE"
        ? E.literal(Number(e.value), t)
        : undefined;
    case "DECIMAL": {
      if (!integral && from !== "DECIMAL") return undefined;
      const text = String(e.value);
      const [int, frac = ""] = text.split(".");
      if (frac.length > t.scale || int!.replace("-", "").length > t.precision - t.scale) return undefined;
      return E.literal(t.scale === 0 ? int! : `${int}.${frac.padEnd(t.scale, "0")}`, t);
    }
    case "VARCHAR":
    case "CHAR":
      return (from === "CHAR" || from === "VARCHAR") && String(e.value).length <= t.length
        ? E.literal(e.value, t)
        : undefined;
    default:
      return undefined;
  }
}

/** A call with Flink's type inference; implicit casts are inserted from the inferred argument types. */
export function callOf(fn: string, args: readonly Expr[], span: ast.Span): Expr {
  const inf = inferCall(
    fn,
    args.map((a) => a.type),
  );
  if ("error" in inf) fail("type-error", inf.error, span);
  const name = canonicalFunctionName(fn);
  return E.call(
    name,
    args.map((a, i) => coerce(a, inf.argTypes[i]!)),
    roundingType(name, args, toTimestampLtzType(name, args, inf.type, span)),
  );
}

/**
 * ROUND/TRUNCATE(DECIMAL(p, s), d) with d an integer literal: Flink's type, scale d
 * (LogicalTypeMerging.findRoundDecimalType); inference alone sees no digits.
 */
function roundingType(fn: string, args: readonly Expr[], type: DataType): DataType {
  if (fn !== "ROUND" && fn !== "TRUNCATE") return type;
  const [x, d] = args;
  if (x === undefined || d === undefined || x.type.kind !== "DECIMAL" || type.kind !== "DECIMAL") return type;
  if (d.kind !== "literal" || typeof d.value !== "number" || !Number.isInteger(d.value)) return type;
  return decimalRoundType(x.type, d.value, type.nullable);
}

const keyword = (word: string): Expr => E.literal(word, T.char(word.length, false));

export function bindExpr(e: ast.Expr, ctx: ExprContext): Expr {
  const hooked = ctx.hook?.(e);
  if (hooked !== undefined) return hooked;
  const b = (x: ast.Expr) => bindExpr(x, ctx);
  switch (e.kind) {
    case "NumberLiteral":
      return bindNumber(e, false);
    case "StringLiteral":
      return E.literal(e.value, T.char(e.value.length, false));
    case "BinaryLiteral":
      return E.literal(e.hex.toLowerCase(), T.binary(e.hex.length / 2, false));
    case "BooleanLiteral":
      return E.literal(e.value, T.boolean(false));
    case "NullLiteral":
      return E.literal(null, T.null());
    case "TypedLiteral":
      return bindTypedLiteral(e);
    case "IntervalLiteral":
      return bindInterval(e, false);
    case "ColumnRef": {
      const r = ctx.scope.resolve(e.names, e.span);
      let out: Expr = E.input(r.column.index, r.column.type);
      for (const f of r.rest) out = fieldAccess(out, f);
      return out;
    }
    case "UnaryExpr":
      if (e.op === "-" && e.operand.kind === "NumberLiteral") return bindNumber(e.operand, true);
      if (e.op === "-" && e.operand.kind === "IntervalLiteral") return bindInterval(e.operand, true);
      if (e.op === "+") return b(e.operand);
      return callOf(e.op === "-" ? "NEG" : "NOT", [b(e.operand)], e.span);
    case "BinaryExpr":
      return callOf(e.op, [b(e.left), b(e.right)], e.span);
    case "IsExpr": {
      const test = e.test === "UNKNOWN" ? "NULL" : e.test;
      return callOf(`IS ${e.negated ? "NOT " : ""}${test}`, [b(e.operand)], e.span);
    }
    case "IsDistinctFromExpr":
      return callOf(e.negated ? "IS NOT DISTINCT FROM" : "IS DISTINCT FROM", [b(e.left), b(e.right)], e.span);
    case "BetweenExpr": {
      const [x, lo, hi] = [b(e.operand), b(e.low), b(e.high)];
      let out = callOf("BETWEEN", [x, lo, hi], e.span);
      if (e.symmetric) out = callOf("OR", [out, callOf("BETWEEN", [x, hi, lo], e.span)], e.span);
      return e.negated ? callOf("NOT", [out], e.span) : out;
    }
    case "LikeExpr": {
      const args = [b(e.operand), b(e.pattern)];
      if (e.escape) args.push(b(e.escape));
      const out = callOf(e.op, args, e.span);
      return e.negated ? callOf("NOT", [out], e.span) : out;
    }
    case "InListExpr": {
      const out = callOf("IN", [b(e.operand), ...e.list.map(b)], e.span);
      return e.negated ? callOf("NOT", [out], e.span) : out;
    }
    case "InSubqueryExpr":
      return fail(
        "unsupported",
        `IN (subquery) is only supported as a condition of WHERE, not in ${ctx.clause}`,
        e.span,
        "move the condition to the WHERE clause, or use a JOIN",
      );
    case "ExistsExpr":
      return fail(
        "unsupported",
        `EXISTS is only supported as a condition of WHERE, not in ${ctx.clause}`,
        e.span,
      );
    case "SubqueryExpr":
      return fail(
        "unsupported",
        "scalar subqueries are not supported yet",
        e.span,
        "rewrite the subquery as a JOIN",
      );
    case "CaseExpr":
      return bindCase(e, ctx);
    case "CastExpr": {
      const x = b(e.operand);
      const target = bindDataType(e.type);
      if (!canCast(x.type, target)) {
        fail("type-error", `cannot cast ${formatType(x.type)} to ${formatType(target)}`, e.span);
      }
      const nullable = e.safe || x.type.nullable;
      const t = withNullable(target, nullable);
      if (x.kind === "literal" && x.value === null) return E.literal(null, t);
      return E.cast(x, t, e.safe);
    }
    case "FunctionCall":
      return bindFunction(e, ctx);
    case "ExtractExpr":
      return callOf("EXTRACT", [keyword(e.unit), b(e.source)], e.span);
    case "FloorCeilExpr":
      return callOf(e.fn, [b(e.operand), keyword(e.unit)], e.span);
    case "TrimExpr": {
      const args = [keyword(e.mode)];
      if (e.chars) args.push(b(e.chars));
      args.push(b(e.source));
      return callOf("TRIM", args, e.span);
    }
    case "SubstringExpr":
      return callOf(
        "SUBSTRING",
        e.for ? [b(e.source), b(e.from), b(e.for)] : [b(e.source), b(e.from)],
        e.span,
      );
    case "PositionExpr":
      return callOf("POSITION", [b(e.needle), b(e.haystack)], e.span);
    case "OverlayExpr": {
      const args = [b(e.source), b(e.replacement), b(e.from)];
      if (e.for) args.push(b(e.for));
      return callOf("OVERLAY", args, e.span);
    }
    case "JsonValueExpr":
      return bindJsonValue(e, b);
    case "TimestampArithExpr":
      return callOf(e.fn, [keyword(e.unit), b(e.args[0]), b(e.args[1])], e.span);
    case "ArrayConstructor":
      return callOf("ARRAY", e.elements.map(b), e.span);
    case "MapConstructor":
      return callOf(
        "MAP",
        e.entries.flatMap((x) => [b(x.key), b(x.value)]),
        e.span,
      );
    case "RowConstructor":
      return callOf("ROW", e.fields.map(b), e.span);
    case "SubscriptExpr":
      return callOf("ITEM", [b(e.target), b(e.index)], e.span);
    case "FieldAccessExpr":
      return fieldAccess(b(e.target), e.field);
    default: {
      const _exhaustive: never = e;
      return _exhaustive;
    }
  }
}

/** The RETURNING types of JSON_VALUE: Flink's code generator supports exactly these. */
const JSON_VALUE_RETURNING = new Set(["BOOLEAN", "INT", "DOUBLE", "VARCHAR"]);

function bindJsonValue(e: ast.JsonValueExpr, b: (x: ast.Expr) => Expr): Expr {
  for (const [behavior, on] of [
    [e.onEmpty, "EMPTY"],
    [e.onError, "ERROR"],
  ] as const) {
    if (behavior !== undefined && behavior.kind !== "NULL") {
      fail(
        "unsupported",
        `JSON_VALUE: ${behavior.kind} ON ${on} is not supported; only NULL ON ${on} (the default) is`,
        e.span,
      );
    }
  }
  const call = callOf("JSON_VALUE", [b(e.json), b(e.path)], e.span);
  if (e.returning === undefined || call.kind !== "call") return call;
  const target = bindDataType(e.returning);
  if (!JSON_VALUE_RETURNING.has(target.kind)) {
    fail(
      "unsupported",
      `JSON_VALUE: RETURNING ${formatType(target)} is not supported (as in Flink); use STRING, BOOLEAN, INT or DOUBLE, and CAST the result`,
      e.span,
    );
  }
  return E.call(call.fn, call.args, withNullable(target, true));
}

function fieldAccess(target: Expr, field: ast.Identifier): Expr {
  const t = target.type;
  if (t.kind !== "ROW") {
    return fail(
      "type-error",
      `cannot access field '${field.value}' of a value of type ${formatType(t)}`,
      field.span,
    );
  }
  const index = t.fields.findIndex((f) => f.name === field.value);
  if (index < 0) {
    return fail(
      "field-not-found",
      `field '${field.value}' not found in ${formatType(t)}`,
      field.span,
      didYouMean(
        field.value,
        t.fields.map((f) => f.name),
      ),
    );
  }
  const ft = t.fields[index]!.type;
  return E.field(target, index, field.value, t.nullable ? withNullable(ft, true) : ft);
}

function bindCase(e: ast.CaseExpr, ctx: ExprContext): Expr {
  const b = (x: ast.Expr) => bindExpr(x, ctx);
  const operand = e.operand ? b(e.operand) : undefined;
  const whens = e.whens.map((w) => {
    const cond = operand ? callOf("=", [operand, b(w.when)], w.span) : b(w.when);
    if (cond.type.kind !== "BOOLEAN" && cond.type.kind !== "NULL") {
      fail("type-error", `CASE WHEN condition must be BOOLEAN, got ${formatType(cond.type)}`, w.when.span);
    }
    return { when: cond, result: b(w.then) };
  });
  const otherwise = e.else ? b(e.else) : null;
  const results = [...whens.map((w) => w.result), ...(otherwise ? [otherwise] : [])];
  let t = commonType(results.map((r) => r.type));
  if (t === undefined) {
    return fail(
      "type-error",
      `CASE branches have no common type (${results.map((r) => formatType(r.type)).join(", ")})`,
      e.span,
    );
  }
  if (t.kind === "NULL") t = T.int();
  if (otherwise === null) t = withNullable(t, true);
  const target = t;
  return E.caseWhen(
    whens.map((w) => ({ when: w.when, result: coerce(w.result, target) })),
    otherwise ? coerce(otherwise, target) : null,
    target,
  );
}

function bindFunction(e: ast.FunctionCall, ctx: ExprContext): Expr {
  const name = functionName(e);
  const upper = name.toUpperCase();
  if (e.over !== undefined) {
    return fail(
      "misplaced-window-function",
      `window function ${upper} is not allowed in ${ctx.clause}`,
      e.span,
    );
  }
  if (isAggregateFunction(upper) && e.name.parts.length === 1) {
    return fail(
      "misplaced-aggregate",
      `aggregate function ${upper} is not allowed in ${ctx.clause}`,
      e.span,
      ctx.clause === "WHERE" ? "filter on aggregates with HAVING" : undefined,
    );
  }
  if (RANKING_FUNCTIONS.has(upper)) {
    return fail("missing-over", `${upper} needs an OVER clause`, e.span);
  }
  const aux = groupWindowAuxiliary(e);
  if (aux !== undefined) {
    return fail(
      "misplaced-group-window",
      `${upper} is only allowed in a query with GROUP BY ${aux.window}(...)`,
      e.span,
      "use the same window arguments as in GROUP BY",
    );
  }
  if (upper === "TUMBLE" || upper === "HOP" || upper === "SESSION" || upper === "CUMULATE") {
    return fail(
      "misplaced-group-window",
      `${upper}(...) is only allowed in GROUP BY or as a window table function in FROM TABLE(...)`,
      e.span,
    );
  }
  if (e.distinct || e.star || e.filter) {
    return fail("not-an-aggregate", `${upper} is not an aggregate function`, e.span);
  }
  if (e.name.parts.length > 1 || !isScalarFunction(name)) {
    const candidates = [...Object.keys(SCALAR_FUNCTIONS), ...Object.keys(ALIASES)].filter(
      (n) => !(n in OPERATORS),
    );
    return fail(
      "unknown-function",
      `unknown function '${name}'`,
      e.name.span,
      didYouMean(upper, candidates) ?? "user-defined functions are not supported",
    );
  }
  return callOf(
    name,
    e.args.map((a) => bindExpr(a, ctx)),
    e.span,
  );
}
