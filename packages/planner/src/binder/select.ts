import type * as ast from "@weir/parser";
import type { Expr } from "../expr.js";
import { E } from "../expr.js";
import type { LogicalFilter, LogicalJoin, LogicalNode } from "../logical.js";
import type { SortKey } from "../physical.js";
import { T } from "../types.js";
import { bindAggregation, type Hook } from "./aggregate.js";
import { collect, isAggregateCall, isOverCall } from "./ast-walk.js";
import type { BindContext, Relation } from "./context.js";
import { BindError, fail } from "./errors.js";
import { bindExpr, callOf, exprKey } from "./expr-binder.js";
import { bindFrom, requireBoolean } from "./from.js";
import { project, spanOf, uniquify } from "./nodes.js";
import { bindOver } from "./over.js";
import { bindQuery, distinct, sortKey } from "./query.js";

/**
 * A bound SELECT: `node`'s first `visible` columns are the select list; columns after them are
 * ORDER BY expressions that are not in the select list (the caller drops them after sorting).
 */
export interface BoundSelect {
  readonly node: LogicalNode;
  readonly visible: number;
  readonly sortKeys: readonly SortKey[];
}

interface Item {
  readonly expr: Expr;
  readonly name: string;
}

export function bindSelect(
  sel: ast.Select,
  ctx: BindContext,
  orderBy: readonly ast.OrderItem[],
): BoundSelect {
  if (sel.hints.length > 0) {
    fail("unsupported", `query hints are not supported (${sel.hints[0]!.name.value})`, sel.hints[0]!.span);
  }
  let rel = bindFrom(sel.from, ctx, sel.span);
  if (sel.where) rel = withAliasHint(sel, () => bindWhere(sel.where!, rel, ctx));

  const exprItems = sel.items.filter((i): i is ast.SelectExpr => i.kind === "SelectExpr").map((i) => i.expr);
  const orderExprs = orderBy.map((o) => o.expr);
  const aggAsts: ast.FunctionCall[] = [];
  for (const e of [...exprItems, ...(sel.having ? [sel.having] : []), ...orderExprs])
    collect(e, isAggregateCall, aggAsts);
  const aggregating = sel.groupBy.length > 0 || aggAsts.length > 0 || sel.having !== undefined;

  let node = rel.node;
  let hook: Hook | undefined;
  if (aggregating) {
    const a = bindAggregation(sel, rel, aggAsts);
    node = a.node;
    hook = a.hook;
    if (sel.having) {
      const condition = bindExpr(sel.having, { scope: rel.scope, clause: "HAVING", hook });
      requireBoolean(condition, "HAVING", sel.having.span);
      const filter: LogicalFilter = {
        kind: "filter",
        input: node,
        condition,
        schema: node.schema,
        ...spanOf(sel.having.span),
      };
      node = filter;
    }
  }

  const overAsts: ast.FunctionCall[] = [];
  for (const e of [...exprItems, ...orderExprs]) collect(e, isOverCall, overAsts);
  if (overAsts.length > 0) {
    const o = bindOver(overAsts, node, rel.scope, hook, sel.windows, sel.span);
    node = o.node;
    const inner = hook;
    hook = (e) => o.hook(e) ?? inner?.(e);
  }
  const exprCtx = { scope: rel.scope, clause: "SELECT", ...(hook ? { hook } : {}) };

  const items: Item[] = [];
  sel.items.forEach((item, position) => {
    if (item.kind === "SelectStar") {
      const q = item.qualifier?.parts.map((p) => p.value).join(".");
      const cols = rel.scope.starColumns(q);
      if (cols === undefined) {
        fail("table-not-found", `table '${q}' not found in FROM`, item.span);
      }
      if (cols.length === 0) fail("empty-star", "SELECT * needs a FROM clause", item.span);
      for (const c of cols) {
        const ref: ast.ColumnRef = {
          kind: "ColumnRef",
          names: [
            ...(c.qualifier !== null
              ? [{ kind: "Identifier" as const, value: c.qualifier, quoted: true, span: item.span }]
              : []),
            { kind: "Identifier", value: c.name, quoted: true, span: item.span },
          ],
          span: item.span,
        };
        const expr = hook ? bindExpr(ref, exprCtx) : E.input(c.index, c.type);
        items.push({ expr, name: c.name });
      }
      return;
    }
    const expr = bindExpr(item.expr, exprCtx);
    items.push({ expr, name: item.alias?.value ?? derivedName(item.expr, position) });
  });

  const names = uniquify(items.map((i) => i.name));
  const exprs = items.map((i) => i.expr);
  const visible = exprs.length;
  const sortKeys: SortKey[] = orderBy.map((o) => {
    const e = o.expr;
    if (e.kind === "NumberLiteral" && /^\d+$/.test(e.text)) {
      const n = Number(e.text);
      if (n < 1 || n > visible)
        fail("invalid-order-by", `ORDER BY position ${n} is not in the select list`, e.span);
      return sortKey(n - 1, o);
    }
    if (e.kind === "ColumnRef" && e.names.length === 1) {
      // A select-list name wins over an input column of the same name (as in Calcite).
      const i = names.indexOf(e.names[0]!.value);
      if (i >= 0) return sortKey(i, o);
    }
    const b = bindExpr(e, { ...exprCtx, clause: "ORDER BY" });
    const k = exprKey(b);
    const i = exprs.findIndex((x) => exprKey(x) === k);
    if (i >= 0) return sortKey(i, o);
    if (sel.distinct) {
      fail(
        "invalid-order-by",
        "with SELECT DISTINCT, ORDER BY expressions must appear in the select list",
        e.span,
      );
    }
    exprs.push(b);
    names.push(`$o${exprs.length - 1}`);
    return sortKey(exprs.length - 1, o);
  });
  let out = project(node, exprs, names, sel.span);
  if (sel.distinct) out = distinct(out, sel.span);
  return { node: out, visible, sortKeys };
}

