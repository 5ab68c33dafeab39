import type * as ast from "@weir/parser";
import type { Diagnostic } from "@weir/parser";
import type {
  Catalog,
  CatalogMaterializedView,
  CatalogObject,
  CatalogTable,
  CatalogView,
  DescribeRow,
} from "../catalog/catalog.js";
import { describeRows } from "../catalog/catalog.js";
import type { Session } from "../catalog/session.js";
import { checkSetting } from "../catalog/settings.js";
import { SCALAR_FUNCTIONS } from "../functions/scalar-functions.js";
import type { LogicalNode } from "../logical.js";
import { rootContext } from "./context.js";
import { bindCreateTable, bindCreateTableAs, bindCreateView } from "./ddl.js";
import { checkStatementDepth } from "./depth.js";
import { catching, didYouMean, fail, toSourceSpan } from "./errors.js";
import { type BoundInsert, bindInsert } from "./insert.js";
import { bindQuery as bindQueryNode } from "./query.js";

/**
 * What a statement does, once bound. DDL, SET and RESET have already been applied to the
 * catalog and session when `bindStatement` returns.
 */
export type BoundStatement =
  | { readonly kind: "create-table"; readonly table: CatalogTable; readonly created: boolean }
  | { readonly kind: "create-table-as"; readonly table: CatalogTable; readonly insert: BoundInsert }
  | { readonly kind: "create-view"; readonly view: CatalogView; readonly created: boolean }
  | {
      readonly kind: "create-materialized-view";
      readonly view: CatalogMaterializedView;
      readonly plan: LogicalNode;
    }
  | {
      readonly kind: "drop";
      readonly objectType: ast.Drop["objectType"];
      readonly name: string;
      readonly dropped: boolean;
      /** What was dropped (a materialised view's job and table are the caller's to stop and drop). */
      readonly object?: CatalogObject;
    }
  | { readonly kind: "insert"; readonly insert: BoundInsert }
  | { readonly kind: "statement-set"; readonly inserts: readonly BoundInsert[] }
  | { readonly kind: "query"; readonly plan: LogicalNode }
  | {
      readonly kind: "set";
      readonly key?: string;
      readonly value?: string;
      readonly settings: Record<string, string>;
    }
  | { readonly kind: "reset"; readonly key?: string }
  | { readonly kind: "show"; readonly object: ast.ShowObject; readonly names: readonly string[] }
  | { readonly kind: "show-create"; readonly object: CatalogObject }
  | { readonly kind: "describe"; readonly object: CatalogObject; readonly rows: readonly DescribeRow[] }
  | {
      readonly kind: "explain";
      readonly details: readonly ast.ExplainDetail[];
      readonly target: Extract<BoundStatement, { kind: "query" | "insert" | "statement-set" }>;
    }
  | {
      readonly kind: "stop-job";
      readonly jobId: string;
      /**
       * WITH SAVEPOINT: the session's `'execution.checkpointing.savepoint-dir'` (or
       * `'state.savepoints.dir'`) as written, which the savepoint goes to; null without.
       */
      readonly savepointDir: string | null;
      readonly withDrain: boolean;
    };

export interface BindResult<T> {
  /** Absent exactly when `diagnostics` has an error. */
  readonly value?: T;
  readonly diagnostics: Diagnostic[];
}

function result<T>(f: () => T): BindResult<T> {
  const r = catching(f);
  return "value" in r ? { value: r.value, diagnostics: r.diagnostics } : { diagnostics: r.diagnostics };
}

/** Binds a query to a logical plan. */
export function bindQuery(
  query: ast.Query,
  catalog: Catalog,
  session: Session,
): { plan?: LogicalNode; diagnostics: Diagnostic[] } {
  const r = result(() => bindQueryNode(query, rootContext(catalog, session)));
  return r.value ? { plan: r.value, diagnostics: r.diagnostics } : { diagnostics: r.diagnostics };
}

