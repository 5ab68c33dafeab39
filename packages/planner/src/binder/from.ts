import type * as ast from "@weir/parser";
import type { CatalogTable } from "../catalog/catalog.js";
import type { Expr } from "../expr.js";
import { E } from "../expr.js";
import { commonType } from "../functions/type-rules.js";
import type { LogicalJoin, LogicalNode, LogicalScan, LogicalUnnest, LogicalValues } from "../logical.js";
import type { Field, JoinType } from "../physical.js";
import type { DataType } from "../types.js";
import { formatType, isTimeAttribute, T, withNullable } from "../types.js";
import type { BindContext, Relation } from "./context.js";
import { didYouMean, fail } from "./errors.js";
import { bindExpr, callOf, coerce } from "./expr-binder.js";
import { project, refs, spanOf } from "./nodes.js";
import { bindQuery } from "./query.js";
import { Scope, type ScopeColumn } from "./scope.js";
import { bindWindowTvf } from "./window-tvf.js";

/** Binds the comma-separated FROM list: items are cross-joined left to right. */
export function bindFrom(items: readonly ast.TableRef[], ctx: BindContext, span: ast.Span): Relation {
  if (items.length === 0) {
    const node: LogicalValues = { kind: "values", rows: [[]], schema: [], ...spanOf(span) };
    return { node, scope: new Scope([], ctx.outer) };
  }
  let rel = bindTableRef(items[0]!, ctx);
  for (const item of items.slice(1)) {
    if (item.kind === "UnnestRef") rel = bindUnnest(rel, item, false, ctx);
    else if (item.kind === "TableFunctionRef" && item.lateral) rel = unsupportedTableFunction(item);
    else rel = joinRelations(rel, bindTableRef(item, ctx), "inner", null, item.span, ctx);
  }
  return rel;
}

export function bindTableRef(ref: ast.TableRef, ctx: BindContext): Relation {
  switch (ref.kind) {
    case "NamedTable": {
      if (ref.systemTime) {
        fail(
          "misplaced-system-time",
          "FOR SYSTEM_TIME AS OF is only allowed on the right side of a JOIN",
          ref.systemTime.span,
        );
      }
      return bindNamedTable(ref.name, ref.hints, ref.alias, ctx, ref.span);
    }
    case "DerivedTable": {
      if (ref.lateral) {
        fail("unsupported", "LATERAL subqueries are not supported yet", ref.span, "rewrite it as a JOIN");
      }
      const q = bindQuery(ref.query, { ...ctx, outer: undefined });
      return aliased(q, ref.alias, null, ctx);
    }
    case "TableFunctionRef":
      if (ref.lateral) return unsupportedTableFunction(ref);
      return bindWindowTvf(ref, ctx);
    case "UnnestRef": {
      const empty = bindFrom([], ctx, ref.span);
      return bindUnnest(empty, ref, false, ctx);
    }
    case "Join":
      return bindJoin(ref, ctx);
    default: {
      const _exhaustive: never = ref;
      return _exhaustive;
    }
  }
}

function unsupportedTableFunction(ref: ast.TableFunctionRef): never {
  return fail(
    "unsupported",
    `user-defined table functions are not supported (${ref.call.name.parts.map((p) => p.value).join(".")})`,
    ref.call.span,
    "use CROSS JOIN UNNEST(...) to expand arrays",
  );
}

/** Renames a relation's columns with `AS alias (c1, c2)` and qualifies them by `alias`. */
export function aliased(
  node: LogicalNode,
  alias: ast.TableAlias | undefined,
  defaultQualifier: string | null,
  ctx: BindContext,
): Relation {
  let out = node;
  if (alias && alias.columns.length > 0) {
    if (alias.columns.length !== node.schema.length) {
      fail(
        "alias-column-count",
        `the alias '${alias.name.value}' lists ${alias.columns.length} columns, but the table has ${node.schema.length}`,
        alias.span,
      );
    }
    out = project(
      node,
      refs(node.schema),
      alias.columns.map((c) => c.value),
    );
  }
  return { node: out, scope: Scope.of(out.schema, alias?.name.value ?? defaultQualifier, ctx.outer) };
}

