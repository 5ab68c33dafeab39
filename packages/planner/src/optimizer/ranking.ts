import { E, type Expr } from "../expr.js";
import type { LogicalFilter, LogicalNode, LogicalOver, OverCall } from "../logical.js";
import type {
  AggregateCall,
  DeduplicateNode,
  OverAggregateNode,
  PhysicalNode,
  RankNode,
  WindowDeduplicateNode,
  WindowRankNode,
} from "../physical.js";
import { isTimeAttribute } from "../types.js";
import { INSERT_ONLY, isInsertOnly, RETRACT } from "./builder.js";
import { PlanError } from "./errors.js";
import { and, conjuncts, refs, substitute } from "./exprs.js";
import type { Translator } from "./translate.js";
import { windowColumns } from "./windows.js";

const RANKING = new Set(["ROW_NUMBER", "RANK", "DENSE_RANK"]);

/** `rn <= 3`, `rn < 4`, `rn = 1`, `rn BETWEEN 2 AND 5`, `3 >= rn`: bounds on column `col`. */
function rankBounds(
  preds: readonly Expr[],
  col: number,
): { start: number; end: number | null; rest: Expr[] } {
  let start = 1;
  let end: number | null = null;
  const rest: Expr[] = [];
  const lit = (e: Expr): number | undefined =>
    e.kind === "literal" && typeof e.value === "number"
      ? e.value
      : e.kind === "literal" && typeof e.value === "string" && /^\d+$/.test(e.value)
        ? Number(e.value)
        : e.kind === "cast"
          ? lit(e.expr)
          : undefined;
  const isCol = (e: Expr): boolean =>
    (e.kind === "input" && e.index === col) || (e.kind === "cast" && isCol(e.expr));
  const flip: Record<string, string> = { "<": ">", "<=": ">=", ">": "<", ">=": "<=", "=": "=" };
  for (const p of preds) {
    if (p.kind === "call" && p.fn === "BETWEEN" && p.args.length === 3 && isCol(p.args[0]!)) {
      const lo = lit(p.args[1]!);
      const hi = lit(p.args[2]!);
      if (lo !== undefined && hi !== undefined) {
        start = Math.max(start, lo);
        end = end === null ? hi : Math.min(end, hi);
        continue;
      }
    }
    if (p.kind === "call" && p.args.length === 2 && flip[p.fn]) {
      let [a, b] = p.args as [Expr, Expr];
      let op = p.fn;
      if (!isCol(a) && isCol(b)) {
        [a, b] = [b, a];
        op = flip[op]!;
      }
      const v = isCol(a) ? lit(b) : undefined;
      if (v !== undefined) {
        if (op === "<=") end = end === null ? v : Math.min(end, v);
        else if (op === "<") end = end === null ? v - 1 : Math.min(end, v - 1);
        else if (op === "=") {
          start = Math.max(start, v);
          end = end === null ? v : Math.min(end, v);
        } else if (op === ">=") start = Math.max(start, v);
        else if (op === ">") start = Math.max(start, v + 1);
        continue;
      }
    }
    rest.push(p);
  }
  return { start, end, rest };
}

/**
 * The OVER node under a filter when the filter is on a ranking function's result: the filter's
 * input is the OVER (possibly behind a projection of plain column references) and the OVER
 * computes exactly one ROW_NUMBER / RANK / DENSE_RANK.
 */
export function rankOver(filter: LogicalFilter): LogicalOver | undefined {
  let inner: LogicalNode = filter.input;
  if (inner.kind === "project" && inner.exprs.every((e) => e.kind === "input")) inner = inner.input;
  if (inner.kind !== "over" || inner.calls.length !== 1 || !RANKING.has(inner.calls[0]!.fn)) return undefined;
  return inner;
}

/** The filter-output column holding the row number of a Top-N filter (see `rankOver`). */
export function rankColumn(filter: LogicalFilter, over: LogicalOver): number {
  const rnOver = over.input.schema.length;
  if (filter.input.kind !== "project") return rnOver;
  return filter.input.exprs.findIndex((e) => e.kind === "input" && e.index === rnOver);
}

/**
 * `WHERE rn <= N` over `ROW_NUMBER() OVER (PARTITION BY ... ORDER BY ...) AS rn` becomes Top-N;
 * with N = 1 and an ORDER BY on a time attribute it becomes deduplication; when the partition
 * includes window_start and window_end of a windowed input it becomes window Top-N /
 * deduplication, which emits once per window.
 */
