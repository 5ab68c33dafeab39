import { E, type Expr } from "../expr.js";
import type { Field } from "../physical.js";
import { formatType, T } from "../types.js";

/** The conjuncts of a predicate: `a AND (b AND c)` → [a, b, c]. */
export function conjuncts(expr: Expr | null): Expr[] {
  if (expr === null) return [];
  if (expr.kind === "call" && expr.fn === "AND") return expr.args.flatMap((a) => conjuncts(a));
  return [expr];
}

/** AND of the given predicates; null when there are none. */
export function and(preds: readonly Expr[]): Expr | null {
  if (preds.length === 0) return null;
  let acc = preds[0]!;
  for (let i = 1; i < preds.length; i++) {
    const p = preds[i]!;
    acc = E.call("AND", [acc, p], T.boolean(acc.type.nullable || p.type.nullable));
  }
  return acc;
}

/** Replaces every input reference `$i` with `exprs[i]` (inlining a projection). */
export function substitute(expr: Expr, exprs: readonly Expr[]): Expr {
  switch (expr.kind) {
    case "input": {
      const e = exprs[expr.index];
      if (e === undefined) throw new Error(`substitute: no expression for $${expr.index}`);
      return e;
    }
    case "literal":
      return expr;
    case "call":
      return E.call(
        expr.fn,
        expr.args.map((a) => substitute(a, exprs)),
        expr.type,
      );
    case "cast":
      return E.cast(substitute(expr.expr, exprs), expr.type, expr.safe);
    case "case":
      return E.caseWhen(
        expr.whens.map((w) => ({ when: substitute(w.when, exprs), result: substitute(w.result, exprs) })),
        expr.otherwise ? substitute(expr.otherwise, exprs) : null,
        expr.type,
      );
    case "field":
      return E.field(substitute(expr.expr, exprs), expr.index, expr.name, expr.type);
    default: {
      const _exhaustive: never = expr;
      return _exhaustive;
    }
  }
}

/** The input index when `expr` is a plain column reference. */
export function refIndex(expr: Expr): number | undefined {
  return expr.kind === "input" ? expr.index : undefined;
}

/** Identity projection over `width` columns. */
export function isIdentity(exprs: readonly Expr[], width: number): boolean {
  if (exprs.length !== width) return false;
  return exprs.every((e, i) => e.kind === "input" && e.index === i);
}

export function refs(fields: readonly Field[]): Expr[] {
  return fields.map((f, i) => E.input(i, f.type));
}

/** Readable form for EXPLAIN: input references by field name, calls in SQL spelling. */
export function formatExpr(expr: Expr, fields: readonly Field[]): string {
  switch (expr.kind) {
    case "input":
      return fields[expr.index]?.name ?? `$${expr.index}`;
    case "literal":
      return formatLiteral(expr.value, expr.type.kind);
    case "call": {
      const args = expr.args.map((a) => formatExpr(a, fields));
      if (INFIX.has(expr.fn) && args.length === 2) return `(${args[0]} ${expr.fn} ${args[1]})`;
      if (expr.fn === "NOT" || expr.fn === "NEG") return `${expr.fn === "NEG" ? "-" : "NOT "}${args[0]}`;
      if (expr.fn.startsWith("IS ") && args.length === 1) return `(${args[0]} ${expr.fn})`;
      return `${expr.fn}(${args.join(", ")})`;
    }
    case "cast":
      return `${expr.safe ? "TRY_CAST" : "CAST"}(${formatExpr(expr.expr, fields)} AS ${formatType(expr.type)})`;
    case "case": {
      const whens = expr.whens.map(
        (w) => `WHEN ${formatExpr(w.when, fields)} THEN ${formatExpr(w.result, fields)}`,
      );
      const otherwise = expr.otherwise ? ` ELSE ${formatExpr(expr.otherwise, fields)}` : "";
      return `CASE ${whens.join(" ")}${otherwise} END`;
    }
    case "field":
      return `${formatExpr(expr.expr, fields)}.${expr.name}`;
    default: {
      const _exhaustive: never = expr;
      return _exhaustive;
    }
  }
}

const INFIX = new Set(["+", "-", "*", "/", "%", "=", "<>", "<", "<=", ">", ">=", "AND", "OR", "||", "LIKE"]);

function formatLiteral(value: string | number | boolean | null, kind: string): string {
  if (value === null) return "null";
  if (kind === "CHAR" || kind === "VARCHAR") return `'${String(value).replaceAll("'", "''")}'`;
  if (kind === "INTERVAL_DAY_TIME") return `${value}:INTERVAL DAY TO SECOND`;
  return String(value);
}

/** `1 min`, `10 s`, `250 ms`: for window sizes in EXPLAIN. */
export function formatMillis(ms: number): string {
  if (ms !== 0 && ms % 86_400_000 === 0) return `${ms / 86_400_000} d`;
  if (ms !== 0 && ms % 3_600_000 === 0) return `${ms / 3_600_000} h`;
  if (ms !== 0 && ms % 60_000 === 0) return `${ms / 60_000} min`;
  if (ms !== 0 && ms % 1000 === 0) return `${ms / 1000} s`;
  return `${ms} ms`;
}
