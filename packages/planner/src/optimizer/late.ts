import type { CatalogTable } from "../catalog/catalog.js";
import { parseDuration } from "../catalog/durations.js";
import {
  type ChangelogMode,
  type Field,
  LATE_REPORT_COLUMNS,
  type LateHandling,
  type LatePolicy,
  type PhysicalNode,
  type SideOutputNode,
  type SourceNode,
  type UnionNode,
} from "../physical.js";
import type { DataType } from "../types.js";
import { T as types } from "../types.js";
import { type DagBuilder, INSERT_ONLY, RETRACT } from "./builder.js";
import { PlanError } from "./errors.js";
import { nodeLabel } from "./explain.js";

/**
 * Late-data policies: a source table's `'late.policy'`, `'late.side-output'` and
 * `'late.allowed-lateness'` apply to every event-time operator its rows reach. This pass sets
 * each such operator's {@link LateHandling}, refuses what an operator cannot honour, and plans
 * the side-output tables: one {@link SideOutputNode} per (operator, input) routing late rows,
 * unioned per table into one sink.
 */

/** The options a source table may carry, with the policy they spell. */
interface SourceLate {
  readonly table: string;
  readonly policy: LatePolicy;
  readonly sideOutput: string | null;
  readonly allowedLatenessMs: number;
  readonly span: SourceNode["span"];
}

export const LATE_POLICY = "late.policy";
export const LATE_SIDE_OUTPUT = "late.side-output";
export const LATE_ALLOWED_LATENESS = "late.allowed-lateness";

/** The row types of the four columns a late row carries after its own on the side-output port. */
export const LATE_REPORT_TYPES: readonly DataType[] = [
  types.timestampLtz(3, false),
  types.timestampLtz(3, true),
  types.bigint(true),
  types.string(false),
];

/** Reads and checks a source's `'late.*'` options; null when it has none. */
export function sourceLate(source: SourceNode): SourceLate | null {
  const o = source.options;
  const policyText = o[LATE_POLICY];
  const side = o[LATE_SIDE_OUTPUT];
  const allowedText = o[LATE_ALLOWED_LATENESS];
  if (policyText === undefined && side === undefined && allowedText === undefined) return null;
  const where = `table '${source.table}'`;
  if (source.watermark === null) {
    throw new PlanError(
      `${where} has '${policyText !== undefined ? LATE_POLICY : side !== undefined ? LATE_SIDE_OUTPUT : LATE_ALLOWED_LATENESS}' but no WATERMARK: without event time no row is late`,
      source.span,
      "declare WATERMARK FOR <time column> AS ... in the table, or remove the 'late.*' options",
    );
  }
  const policy = (policyText ?? (side !== undefined ? "side-output" : "drop")) as LatePolicy;
  if (!["drop", "side-output", "update", "retract"].includes(policy)) {
    throw new PlanError(
      `${where}: '${LATE_POLICY}' = '${policyText}' is not a policy`,
      source.span,
      "one of 'drop', 'side-output', 'update', 'retract'",
    );
  }
  const allowed = allowedText === undefined ? 0 : parseDuration(allowedText);
  if (allowed === undefined || allowed < 0) {
    throw new PlanError(
      `${where}: '${LATE_ALLOWED_LATENESS}' = '${allowedText}' is not a duration`,
      source.span,
      "e.g. '3 min', '30 s'",
    );
  }
  if ((policy === "update" || policy === "retract") && allowed <= 0) {
    throw new PlanError(
      `${where}: '${LATE_POLICY}' = '${policy}' needs '${LATE_ALLOWED_LATENESS}': how long after a window's end late rows still correct it`,
      source.span,
      `add '${LATE_ALLOWED_LATENESS}' = '3 min' (for example)`,
    );
  }
  if ((policy === "drop" || policy === "side-output") && allowed > 0) {
    throw new PlanError(
      `${where}: '${LATE_ALLOWED_LATENESS}' needs '${LATE_POLICY}' = 'update' or 'retract' (with '${policy}', a window's result is final when emitted)`,
      source.span,
      `set '${LATE_POLICY}' = 'update' (upserts) or 'retract' (-U/+U), or remove '${LATE_ALLOWED_LATENESS}'`,
    );
  }
  if (policy === "drop" && side !== undefined) {
    throw new PlanError(
      `${where}: '${LATE_SIDE_OUTPUT}' with '${LATE_POLICY}' = 'drop': late rows would be both dropped and routed`,
      source.span,
      `set '${LATE_POLICY}' = 'side-output', or remove '${LATE_SIDE_OUTPUT}'`,
    );
  }
  if (policy === "side-output" && side === undefined) {
    throw new PlanError(
      `${where}: '${LATE_POLICY}' = 'side-output' needs '${LATE_SIDE_OUTPUT}' = '<table>': the table late rows are written to`,
      source.span,
    );
  }
  return {
    table: source.table,
    policy,
    sideOutput: side ?? null,
    allowedLatenessMs: allowed,
    span: source.span,
  };
}