/** Binds one statement and applies its effect on the catalog / session (DDL, SET, RESET). */
export function bindStatement(
  stmt: ast.Statement,
  catalog: Catalog,
  session: Session,
): BindResult<BoundStatement> {
  const tooDeep = catching(() => checkStatementDepth(stmt));
  if (!("value" in tooDeep)) return { diagnostics: tooDeep.diagnostics };
  if (stmt.kind === "SetStatement" && stmt.key && stmt.value !== undefined) {
    const problem = checkSetting(stmt.key.value, stmt.value.value);
    if (problem !== undefined) {
      const d: Diagnostic = {
        code: problem.severity === "error" ? "invalid-setting" : "unknown-setting",
        message: problem.message,
        span: problem.at === "key" ? stmt.key.span : stmt.value.span,
        severity: problem.severity,
        ...(problem.hint ? { hint: problem.hint } : {}),
      };
      if (problem.severity === "error") return { diagnostics: [d] };
      const r = result(() => bindAndApply(stmt, catalog, session));
      return { ...r, diagnostics: [d, ...r.diagnostics] };
    }
  }
  return result(() => bindAndApply(stmt, catalog, session));
}

function name(n: ast.QualifiedName): string {
  return n.parts.map((p) => p.value).join(".");
}

/** Whether `name` is taken in the namespace a CREATE [TEMPORARY] writes to. */
function definedIn(catalog: Catalog, name: string, temporary: boolean): boolean {
  return temporary
    ? catalog.isTemporary(name)
    : catalog.get(name) !== undefined && !catalog.isTemporary(name);
}

