import type * as ast from "@weir/parser";
import type { Expr } from "../expr.js";
import { E } from "../expr.js";
import { inferAggregate } from "../functions/aggregates.js";
import type { LogicalAggregate, LogicalNode } from "../logical.js";
import type { AggregateCall, Field, WindowSpec } from "../physical.js";
import { formatType, isTimeAttribute, T, withNullable } from "../types.js";
import {
  contains,
  functionName,
  groupWindowAuxiliary,
  isAggregateCall,
  isGroupingCall,
  isOverCall,
} from "./ast-walk.js";
import type { Relation } from "./context.js";
import { fail } from "./errors.js";
import { bindExpr, coerce, exprKey } from "./expr-binder.js";
import { requireBoolean } from "./from.js";
import { project, spanOf } from "./nodes.js";
import { intervalMillis, windowColumns } from "./window-tvf.js";

export type Hook = (e: ast.Expr) => Expr | undefined;

interface GroupWindow {
  readonly fn: "TUMBLE" | "HOP" | "SESSION";
  readonly window: WindowSpec;
  readonly time: Expr;
  /** exprKey of every bound argument, to match TUMBLE_START(...) and friends. */
  readonly argKeys: readonly string[];
}

interface PendingAggregate {
  readonly fn: string;
  readonly args: readonly Expr[];
  readonly filter: Expr | null;
  readonly distinct: boolean;
  readonly type: AggregateCall["type"];
  readonly constants?: readonly (string | number | boolean | null)[];
}

function isGroupWindowCall(e: ast.Expr): e is ast.FunctionCall {
  if (e.kind !== "FunctionCall" || e.over !== undefined) return false;
  const n = functionName(e).toUpperCase();
  return n === "TUMBLE" || n === "HOP" || n === "SESSION";
}

/**
 * GROUP BY (with grouping sets and legacy group windows) and the aggregate calls of a SELECT.
 * Returns the aggregate (group keys, then aggregates, then `$g` or the window columns) and a
 * hook that binds SELECT / HAVING / ORDER BY expressions over its output.
 */
