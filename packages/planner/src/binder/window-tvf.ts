import type * as ast from "@weir/parser";
import type { LogicalWindowTableFunction } from "../logical.js";
import type { Field, WindowSpec } from "../physical.js";
import type { DataType, TimestampType } from "../types.js";
import { formatType, isTimeAttribute, materialize } from "../types.js";
import type { BindContext, Relation } from "./context.js";
import { didYouMean, fail } from "./errors.js";
import { bindExpr } from "./expr-binder.js";
import { resolveRelation } from "./from.js";
import { spanOf } from "./nodes.js";
import { Scope } from "./scope.js";

const PARAMS: Record<string, readonly string[]> = {
  TUMBLE: ["DATA", "TIMECOL", "SIZE", "OFFSET"],
  HOP: ["DATA", "TIMECOL", "SLIDE", "SIZE", "OFFSET"],
  CUMULATE: ["DATA", "TIMECOL", "STEP", "SIZE", "OFFSET"],
  SESSION: ["DATA", "TIMECOL", "GAP"],
};

const REQUIRED: Record<string, number> = { TUMBLE: 3, HOP: 4, CUMULATE: 4, SESSION: 3 };

/** The three columns a window TVF (and a legacy group window) appends. */
export function windowColumns(time: DataType): Field[] {
  const t = time as TimestampType;
  const windowTime: TimestampType = {
    kind: t.kind,
    precision: 3,
    nullable: false,
    timeAttribute: t.timeAttribute ?? "rowtime",
  };
  return [
    { name: "window_start", type: { kind: "TIMESTAMP", precision: 3, nullable: false } },
    { name: "window_end", type: { kind: "TIMESTAMP", precision: 3, nullable: false } },
    { name: "window_time", type: windowTime },
  ];
}

/** A constant day-time interval in milliseconds (window sizes, gaps, offsets). */
export function intervalMillis(e: ast.Expr, what: string): number {
  const bound = bindExpr(e, { scope: new Scope([]), clause: what });
  if (bound.type.kind === "INTERVAL_YEAR_MONTH") {
    fail(
      "invalid-window",
      `${what} must be a day-time interval; year-month intervals are not supported for windows`,
      e.span,
    );
  }
  if (
    bound.kind !== "literal" ||
    bound.type.kind !== "INTERVAL_DAY_TIME" ||
    typeof bound.value !== "number"
  ) {
    fail("invalid-window", `${what} must be a constant interval such as INTERVAL '10' MINUTE`, e.span);
  }
  return bound.value;
}