/**
 * The changelog of a rowtime window aggregation over `input`: insert-only, or with
 * `'late.policy'` = 'update' an upsert stream by `key` (group keys, window_start, window_end),
 * with 'retract' a retract stream (corrections of fired windows).
 */
export function windowAggregateMode(
  nodes: readonly PhysicalNode[],
  input: number,
  timeKind: "rowtime" | "proctime",
  key: readonly number[],
  settings: Readonly<Record<string, string>>,
): ChangelogMode {
  if (timeKind !== "rowtime") return INSERT_ONLY;
  const sources = new Set<SourceNode>();
  sourcesOf(nodes, input, sources);
  for (const s of sources) {
    const l = sourceLate(s);
    if (l?.policy === "update") return { kind: "upsert", key };
    if (l?.policy === "retract") return RETRACT;
  }
  // Provisional results are updated by the next one: a retract stream.
  return earlyFireDelay(settings) !== null ? RETRACT : INSERT_ONLY;
}

export const EARLY_FIRE_ENABLED = "table.exec.emit.early-fire.enabled";
export const EARLY_FIRE_DELAY = "table.exec.emit.early-fire.delay";

/**
 * `'table.exec.emit.early-fire.enabled'` and `.delay`: the processing-time interval between
 * provisional results (0: after every row), or null when early firing is off. Enabled without a
 * delay is refused, as in Flink.
 */
export function earlyFireDelay(settings: Readonly<Record<string, string>>): number | null {
  if (settings[EARLY_FIRE_ENABLED]?.trim() !== "true") return null;
  const text = settings[EARLY_FIRE_DELAY];
  const ms = text === undefined ? undefined : parseDuration(text);
  if (ms === undefined || ms < 0) {
    throw new PlanError(
      `'${EARLY_FIRE_ENABLED}' = 'true' needs '${EARLY_FIRE_DELAY}': how often provisional window results are emitted`,
      undefined,
      `SET '${EARLY_FIRE_DELAY}' = '10 s' (or '0 s': after every row)`,
    );
  }
  return ms;
}

/**
 * Refuses what the window result functions and early firing cannot honour: WINDOW_IS_FINAL(),
 * WINDOW_VERSION() and WINDOW_WATERMARK() outside a window aggregation; early firing of SESSION
 * or processing-time windows.
 */
export function checkWindowResults(
  nodes: readonly PhysicalNode[],
  settings: Readonly<Record<string, string>>,
): void {
  const early = earlyFireDelay(settings) !== null;
  if (early && !nodes.some((n) => n.kind === "window-aggregate" && n.attachedWindow === undefined)) {
    throw new PlanError(
      `'${EARLY_FIRE_ENABLED}' = 'true', but this job has no window aggregation to fire early (it applies to GROUP BY window_start, window_end over an event-time TUMBLE, HOP or CUMULATE)`,
      undefined,
      `SET '${EARLY_FIRE_ENABLED}' = 'false' for this job`,
    );
  }
  for (const n of nodes) {
    if (n.kind === "window-aggregate") {
      if (early && (n.window.kind === "session" || n.timeKind === "proctime")) {
        throw new PlanError(
          `'${EARLY_FIRE_ENABLED}' is not supported for ${n.timeKind === "proctime" ? "processing-time windows" : "SESSION windows"} (${nodeLabel(n, nodes)}): Weir fires early only TUMBLE, HOP and CUMULATE windows on event time`,
          n.span,
          `SET '${EARLY_FIRE_ENABLED}' = 'false' for this job`,
        );
      }
      continue;
    }
    const aggs = (n as { aggregates?: readonly { fn: string }[] }).aggregates;
    const meta = aggs?.find((a) =>
      ["WINDOW_IS_FINAL", "WINDOW_VERSION", "WINDOW_WATERMARK"].includes(a.fn.toUpperCase()),
    );
    if (meta !== undefined) {
      throw new PlanError(
        `${meta.fn.toUpperCase()}() describes a window aggregation's result, but ${nodeLabel(n, nodes)} is not one`,
        n.span,
        "use it in the SELECT of GROUP BY window_start, window_end over a window TVF",
      );
    }
  }
}

