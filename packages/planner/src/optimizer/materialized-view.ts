import type { CatalogColumn, CatalogMaterializedView, CatalogTable } from "../catalog/catalog.js";
import { validateOptions } from "../catalog/connector-options.js";
import type { LogicalNode } from "../logical.js";
import type { Field, SinkNode } from "../physical.js";
import { withNullable } from "../types.js";
import { PlanError } from "./errors.js";
import { optimize, type TableTarget } from "./plan.js";

/**
 * Options of `CREATE MATERIALIZED VIEW ... WITH (...)`: the postgres connector's, minus the ones
 * the view decides itself (its key, that it creates its table).
 */
const VIEW_OWNED = new Set(["connector", "sink.create-table", "sink.version-column"]);

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
): readonly number[] {
  const dag = optimize([{ kind: "collect", plan, span: view.span }], settings);
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
 * The Postgres table that holds a materialised view: the query's columns (key columns NOT
 * NULL), the derived key as PRIMARY KEY, `'connector' = 'postgres'`, `'table-name'` = the view's
 * name unless the view says otherwise, `'sink.create-table' = 'true'`, and the view's other
 * options (`url`, `username`, `password`, flush settings). `url` is the view's own, else
 * `defaultUrl` (the embedded Postgres); with neither the PG* environment variables apply.
 */
export function materializedViewTable(
  view: CatalogMaterializedView,
  key: readonly number[],
  defaultUrl: string | undefined,
): CatalogTable {
  const problems = validateOptions(
    new Map(Object.entries({ ...view.options, connector: "postgres" })),
    "sink",
  );
  const owned = Object.keys(view.options).filter((k) => VIEW_OWNED.has(k));
  const first = problems[0];
  if (first !== undefined || owned.length > 0) {
    throw new PlanError(
      first
        ? `materialized view '${view.name}': option '${first.key}': ${first.message}`
        : `materialized view '${view.name}': option '${owned[0]}' is set by the view itself`,
      view.span,
      first?.hint ??
        "a materialized view takes the postgres connector's 'url', 'table-name', 'username', 'password' and 'sink.buffer-flush.*' options",
      "mv-option",
    );
  }
  const url = view.options.url ?? defaultUrl;
  const options: Record<string, string> = {
    ...view.options,
    connector: "postgres",
    "table-name": view.options["table-name"] ?? quoteName(view.name),
    "sink.create-table": "true",
    ...(url !== undefined ? { url } : {}),
  };
  const schema: Field[] = view.schema.map((f, i) =>
    key.includes(i) ? { name: f.name, type: withNullable(f.type, false) } : f,
  );
  const columns: CatalogColumn[] = schema.map((f) => ({ name: f.name, type: f.type, kind: "physical" }));
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
): TableTarget {
  const table = materializedViewTable(view, materializedViewKey(view, plan, settings), defaultUrl);
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
