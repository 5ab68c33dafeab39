import type * as ast from "@weir/parser";
import { commonType } from "../functions/type-rules.js";
import type {
  LogicalAggregate,
  LogicalNode,
  LogicalSetOp,
  LogicalSort,
  LogicalUnion,
  LogicalValues,
} from "../logical.js";
import type { Field, SortKey } from "../physical.js";
import type { DataType } from "../types.js";
import { formatType, T } from "../types.js";
import type { BindContext, CteDefinition } from "./context.js";
import { fail } from "./errors.js";
import { bindExpr, coerce } from "./expr-binder.js";
import { resolveRelation } from "./from.js";
import { keepColumns, project, refs, spanOf } from "./nodes.js";
import { Scope } from "./scope.js";
import { bindSelect } from "./select.js";

/** Binds a complete query (WITH, body, ORDER BY / LIMIT / OFFSET / FETCH) to a logical plan. */
export function bindQuery(q: ast.Query, ctx: BindContext): LogicalNode {
  let inner = ctx;
  if (q.with) {
    const ctes = new Map(ctx.ctes);
    for (const cte of q.with.ctes) {
      if (q.with.ctes.filter((c) => c.name.value === cte.name.value).length > 1) {
        fail("duplicate-cte", `WITH item '${cte.name.value}' is defined twice`, cte.name.span);
      }
      const def: CteDefinition = { cte, ctes: new Map(ctes) };
      ctes.set(cte.name.value, def);
    }
    inner = { ...ctx, ctes };
  }
  const limit = q.limit ?? q.fetch;
  const offset = q.offset ? constantCount(q.offset, "OFFSET") : 0;
  const limitValue = limit ? constantCount(limit, q.fetch ? "FETCH" : "LIMIT") : null;
  if (q.body.kind === "Select") {
    const s = bindSelect(q.body, inner, q.orderBy);
    return finishSort(s.node, s.visible, s.sortKeys, offset, limitValue, q);
  }
  const body = bindQueryBody(q.body, inner);
  const sortKeys = q.orderBy.map((item) => outputSortKey(item, body.schema));
  return finishSort(body, body.schema.length, sortKeys, offset, limitValue, q);
}

function finishSort(
  node: LogicalNode,
  visible: number,
  sortKeys: readonly SortKey[],
  offset: number,
  limit: number | null,
  q: ast.Query,
): LogicalNode {
  let out = node;
  if (sortKeys.length > 0 || limit !== null || offset > 0) {
    const sort: LogicalSort = {
      kind: "sort",
      input: node,
      orderBy: sortKeys,
      offset,
      limit,
      schema: node.schema,
      ...spanOf(q.span),
    };
    out = sort;
  }
  return visible < out.schema.length ? keepColumns(out, visible) : out;
}

function constantCount(e: ast.Expr, what: string): number {
  if (e.kind !== "NumberLiteral" || !/^\d+$/.test(e.text)) {
    return fail("invalid-limit", `${what} must be a non-negative integer constant`, e.span);
  }
  return Number(e.text);
}

/** Flink's default null order: NULLs are the smallest values (first ascending, last descending). */
export function sortKey(column: number, item: ast.OrderItem): SortKey {
  const descending = item.direction === "DESC";
  const nullsFirst = item.nulls === undefined ? !descending : item.nulls === "FIRST";
  return { column, descending, nullsFirst };
}

/** ORDER BY over a set operation or VALUES: output names and ordinals only. */
function outputSortKey(item: ast.OrderItem, schema: readonly Field[]): SortKey {
  const e = item.expr;
  if (e.kind === "NumberLiteral" && /^\d+$/.test(e.text)) {
    const n = Number(e.text);
    if (n < 1 || n > schema.length)
      fail("invalid-order-by", `ORDER BY position ${n} is not in the select list`, e.span);
    return sortKey(n - 1, item);
  }
  const bound = bindExpr(e, { scope: Scope.of(schema, null), clause: "ORDER BY" });
  if (bound.kind !== "input") {
    fail("invalid-order-by", "ORDER BY of a set operation may only name output columns", e.span);
  }
  return sortKey(bound.index, item);
}

export function bindQueryBody(body: ast.QueryBody, ctx: BindContext): LogicalNode {
  switch (body.kind) {
    case "Select": {
      const s = bindSelect(body, ctx, []);
      return s.node;
    }
    case "ParenQuery":
      return bindQuery(body.query, ctx);
    case "TableQuery": {
      return resolveRelation(body.name, ctx).node;
    }
    case "Values":
      return bindValues(body, ctx);
    case "SetOperation":
      return bindSetOperation(body, ctx);
    default: {
      const _exhaustive: never = body;
      return _exhaustive;
    }
  }
}