/** Looks a name up among the CTEs, then the catalog (tables and views). */
export function resolveRelation(
  name: ast.QualifiedName,
  ctx: BindContext,
): { node: LogicalNode; table?: CatalogTable; qualifier: string } {
  const parts = name.parts.map((p) => p.value);
  const last = parts[parts.length - 1]!;
  const cte = parts.length === 1 ? ctx.ctes.get(last) : undefined;
  if (cte) {
    const node = bindQuery(cte.cte.query, { ...ctx, ctes: cte.ctes, outer: undefined });
    if (cte.cte.columns.length > 0) {
      if (cte.cte.columns.length !== node.schema.length) {
        fail(
          "alias-column-count",
          `WITH item '${last}' lists ${cte.cte.columns.length} columns, but its query returns ${node.schema.length}`,
          cte.cte.span,
        );
      }
      return {
        node: project(
          node,
          refs(node.schema),
          cte.cte.columns.map((c) => c.value),
        ),
        qualifier: last,
      };
    }
    return { node, qualifier: last };
  }
  const object = ctx.catalog.get(parts.join(".")) ?? ctx.catalog.get(last);
  if (object === undefined) {
    const candidates = [...ctx.catalog.names(), ...ctx.ctes.keys()];
    return fail(
      "table-not-found",
      `table '${parts.join(".")}' not found`,
      name.span,
      didYouMean(last, candidates),
    );
  }
  switch (object.kind) {
    case "table": {
      const node: LogicalScan = {
        kind: "scan",
        table: object,
        hintOptions: {},
        schema: object.schema,
        ...spanOf(name.span),
      };
      return { node, table: object, qualifier: last };
    }
    case "view":
    case "materialized-view": {
      if (object.kind === "materialized-view" && object.table !== undefined) {
        // The view's job is planned: read its table (its current contents).
        const node: LogicalScan = {
          kind: "scan",
          table: object.table,
          hintOptions: {},
          schema: object.table.schema,
          ...spanOf(name.span),
        };
        return { node, table: object.table, qualifier: last };
      }
      if (ctx.expanding.includes(object.name)) {
        fail("recursive-view", `view '${object.name}' refers to itself`, name.span);
      }
      const inner = bindQuery(object.query, {
        catalog: ctx.catalog,
        session: ctx.session,
        ctes: new Map(),
        expanding: [...ctx.expanding, object.name],
      });
      const names = object.kind === "view" ? object.columnNames : object.schema.map((f) => f.name);
      return { node: project(inner, refs(inner.schema), names), qualifier: last };
    }
    default: {
      const _exhaustive: never = object;
      return _exhaustive;
    }
  }
}

function bindNamedTable(
  name: ast.QualifiedName,
  hints: readonly ast.Hint[],
  alias: ast.TableAlias | undefined,
  ctx: BindContext,
  span: ast.Span,
): Relation {
  const r = resolveRelation(name, ctx);
  let node = r.node;
  const options: Record<string, string> = {};
  for (const h of hints) {
    if (h.name.value.toUpperCase() !== "OPTIONS") {
      fail(
        "unknown-hint",
        `unknown table hint '${h.name.value}'`,
        h.name.span,
        "supported: OPTIONS('key' = 'value')",
      );
    }
    for (const o of h.options) options[o.key.value] = o.value.value;
  }
  if (Object.keys(options).length > 0) {
    if (node.kind !== "scan")
      fail("invalid-hint", "OPTIONS hints apply to tables, not views or WITH items", span);
    node = { ...node, hintOptions: options };
  }
  return aliased(node, alias, r.qualifier, ctx);
}

const JOIN_TYPES: Record<ast.JoinType, JoinType> = {
  INNER: "inner",
  CROSS: "inner",
  LEFT: "left",
  RIGHT: "right",
  FULL: "full",
};

