import type { DataType, Expr } from "@weir/planner";
import { E, formatType, inferCall, T } from "@weir/planner";
import type { EvalContext } from "../src/expr/index.js";
import { compileExpr, defaultEvalContext } from "../src/expr/index.js";

/** A tiny binder for tests: infers the call's type and inserts the casts the planner would. */
export function call(fn: string, ...args: Expr[]): Expr {
  const r = inferCall(
    fn,
    args.map((a) => a.type),
  );
  if ("error" in r) throw new Error(r.error);
  const cast = args.map((a, i) =>
    formatType(a.type) === formatType(r.argTypes[i]) ||
    (a.type.kind === "NULL" && r.argTypes[i].kind === "NULL")
      ? a
      : E.cast(a, r.argTypes[i]),
  );
  return E.call(fn, cast, r.type);
}

export const lit = {
  int: (v: number | null) => E.literal(v, T.int(v === null)),
  bigint: (v: number | null) => E.literal(v, T.bigint(v === null)),
  double: (v: number | null) => E.literal(v, T.double(v === null)),
  str: (v: string | null) => E.literal(v, T.string(v === null)),
  bool: (v: boolean | null) => E.literal(v, T.boolean(v === null)),
  dec: (v: string | null, p: number, s: number) => E.literal(v, T.decimal(p, s, v === null)),
  ts: (v: string) => E.cast(E.literal(v, T.string(false)), T.timestamp(3, false)),
  ltz: (v: string) => E.cast(E.literal(v, T.string(false)), T.timestampLtz(3, false)),
  date: (v: string) => E.cast(E.literal(v, T.string(false)), T.date(false)),
  null: () => E.literal(null, T.null()),
  kw: (v: string) => E.literal(v, T.string(false)),
};

export const col = (index: number, type: DataType) => E.input(index, type);

export function ev(expr: Expr, row: unknown[] = [], ctx: Partial<EvalContext> = {}): unknown {
  return compileExpr(expr, defaultEvalContext(ctx))(row);
}