/** `TABLE(TUMBLE|HOP|CUMULATE|SESSION(TABLE t, DESCRIPTOR(col), ...))`. */
export function bindWindowTvf(ref: ast.TableFunctionRef, ctx: BindContext): Relation {
  const call = ref.call;
  const fn = call.name.parts
    .map((p) => p.value)
    .join(".")
    .toUpperCase();
  const params = PARAMS[fn];
  if (params === undefined) {
    return fail(
      "unknown-table-function",
      `unknown table function '${call.name.parts.map((p) => p.value).join(".")}'`,
      call.name.span,
      didYouMean(fn, Object.keys(PARAMS)) ?? "window functions: TUMBLE, HOP, CUMULATE, SESSION",
    );
  }
  const args = new Map<string, ast.TableFunctionArg>();
  let named = false;
  call.args.forEach((a, i) => {
    let p: string;
    if (a.name) {
      named = true;
      p = a.name.value.toUpperCase();
      if (!params.includes(p)) {
        fail(
          "invalid-window",
          `${fn} has no parameter '${a.name.value}'`,
          a.name.span,
          `parameters: ${params.join(", ")}`,
        );
      }
    } else {
      if (named) fail("invalid-window", "positional arguments must come before named ones", a.span);
      if (i >= params.length)
        fail("invalid-window", `${fn} takes at most ${params.length} arguments`, a.span);
      p = params[i]!;
    }
    if (args.has(p)) fail("invalid-window", `parameter ${p} is given twice`, a.span);
    args.set(p, a);
  });
  for (const p of params.slice(0, REQUIRED[fn])) {
    if (!args.has(p)) {
      fail("invalid-window", `${fn} needs the ${p} argument`, call.span, `${fn}(${params.join(", ")})`);
    }
  }
  const data = args.get("DATA")!.value;
  if (data.kind !== "TableArg") {
    return fail("invalid-window", `the DATA argument of ${fn} must be TABLE name`, args.get("DATA")!.span);
  }
  const input = resolveRelation(data.table, ctx);
  const inputScope = Scope.of(input.node.schema, input.qualifier);
  const timecol = args.get("TIMECOL")!.value;
  if (timecol.kind !== "DescriptorArg" || timecol.columns.length !== 1) {
    return fail(
      "invalid-window",
      `the TIMECOL argument of ${fn} must be DESCRIPTOR(column)`,
      args.get("TIMECOL")!.span,
    );
  }
  const timeId = timecol.columns[0]!;
  const timeColumn = inputScope.resolve([timeId], timeId.span).column;
  if (!isTimeAttribute(timeColumn.type)) {
    fail(
      "not-a-time-attribute",
      `the time column '${timeId.value}' of ${fn} must be a time attribute, but it is ${formatType(timeColumn.type)}`,
      timeId.span,
      "declare a WATERMARK for it in CREATE TABLE, or use a PROCTIME() column",
    );
  }
  const ms = (p: string) => {
    const a = args.get(p)!;
    if (a.value.kind === "TableArg" || a.value.kind === "DescriptorArg") {
      return fail("invalid-window", `the ${p} argument of ${fn} must be an interval`, a.span);
    }
    const v = intervalMillis(a.value, `the ${p} of ${fn}`);
    if (p !== "OFFSET" && v <= 0) fail("invalid-window", `the ${p} of ${fn} must be positive`, a.span);
    return v;
  };
  const offset = args.has("OFFSET") ? ms("OFFSET") : 0;
  let window: WindowSpec;
  switch (fn) {
    case "TUMBLE":
      window = { kind: "tumble", size: ms("SIZE"), offset };
      break;
    case "HOP": {
      const size = ms("SIZE");
      const slide = ms("SLIDE");
      if (size % slide !== 0) {
        fail(
          "invalid-window",
          `HOP size (${size} ms) must be an integral multiple of the slide (${slide} ms)`,
          call.span,
        );
      }
      window = { kind: "hop", size, slide, offset };
      break;
    }
    case "CUMULATE": {
      const maxSize = ms("SIZE");
      const step = ms("STEP");
      if (maxSize % step !== 0) {
        fail(
          "invalid-window",
          `CUMULATE size (${maxSize} ms) must be an integral multiple of the step (${step} ms)`,
          call.span,
        );
      }
      window = { kind: "cumulate", maxSize, step, offset };
      break;
    }
    default: {
      const partitionKeys = data.partitionBy.flatMap((e) => (e.kind === "RowConstructor" ? e.fields : [e]));
      const keys = partitionKeys.map((e) => {
        const b = bindExpr(e, { scope: inputScope, clause: "PARTITION BY" });
        if (b.kind !== "input") fail("invalid-window", "SESSION PARTITION BY must list columns", e.span);
        return b.index;
      });
      window = { kind: "session", gap: ms("GAP"), partitionKeys: keys };
    }
  }
  if (fn !== "SESSION" && data.partitionBy.length > 0) {
    fail("invalid-window", `only SESSION windows take PARTITION BY`, data.span);
  }
  const schema: Field[] = [
    ...input.node.schema.map((f, i) =>
      i === timeColumn.index ? { name: f.name, type: materialize(f.type) } : f,
    ),
    ...windowColumns(timeColumn.type),
  ];
  const node: LogicalWindowTableFunction = {
    kind: "window-tvf",
    input: input.node,
    window,
    timeColumn: timeColumn.index,
    schema,
    ...spanOf(ref.span),
  };
  const qualifier = ref.alias?.name.value ?? null;
  if (ref.alias && ref.alias.columns.length > 0) {
    fail("unsupported", "column aliases on a window table function are not supported", ref.alias.span);
  }
  return { node, scope: Scope.of(schema, qualifier, ctx.outer) };
}