export function matchRankPattern(
  t: Translator,
  filter: LogicalFilter,
  /** The row number is not read above the filter: Top-N need not emit rank changes. */
  rankUnused = false,
): PhysicalNode | undefined {
  const over = rankOver(filter);
  if (!over) return undefined;
  const proj = filter.input.kind === "project" ? [...filter.input.exprs] : null;
  const call = over.calls[0]!;
  const rnOver = over.input.schema.length;
  const rnCol = proj ? proj.findIndex((e) => e.kind === "input" && e.index === rnOver) : rnOver;
  const bounds = rankBounds(conjuncts(filter.condition), rnCol);
  if (bounds.end === null) {
    throw new PlanError(
      `a filter on ${call.fn}() needs an upper bound to plan as Top-N`,
      filter.span,
      "write WHERE rn <= N (or rn = 1 for deduplication)",
      "unsupported",
    );
  }
  if (bounds.end < bounds.start) {
    throw new PlanError(
      `the rank condition selects no rows (rank ${bounds.start} to ${bounds.end})`,
      filter.span,
    );
  }

  const input = t.translate(over.input);
  const windowed = windowColumns(input, t.b.nodes);
  const inWindow =
    windowed !== null &&
    call.partitionKeys.includes(windowed.start) &&
    call.partitionKeys.includes(windowed.end);
  const orderKey = call.orderBy.length === 1 ? call.orderBy[0]! : undefined;
  const orderType = orderKey ? input.schema[orderKey.column]!.type : undefined;
  const timeOrder =
    orderType !== undefined && isTimeAttribute(orderType) ? orderType.timeAttribute! : undefined;
  const dedup = call.fn === "ROW_NUMBER" && bounds.start === 1 && bounds.end === 1 && timeOrder !== undefined;
  const span = filter.span ?? over.span;
  const spanField = span ? { span } : {};
  const rnType = over.schema[rnOver]!.type;

  let ranked: PhysicalNode;
  if (dedup) {
    const keys = inWindow
      ? call.partitionKeys.filter((k) => k !== windowed!.start && k !== windowed!.end)
      : call.partitionKeys;
    const keepLast = orderKey!.descending;
    let node: PhysicalNode;
    if (inWindow) {
      if (timeOrder !== "rowtime")
        throw new PlanError("window deduplication needs an event-time ORDER BY", span);
      node = t.b.add<WindowDeduplicateNode>({
        kind: "window-deduplicate",
        inputs: [input.id],
        schema: input.schema,
        changelogMode: INSERT_ONLY,
        streamKey: [...keys, windowed!.start, windowed!.end],
        watermarkColumn: null,
        window: windowed!,
        keys,
        keepLast,
        timeColumn: orderKey!.column,
        ...spanField,
      });
    } else {
      if (!isInsertOnly(input)) {
        throw new PlanError(
          "deduplication doesn't support consuming update and delete changes",
          span,
          "deduplicate the insert-only stream before aggregating or joining it",
          "changelog",
        );
      }
      // Keeping the first row is insert-only on both time kinds: by processing time the first
      // row to arrive wins at once; by event time (Flink 2.1+) the earliest row waits for the
      // watermark and is emitted once, before the watermark that passes it, so its rowtime is
      // still a time attribute downstream (not before the watermark there, as in Flink).
      node = t.b.add<DeduplicateNode>({
        kind: "deduplicate",
        inputs: [input.id],
        schema: input.schema,
        changelogMode: keepLast ? RETRACT : INSERT_ONLY,
        streamKey: keys,
        watermarkColumn: timeOrder === "rowtime" && keepLast ? null : input.watermarkColumn,
        keys,
        keepLast,
        timeColumn: orderKey!.column,
        timeKind: timeOrder!,
        ...spanField,
      });
    }
    // The row number of a kept row is always 1.
    ranked = t.b.calc(
      node,
      [...refs(node.schema), E.literal(1, rnType)],
      null,
      over.schema.map((f) => f.name),
      span,
    );
  } else if (inWindow) {
    ranked = t.b.add<WindowRankNode>({
      kind: "window-rank",
      inputs: [input.id],
      schema: over.schema,
      changelogMode: INSERT_ONLY,
      streamKey: null,
      watermarkColumn: null,
      window: windowed!,
      rankFunction: call.fn as WindowRankNode["rankFunction"],
      partitionKeys: call.partitionKeys.filter((k) => k !== windowed!.start && k !== windowed!.end),
      orderBy: call.orderBy,
      rankStart: bounds.start,
      rankEnd: bounds.end,
      outputRank: true,
      ...spanField,
    });
  } else if (rankUnused) {
    // Flink's outputRankNumber = false: only rows entering or leaving the Top-N change the
    // output. The row-number column stays in the layout as a placeholder that nothing reads.
    const rank = t.b.add<RankNode>({
      kind: "rank",
      inputs: [input.id],
      schema: input.schema,
      changelogMode: RETRACT,
      // A Top-1 keeps one row per partition; otherwise rows keep the input's identity.
      streamKey: bounds.end === 1 && call.fn === "ROW_NUMBER" ? call.partitionKeys : input.streamKey,
      watermarkColumn: null,
      rankFunction: call.fn as RankNode["rankFunction"],
      partitionKeys: call.partitionKeys,
      orderBy: call.orderBy,
      rankStart: bounds.start,
      rankEnd: bounds.end,
      outputRank: false,
      ...spanField,
    });
    ranked = t.b.calc(
      rank,
      [...refs(rank.schema), E.literal(0, rnType)],
      null,
      over.schema.map((f) => f.name),
      span,
    );
  } else {
    ranked = t.b.add<RankNode>({
      kind: "rank",
      inputs: [input.id],
      schema: over.schema,
      changelogMode: RETRACT,
      streamKey: [...call.partitionKeys, rnOver],
      watermarkColumn: null,
      rankFunction: call.fn as RankNode["rankFunction"],
      partitionKeys: call.partitionKeys,
      orderBy: call.orderBy,
      rankStart: bounds.start,
      rankEnd: bounds.end,
      outputRank: true,
      ...spanField,
    });
  }
  const projections = proj ?? refs(over.schema);
  const residual = and(bounds.rest.map((p) => (proj ? substitute(p, proj) : p)));
  return t.b.calc(
    ranked,
    projections,
    residual,
    filter.schema.map((f) => f.name),
    span,
  );
}

