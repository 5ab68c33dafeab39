import { E, type Expr, inputsOf } from "../expr.js";
import type { LogicalAggregate, LogicalWindowTableFunction } from "../logical.js";
import type {
  AggregateCall,
  ExpandNode,
  Field,
  PhysicalNode,
  WindowAggregateNode,
  WindowColumns,
  WindowSpec,
  WindowTableFunctionNode,
} from "../physical.js";
import { isTimeAttribute, T } from "../types.js";
import { INSERT_ONLY } from "./builder.js";
import { PlanError } from "./errors.js";
import { refs } from "./exprs.js";
import { windowAggregateMode } from "./late.js";
import { collectCalc, type Translator } from "./translate.js";

/** The output columns of a node that hold window_start and window_end, if it has them. */
export function windowColumns(node: PhysicalNode, nodes: readonly PhysicalNode[]): WindowColumns | null {
  switch (node.kind) {
    case "window-table-function": {
      const w = node.schema.length - 3;
      return { start: w, end: w + 1, timeZoneAligned: node.schema[w + 2]!.type.kind === "TIMESTAMP_LTZ" };
    }
    case "window-aggregate": {
      const w = node.groupKeys.length + node.aggregates.length;
      return { start: w, end: w + 1, timeZoneAligned: node.schema[w + 2]!.type.kind === "TIMESTAMP_LTZ" };
    }
    case "calc": {
      const inner = windowColumns(nodes[node.inputs[0]!]!, nodes);
      if (!inner) return null;
      const start = node.projections.findIndex((e) => e.kind === "input" && e.index === inner.start);
      const end = node.projections.findIndex((e) => e.kind === "input" && e.index === inner.end);
      return start >= 0 && end >= 0 ? { start, end, timeZoneAligned: inner.timeZoneAligned ?? false } : null;
    }
    case "window-rank":
    case "window-deduplicate":
      return node.window;
    default:
      return null;
  }
}

/** The kind of time attribute `field` is; fails on a plain timestamp. */
function requireTimeAttribute(
  field: Field | undefined,
  what: string,
  span: LogicalAggregate["span"],
): "rowtime" | "proctime" {
  if (!field || !isTimeAttribute(field.type)) {
    throw new PlanError(
      `${what} needs a time attribute, but '${field?.name ?? "?"}' is a plain timestamp`,
      span,
      "declare WATERMARK FOR the column in CREATE TABLE (event time), or use a column derived from one without computation",
      "time-attribute",
    );
  }
  return field.type.timeAttribute === "proctime" ? "proctime" : "rowtime";
}

/**
 * Window TVFs that are not fused into an aggregation need event time (as in Flink, whose
 * processing-time window TVF stands only under a window aggregation).
 */
function requireRowtime(field: Field | undefined, what: string, span: LogicalAggregate["span"]): void {
  if (requireTimeAttribute(field, what, span) === "proctime") {
    throw new PlanError(
      `processing-time ${what} is only supported under a window aggregation (column '${field!.name}' is PROCTIME())`,
      span,
      "GROUP BY window_start, window_end over the TVF, or use an event-time column with a WATERMARK",
      "unsupported",
    );
  }
}

function requireInsertOnly(input: PhysicalNode, what: string, span: LogicalAggregate["span"]): void {
  if (input.changelogMode.kind !== "insert-only") {
    throw new PlanError(
      `${what} doesn't support consuming update and delete changes`,
      span,
      "apply the window to an insert-only stream (before any GROUP BY, regular join or Top-N)",
      "changelog",
    );
  }
}

/** A window TVF that is not fused into an aggregate, join or Top-N: window columns on each row. */
export function translateWindowTvf(t: Translator, node: LogicalWindowTableFunction): PhysicalNode {
  const input = t.translate(node.input);
  requireRowtime(
    node.input.schema[node.timeColumn],
    `window function ${node.window.kind.toUpperCase()}`,
    node.span,
  );
  requireInsertOnly(input, `window function ${node.window.kind.toUpperCase()}`, node.span);
  const w = node.input.schema.length;
  return t.b.add<WindowTableFunctionNode>({
    kind: "window-table-function",
    inputs: [input.id],
    schema: node.schema,
    changelogMode: INSERT_ONLY,
    streamKey: null,
    watermarkColumn: w + 2,
    window: node.window,
    timeColumn: node.timeColumn,
    ...(node.span ? { span: node.span } : {}),
  });
}

