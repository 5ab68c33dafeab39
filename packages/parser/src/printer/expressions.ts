import type { Expr, FrameBound, JsonBehavior, WindowRef, WindowSpec } from "../ast/expressions.js";
import type { OrderItem } from "../ast/query.js";
import { binaryPrec, exprPrec, Prec } from "../precedence.js";
import { printIdentifier, printName, printString } from "./common.js";
import { printQuery } from "./query.js";
import { printDataType, printQualifier } from "./types.js";

/** Prints `e`, parenthesised when its operator binds more loosely than `minPrec`. */
function wrap(e: Expr, minPrec: number): string {
  const s = printExpr(e);
  return exprPrec(e) < minPrec ? `(${s})` : s;
}

function list(es: readonly Expr[]): string {
  return es.map(printExpr).join(", ");
}

/**
 * Prints an expression so that parsing the result gives the same tree (spans aside); parentheses
 * are added only where the precedence table requires them.
 */
export function printExpr(e: Expr): string {
  switch (e.kind) {
    case "NumberLiteral":
      return e.text;
    case "StringLiteral":
      return printString(e.value);
    case "BinaryLiteral":
      return `X'${e.hex}'`;
    case "BooleanLiteral":
      return e.value ? "TRUE" : "FALSE";
    case "NullLiteral":
      return "NULL";
    case "TypedLiteral":
      return `${e.type} ${printString(e.value)}`;
    case "IntervalLiteral":
      return `INTERVAL ${e.negative ? "-" : ""}${printString(e.value)}${e.qualifier ? ` ${printQualifier(e.qualifier)}` : ""}`;
    case "ColumnRef":
      return e.names.map(printIdentifier).join(".");
    case "UnaryExpr": {
      if (e.op === "NOT") return `NOT ${wrap(e.operand, Prec.NOT)}`;
      const operand = wrap(e.operand, Prec.UNARY);
      // `- -1` must not become the comment `--1`.
      return operand.startsWith("-") || operand.startsWith("+") ? `${e.op} ${operand}` : `${e.op}${operand}`;
    }
    case "BinaryExpr": {
      const p = binaryPrec(e.op);
      return `${wrap(e.left, p)} ${e.op} ${wrap(e.right, p + 1)}`;
    }
    case "IsExpr":
      return `${wrap(e.operand, Prec.COMPARISON)} IS ${e.negated ? "NOT " : ""}${e.test}`;
    case "IsDistinctFromExpr":
      return `${wrap(e.left, Prec.COMPARISON)} IS ${e.negated ? "NOT " : ""}DISTINCT FROM ${wrap(e.right, Prec.ADDITIVE)}`;
    case "BetweenExpr":
      return `${wrap(e.operand, Prec.COMPARISON)} ${e.negated ? "NOT " : ""}BETWEEN ${e.symmetric ? "SYMMETRIC " : ""}${wrap(e.low, Prec.ADDITIVE)} AND ${wrap(e.high, Prec.ADDITIVE)}`;
    case "LikeExpr": {
      const escapeClause = e.escape ? ` ESCAPE ${wrap(e.escape, Prec.ADDITIVE)}` : "";
      return `${wrap(e.operand, Prec.COMPARISON)} ${e.negated ? "NOT " : ""}${e.op} ${wrap(e.pattern, Prec.ADDITIVE)}${escapeClause}`;
    }
    case "InListExpr":
      return `${wrap(e.operand, Prec.COMPARISON)} ${e.negated ? "NOT " : ""}IN (${list(e.list)})`;
    case "InSubqueryExpr":
      return `${wrap(e.operand, Prec.COMPARISON)} ${e.negated ? "NOT " : ""}IN (${printQuery(e.query)})`;
    case "ExistsExpr":
      return `EXISTS (${printQuery(e.query)})`;
    case "SubqueryExpr":
      return `(${printQuery(e.query)})`;
    case "CaseExpr": {
      const parts = ["CASE"];
      if (e.operand) parts.push(printExpr(e.operand));
      for (const w of e.whens) parts.push(`WHEN ${printExpr(w.when)} THEN ${printExpr(w.then)}`);
      if (e.else) parts.push(`ELSE ${printExpr(e.else)}`);
      parts.push("END");
      return parts.join(" ");
    }
    case "CastExpr":
      return `${e.safe ? "TRY_CAST" : "CAST"}(${printExpr(e.operand)} AS ${printDataType(e.type)})`;
    case "FunctionCall": {
      const name = printName(e.name);
      if (e.noParens) return name;
      const args = e.star ? "*" : `${e.distinct ? "DISTINCT " : ""}${list(e.args)}`;
      let out = `${name}(${args})`;
      if (e.withinGroup.length > 0) out += ` WITHIN GROUP (ORDER BY ${printOrderItems(e.withinGroup)})`;
      if (e.filter) out += ` FILTER (WHERE ${printExpr(e.filter)})`;
      if (e.over) out += ` OVER ${printOver(e.over)}`;
      return out;
    }
    case "ExtractExpr":
      return `EXTRACT(${e.unit} FROM ${printExpr(e.source)})`;
    case "FloorCeilExpr":
      return `${e.fn}(${printExpr(e.operand)} TO ${e.unit})`;
    case "TrimExpr":
      return `TRIM(${e.mode} ${e.chars ? `${printExpr(e.chars)} ` : ""}FROM ${printExpr(e.source)})`;
    case "SubstringExpr":
      return `SUBSTRING(${printExpr(e.source)} FROM ${printExpr(e.from)}${e.for ? ` FOR ${printExpr(e.for)}` : ""})`;
    case "PositionExpr":
      return `POSITION(${wrap(e.needle, Prec.ADDITIVE)} IN ${printExpr(e.haystack)})`;
    case "OverlayExpr":
      return `OVERLAY(${printExpr(e.source)} PLACING ${printExpr(e.replacement)} FROM ${printExpr(e.from)}${e.for ? ` FOR ${printExpr(e.for)}` : ""})`;
    case "JsonValueExpr": {
      const behavior = (x: JsonBehavior | undefined, on: string) =>
        x === undefined ? "" : ` ${x.kind === "DEFAULT" ? `DEFAULT ${printExpr(x.value)}` : x.kind} ON ${on}`;
      const ret = e.returning ? ` RETURNING ${printDataType(e.returning)}` : "";
      return `JSON_VALUE(${printExpr(e.json)}, ${printExpr(e.path)}${ret}${behavior(e.onEmpty, "EMPTY")}${behavior(e.onError, "ERROR")})`;
    }
    case "TimestampArithExpr":
      return `${e.fn}(${e.unit}, ${printExpr(e.args[0])}, ${printExpr(e.args[1])})`;
    case "ArrayConstructor":
      return `ARRAY[${list(e.elements)}]`;
    case "MapConstructor":
      return `MAP[${e.entries.map((m) => `${printExpr(m.key)}, ${printExpr(m.value)}`).join(", ")}]`;
    case "RowConstructor":
      return `${e.explicit ? "ROW" : ""}(${list(e.fields)})`;
    case "SubscriptExpr":
      return `${wrap(e.target, Prec.POSTFIX)}[${printExpr(e.index)}]`;
    case "FieldAccessExpr": {
      // `1.x` would lex as the number `1.` followed by `x`.
      const target = e.target.kind === "NumberLiteral" ? `(${e.target.text})` : wrap(e.target, Prec.POSTFIX);
      return `${target}.${printIdentifier(e.field)}`;
    }
    default: {
      const _exhaustive: never = e;
      return _exhaustive;
    }
  }
}