export function bindAggregation(
  sel: ast.Select,
  rel: Relation,
  aggAsts: readonly ast.FunctionCall[],
): { node: LogicalNode; hook: Hook } {
  const plain = (e: ast.Expr, clause: string) => bindExpr(e, { scope: rel.scope, clause });
  const keys: Expr[] = [];
  let groupWindow: GroupWindow | undefined;

  const keyIndex = (e: ast.Expr): number => {
    const b = plain(e, "GROUP BY");
    const k = exprKey(b);
    let i = keys.findIndex((x) => exprKey(x) === k);
    if (i < 0) {
      i = keys.length;
      keys.push(b);
    }
    return i;
  };
  const itemKeys = (e: ast.Expr): number[] =>
    e.kind === "RowConstructor" && !e.explicit ? e.fields.map(keyIndex) : [keyIndex(e)];
  const setsOf = (el: ast.GroupingElement): number[][] => {
    switch (el.kind) {
      case "GroupingExpr":
        if (isGroupWindowCall(el.expr)) {
          if (groupWindow)
            fail("invalid-group-window", "GROUP BY may contain only one group window", el.span);
          groupWindow = bindGroupWindow(el.expr, plain);
          return [[]];
        }
        return [itemKeys(el.expr)];
      case "EmptyGroupingSet":
        return [[]];
      case "GroupingSets":
        return el.sets.flatMap(setsOf);
      case "RollupCube": {
        const items = el.exprs.map(itemKeys);
        const out: number[][] = [];
        if (el.op === "ROLLUP") {
          for (let n = items.length; n >= 0; n--) out.push(items.slice(0, n).flat());
        } else {
          for (let mask = 0; mask < 1 << items.length; mask++) {
            out.push(items.filter((_, i) => (mask & (1 << (items.length - 1 - i))) === 0).flat());
          }
        }
        return out;
      }
      default: {
        const _exhaustive: never = el;
        return _exhaustive;
      }
    }
  };
  let product: number[][] = [[]];
  for (const el of sel.groupBy) {
    const sets = setsOf(el);
    product = product.flatMap((a) => sets.map((b) => [...new Set([...a, ...b])].sort((x, y) => x - y)));
  }
  const plainGroupBy = sel.groupBy.every((el) => el.kind === "GroupingExpr");
  const groupingSets = plainGroupBy ? null : product;
  if (groupingSets && groupWindow) {
    fail("unsupported", "grouping sets cannot be combined with a group window", sel.span);
  }

  // Aggregate calls, deduplicated by what they compute.
  const pending: PendingAggregate[] = [];
  const aggOf = new Map<ast.FunctionCall, number>();
  for (const a of aggAsts) {
    const call = bindAggregateCall(a, plain);
    const k = JSON.stringify(call);
    let i = pending.findIndex((p) => JSON.stringify(p) === k);
    if (i < 0) {
      i = pending.length;
      pending.push(call);
    }
    aggOf.set(a, i);
  }

  // Pre-projection: keys, aggregate arguments and filters, the window's time column.
  const pre: Expr[] = [];
  const preIndex = (e: Expr): number => {
    const k = exprKey(e);
    let i = pre.findIndex((x) => exprKey(x) === k);
    if (i < 0) {
      i = pre.length;
      pre.push(e);
    }
    return i;
  };
  const keyCols = keys.map(preIndex);
  const aggCols = pending.map((p) => ({
    args: p.args.map(preIndex),
    filter: p.filter ? preIndex(p.filter) : null,
  }));
  const timeCol = groupWindow ? preIndex(groupWindow.time) : null;
  const direct = pre.every((e) => e.kind === "input");
  const input = rel.node;
  const col = (i: number) => (direct ? (pre[i] as { index: number }).index : i);
  const aggInput = direct
    ? input
    : project(
        input,
        pre,
        pre.map((e, i) => (e.kind === "input" ? input.schema[e.index]!.name : `$f${i}`)),
      );

  const nk = keys.length;
  const inAllSets = (k: number) => groupingSets === null || groupingSets.every((s) => s.includes(k));
  const schema: Field[] = keyCols.map((c, k) => ({
    name: aggInput.schema[col(c)]!.name,
    type: inAllSets(k) ? aggInput.schema[col(c)]!.type : withNullable(aggInput.schema[col(c)]!.type, true),
  }));
  const aggregates: AggregateCall[] = pending.map((p, i) => ({
    fn: p.fn,
    args: aggCols[i]!.args.map(col),
    argTypes: p.args.map((a) => a.type),
    distinct: p.distinct,
    filterColumn: aggCols[i]!.filter === null ? null : col(aggCols[i]!.filter!),
    type: p.type,
    ...(p.constants ? { constants: p.constants } : {}),
    name: `EXPR$${i}`,
  }));
  for (const a of aggregates) schema.push({ name: a.name, type: a.type });
  if (groupingSets) schema.push({ name: "$g", type: T.bigint(false) });
  if (groupWindow) schema.push(...windowColumns(groupWindow.time.type));
  const node: LogicalAggregate = {
    kind: "aggregate",
    input: aggInput,
    groupKeys: keyCols.map(col),
    groupingSets,
    aggregates,
    groupWindow: groupWindow ? { window: groupWindow.window, timeColumn: col(timeCol!) } : null,
    schema,
    ...spanOf(sel.span),
  };

  const keyKeys = keys.map(exprKey);
  const gColumn = nk + aggregates.length;
  const hook: Hook = (e) => {
    if (e.kind === "FunctionCall" && isAggregateCall(e)) {
      const i = aggOf.get(e);
      if (i === undefined) return fail("internal", "aggregate call was not collected", e.span);
      return E.input(nk + i, aggregates[i]!.type);
    }
    if (e.kind === "FunctionCall" && isGroupingCall(e))
      return groupingFunction(e, plain, keyKeys, groupingSets, gColumn);
    const aux = groupWindowAuxiliary(e);
    if (aux !== undefined && e.kind === "FunctionCall")
      return auxiliary(e, aux, groupWindow, plain, gColumn, schema);
    if (isOverCall(e)) return undefined;
    if (
      contains(
        e,
        (x) =>
          isAggregateCall(x) || isGroupingCall(x) || isOverCall(x) || groupWindowAuxiliary(x) !== undefined,
      )
    ) {
      return undefined;
    }
    const b = plain(e, "SELECT");
    const i = keyKeys.indexOf(exprKey(b));
    if (i >= 0) return E.input(i, schema[i]!.type);
    if (e.kind === "ColumnRef") {
      const name = e.names.map((n) => n.value).join(".");
      return fail(
        "not-grouped",
        `column '${name}' must appear in GROUP BY or be used in an aggregate function`,
        e.span,
        `add it to GROUP BY, or aggregate it, e.g. MAX(${name})`,
      );
    }
    return undefined;
  };
  return { node, hook };
}