/**
 * Window TVF + GROUP BY window_start, window_end, ... → one window aggregate that assigns rows to
 * slices itself. Matches when the aggregate's input is (through projections and filters) a
 * window TVF and both window_start and window_end are group keys. Output columns are put back in
 * the order the query asked for by a calc.
 */
export function matchWindowAggregate(t: Translator, node: LogicalAggregate): PhysicalNode | undefined {
  const chain = collectCalc(node.input);
  if (chain.input.kind !== "window-tvf") return undefined;
  const tvf = chain.input;
  const w = tvf.input.schema.length;
  const windowCol = (col: number): "start" | "end" | "time" | null =>
    col === w ? "start" : col === w + 1 ? "end" : col === w + 2 ? "time" : null;
  const proj = chain.projections ?? refs(tvf.schema);
  const roleOf = (j: number): "start" | "end" | "time" | null => {
    const e = proj[j]!;
    return e.kind === "input" ? windowCol(e.index) : null;
  };
  const keyRoles = node.groupKeys.map(roleOf);
  if (!keyRoles.includes("start") || !keyRoles.includes("end")) return undefined;
  // With grouping sets (ROLLUP, CUBE), Flink plans a window aggregation when window_start and
  // window_end are in every set (`GROUP BY window_start, window_end, ROLLUP (a)`).
  const sets = node.groupingSets;
  if (sets) {
    const inEvery = (role: "start" | "end") => sets.every((set) => set.some((k) => keyRoles[k] === role));
    if (!inEvery("start") || !inEvery("end")) return undefined;
  }

  const usesWindow = (e: Expr) => [...inputsOf(e)].some((c) => c >= w);
  // Columns of the aggregate's input, recomputed over the TVF's input (window columns dropped).
  const inner: Expr[] = [];
  const position = new Map<number, number>();
  proj.forEach((e, j) => {
    if (roleOf(j) !== null) return;
    if (usesWindow(e)) {
      throw new PlanError(
        "a window column can only be grouped by or selected, not computed on, before a window aggregation",
        node.span,
        "compute on window_start / window_end after the aggregation",
        "unsupported",
      );
    }
    position.set(j, inner.length);
    inner.push(e);
  });
  if (chain.condition && usesWindow(chain.condition)) {
    throw new PlanError(
      "a filter on window columns before the window aggregation is not supported",
      node.span,
    );
  }
  const addColumn = (col: number): number => {
    const at = inner.findIndex((e) => e.kind === "input" && e.index === col);
    if (at >= 0) return at;
    inner.push(E.input(col, tvf.input.schema[col]!.type));
    return inner.length - 1;
  };
  // Under grouping sets the time column gets a copy of its own, so that nulling a key never reaches it.
  let timeColumn: number;
  if (sets) {
    inner.push(E.input(tvf.timeColumn, tvf.input.schema[tvf.timeColumn]!.type));
    timeColumn = inner.length - 1;
  } else timeColumn = addColumn(tvf.timeColumn);
  let window: WindowSpec = tvf.window;
  if (window.kind === "session") window = { ...window, partitionKeys: window.partitionKeys.map(addColumn) };

  const base = t.translate(tvf.input);
  const timeKind = requireTimeAttribute(
    tvf.input.schema[tvf.timeColumn],
    "window aggregation",
    tvf.span ?? node.span,
  );
  const calc = t.b.calc(base, inner, chain.condition, null, node.span);

  const mapCol = (j: number, what: string): number => {
    const p = position.get(j);
    if (p === undefined) throw new PlanError(`window column used as ${what} of an aggregate`, node.span);
    return p;
  };
  const groupKeys = node.groupKeys.filter((_, i) => keyRoles[i] === null).map((j) => mapCol(j, "a key"));
  let input: PhysicalNode = calc;
  if (sets) {
    input = expandGroupingSets(t, calc, node, sets, keyRoles, (j) => mapCol(j, "a key"));
    groupKeys.push(calc.schema.length); // the expand's trailing $g joins the key
  }
  const aggregates: AggregateCall[] = node.aggregates.map((a) => ({
    ...a,
    args: a.args.map((j) => mapCol(j, "an argument")),
    filterColumn: a.filterColumn === null ? null : mapCol(a.filterColumn, "a filter"),
  }));
  const k = groupKeys.length;
  const n = aggregates.length;
  const aggFields = node.schema.slice(node.groupKeys.length, node.groupKeys.length + n);
  const timeType = tvf.schema[w + 2]!.type;
  const agg = t.b.add<WindowAggregateNode>({
    kind: "window-aggregate",
    inputs: [input.id],
    schema: [
      ...groupKeys.map((g) => input.schema[g]!),
      ...aggFields,
      { name: "window_start", type: T.timestamp(3, false) },
      { name: "window_end", type: T.timestamp(3, false) },
      { name: "window_time", type: timeType },
    ],
    changelogMode: windowAggregateMode(t.b.nodes, input.id, timeKind, [
      ...groupKeys.map((_, i) => i),
      k + n,
      k + n + 1,
    ]),
    streamKey: [...groupKeys.map((_, i) => i), k + n, k + n + 1],
    watermarkColumn: timeKind === "rowtime" ? k + n + 2 : null,
    window,
    timeColumn,
    timeKind,
    groupKeys,
    aggregates,
    ...(node.span ? { span: node.span } : {}),
  });
  let plain = 0;
  const projections: Expr[] = node.groupKeys.map((_, i) => {
    const role = keyRoles[i];
    const at = role === "start" ? k + n : role === "end" ? k + n + 1 : role === "time" ? k + n + 2 : plain++;
    return E.input(at, agg.schema[at]!.type);
  });
  for (let a = 0; a < n; a++) projections.push(E.input(k + a, agg.schema[k + a]!.type));
  // logical order under grouping sets: keys, aggregates, $g (the last physical key)
  if (sets) projections.push(E.input(k - 1, agg.schema[k - 1]!.type));
  return t.b.calc(
    agg,
    projections,
    null,
    node.schema.map((f) => f.name),
    node.span,
  );
}