export function printOrderItems(items: readonly OrderItem[]): string {
  return items
    .map(
      (o) =>
        `${printExpr(o.expr)}${o.direction ? ` ${o.direction}` : ""}${o.nulls ? ` NULLS ${o.nulls}` : ""}`,
    )
    .join(", ");
}

function printBound(b: FrameBound): string {
  return b.offset ? `${wrap(b.offset, Prec.ADDITIVE)} ${b.bound}` : b.bound;
}

export function printWindowSpec(w: WindowSpec): string {
  const parts: string[] = [];
  if (w.base) parts.push(printIdentifier(w.base));
  if (w.partitionBy.length > 0) parts.push(`PARTITION BY ${list(w.partitionBy)}`);
  if (w.orderBy.length > 0) parts.push(`ORDER BY ${printOrderItems(w.orderBy)}`);
  if (w.frame) {
    const f = w.frame;
    parts.push(
      f.end
        ? `${f.unit} BETWEEN ${printBound(f.start)} AND ${printBound(f.end)}`
        : `${f.unit} ${printBound(f.start)}`,
    );
  }
  return `(${parts.join(" ")})`;
}

function printOver(o: WindowSpec | WindowRef): string {
  return o.kind === "WindowRef" ? printIdentifier(o.name) : printWindowSpec(o);
}