function bindJoin(j: ast.Join, ctx: BindContext): Relation {
  const left = bindTableRef(j.left, ctx);
  const right = j.right;
  if (right.kind === "UnnestRef") {
    const onTrue =
      j.condition?.kind === "JoinOn" && j.condition.expr.kind === "BooleanLiteral" && j.condition.expr.value;
    if (j.joinType === "CROSS" || (j.joinType === "INNER" && (onTrue || !j.condition))) {
      return bindUnnest(left, right, false, ctx);
    }
    if (j.joinType === "LEFT" && onTrue) return bindUnnest(left, right, true, ctx);
    return fail(
      "unsupported",
      "UNNEST can only be joined with CROSS JOIN, or with [LEFT] JOIN ... ON TRUE",
      j.condition?.span ?? j.span,
    );
  }
  if (right.kind === "TableFunctionRef" && right.lateral) return unsupportedTableFunction(right);
  if (right.kind === "NamedTable" && right.systemTime) return bindTemporalJoin(j, left, right, ctx);
  const rightRel = bindTableRef(right, ctx);
  const type = JOIN_TYPES[j.joinType];
  if (j.natural || j.condition?.kind === "JoinUsing") {
    const names = j.natural
      ? left.scope.columns
          .filter((c) => rightRel.scope.columns.some((r) => r.name === c.name))
          .map((c) => c.name)
      : (j.condition as ast.JoinUsing).columns.map((c) => c.value);
    const ids = j.natural ? undefined : (j.condition as ast.JoinUsing).columns;
    return bindUsingJoin(left, rightRel, type, names, ids, j, ctx);
  }
  const combined = combine(left, rightRel, type);
  let condition: Expr | null = null;
  if (j.condition?.kind === "JoinOn") {
    condition = bindExpr(j.condition.expr, { scope: combined.scope, clause: "ON" });
    requireBoolean(condition, "the JOIN condition", j.condition.expr.span);
  } else if (j.joinType !== "CROSS") {
    fail("missing-join-condition", `${j.joinType} JOIN needs an ON or USING condition`, j.span);
  }
  const node: LogicalJoin = {
    kind: "join",
    joinType: type,
    left: left.node,
    right: rightRel.node,
    condition,
    schema: combined.schema,
    ...spanOf(j.span),
  };
  return { node, scope: combined.scope };
}

export function requireBoolean(e: Expr, what: string, span: ast.Span): void {
  if (e.type.kind !== "BOOLEAN" && e.type.kind !== "NULL") {
    fail("type-error", `${what} must be BOOLEAN, got ${formatType(e.type)}`, span);
  }
}

/** Left then right columns; the outer side(s) of an outer join become nullable. */
function combine(left: Relation, right: Relation, type: JoinType): { schema: Field[]; scope: Scope } {
  const nullLeft = type === "right" || type === "full";
  const nullRight = type === "left" || type === "full";
  const n = left.node.schema.length;
  const schema: Field[] = [
    ...left.node.schema.map((f) => ({ name: f.name, type: nullLeft ? withNullable(f.type, true) : f.type })),
    ...right.node.schema.map((f) => ({
      name: f.name,
      type: nullRight ? withNullable(f.type, true) : f.type,
    })),
  ];
  const columns: ScopeColumn[] = [
    ...left.scope.columns.map((c) => ({ ...c, type: schema[c.index]!.type })),
    ...right.scope.columns.map((c) => ({ ...c, index: c.index + n, type: schema[c.index + n]!.type })),
  ];
  return { schema, scope: new Scope(columns, left.scope.outer) };
}

function joinRelations(
  left: Relation,
  right: Relation,
  type: JoinType,
  condition: Expr | null,
  span: ast.Span,
  _ctx: BindContext,
): Relation {
  const combined = combine(left, right, type);
  const node: LogicalJoin = {
    kind: "join",
    joinType: type,
    left: left.node,
    right: right.node,
    condition,
    schema: combined.schema,
    ...spanOf(span),
  };
  return { node, scope: combined.scope };
}

/**
 * `USING (k)` / NATURAL: an equi-join, then a projection that puts each key once in front
 * (COALESCE of both sides for FULL joins, the preserved side otherwise) followed by every left
 * and right column; the original key columns stay reachable as `l.k` / `r.k`.
 */
