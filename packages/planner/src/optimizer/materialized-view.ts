import type { CatalogColumn, CatalogMaterializedView, CatalogTable } from "../catalog/catalog.js";
import type { ConnectorCatalog } from "../catalog/connector-catalog.js";
import type { ConnectorSpec, MaterializedViewSpec } from "../catalog/connector-spec.js";
import type { LogicalNode } from "../logical.js";
import type { Field, SinkNode } from "../physical.js";
import { withNullable } from "../types.js";
import { PlanError } from "./errors.js";
import { optimize, type TableTarget } from "./plan.js";

/**
 * The columns that identify a row of the view's result: the stream key the planner derives for
 * the query (GROUP BY keys, a window aggregate's keys and window bounds, a source's PRIMARY KEY
 * carried through projections). The view's table takes them as its primary key, so the sink
 * upserts by them. Throws a `PlanError` at the view's span when the query has no unique key.
 */
export function materializedViewKey(
  view: CatalogMaterializedView,
  plan: LogicalNode,
  settings: Readonly<Record<string, string>>,
  connectors: ConnectorCatalog,
): readonly number[] {
  const dag = optimize([{ kind: "collect", plan, span: view.span }], settings, {
    connectors,
    getTable: () => undefined,
  });
  const sink = dag.nodes[dag.sinks[0]!] as SinkNode;
  const key = dag.nodes[sink.inputs[0]!]!.streamKey;
  if (key === null || key.length === 0) {
    throw new PlanError(
      `materialized view '${view.name}' has no unique key: the planner cannot tell which rows of its result are the same row, so it cannot keep a table with a primary key equal to it`,
      view.span,
      "add GROUP BY, or a PRIMARY KEY to the source (… PRIMARY KEY (id) NOT ENFORCED)",
      "mv-no-key",
    );
  }
  return key;
}

/**
 * The connector that holds materialised views: the one whose sink has a `materializedView` part
 * (the `postgres` connector), in an embedded server or the one a view's `'url'` names.
 */
function viewStore(
  connectors: ConnectorCatalog,
): ConnectorSpec & { sink: { materializedView: MaterializedViewSpec } } {
  const spec = connectors.specs.find((s) => s.sink?.materializedView !== undefined);
  if (spec === undefined) throw new Error("no connector holds materialized views");
  return spec as ConnectorSpec & { sink: { materializedView: MaterializedViewSpec } };
}

/**
 * The table that holds a materialised view: the query's columns (key columns NOT NULL), the
 * derived key as PRIMARY KEY, the view-holding connector (`viewStore`), and the view's options
 * as that connector's `tableOptions` completes them (a table name from the view's unless the
 * view names one, the table created, `defaultUrl` — the embedded Postgres — unless the view has
 * a `'url'`; with neither the PG* environment variables apply).
 */
export function materializedViewTable(
  view: CatalogMaterializedView,
  key: readonly number[],
  defaultUrl: string | undefined,
  connectors: ConnectorCatalog,
): CatalogTable {
  const store = viewStore(connectors);
  const mv = store.sink.materializedView;
  const schema: Field[] = view.schema.map((f, i) =>
    key.includes(i) ? { name: f.name, type: withNullable(f.type, false) } : f,
  );
  const columns: CatalogColumn[] = schema.map((f) => ({ name: f.name, type: f.type, kind: "physical" }));
  const shape = { name: view.name, columns, primaryKey: key };
  const problems = connectors.validate({ ...view.options, connector: store.name }, "sink", shape);
  const owned = Object.keys(view.options).filter((k) => k === "connector" || mv.owned.includes(k));
  const first = problems[0];
  if (first !== undefined || owned.length > 0) {
    throw new PlanError(
      first
        ? `materialized view '${view.name}': option '${first.key}': ${first.message}`
        : `materialized view '${view.name}': option '${owned[0]}' is set by the view itself`,
      view.span,
      first?.hint ?? mv.hint,
      "mv-option",
    );
  }
  const options: Record<string, string> = {
    ...view.options,
    connector: store.name,
    ...mv.tableOptions(view.options, quoteName(view.name), defaultUrl),
  };
  return {
    kind: "table",
    name: view.name,
    columns,
    watermark: null,
    primaryKey: key,
    partitionKeys: [],
    options,
    optionSpans: {},
    temporary: false,
    span: view.span,
    schema,
  };
}

/** The target that keeps the view's table equal to its query, for `optimize`. */
export function materializedViewTarget(
  view: CatalogMaterializedView,
  plan: LogicalNode,
  settings: Readonly<Record<string, string>>,
  defaultUrl: string | undefined,
  connectors: ConnectorCatalog,
): TableTarget {
  const key = materializedViewKey(view, plan, settings, connectors);
  const table = materializedViewTable(view, key, defaultUrl, connectors);
  return { kind: "table", table, plan, span: view.span };
}

/**
 * The view's name as a Postgres table name: a plain identifier unquoted (Postgres folds it to
 * lower case, so `psql -c 'SELECT * FROM RevenueByStore'` finds the view of that name); anything
 * else (a dotted catalog name, spaces) quoted as one identifier.
 */
function quoteName(name: string): string {
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(name) ? name : `"${name.replace(/"/g, '""')}"`;
}