/** OVER aggregates: one node per distinct window (partition, order, frame), then columns in query order. */
export function translateOver(t: Translator, node: LogicalOver): PhysicalNode {
  const ranking = node.calls.find((c) => RANKING.has(c.fn));
  if (ranking) {
    throw new PlanError(
      `${ranking.fn}() is only supported in a Top-N or deduplication query`,
      node.span,
      `filter on it in an outer query: SELECT * FROM (SELECT ..., ${ranking.fn}() OVER (...) AS rn FROM t) WHERE rn <= N`,
      "unsupported",
    );
  }
  const input = t.translate(node.input);
  if (!isInsertOnly(input)) {
    throw new PlanError("OVER aggregation doesn't support consuming update and delete changes", node.span);
  }
  const groups = new Map<string, OverCall[]>();
  for (const c of node.calls) {
    const key = JSON.stringify([c.partitionKeys, c.orderBy, c.frame]);
    const list = groups.get(key) ?? [];
    list.push(c);
    groups.set(key, list);
  }
  let cur = input;
  const placed = new Map<OverCall, number>();
  for (const calls of groups.values()) {
    const first = calls[0]!;
    const order = first.orderBy;
    const timeType = order.length === 1 ? input.schema[order[0]!.column]?.type : undefined;
    if (!timeType || !isTimeAttribute(timeType) || order[0]!.descending) {
      throw new PlanError(
        "OVER windows on a stream must be ordered by a time attribute, ascending",
        node.span,
        "ORDER BY the table's event-time (WATERMARK) column",
        "unsupported",
      );
    }
    if (timeType.timeAttribute === "proctime") {
      throw new PlanError("processing-time OVER windows are not supported yet", node.span);
    }
    const width = cur.schema.length;
    const aggregates: AggregateCall[] = calls.map((c) => ({
      fn: c.fn,
      args: c.args,
      argTypes: c.argTypes,
      distinct: c.distinct,
      filterColumn: c.filterColumn,
      type: c.type,
      ...(c.constants ? { constants: c.constants } : {}),
      name: c.name,
    }));
    for (const [i, c] of calls.entries()) placed.set(c, width + i);
    cur = t.b.add<OverAggregateNode>({
      kind: "over-aggregate",
      inputs: [cur.id],
      schema: [...cur.schema, ...calls.map((c) => ({ name: c.name, type: c.type }))],
      changelogMode: INSERT_ONLY,
      streamKey: input.streamKey,
      watermarkColumn: input.watermarkColumn,
      partitionKeys: first.partitionKeys,
      timeColumn: order[0]!.column,
      frame: first.frame ?? { kind: "range", preceding: null },
      aggregates,
      ...(node.span ? { span: node.span } : {}),
    });
  }
  const projections: Expr[] = [
    ...refs(input.schema),
    ...node.calls.map((c) => E.input(placed.get(c)!, c.type)),
  ];
  return t.b.calc(
    cur,
    projections,
    null,
    node.schema.map((f) => f.name),
    node.span,
  );
}
