import { type CatalogTable, tableShape } from "../catalog/catalog.js";
import type { ConnectorCatalog } from "../catalog/connector-catalog.js";
import { QUARANTINE_FIELDS, QUARANTINE_PORT, quarantineTypeFits } from "../catalog/quality.js";
import type { LogicalNode } from "../logical.js";
import {
  type Field,
  PHYSICAL_DAG_VERSION,
  type PhysicalDag,
  type PhysicalNode,
  type SideOutputNode,
  type SinkNode,
  type SourceNode,
  type SourceSpan,
  type UnionNode,
} from "../physical.js";
import { DagBuilder, INSERT_ONLY, isInsertOnly } from "./builder.js";
import { PlanError } from "./errors.js";
import { nodeLabel } from "./explain.js";
import { checkWindowResults, planLateData } from "./late.js";
import { pushProjectionsIntoSources } from "./projection.js";
import { pushDownPredicates } from "./pushdown.js";
import { Translator } from "./translate.js";

/** An INSERT INTO target: the bound query, whose output matches the table's writable columns. */
export interface TableTarget {
  readonly kind: "table";
  readonly table: CatalogTable;
  readonly plan: LogicalNode;
  readonly span?: SourceSpan;
}

/** A bare SELECT: its changelog goes back to the caller (printed by `weir run`, shown by the REPL). */
export interface CollectTarget {
  readonly kind: "collect";
  readonly plan: LogicalNode;
  readonly span?: SourceSpan;
}

export type PlanTarget = TableTarget | CollectTarget;

/** The connector name of the sink that hands rows back to the caller. */
export const COLLECT_CONNECTOR = "collect";

/** Columns a sink writes: physical and non-virtual metadata columns, in declaration order. */
export function writableColumns(table: CatalogTable): { fields: Field[]; positions: number[] } {
  const fields: Field[] = [];
  const positions: number[] = [];
  table.columns.forEach((c, i) => {
    if (c.kind === "physical" || (c.kind === "metadata" && !c.virtual)) {
      fields.push({ name: c.name, type: c.type });
      positions.push(i);
    }
  });
  return { fields, positions };
}

/**
 * Whether a sink can take updates, as its connector says (`SinkSpec.accepts`): changelog
 * formats, keyed (upsert) sinks and the console sinks can; append-only files, topics and
 * key-less tables cannot.
 */
export function sinkAcceptsUpdates(
  table: CatalogTable,
  connectors: ConnectorCatalog,
): { ok: boolean; why: string } {
  const connector = table.options.connector ?? "";
  const configured = connectors.configure(table.options, tableShape(table));
  const sink = configured?.spec.sink;
  if (configured === undefined || sink === undefined)
    return { ok: false, why: `connector '${connector}' is append-only` };
  const accepts = sink.accepts(configured.config, tableShape(table));
  return accepts.updates ? { ok: true, why: "" } : { ok: false, why: accepts.why };
}

/**
 * The hint of a sink that cannot take updates: the connectors that upsert by key and the
 * changelog formats, as the catalog lists them.
 */
function updatingSinksHint(connectors: ConnectorCatalog): string {
  const upserting = connectors.specs
    .filter((s) => s.sink?.upsertsByKey && s.aliasOf === undefined && !s.internal)
    .map((s) => s.name)
    .sort();
  const changelogs = connectors.formats.filter((f) => f.changelog === "retract").map((f) => `'${f.name}'`);
  return `declare a PRIMARY KEY on the sink and use an upserting connector (${upserting.join(", ")}), or a changelog format (${changelogs.join(", ")}), or aggregate over a window so that each result is final when emitted`;
}

/** The node that first turns the insert-only stream into updates, walking from the sink's input. */
function updateProducer(nodes: readonly PhysicalNode[], id: number): PhysicalNode {
  let node = nodes[id]!;
  for (;;) {
    const updating = node.inputs.map((i) => nodes[i]!).find((n) => !isInsertOnly(n));
    if (!updating) return node;
    node = updating;
  }
}