/** Calcite's derived column names: a column's own name, a field's name, else `EXPR$<position>`. */
function derivedName(e: ast.Expr, position: number): string {
  if (e.kind === "ColumnRef") return e.names[e.names.length - 1]!.value;
  if (e.kind === "FieldAccessExpr") return e.field.value;
  return `EXPR$${position}`;
}

/** A WHERE that names a select-list alias gets a hint: WHERE is evaluated before SELECT. */
function withAliasHint<R>(sel: ast.Select, f: () => R): R {
  try {
    return f();
  } catch (e) {
    const d = e instanceof BindError ? e.diagnostics[0] : undefined;
    if (d === undefined || d.code !== "column-not-found") throw e;
    const name = /^column '([^']*)'/.exec(d.message)?.[1];
    const isAlias = sel.items.some((i) => i.kind === "SelectExpr" && i.alias?.value === name);
    if (!isAlias) throw e;
    throw new BindError([
      {
        ...d,
        hint: `'${name}' is a select-list alias, which WHERE cannot see; filter on it in an outer query`,
      },
    ]);
  }
}

function conjuncts(e: ast.Expr): ast.Expr[] {
  if (e.kind === "BinaryExpr" && e.op === "AND") return [...conjuncts(e.left), ...conjuncts(e.right)];
  return [e];
}

/**
 * WHERE: plain conjuncts become one filter; `x [NOT] IN (subquery)` and `[NOT] EXISTS (subquery)`
 * conjuncts become semi / anti joins (NOT IN null-aware: a NULL on either side removes the row).
 */
function bindWhere(where: ast.Expr, rel: Relation, ctx: BindContext): Relation {
  const plain: ast.Expr[] = [];
  const subqueries: ast.Expr[] = [];
  for (const c of conjuncts(where)) {
    const isSub =
      c.kind === "InSubqueryExpr" ||
      c.kind === "ExistsExpr" ||
      (c.kind === "UnaryExpr" && c.op === "NOT" && c.operand.kind === "ExistsExpr");
    (isSub ? subqueries : plain).push(c);
  }
  let node = rel.node;
  if (plain.length > 0) {
    const bound = plain.map((c) => bindExpr(c, { scope: rel.scope, clause: "WHERE" }));
    const condition = bound.length === 1 ? bound[0]! : callOf("AND", bound, where.span);
    requireBoolean(condition, "the WHERE condition", where.span);
    const filter: LogicalFilter = {
      kind: "filter",
      input: node,
      condition,
      schema: node.schema,
      ...spanOf(where.span),
    };
    node = filter;
  }
  for (const c of subqueries) node = semiJoin(c, node, rel, ctx);
  return { node, scope: rel.scope };
}

function semiJoin(c: ast.Expr, left: LogicalNode, rel: Relation, ctx: BindContext): LogicalNode {
  const sub = { ...ctx, outer: rel.scope };
  const n = left.schema.length;
  let right: LogicalNode;
  let condition: Expr;
  let anti: boolean;
  if (c.kind === "InSubqueryExpr") {
    right = bindQuery(c.query, sub);
    const operands = c.operand.kind === "RowConstructor" ? c.operand.fields : [c.operand];
    if (operands.length !== right.schema.length) {
      fail(
        "subquery-arity",
        `IN compares ${operands.length} value(s) with a subquery that returns ${right.schema.length} column(s)`,
        c.query.span,
      );
    }
    const eqs = operands.map((o, i) => {
      const l = bindExpr(o, { scope: rel.scope, clause: "WHERE" });
      const r = E.input(n + i, right.schema[i]!.type);
      const eq = callOf("=", [l, r], c.span);
      if (!c.negated) return eq;
      return callOf("OR", [eq, callOf("IS NULL", [l], c.span), callOf("IS NULL", [r], c.span)], c.span);
    });
    condition = eqs.length === 1 ? eqs[0]! : callOf("AND", eqs, c.span);
    anti = c.negated;
  } else {
    const exists = (c.kind === "ExistsExpr" ? c : (c as ast.UnaryExpr).operand) as ast.ExistsExpr;
    right = bindQuery(exists.query, sub);
    condition = E.literal(true, T.boolean(false));
    anti = c.kind !== "ExistsExpr";
  }
  const join: LogicalJoin = {
    kind: "join",
    joinType: anti ? "anti" : "semi",
    left,
    right,
    condition,
    schema: left.schema,
    ...spanOf(c.span),
  };
  return join;
}