/** Operators that hand late rows to the late-row channel, and whether they honour update/retract. */
function eventTimeOperator(node: PhysicalNode): { corrects: boolean } | null {
  switch (node.kind) {
    case "window-aggregate":
      return node.timeKind === "proctime" ? null : { corrects: true };
    case "deduplicate":
      return node.timeKind === "rowtime" && !node.keepLast ? { corrects: false } : null;
    case "window-table-function":
    case "window-join":
    case "window-rank":
    case "window-deduplicate":
    case "over-aggregate":
    case "interval-join":
      return { corrects: false };
    default:
      return null;
  }
}

/** Why an operator cannot correct results it emitted (the refusal of 'update' / 'retract'). */
function whyNoCorrection(node: PhysicalNode): string {
  switch (node.kind) {
    case "over-aggregate":
      return "an OVER aggregation emits each row once with the aggregates of the rows before it; a late row would change rows already emitted, which Weir does not correct";
    case "interval-join":
      return "an interval join's output is insert-only; Weir does not keep its rows past the join bounds for late rows";
    case "deduplicate":
      return "event-time first-row deduplication emits each key's first row once (insert-only), as Flink does";
    default:
      return "only window aggregations (GROUP BY window_start, window_end over a window TVF) correct a fired window's result";
  }
}

/** The sources whose rows reach `id`, walking the inputs. */
function sourcesOf(nodes: readonly PhysicalNode[], id: number, out: Set<SourceNode>): void {
  const n = nodes[id]!;
  if (n.kind === "source") {
    out.add(n);
    return;
  }
  for (const i of n.inputs) sourcesOf(nodes, i, out);
}

function sameLate(a: SourceLate | null, b: SourceLate | null): boolean {
  return (
    (a?.policy ?? "drop") === (b?.policy ?? "drop") &&
    (a?.sideOutput ?? null) === (b?.sideOutput ?? null) &&
    (a?.allowedLatenessMs ?? 0) === (b?.allowedLatenessMs ?? 0)
  );
}

function describeLate(l: SourceLate | null, table: string): string {
  if (l === null) return `'${table}' (drop)`;
  return `'${l.table}' (${l.policy}${l.sideOutput ? ` to '${l.sideOutput}'` : ""}${l.allowedLatenessMs > 0 ? `, ${l.allowedLatenessMs} ms` : ""})`;
}

/** Builds the sink that writes `input` into `table` (the side-output sink of late rows). */
export type TableSinkBuilder = (table: CatalogTable, input: PhysicalNode) => number;

/**
 * Sets `late` on every event-time operator whose input rows come from tables with `'late.*'`
 * options, and plans their side outputs. Returns the ids of the sinks it added.
 */