function at(span: SourceSpan | undefined): string {
  return span ? ` (line ${span.line}, column ${span.column})` : "";
}

/** The sink node writing `input` (whose row is the table's writable columns) into `table`. */
function tableSink(
  b: DagBuilder,
  table: CatalogTable,
  input: PhysicalNode,
  fields: Field[],
  positions: number[],
  span: SourceSpan | undefined,
): number {
  const primaryKey = table.primaryKey ? table.primaryKey.map((c) => positions.indexOf(c)) : null;
  const metadataColumns = positions.flatMap((c, i) => {
    const col = table.columns[c]!;
    return col.kind === "metadata" ? [{ column: i, key: col.metadataKey ?? col.name }] : [];
  });
  return b.add<SinkNode>({
    kind: "sink",
    inputs: [input.id],
    schema: fields,
    changelogMode: input.changelogMode,
    streamKey: input.streamKey,
    watermarkColumn: input.watermarkColumn,
    table: table.name,
    connector: table.options.connector ?? "",
    options: table.options,
    tableSchema: fields,
    primaryKey: primaryKey?.every((p) => p >= 0) ? primaryKey : null,
    inputMode: input.changelogMode,
    ...(metadataColumns.length > 0 ? { metadataColumns } : {}),
    ...(span ? { span } : {}),
  }).id;
}

/** What `optimize` reads besides its targets (a `Catalog` is one). */
export interface PlanCatalog {
  /** The connectors' specs. */
  readonly connectors: ConnectorCatalog;
  /** Tables by name: what a source's `'late.side-output'` or `'quality.quarantine'` names. */
  getTable(name: string): CatalogTable | undefined;
}

/**
 * Plans every target into one DAG (a script's INSERT statements run as one job). Throws
 * `PlanError` for queries that cannot run on a stream or sinks that cannot take their changes.
 */
export function optimize(
  targets: readonly PlanTarget[],
  settings: Readonly<Record<string, string>>,
  catalog: PlanCatalog,
): PhysicalDag {
  const resolveTable = (name: string) => catalog.getTable(name);
  const b = new DagBuilder(settings, catalog.connectors);
  const t = new Translator(b);
  const sinks: number[] = [];
  for (const target of targets) {
    const input = t.translate(pushDownPredicates(target.plan));
    const spanField = target.span ? { span: target.span } : {};
    if (target.kind === "collect") {
      const sink = b.add<SinkNode>({
        kind: "sink",
        inputs: [input.id],
        schema: input.schema,
        changelogMode: input.changelogMode,
        streamKey: input.streamKey,
        watermarkColumn: input.watermarkColumn,
        table: "collect",
        connector: COLLECT_CONNECTOR,
        options: {},
        tableSchema: input.schema,
        primaryKey: input.streamKey,
        inputMode: input.changelogMode,
        ...spanField,
      });
      sinks.push(sink.id);
      continue;
    }
    const table = target.table;
    const { fields, positions } = writableColumns(table);
    if (fields.length !== input.schema.length) {
      throw new PlanError(
        `the query produces ${input.schema.length} columns but table '${table.name}' takes ${fields.length}`,
        target.span,
      );
    }
    if (!isInsertOnly(input)) {
      const accepts = sinkAcceptsUpdates(table, b.connectors);
      if (!accepts.ok) {
        const producer = updateProducer(b.nodes, input.id);
        throw new PlanError(
          `table sink '${table.name}' doesn't support consuming update changes which are produced by ${nodeLabel(producer, b.nodes)}${at(producer.span)}: ${accepts.why}`,
          producer.span ?? target.span,
          updatingSinksHint(b.connectors),
          "sink-changelog",
        );
      }
    }
    sinks.push(tableSink(b, table, input, fields, positions, target.span));
  }
  checkWindowResults(b.nodes, settings);
  sinks.push(
    ...planLateData(b, resolveTable, (table, input) => {
      const { fields, positions } = writableColumns(table);
      return tableSink(b, table, input, fields, positions, table.span);
    }),
  );
  sinks.push(...addQuarantineSinks(b, targets, resolveTable));
  return { version: PHYSICAL_DAG_VERSION, nodes: pushProjectionsIntoSources(b.nodes), sinks, settings };
}

