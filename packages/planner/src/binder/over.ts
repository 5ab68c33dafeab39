import type * as ast from "@weir/parser";
import type { Expr } from "../expr.js";
import { E } from "../expr.js";
import { inferAggregate, isAggregateFunction } from "../functions/aggregates.js";
import { canCast } from "../functions/type-rules.js";
import type { LogicalNode, LogicalOver, OverCall } from "../logical.js";
import type { Field } from "../physical.js";
import { formatType, materialize, T, withNullable } from "../types.js";
import type { Hook } from "./aggregate.js";
import { functionName, RANKING_FUNCTIONS } from "./ast-walk.js";
import { fail } from "./errors.js";
import { bindExpr, coerce, exprKey } from "./expr-binder.js";
import { project, refs, spanOf } from "./nodes.js";
import { sortKey } from "./query.js";
import type { Scope } from "./scope.js";
import { intervalMillis } from "./window-tvf.js";

interface ResolvedWindow {
  readonly partitionBy: readonly ast.Expr[];
  readonly orderBy: readonly ast.OrderItem[];
  readonly frame?: ast.WindowFrame;
}

function resolveWindow(
  over: ast.WindowSpec | ast.WindowRef,
  named: readonly ast.NamedWindow[],
  seen: readonly string[] = [],
): ResolvedWindow {
  const lookup = (id: ast.Identifier): ResolvedWindow => {
    if (seen.includes(id.value)) fail("invalid-window", `window '${id.value}' refers to itself`, id.span);
    const w = named.find((n) => n.name.value === id.value);
    if (w === undefined)
      return fail("window-not-found", `window '${id.value}' is not defined in the WINDOW clause`, id.span);
    return resolveWindow(w.spec, named, [...seen, id.value]);
  };
  if (over.kind === "WindowRef") return lookup(over.name);
  const base = over.base ? lookup(over.base) : undefined;
  const frame = over.frame ?? base?.frame;
  return {
    partitionBy: over.partitionBy.length > 0 ? over.partitionBy : (base?.partitionBy ?? []),
    orderBy: over.orderBy.length > 0 ? over.orderBy : (base?.orderBy ?? []),
    ...(frame ? { frame } : {}),
  };
}

function frameOf(frame: ast.WindowFrame | undefined): OverCall["frame"] {
  if (frame === undefined) return { kind: "range", preceding: null };
  const end = frame.end;
  if (end !== undefined && end.bound !== "CURRENT ROW") {
    fail("unsupported", "only OVER frames that end at CURRENT ROW are supported", end.span);
  }
  const start = frame.start;
  const kind = frame.unit === "ROWS" ? "rows" : "range";
  switch (start.bound) {
    case "UNBOUNDED PRECEDING":
      return { kind, preceding: null };
    case "CURRENT ROW":
      return { kind, preceding: 0 };
    case "PRECEDING": {
      const off = start.offset!;
      if (kind === "rows") {
        if (off.kind !== "NumberLiteral" || !/^\d+$/.test(off.text)) {
          return fail("invalid-window", "ROWS ... PRECEDING needs a non-negative integer constant", off.span);
        }
        return { kind, preceding: Number(off.text) };
      }
      return { kind, preceding: intervalMillis(off, "RANGE ... PRECEDING") };
    }
    default:
      return fail("unsupported", `an OVER frame cannot start at ${start.bound}`, start.span);
  }
}

/**
 * `LAG(value [, offset [, default]])`: offset a non-negative integer constant (1 by default), the
 * default any expression of a type that casts to the value's (evaluated on the current row). The
 * frame is Flink's default, RANGE UNBOUNDED PRECEDING: rows with the same time are peers, all
 * accumulated before any of them is emitted, so they share one value (the row `offset` before the
 * last peer), as Flink 2.3 gives (test/oracle/queries/over_lag.sql).
 */
function bindLag(
  c: ast.FunctionCall,
  b: (e: ast.Expr, clause: string) => Expr,
  col: (e: Expr) => number,
  partitionKeys: number[],
  orderBy: OverCall["orderBy"],
  frame: ast.WindowFrame | undefined,
): OverCall {
  if (c.args.length < 1 || c.args.length > 3 || c.star || c.distinct) {
    fail("type-error", "LAG takes (value [, offset [, default]])", c.span);
  }
  if (orderBy.length === 0) fail("invalid-window", "LAG needs ORDER BY in its OVER clause", c.over!.span);
  if (frame) fail("invalid-window", "LAG does not take a window frame", frame.span);
  const value = b(c.args[0]!, "an argument of LAG");
  let offset = 1;
  const off = c.args[1];
  if (off !== undefined) {
    if (off.kind !== "NumberLiteral" || !/^\d+$/.test(off.text)) {
      fail("invalid-window", "the offset of LAG must be a non-negative integer constant", off.span);
    }
    offset = Number(off.text);
  }
  const type = withNullable(materialize(value.type), true);
  let arg: Expr = coerce(value, type);
  const d = c.args[2];
  if (d !== undefined) {
    const dv = b(d, "the default of LAG");
    if (dv.type.kind !== "NULL" && !canCast(dv.type, type)) {
      fail(
        "type-error",
        `the default of LAG (${formatType(dv.type)}) does not cast to ${formatType(type)}`,
        d.span,
      );
    }
    const fields = [
      { name: "value", type },
      { name: "default", type },
    ];
    arg = E.call("ROW", [arg, coerce(dv, type)], { kind: "ROW", fields, nullable: false });
  }
  return {
    fn: "LAG",
    args: [col(arg)],
    argTypes: [arg.type],
    distinct: false,
    filterColumn: null,
    partitionKeys,
    orderBy,
    frame: { kind: "range", preceding: null },
    type,
    constants: [offset, d !== undefined],
    name: "",
  };
}