function bindAggregateCall(
  a: ast.FunctionCall,
  plain: (e: ast.Expr, clause: string) => Expr,
): PendingAggregate {
  const fn = functionName(a).toUpperCase();
  for (const arg of a.args) {
    if (contains(arg, (x) => isAggregateCall(x))) {
      fail("nested-aggregate", "aggregate function calls cannot be nested", arg.span);
    }
  }
  if (a.withinGroup.length > 0) fail("unsupported", `WITHIN GROUP is not supported for ${fn}`, a.span);
  let argAsts = a.args;
  let constants: (string | number | boolean | null)[] | undefined;
  if (fn === "LISTAGG" && argAsts.length === 2) {
    const sep = plain(argAsts[1]!, "LISTAGG");
    if (sep.kind !== "literal")
      fail("type-error", "the LISTAGG separator must be a constant", argAsts[1]!.span);
    constants = [sep.value];
    argAsts = argAsts.slice(0, 1);
  }
  const args = a.star ? [] : argAsts.map((x) => plain(x, `an argument of ${fn}`));
  if (a.star && fn !== "COUNT") fail("type-error", `${fn}(*) is not allowed; only COUNT(*)`, a.span);
  const inf = inferAggregate(
    fn,
    constants ? [...args.map((x) => x.type), T.string(false)] : args.map((x) => x.type),
    a.distinct,
  );
  if ("error" in inf) fail("type-error", inf.error, a.span);
  let filter: Expr | null = null;
  if (a.filter) {
    filter = plain(a.filter, "FILTER");
    requireBoolean(filter, "FILTER (WHERE ...)", a.filter.span);
  }
  return {
    fn,
    args: args.map((x, i) => coerce(x, inf.argTypes[i]!)),
    filter,
    distinct: a.distinct,
    type: inf.type,
    ...(constants ? { constants } : {}),
  };
}

function bindGroupWindow(e: ast.FunctionCall, plain: (e: ast.Expr, clause: string) => Expr): GroupWindow {
  const fn = functionName(e).toUpperCase() as GroupWindow["fn"];
  const arity = fn === "HOP" ? 3 : 2;
  if (e.args.length !== arity) {
    const shape =
      fn === "HOP" ? "HOP(time_attr, slide, size)" : `${fn}(time_attr, ${fn === "SESSION" ? "gap" : "size"})`;
    fail("invalid-group-window", `${fn} expects ${arity} arguments: ${shape}`, e.span);
  }
  const time = plain(e.args[0]!, "GROUP BY");
  if (time.kind !== "input" || !isTimeAttribute(time.type)) {
    fail(
      "not-a-time-attribute",
      `the first argument of ${fn} must be a time attribute column, but it is ${formatType(time.type)}`,
      e.args[0]!.span,
      "declare a WATERMARK for it in CREATE TABLE, or use a PROCTIME() column",
    );
  }
  const ms = (i: number, what: string) => {
    const v = intervalMillis(e.args[i]!, `the ${what} of ${fn}`);
    if (v <= 0) fail("invalid-window", `the ${what} of ${fn} must be positive`, e.args[i]!.span);
    return v;
  };
  let window: WindowSpec;
  if (fn === "TUMBLE") window = { kind: "tumble", size: ms(1, "size"), offset: 0 };
  else if (fn === "HOP") window = { kind: "hop", slide: ms(1, "slide"), size: ms(2, "size"), offset: 0 };
  else window = { kind: "session", gap: ms(1, "gap"), partitionKeys: [] };
  const argKeys = e.args.map((a) => exprKey(plain(a, "GROUP BY")));
  return { fn, window, time, argKeys };
}

