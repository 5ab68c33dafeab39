import { dropViewTable, EmbeddedPostgres, embeddedPostgresPort, replaceViewTable } from "@weir/connectors";
import {
  type BoundStatement,
  type Catalog,
  type CatalogObject,
  type CatalogTable,
  type LogicalNode,
  logicalInputs,
  materializedViewTarget,
  type Session,
  type TableTarget,
} from "@weir/planner";
import type { Output } from "../output.js";

type CreateMaterializedView = Extract<BoundStatement, { kind: "create-materialized-view" }>;

/**
 * The materialised views of an engine: each is a table target (its job keeps a Postgres table
 * equal to its query) plus the catalog entry that makes later queries read that table. Views
 * without a `'url'` live in one embedded Postgres, started on the first such view and served on
 * 127.0.0.1 until {@link stop}.
 */
export class MaterializedViews {
  private embedded: Promise<EmbeddedPostgres> | null = null;

  constructor(
    private readonly catalog: Catalog,
    private readonly session: Session,
    private readonly out: Output,
  ) {}

  /**
   * Makes the view's table, once the compiler planned its target (which checked its key and
   * options): starts the embedded server when the view has no `'url'`, replaces the table an
   * earlier run or definition left by an empty one (the view owns its table), and records the
   * table on the catalog entry so that queries read it: a query right after the view was created
   * reads its (empty, then filling) table. Returns the target writing there. Throws
   * `ConnectorError`/server errors, {@link Interrupted} when `signal` aborts the wait.
   */
  async prepare(bound: CreateMaterializedView, signal?: AbortSignal): Promise<TableTarget> {
    const view = bound.view;
    const url = view.options.url === undefined ? (await untilAborted(this.server(), signal)).url : undefined;
    const target = materializedViewTarget(view, bound.plan, this.session.all(), url, this.catalog.connectors);
    await replaceViewTable(view.name, target.table.options, {
      fields: target.table.schema,
      key: target.table.primaryKey,
    });
    this.catalog.put({ ...view, table: target.table }, false);
    return target;
  }

  /**
   * DROP MATERIALIZED VIEW, once its job has stopped: drops the view's table (the view owned
   * it). A view whose table was never made (its job was not planned) has nothing to drop.
   */
  async drop(view: CatalogObject): Promise<void> {
    if (view.kind !== "materialized-view" || view.table === undefined) return;
    if (view.options.url === undefined && this.embedded === null) return;
    await dropViewTable(view.name, view.table.options);
  }

  /** Whether `plan` reads the table of a materialised view whose job has been planned. */
  reads(plan: LogicalNode): boolean {
    const tables = new Set<CatalogTable>();
    for (const name of this.catalog.names("materialized-view")) {
      const o = this.catalog.get(name);
      if (o?.kind === "materialized-view" && o.table !== undefined) tables.add(o.table);
    }
    if (tables.size === 0) return false;
    const stack: LogicalNode[] = [plan];
    for (let n = stack.pop(); n !== undefined; n = stack.pop()) {
      if (n.kind === "scan" && tables.has(n.table)) return true;
      stack.push(...logicalInputs(n));
    }
    return false;
  }

  /** The embedded server, if a view started it. */
  async running(): Promise<EmbeddedPostgres | undefined> {
    return this.embedded ? await this.embedded : undefined;
  }

  /**
   * Keeps the embedded server up until `signal` aborts (Ctrl-C in `weir run --serve`), having
   * printed how to connect. Returns at once when no view uses the embedded server.
   */
  async serve(signal: AbortSignal | undefined): Promise<void> {
    const server = await this.running();
    if (server === undefined || signal === undefined || signal.aborted) return;
    this.out.err(
      `materialized views: job ended; still serving them (Ctrl-C to stop): ${server.psqlCommand()}`,
    );
    await new Promise<void>((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));
  }

  /** Stops the embedded server (its in-memory tables are gone); the views read their queries again. */
  async stop(): Promise<void> {
    const starting = this.embedded;
    if (starting === null) return;
    this.embedded = null;
    for (const name of this.catalog.names("materialized-view")) {
      const o = this.catalog.get(name);
      if (o?.kind === "materialized-view" && o.table !== undefined && o.options.url === undefined) {
        const { table: _dropped, ...view } = o;
        this.catalog.put(view, false);
      }
    }
    const server = await starting.catch(() => undefined);
    await server?.stop();
  }

  private server(): Promise<EmbeddedPostgres> {
    if (this.embedded === null) {
      const port = embeddedPostgresPort(this.session.all());
      // Start-up takes seconds: say so at once (Ctrl-C aborts the wait).
      this.out.err("starting embedded Postgres…");
      const starting = EmbeddedPostgres.start({ port });
      this.embedded = starting;
      starting.then(
        (s) =>
          this.out.err(
            `materialized views are served by an embedded Postgres while this weir process runs: ${s.psqlCommand()}`,
          ),
        () => {
          if (this.embedded === starting) this.embedded = null;
        },
      );
    }
    return this.embedded;
  }
}

/** Thrown when Ctrl-C (the run's abort signal) interrupts a wait. */
export class Interrupted extends Error {
  constructor() {
    super("stopped (Ctrl-C)");
  }
}

/** `promise`, or an {@link Interrupted} rejection as soon as `signal` aborts. */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (signal === undefined) return promise;
  if (signal.aborted) return Promise.reject(new Interrupted());
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new Interrupted());
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (v) => {
        signal.removeEventListener("abort", onAbort);
        resolve(v);
      },
      (e) => {
        signal.removeEventListener("abort", onAbort);
        reject(e);
      },
    );
  });
}

/** Whether the session asks to keep serving the views after the job ends. */
export function serveSetting(settings: Readonly<Record<string, string>>): boolean {
  return (settings["weir.mv.serve"] ?? "false").trim().toLowerCase() === "true";
}