export function planLateData(
  b: DagBuilder,
  resolve: (name: string) => CatalogTable | undefined,
  sinkFor: TableSinkBuilder,
): number[] {
  const count = b.nodes.length;
  /** Side-output nodes per table name, in plan order. */
  const routed = new Map<string, { table: CatalogTable; nodes: PhysicalNode[] }>();
  for (let id = 0; id < count; id++) {
    const node = b.nodes[id]!;
    const op = eventTimeOperator(node);
    if (op === null) continue;
    const perInput: (SourceLate | null)[] = node.inputs.map((input) => {
      const sources = new Set<SourceNode>();
      sourcesOf(b.nodes, input, sources);
      let first: SourceLate | null | undefined;
      let firstTable = "";
      for (const s of sources) {
        const l = sourceLate(s);
        if (first === undefined) {
          first = l;
          firstTable = s.table;
        } else if (!sameLate(first, l)) {
          throw new PlanError(
            `${nodeLabel(node, b.nodes)} reads rows of tables with different late-data policies: ${describeLate(first, firstTable)} and ${describeLate(l, s.table)}`,
            node.span ?? s.span,
            "give the tables the same 'late.*' options",
          );
        }
      }
      return first ?? null;
    });
    const set = perInput.filter((l): l is SourceLate => l !== null);
    if (set.length === 0) continue;
    const policy = set[0]!;
    if (set.some((l) => !sameLate(l, policy))) {
      throw new PlanError(
        `${nodeLabel(node, b.nodes)} joins rows of tables with different late-data policies: ${set.map((x) => describeLate(x, x.table)).join(" and ")}`,
        node.span,
        "give both tables the same 'late.*' options",
      );
    }
    const corrects = set.find((l) => l.policy === "update" || l.policy === "retract");
    if (corrects !== undefined && !op.corrects) {
      throw new PlanError(
        `table '${corrects.table}' has '${LATE_POLICY}' = '${corrects.policy}', which ${nodeLabel(node, b.nodes)} cannot honour: ${whyNoCorrection(node)}`,
        node.span ?? corrects.span,
        "use 'drop' or 'side-output' for this table, or aggregate over a window TVF",
        "late-policy",
      );
    }
    const handling: LateHandling = {
      policy: corrects?.policy ?? (set.some((l) => l.policy === "side-output") ? "side-output" : "drop"),
      allowedLatenessMs: corrects?.allowedLatenessMs ?? 0,
      sideOutput: perInput.map((l) => l?.sideOutput != null),
    };
    b.nodes[id] = { ...node, late: handling } as PhysicalNode;
    perInput.forEach((l, input) => {
      if (l?.sideOutput == null) return;
      const table = resolve(l.sideOutput);
      if (table === undefined) {
        throw new PlanError(
          `table '${l.table}' routes late rows to '${l.sideOutput}' ('${LATE_SIDE_OUTPUT}'), which is not a table of this script`,
          l.span,
          `declare CREATE TABLE ${l.sideOutput} (...) WITH (...) with the columns of the late rows and ${LATE_REPORT_COLUMNS.join(", ")}`,
        );
      }
      const inputSchema = b.nodes[node.inputs[input]!]!.schema;
      const side = sideOutputNode(b, node, input, inputSchema, table, l);
      const entry = routed.get(table.name) ?? { table, nodes: [] };
      entry.nodes.push(side);
      routed.set(table.name, entry);
    });
  }
  const sinks: number[] = [];
  for (const { table, nodes } of routed.values()) {
    const input =
      nodes.length === 1
        ? nodes[0]!
        : b.add<UnionNode>({
            kind: "union",
            inputs: nodes.map((n) => n.id),
            schema: nodes[0]!.schema,
            changelogMode: INSERT_ONLY,
            streamKey: null,
            watermarkColumn: null,
          });
    sinks.push(sinkFor(table, input));
  }
  return sinks;
}

function timeLike(t: DataType): boolean {
  return t.kind === "TIMESTAMP_LTZ" || t.kind === "TIMESTAMP";
}

/** Plans the side-output node of `node`'s input `input`: its late rows mapped by name to `table`. */
function sideOutputNode(
  b: DagBuilder,
  node: PhysicalNode,
  input: number,
  inputSchema: readonly Field[],
  table: CatalogTable,
  l: SourceLate,
): SideOutputNode {
  const writable = table.columns.filter(
    (c) => c.kind === "physical" || (c.kind === "metadata" && !c.virtual),
  );
  const fields: Field[] = writable.map((c) => ({ name: c.name, type: c.type }));
  const lower = (s: string): string => s.toLowerCase();
  const columns = fields.map((f) => {
    const report = (LATE_REPORT_COLUMNS as readonly string[]).indexOf(lower(f.name));
    if (report >= 0) {
      const ok =
        report <= 1
          ? timeLike(f.type)
          : report === 2
            ? f.type.kind === "BIGINT" || f.type.kind === "INT" || f.type.kind === "DECIMAL"
            : f.type.kind === "VARCHAR" || f.type.kind === "CHAR";
      if (!ok) {
        throw new PlanError(
          `column '${f.name}' of late-row table '${table.name}' has type ${f.type.kind}, but ${LATE_REPORT_COLUMNS[report]} is ${
            report <= 1 ? "a TIMESTAMP_LTZ(3)" : report === 2 ? "a BIGINT (milliseconds)" : "a STRING"
          }`,
          table.span,
        );
      }
      return inputSchema.length + report;
    }
    const i = inputSchema.findIndex((c) => lower(c.name) === lower(f.name));
    if (i < 0) {
      throw new PlanError(
        `late-row table '${table.name}' has column '${f.name}', which the late rows of table '${l.table}' at ${nodeLabel(node, b.nodes)} do not carry`,
        table.span,
        `a late row carries the columns the operator reads (${inputSchema.map((c) => c.name).join(", ")}) and ${LATE_REPORT_COLUMNS.join(", ")}; declare only those`,
      );
    }
    return i;
  });
  return b.add<SideOutputNode>({
    kind: "side-output",
    inputs: [node.id],
    schema: fields,
    changelogMode: INSERT_ONLY,
    streamKey: null,
    watermarkColumn: null,
    port: `late-${input}`,
    columns,
    ...(node.span ? { span: node.span } : {}),
  });
}