function auxiliary(
  e: ast.FunctionCall,
  aux: { window: string; part: string },
  gw: GroupWindow | undefined,
  plain: (e: ast.Expr, clause: string) => Expr,
  firstWindowColumn: number,
  schema: readonly Field[],
): Expr {
  const name = functionName(e).toUpperCase();
  if (gw === undefined || gw.fn !== aux.window) {
    return fail(
      "misplaced-group-window",
      `${name} is only allowed in a query with GROUP BY ${aux.window}(...)`,
      e.span,
      "use the same window arguments as in GROUP BY",
    );
  }
  const keys = e.args.map((a) => exprKey(plain(a, name)));
  if (keys.length !== gw.argKeys.length || keys.some((k, i) => k !== gw.argKeys[i])) {
    fail(
      "misplaced-group-window",
      `the arguments of ${name} must be the same as those of ${gw.fn} in GROUP BY`,
      e.span,
    );
  }
  const offset = aux.part === "START" ? 0 : aux.part === "END" ? 1 : 2;
  const f = schema[firstWindowColumn + offset]!;
  if (aux.part === "PROCTIME" || aux.part === "ROWTIME") {
    const attr = (gw.time.type as { timeAttribute?: string }).timeAttribute;
    if (attr !== aux.part.toLowerCase()) {
      fail(
        "type-error",
        `${name} needs a ${aux.part.toLowerCase()} window, but the window is on ${attr} time`,
        e.span,
      );
    }
  }
  return E.input(firstWindowColumn + offset, f.type);
}

/**
 * GROUPING(a, ...) / GROUPING_ID(a, ...): bit j (from the most significant) is 1 when the j-th
 * argument is not grouped in the row's grouping set. `$g` holds the same bits over all keys
 * (bit k from the most significant set when key k is not in the set).
 */
function groupingFunction(
  e: ast.FunctionCall,
  plain: (e: ast.Expr, clause: string) => Expr,
  keyKeys: readonly string[],
  groupingSets: readonly (readonly number[])[] | null,
  gColumn: number,
): Expr {
  const name = functionName(e).toUpperCase();
  const args = e.args.map((a) => {
    const i = keyKeys.indexOf(exprKey(plain(a, name)));
    if (i < 0) fail("invalid-grouping", `the arguments of ${name} must be GROUP BY expressions`, a.span);
    return i;
  });
  if (args.length === 0) fail("invalid-grouping", `${name} needs at least one argument`, e.span);
  if (groupingSets === null) return E.literal(0, T.bigint(false));
  const nk = keyKeys.length;
  const whens = groupingSets.flatMap((set) => {
    let id = 0;
    for (let k = 0; k < nk; k++) if (!set.includes(k)) id |= 1 << (nk - 1 - k);
    let v = 0;
    args.forEach((k, j) => {
      if (!set.includes(k)) v |= 1 << (args.length - 1 - j);
    });
    if (v === 0) return [];
    const g = E.input(gColumn, T.bigint(false));
    return [
      {
        when: E.call("=", [g, E.literal(id, T.bigint(false))], T.boolean(false)),
        result: E.literal(v, T.bigint(false)),
      },
    ];
  });
  if (whens.length === 0) return E.literal(0, T.bigint(false));
  return E.caseWhen(whens, E.literal(0, T.bigint(false)), T.bigint(false));
}