/**
 * One copy of each row per grouping set, as the unbounded aggregation's expand: the plain keys
 * outside the set become NULL and a trailing `$g` holds the set's grouping id, with bit (n − 1 − k)
 * set when logical group key k is not in the set (window_start and window_end, in every set,
 * contribute 0 bits).
 */
function expandGroupingSets(
  t: Translator,
  input: PhysicalNode,
  node: LogicalAggregate,
  sets: readonly (readonly number[])[],
  keyRoles: readonly ("start" | "end" | "time" | null)[],
  columnOf: (logicalColumn: number) => number,
): PhysicalNode {
  const n = node.groupKeys.length;
  // the input column of each plain logical key
  const keyColumn = node.groupKeys.map((j, k) => (keyRoles[k] === null ? columnOf(j) : -1));
  const keyColumns = new Set(keyColumn.filter((c) => c >= 0));
  const projections = sets.map((set) => {
    let mask = 0;
    for (let k = 0; k < n; k++) if (!set.includes(k)) mask += 2 ** (n - 1 - k);
    const nulled = new Set(keyColumn.filter((c, k) => c >= 0 && !set.includes(k)));
    const row: Expr[] = input.schema.map((f, i) =>
      nulled.has(i) ? E.literal(null, { ...f.type, nullable: true } as typeof f.type) : E.input(i, f.type),
    );
    row.push(E.literal(mask, T.bigint(false)));
    return row;
  });
  return t.b.add<ExpandNode>({
    kind: "expand",
    inputs: [input.id],
    schema: [
      ...input.schema.map((f, i) =>
        keyColumns.has(i) ? { name: f.name, type: { ...f.type, nullable: true } as typeof f.type } : f,
      ),
      { name: "$g", type: T.bigint(false) },
    ],
    changelogMode: input.changelogMode,
    streamKey: null,
    watermarkColumn: null,
    projections,
    ...(node.span ? { span: node.span } : {}),
  });
}

/** The legacy `GROUP BY TUMBLE(ts, size)` windows: output keys, aggregates, window columns. */
export function translateGroupWindow(t: Translator, node: LogicalAggregate): PhysicalNode {
  const gw = node.groupWindow!;
  const input = t.translate(node.input);
  const timeKind = requireTimeAttribute(node.input.schema[gw.timeColumn], "group window", node.span);
  const k = node.groupKeys.length;
  const n = node.aggregates.length;
  return t.b.add<WindowAggregateNode>({
    kind: "window-aggregate",
    inputs: [input.id],
    schema: node.schema,
    changelogMode: windowAggregateMode(t.b.nodes, input.id, timeKind, [
      ...node.groupKeys.map((_, i) => i),
      k + n,
      k + n + 1,
    ]),
    streamKey: [...node.groupKeys.map((_, i) => i), k + n, k + n + 1],
    watermarkColumn: timeKind === "rowtime" ? k + n + 2 : null,
    window: gw.window,
    timeColumn: gw.timeColumn,
    timeKind,
    groupKeys: node.groupKeys,
    aggregates: node.aggregates,
    ...(node.span ? { span: node.span } : {}),
  });
}