function bindUsingJoin(
  left: Relation,
  right: Relation,
  type: JoinType,
  names: readonly string[],
  ids: readonly ast.Identifier[] | undefined,
  j: ast.Join,
  _ctx: BindContext,
): Relation {
  const combined = combine(left, right, type);
  const n = left.node.schema.length;
  const pairs = names.map((name, i) => {
    const span = ids?.[i]?.span ?? j.span;
    const find = (rel: Relation, side: string) => {
      const cs = rel.scope.columns.filter((c) => c.name === name && !c.hiddenUnqualified);
      if (cs.length === 0)
        fail("column-not-found", `column '${name}' not found in the ${side} side of the join`, span);
      if (cs.length > 1)
        fail("ambiguous-column", `column '${name}' is ambiguous in the ${side} side of the join`, span);
      return cs[0]!;
    };
    return { name, l: find(left, "left"), r: find(right, "right"), span };
  });
  const conjuncts = pairs.map((p) =>
    callOf(
      "=",
      [
        E.input(p.l.index, combined.schema[p.l.index]!.type),
        E.input(p.r.index + n, combined.schema[p.r.index + n]!.type),
      ],
      p.span,
    ),
  );
  const condition =
    conjuncts.length === 0 ? null : conjuncts.length === 1 ? conjuncts[0]! : callOf("AND", conjuncts, j.span);
  const join: LogicalJoin = {
    kind: "join",
    joinType: type,
    left: left.node,
    right: right.node,
    condition,
    schema: combined.schema,
    ...spanOf(j.span),
  };
  const keyExprs = pairs.map((p) => {
    const l = E.input(p.l.index, combined.schema[p.l.index]!.type);
    const r = E.input(p.r.index + n, combined.schema[p.r.index + n]!.type);
    if (type === "left" || type === "inner") return l;
    if (type === "right") return r;
    const t = commonType([l.type, r.type]);
    if (t === undefined) {
      return fail(
        "type-error",
        `USING column '${p.name}' has incompatible types ${formatType(l.type)} and ${formatType(r.type)}`,
        p.span,
      );
    }
    return callOf("COALESCE", [coerce(l, t), coerce(r, t)], p.span);
  });
  const k = keyExprs.length;
  const exprs = [...keyExprs, ...refs(combined.schema)];
  const outNames = [...pairs.map((p) => p.name), ...combined.schema.map((f) => f.name)];
  const node = project(join, exprs, outNames, j.span);
  const keyNames = new Set(names);
  const columns: ScopeColumn[] = [
    ...pairs.map((p, i) => ({ name: p.name, qualifier: null, index: i, type: keyExprs[i]!.type })),
    ...combined.scope.columns.map((c) => ({
      ...c,
      index: c.index + k,
      hiddenUnqualified: c.hiddenUnqualified || keyNames.has(c.name),
      hiddenFromStar: c.hiddenFromStar || keyNames.has(c.name),
    })),
  ];
  return { node, scope: new Scope(columns, left.scope.outer) };
}