function bindValues(v: ast.Values, _ctx: BindContext): LogicalNode {
  const scope = new Scope([]);
  const rows = v.rows.map((r) => r.fields.map((f) => bindExpr(f, { scope, clause: "VALUES" })));
  const width = rows[0]!.length;
  rows.forEach((r, i) => {
    if (r.length !== width) {
      fail(
        "values-arity",
        `VALUES rows must have the same number of values: row 1 has ${width}, row ${i + 1} has ${r.length}`,
        v.rows[i]!.span,
      );
    }
  });
  const types = Array.from({ length: width }, (_, c) => {
    const t = commonType(rows.map((r) => r[c]!.type));
    if (t === undefined) {
      return fail(
        "type-error",
        `VALUES column ${c + 1} has no common type (${rows.map((r) => formatType(r[c]!.type)).join(", ")})`,
        v.span,
      );
    }
    return t.kind === "NULL" ? T.int() : t;
  });
  const node: LogicalValues = {
    kind: "values",
    rows: rows.map((r) => r.map((e, c) => coerce(e, types[c]!))),
    schema: types.map((type, c) => ({ name: `EXPR$${c}`, type })),
    ...spanOf(v.span),
  };
  return node;
}

function bindSetOperation(s: ast.SetOperation, ctx: BindContext): LogicalNode {
  const left = bindQueryBody(s.left, ctx);
  const right = bindQueryBody(s.right, ctx);
  if (left.schema.length !== right.schema.length) {
    fail(
      "set-op-arity",
      `the inputs of ${s.op} have different numbers of columns (${left.schema.length} and ${right.schema.length})`,
      s.span,
    );
  }
  const types = left.schema.map((f, i) => {
    const r = right.schema[i]!;
    const t = commonType([f.type, r.type]);
    if (t === undefined) {
      return fail(
        "type-error",
        `column ${i + 1} of ${s.op} has incompatible types ${formatType(f.type)} and ${formatType(r.type)}`,
        s.span,
      );
    }
    if (t.kind === "NULL") return T.int();
    return s.op === "UNION" && s.all ? keepTimeAttribute(t, f.type, r.type) : t;
  });
  const names = left.schema.map((f) => f.name);
  const cast = (n: LogicalNode): LogicalNode =>
    project(
      n,
      refs(n.schema).map((e, i) => coerce(e, types[i]!)),
      names,
    );
  const l = cast(left);
  const r = cast(right);
  const schema: Field[] = types.map((type, i) => ({ name: names[i]!, type }));
  if (s.op === "UNION") {
    const inputs = [...(l.kind === "union" && s.all ? l.inputs : [l]), r];
    const union: LogicalUnion = { kind: "union", inputs, all: true, schema, ...spanOf(s.span) };
    return s.all ? union : distinct(union, s.span);
  }
  const node: LogicalSetOp = {
    kind: "setop",
    op: s.op === "INTERSECT" ? "intersect" : "except",
    all: s.all,
    left: l,
    right: r,
    schema,
    ...spanOf(s.span),
  };
  return node;
}

/**
 * UNION ALL keeps a time attribute when every input has the same one on that column, with the
 * same type (Flink: the union of two rowtime columns is a rowtime column, and its watermark is the
 * minimum of the inputs'). Anything else is a plain timestamp.
 */
function keepTimeAttribute(t: DataType, a: DataType, b: DataType): DataType {
  if (t.kind !== "TIMESTAMP" && t.kind !== "TIMESTAMP_LTZ") return t;
  if (a.kind !== t.kind || b.kind !== t.kind) return t;
  if (a.timeAttribute === undefined || a.timeAttribute !== b.timeAttribute) return t;
  if (a.precision !== b.precision) return t;
  return { ...t, timeAttribute: a.timeAttribute };
}

/** SELECT DISTINCT / UNION: an aggregate whose keys are every column. */
export function distinct(input: LogicalNode, span: ast.Span): LogicalNode {
  const node: LogicalAggregate = {
    kind: "aggregate",
    input,
    groupKeys: input.schema.map((_, i) => i),
    groupingSets: null,
    aggregates: [],
    groupWindow: null,
    schema: input.schema,
    ...spanOf(span),
  };
  return node;
}