/**
 * The OVER calls of a SELECT: a projection adds the partition keys, order keys and arguments
 * that are not plain columns, then one `LogicalOver` computes every call. The input columns
 * keep their positions, so expressions bound over the input stay valid over the output.
 */
export function bindOver(
  calls: readonly ast.FunctionCall[],
  input: LogicalNode,
  scope: Scope,
  hook: Hook | undefined,
  windows: readonly ast.NamedWindow[],
  span: ast.Span,
): { node: LogicalNode; hook: Hook } {
  const n = input.schema.length;
  const extra: Expr[] = [];
  const col = (e: Expr): number => {
    if (e.kind === "input") return e.index;
    const k = exprKey(e);
    let i = extra.findIndex((x) => exprKey(x) === k);
    if (i < 0) {
      i = extra.length;
      extra.push(e);
    }
    return n + i;
  };
  const b = (e: ast.Expr, clause: string) => bindExpr(e, { scope, clause, ...(hook ? { hook } : {}) });
  const bound: OverCall[] = [];
  const callOf = new Map<ast.FunctionCall, number>();
  for (const c of calls) {
    const fn = functionName(c).toUpperCase();
    const w = resolveWindow(c.over!, windows);
    if (c.filter) fail("unsupported", "FILTER is not supported in OVER windows", c.filter.span);
    const partitionKeys = w.partitionBy.map((p) => col(b(p, "PARTITION BY")));
    const orderBy = w.orderBy.map((o) => sortKey(col(b(o.expr, "ORDER BY")), o));
    let call: OverCall;
    if (RANKING_FUNCTIONS.has(fn)) {
      if (c.args.length > 0) fail("type-error", `${fn} takes no arguments`, c.span);
      if (orderBy.length === 0)
        fail("invalid-window", `${fn} needs ORDER BY in its OVER clause`, c.over!.span);
      if (w.frame) fail("invalid-window", `${fn} does not take a window frame`, w.frame.span);
      call = {
        fn,
        args: [],
        argTypes: [],
        distinct: false,
        filterColumn: null,
        partitionKeys,
        orderBy,
        frame: null,
        type: T.bigint(false),
        name: "",
      };
    } else if (fn === "LEAD") {
      return fail(
        "unsupported",
        "LEAD is not supported on a stream, as in Flink: it needs rows that have not arrived yet",
        c.span,
        "use LAG ordered the same way, and read the pair from the later row",
      );
    } else if (fn === "LAG") {
      call = bindLag(c, b, col, partitionKeys, orderBy, w.frame);
    } else if (isAggregateFunction(fn)) {
      const args = c.star ? [] : c.args.map((a) => b(a, `an argument of ${fn}`));
      const inf = inferAggregate(
        fn,
        args.map((a) => a.type),
        c.distinct,
      );
      if ("error" in inf) fail("type-error", inf.error, c.span);
      const coerced = args.map((a, i) => coerce(a, inf.argTypes[i]!));
      call = {
        fn,
        args: coerced.map(col),
        argTypes: coerced.map((a) => a.type),
        distinct: c.distinct,
        filterColumn: null,
        partitionKeys,
        orderBy,
        frame: frameOf(w.frame),
        type: inf.type,
        name: "",
      };
    } else {
      return fail(
        "unsupported",
        `${fn} is not supported as a window function`,
        c.span,
        "supported: ROW_NUMBER, RANK, DENSE_RANK, LAG and aggregate functions",
      );
    }
    const k = JSON.stringify(call);
    let i = bound.findIndex((x) => JSON.stringify(x) === k);
    if (i < 0) {
      i = bound.length;
      bound.push(call);
    }
    callOf.set(c, i);
  }
  const pre =
    extra.length === 0
      ? input
      : project(
          input,
          [...refs(input.schema), ...extra],
          [...input.schema.map((f) => f.name), ...extra.map((_, i) => `$f${n + i}`)],
        );
  const width = pre.schema.length;
  const named = bound.map((c, i) => ({ ...c, name: `w${i}$o0` }));
  const schema: Field[] = [...pre.schema, ...named.map((c) => ({ name: c.name, type: c.type }))];
  const node: LogicalOver = { kind: "over", input: pre, calls: named, schema, ...spanOf(span) };
  return {
    node,
    hook: (e) => {
      if (e.kind !== "FunctionCall") return undefined;
      const i = callOf.get(e);
      return i === undefined ? undefined : E.input(width + i, named[i]!.type);
    },
  };
}
