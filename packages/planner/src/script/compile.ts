import type { Diagnostic, Statement } from "@weir/parser";
import { type BoundStatement, bindStatement } from "../binder/statement.js";
import type { Catalog } from "../catalog/catalog.js";
import { dagForDisplay } from "../catalog/secrets.js";
import type { Session } from "../catalog/session.js";
import { showCreate } from "../catalog/show-create.js";
import { PlanError } from "../optimizer/errors.js";
import { explainDag } from "../optimizer/explain.js";
import { materializedViewTarget } from "../optimizer/materialized-view.js";
import type { PlanTarget } from "../optimizer/plan.js";
import type { SourceSpan } from "../physical.js";
import { describeListing, namesListing, settingsListing } from "./listing.js";
import type { CompiledStatement, Planned } from "./results.js";
import { insertTargets, planTargets, statementTargets } from "./targets.js";

export interface CompileOptions {
  /**
   * Whether a materialised view's table goes into the catalog as soon as its target is planned,
   * so that later statements read the table (the default: planning a script without running
   * it, as `weir explain` and `weir check` do). The CLI's run and shell say false: they make
   * the table first (in an embedded Postgres, or at the view's `'url'`) and put it there then.
   */
  readonly registerViewTables?: boolean;
}

/**
 * Compiles statements one at a time against a catalog and a session: binds each, applies its
 * effect (DDL, SET, RESET, DROP) and says what is left to do as data ({@link CompiledStatement}):
 * a listing to show, targets for a job, a query to run, a job to control. It prints nothing,
 * runs nothing and reaches no service; its diagnostics are positioned in the statement's source.
 */
export class StatementCompiler {
  constructor(
    readonly catalog: Catalog,
    readonly session: Session,
    private readonly options: CompileOptions = {},
  ) {}

  compile(statement: Statement): CompiledStatement {
    const r = guarded(() => bindStatement(statement, this.catalog, this.session), statement.span);
    if (!r.ok) return { kind: "invalid", statement, diagnostics: r.diagnostics };
    const { value: bound, diagnostics } = r.value;
    if (bound === undefined) return { kind: "invalid", statement, diagnostics };
    return this.result(statement, bound, diagnostics);
  }

  /**
   * Plans targets into one DAG (`planTargets`). A plan error becomes a diagnostic at its own
   * span, else at the first target's; so does a shape too deep to plan when a target has a span.
   */
  plan(targets: readonly PlanTarget[]): Planned {
    const span = targets[0]?.span;
    try {
      return { ok: true, dag: planTargets(targets, this.catalog, this.session) };
    } catch (e) {
      if (e instanceof PlanError) return { ok: false, diagnostics: [planErrorDiagnostic(e, span)] };
      if (e instanceof RangeError && span !== undefined)
        return { ok: false, diagnostics: [tooLargeDiagnostic(e, span)] };
      throw e;
    }
  }

  private result(
    statement: Statement,
    bound: BoundStatement,
    diagnostics: readonly Diagnostic[],
  ): CompiledStatement {
    const base = { statement, diagnostics };
    switch (bound.kind) {
      case "create-table":
      case "create-view":
      case "reset":
      case "drop":
        return { kind: "effect", bound, ...base };
      case "set":
        return bound.key !== undefined
          ? { kind: "effect", bound, ...base }
          : { kind: "listing", bound, listing: settingsListing(bound.settings), ...base };
      case "show":
        return bound.object === "JOBS"
          ? { kind: "job-control", bound, ...base }
          : { kind: "listing", bound, listing: namesListing(bound.object, bound.names), ...base };
      case "show-create":
        return { kind: "listing", bound, listing: { kind: "text", text: showCreate(bound.object) }, ...base };
      case "describe":
        return { kind: "listing", bound, listing: describeListing(bound.object), ...base };
      case "explain": {
        const planned = this.plan(statementTargets(bound.target));
        if (!planned.ok)
          return { kind: "invalid", statement, diagnostics: [...diagnostics, ...planned.diagnostics] };
        const text = bound.details.includes("JSON_EXECUTION_PLAN")
          ? JSON.stringify(dagForDisplay(planned.dag), null, 2)
          : explainDag(planned.dag, { changelogMode: bound.details.includes("CHANGELOG_MODE") });
        return { kind: "listing", bound, listing: { kind: "text", text }, ...base };
      }
      case "insert":
      case "statement-set":
      case "create-table-as":
        return { kind: "job", bound, targets: insertTargets(bound), ...base };
      case "create-materialized-view": {
        // IF NOT EXISTS of a view whose job is planned: one job, one table.
        if (bound.view.table !== undefined) return { kind: "job", bound, targets: [], ...base };
        const view = bound.view;
        const r = guarded(
          () =>
            materializedViewTarget(view, bound.plan, this.session.all(), undefined, this.catalog.connectors),
          view.span,
        );
        if (!r.ok) {
          // An invalid statement has no effect: the binder's catalog entry goes again.
          this.catalog.drop(view.name, "materialized-view", false);
          return { kind: "invalid", statement, diagnostics: [...diagnostics, ...r.diagnostics] };
        }
        if (this.options.registerViewTables ?? true)
          this.catalog.put({ ...view, table: r.value.table }, false);
        return { kind: "job", bound, targets: [r.value], ...base };
      }
      case "query":
        return { kind: "query", bound, target: { kind: "collect", plan: bound.plan }, ...base };
      case "stop-job":
        return { kind: "job-control", bound, ...base };
      default: {
        const _exhaustive: never = bound;
        return _exhaustive;
      }
    }
  }
}

/** A `PlanError` as an error diagnostic, at its own span, else `fallback`, else the script's start. */
export function planErrorDiagnostic(e: PlanError, fallback?: SourceSpan): Diagnostic {
  return {
    code: e.code,
    message: e.message,
    span: e.span ?? fallback ?? { offset: 0, end: 0, line: 1, column: 1 },
    severity: "error",
    ...(e.hint ? { hint: e.hint } : {}),
  };
}

/**
 * A stack overflow while binding or planning, as a positioned error. The binder refuses
 * statements nested deeper than it can handle before it starts (`MAX_STATEMENT_DEPTH`); this is
 * the backstop for a shape that check does not foresee, so that no input ends in an internal error.
 */
function tooLargeDiagnostic(e: RangeError, span: SourceSpan): Diagnostic {
  return {
    code: "statement-too-large",
    message: `the statement is too large to plan (${e.message})`,
    span,
    severity: "error",
    hint: "split it into views or WITH clauses of smaller parts",
  };
}

/** `step`'s value, or the diagnostic of its `PlanError` (at `span` without its own) or stack overflow. */
function guarded<T>(
  step: () => T,
  span: SourceSpan,
): { ok: true; value: T } | { ok: false; diagnostics: Diagnostic[] } {
  try {
    return { ok: true, value: step() };
  } catch (e) {
    if (e instanceof PlanError) return { ok: false, diagnostics: [planErrorDiagnostic(e, span)] };
    if (e instanceof RangeError) return { ok: false, diagnostics: [tooLargeDiagnostic(e, span)] };
    throw e;
  }
}