function bindAndApply(stmt: ast.Statement, catalog: Catalog, session: Session): BoundStatement {
  const ctx = rootContext(catalog, session);
  switch (stmt.kind) {
    case "CreateTable": {
      const n = name(stmt.name);
      if (definedIn(catalog, n, stmt.temporary)) {
        if (stmt.ifNotExists) {
          return { kind: "create-table", table: catalog.get(n) as CatalogTable, created: false };
        }
        fail(
          "already-exists",
          `table '${n}' already exists`,
          stmt.name.span,
          "use CREATE TABLE IF NOT EXISTS, or DROP it first",
        );
      }
      if (stmt.asQuery) {
        const { table, plan } = bindCreateTableAs(stmt, ctx);
        catalog.add(table, stmt.temporary);
        return {
          kind: "create-table-as",
          table,
          insert: { sink: table, plan, hintOptions: {}, span: stmt.span },
        };
      }
      const table = bindCreateTable(stmt, ctx);
      catalog.add(table, stmt.temporary);
      return { kind: "create-table", table, created: true };
    }
    case "CreateView": {
      const n = name(stmt.name);
      if (definedIn(catalog, n, stmt.temporary)) {
        if (stmt.ifNotExists)
          return { kind: "create-view", view: catalog.get(n) as CatalogView, created: false };
        fail(
          "already-exists",
          `'${n}' already exists`,
          stmt.name.span,
          "use CREATE VIEW IF NOT EXISTS, or DROP it first",
        );
      }
      const view = bindCreateView(stmt, ctx);
      catalog.add(view, stmt.temporary);
      return { kind: "create-view", view, created: true };
    }
    case "CreateMaterializedView": {
      const n = name(stmt.name);
      if (catalog.get(n) !== undefined) {
        if (stmt.ifNotExists) {
          const o = catalog.get(n)!;
          if (o.kind === "materialized-view")
            return { kind: "create-materialized-view", view: o, plan: bindQueryNode(o.query, ctx) };
        }
        fail("already-exists", `'${n}' already exists`, stmt.name.span);
      }
      const plan = bindQueryNode(stmt.query, ctx);
      const view: CatalogMaterializedView = {
        kind: "materialized-view",
        name: n,
        query: stmt.query,
        schema: plan.schema,
        options: Object.fromEntries(stmt.options.map((o) => [o.key.value, o.value.value])),
        ...(stmt.comment ? { comment: stmt.comment.value } : {}),
        span: toSourceSpan(stmt.span),
      };
      catalog.add(view, false);
      return { kind: "create-materialized-view", view, plan };
    }
    case "Drop": {
      const n = name(stmt.name);
      const kind =
        stmt.objectType === "TABLE" ? "table" : stmt.objectType === "VIEW" ? "view" : "materialized-view";
      const temporary = stmt.temporary || (!catalog.isTemporary(n) ? false : catalog.get(n)?.kind === kind);
      const object = catalog.drop(n, kind, temporary);
      const dropped = object !== undefined;
      if (!dropped && !stmt.ifExists) {
        const what = stmt.objectType.toLowerCase();
        const other = catalog.get(n);
        fail(
          "not-found",
          other
            ? `'${n}' is a ${other.kind.replace("-", " ")}, not a ${what}`
            : `${what} '${n}' does not exist`,
          stmt.name.span,
          other ? undefined : (didYouMean(n, catalog.names(kind)) ?? `use DROP ${stmt.objectType} IF EXISTS`),
        );
      }
      return { kind: "drop", objectType: stmt.objectType, name: n, dropped, ...(object ? { object } : {}) };
    }
    case "Insert":
      return { kind: "insert", insert: bindInsert(stmt, ctx) };
    case "StatementSet":
      return { kind: "statement-set", inserts: stmt.inserts.map((i) => bindInsert(i, ctx)) };
    case "QueryStatement":
      return { kind: "query", plan: bindQueryNode(stmt.query, ctx) };
    case "SetStatement":
      if (stmt.key && stmt.value !== undefined) {
        session.set(stmt.key.value, stmt.value.value);
        return { kind: "set", key: stmt.key.value, value: stmt.value.value, settings: session.all() };
      }
      return { kind: "set", settings: session.all() };
    case "ResetStatement":
      session.reset(stmt.key?.value);
      return stmt.key ? { kind: "reset", key: stmt.key.value } : { kind: "reset" };
    case "Show": {
      const names =
        stmt.object === "TABLES"
          ? catalog.names("table")
          : stmt.object === "VIEWS"
            ? catalog.names("view")
            : stmt.object === "MATERIALIZED VIEWS"
              ? catalog.names("materialized-view")
              : stmt.object === "FUNCTIONS"
                ? Object.keys(SCALAR_FUNCTIONS).sort()
                : [];
      return { kind: "show", object: stmt.object, names };
    }
    case "ShowCreate":
    case "Describe": {
      const n = name(stmt.name);
      const object = catalog.get(n);
      if (object === undefined) {
        return fail(
          "table-not-found",
          `table '${n}' not found`,
          stmt.name.span,
          didYouMean(n, catalog.names()),
        );
      }
      return stmt.kind === "Describe"
        ? { kind: "describe", object, rows: describeRows(object) }
        : { kind: "show-create", object };
    }
    case "Explain": {
      const target = bindAndApply(stmt.target, catalog, session);
      if (target.kind !== "query" && target.kind !== "insert" && target.kind !== "statement-set") {
        return fail("internal", "EXPLAIN target must be a query, INSERT or STATEMENT SET", stmt.span);
      }
      return { kind: "explain", details: stmt.details, target };
    }
    case "StopJob": {
      // Accepting WITH DRAIN and stopping plainly would misread the statement.
      if (stmt.withDrain)
        fail(
          "unsupported",
          "STOP JOB ... WITH DRAIN is not supported: Weir does not end a job's event time before stopping it",
          stmt.span,
          "use STOP JOB 'id' (or STOP JOB 'id' WITH SAVEPOINT)",
        );
      let savepointDir: string | null = null;
      if (stmt.withSavepoint) {
        savepointDir =
          session.get("execution.checkpointing.savepoint-dir")?.trim() ||
          session.get("state.savepoints.dir")?.trim() ||
          null;
        if (savepointDir === null)
          fail(
            "no-savepoint-dir",
            "STOP JOB ... WITH SAVEPOINT needs a savepoint directory, and 'execution.checkpointing.savepoint-dir' is not set",
            stmt.span,
            "SET 'execution.checkpointing.savepoint-dir' = '/path/to/savepoints'; then STOP JOB again (the job keeps running meanwhile)",
          );
      }
      return {
        kind: "stop-job",
        jobId: stmt.jobId.value,
        savepointDir,
        withDrain: stmt.withDrain,
      };
    }
    default: {
      const _exhaustive: never = stmt;
      return _exhaustive;
    }
  }
}