/** `JOIN r FOR SYSTEM_TIME AS OF l.t [AS alias] ON ...`. */
function bindTemporalJoin(j: ast.Join, left: Relation, right: ast.NamedTable, ctx: BindContext): Relation {
  if (j.joinType !== "INNER" && j.joinType !== "LEFT") {
    fail("unsupported", `temporal joins must be INNER or LEFT joins, not ${j.joinType}`, j.span);
  }
  const asOf = right.systemTime!;
  const leftTime = bindExpr(asOf, { scope: left.scope, clause: "FOR SYSTEM_TIME AS OF" });
  if (leftTime.kind !== "input" || !isTimeAttribute(leftTime.type)) {
    fail(
      "invalid-temporal-join",
      "FOR SYSTEM_TIME AS OF must reference a time attribute (rowtime or proctime) column of the left table",
      asOf.span,
      `got ${formatType(leftTime.type)}`,
    );
  }
  const rightRel = bindNamedTable(right.name, right.hints, right.alias, ctx, right.span);
  const rightTable = rightRel.node.kind === "scan" ? rightRel.node.table : undefined;
  const processing = (leftTime.type as { timeAttribute?: string }).timeAttribute === "proctime";
  let rightTimeColumn: number | undefined;
  if (!processing) {
    rightTimeColumn = rightRel.node.schema.findIndex(
      (f) => isTimeAttribute(f.type) && (f.type as { timeAttribute?: string }).timeAttribute === "rowtime",
    );
    if (rightTimeColumn < 0) {
      fail(
        "invalid-temporal-join",
        `event-time temporal join needs a versioned table: '${right.name.parts.map((p) => p.value).join(".")}' has no WATERMARK`,
        right.name.span,
        "declare a WATERMARK and a PRIMARY KEY on the right table",
      );
    }
    if (rightTable && rightTable.primaryKey === null) {
      fail(
        "invalid-temporal-join",
        `event-time temporal join needs a versioned table: '${rightTable.name}' has no PRIMARY KEY`,
        right.name.span,
        "declare PRIMARY KEY (...) NOT ENFORCED on the right table",
      );
    }
  }
  const type = JOIN_TYPES[j.joinType];
  const combined = combine(left, rightRel, type);
  if (j.condition?.kind !== "JoinOn") {
    fail(
      "missing-join-condition",
      "a temporal join needs an ON condition with an equality on the key",
      j.span,
    );
  }
  const condition = bindExpr(j.condition.expr, { scope: combined.scope, clause: "ON" });
  requireBoolean(condition, "the JOIN condition", j.condition.expr.span);
  const node: LogicalJoin = {
    kind: "join",
    joinType: type,
    left: left.node,
    right: rightRel.node,
    condition,
    schema: combined.schema,
    temporal: {
      kind: processing ? "processing-time" : "event-time",
      leftTime,
      ...(rightTimeColumn === undefined ? {} : { rightTimeColumn }),
    },
    ...spanOf(j.span),
  };
  return { node, scope: combined.scope };
}

/** Element columns of UNNEST: the fields of a ROW element, MAP key and value, else the element. */
function unnestColumns(t: DataType, span: ast.Span): Field[] {
  switch (t.kind) {
    case "ARRAY":
    case "MULTISET": {
      const el = t.element;
      if (el.kind === "ROW") return el.fields.map((f) => ({ name: f.name, type: f.type }));
      return [{ name: "EXPR$0", type: el }];
    }
    case "MAP":
      return [
        { name: "EXPR$0", type: t.key },
        { name: "EXPR$1", type: t.value },
      ];
    default:
      return fail("type-error", `UNNEST expects an ARRAY, MAP or MULTISET, got ${formatType(t)}`, span);
  }
}

export function bindUnnest(
  input: Relation,
  ref: ast.UnnestRef,
  leftOuter: boolean,
  ctx: BindContext,
): Relation {
  if (ref.args.length !== 1) {
    fail(
      "unsupported",
      `UNNEST of ${ref.args.length} collections is not supported; unnest one at a time`,
      ref.span,
    );
  }
  const array = bindExpr(ref.args[0]!, { scope: input.scope, clause: "UNNEST" });
  const cols = unnestColumns(array.type, ref.args[0]!.span);
  if (ref.withOrdinality) cols.push({ name: "ORDINALITY", type: T.int(false) });
  const n = input.node.schema.length;
  let names = cols.map((c) => c.name);
  if (ref.alias && ref.alias.columns.length > 0) {
    if (ref.alias.columns.length !== cols.length) {
      fail(
        "alias-column-count",
        `the alias '${ref.alias.name.value}' lists ${ref.alias.columns.length} columns, but UNNEST returns ${cols.length}`,
        ref.alias.span,
      );
    }
    names = ref.alias.columns.map((c) => c.value);
  }
  const elementCols = cols.map((c, i) => ({
    name: names[i]!,
    type: leftOuter ? withNullable(c.type, true) : c.type,
  }));
  const schema: Field[] = [...input.node.schema, ...elementCols];
  const node: LogicalUnnest = {
    kind: "unnest",
    input: input.node,
    array,
    withOrdinality: ref.withOrdinality,
    leftOuter,
    schema,
    ...spanOf(ref.span),
  };
  const qualifier = ref.alias?.name.value ?? null;
  const columns: ScopeColumn[] = [
    ...input.scope.columns,
    ...elementCols.map((c, i) => ({ name: names[i]!, qualifier, index: n + i, type: c.type })),
  ];
  return { node, scope: new Scope(columns, ctx.outer) };
}