/**
 * One sink per quarantine table, reading the side-output port `quarantine` of every scan of a
 * table whose `'quality.quarantine'` names it (a union when several do). The table's columns are
 * any of {@link QUARANTINE_FIELDS}, by name.
 */
function addQuarantineSinks(
  b: DagBuilder,
  targets: readonly PlanTarget[],
  resolveTable: (name: string) => CatalogTable | undefined,
): number[] {
  const byTable = new Map<string, SourceNode[]>();
  for (const n of b.nodes) {
    const q = n.kind === "source" ? n.quality?.quarantine : undefined;
    if (n.kind !== "source" || q === undefined || q === null) continue;
    byTable.set(q, [...(byTable.get(q) ?? []), n]);
  }
  const ids: number[] = [];
  for (const [name, sources] of byTable) {
    const first = sources[0]!;
    const table = resolveTable(name);
    const where = `table '${first.table}' has 'quality.quarantine' = '${name}'`;
    if (table === undefined) {
      const example = b.connectors.specs.find((s) => s.sink?.example)?.sink?.example?.(name);
      throw new PlanError(
        `${where}, but there is no table '${name}'`,
        first.span,
        `declare the quarantine table before the job, e.g. CREATE TABLE ${name} (rule STRING, reason STRING, position STRING, raw STRING, event_time TIMESTAMP_LTZ(3))${example === undefined ? "" : ` WITH (${example})`}`,
      );
    }
    if (targets.some((t) => t.kind === "table" && t.table.name === table.name)) {
      throw new PlanError(
        `${where}, and the job also inserts into '${name}': a quarantine table takes only quarantined rows`,
        first.span,
        "use a table of its own for the quarantine",
      );
    }
    const problems = b.connectors.validate(table.options, "sink", tableShape(table));
    if (problems.length > 0) throw new PlanError(`${where}: ${problems[0]!.message}`, table.span);
    const { fields: columns } = writableColumns(table);
    const fields = columns.map((c) => {
      const f = QUARANTINE_FIELDS.findIndex((q) => q.name === c.name);
      if (f < 0) {
        throw new PlanError(
          `quarantine table '${name}' has a column '${c.name}', which the quarantine does not fill`,
          table.span,
          `a quarantine table's columns are any of: ${QUARANTINE_FIELDS.map((q) => `${q.name} ${q.kind === "text" ? "STRING" : "TIMESTAMP_LTZ(3)"}`).join(", ")}`,
        );
      }
      if (!quarantineTypeFits(QUARANTINE_FIELDS[f]!.kind, c.type)) {
        throw new PlanError(
          `quarantine table '${name}': column '${c.name}' must be ${QUARANTINE_FIELDS[f]!.kind === "text" ? "STRING" : "TIMESTAMP_LTZ(3)"}`,
          table.span,
        );
      }
      return f;
    });
    const sides = sources.map((src) =>
      b.add<SideOutputNode>({
        kind: "side-output",
        inputs: [src.id],
        port: QUARANTINE_PORT,
        columns: fields,
        schema: columns,
        changelogMode: INSERT_ONLY,
        streamKey: null,
        watermarkColumn: null,
        ...(src.span ? { span: src.span } : {}),
      }),
    );
    const input =
      sides.length === 1
        ? sides[0]!
        : b.add<UnionNode>({
            kind: "union",
            inputs: sides.map((n) => n.id),
            schema: columns,
            changelogMode: INSERT_ONLY,
            streamKey: null,
            watermarkColumn: null,
          });
    const { fields: tableFields, positions } = writableColumns(table);
    const sink = { id: tableSink(b, table, input, tableFields, positions, table.span) };
    ids.push(sink.id);
  }
  return ids;
}
