import { type Diagnostic, parse, type Statement } from "@weir/parser";
import type { Catalog } from "../catalog/catalog.js";
import type { Session } from "../catalog/session.js";
import type { PlanTarget, TableTarget } from "../optimizer/plan.js";
import type { PhysicalDag } from "../physical.js";
import { type CompileOptions, StatementCompiler } from "./compile.js";
import type { CompiledStatement, Planned } from "./results.js";

export interface ScriptCompileOptions extends CompileOptions {
  /**
   * What becomes of a bare SELECT: `"join"` (the default) plans it into the script's one job,
   * as `weir explain` and `weir check` show a script; `"run"` leaves it out of the job, for a
   * presenter that runs each SELECT when it is reached (`weir run`).
   */
  readonly queries?: "join" | "run";
}

interface Pending {
  readonly target: PlanTarget;
  /** The materialised view whose table the target keeps. */
  readonly view?: string;
}

/**
 * A SQL script compiled the way Flink's SQL client runs one: DDL, SET and the like take effect
 * in order, and every INSERT (statement set, CREATE TABLE AS, materialised view) joins one job,
 * {@link targets}, planned once the whole script is read. DROP MATERIALIZED VIEW takes the
 * view's target back out of the job; a view created again (IF NOT EXISTS) while its target is
 * in the job adds none.
 */
export class ScriptCompiler {
  private readonly compiler: StatementCompiler;
  private pending: Pending[] = [];
  private readonly queries: "join" | "run";

  constructor(
    readonly catalog: Catalog,
    readonly session: Session,
    options: ScriptCompileOptions = {},
  ) {
    this.compiler = new StatementCompiler(catalog, session, options);
    this.queries = options.queries ?? "join";
  }

  /** Compiles the next statement of the script; what it adds to the job joins {@link targets}. */
  statement(statement: Statement): CompiledStatement {
    const r = this.compiler.compile(statement);
    switch (r.kind) {
      case "job": {
        const view = r.bound.kind === "create-materialized-view" ? r.bound.view.name : undefined;
        if (view !== undefined && this.pending.some((p) => p.view === view)) return { ...r, targets: [] };
        for (const target of r.targets) this.pending.push(view === undefined ? { target } : { target, view });
        return r;
      }
      case "query":
        if (this.queries === "join") this.pending.push({ target: r.target });
        return r;
      case "effect":
        if (r.bound.kind === "drop" && r.bound.object?.kind === "materialized-view") {
          const dropped = r.bound.name;
          this.pending = this.pending.filter((p) => p.view !== dropped);
        }
        return r;
      default:
        return r;
    }
  }

  /** The job's targets so far, in statement order. */
  get targets(): readonly PlanTarget[] {
    return this.pending.map((p) => p.target);
  }

  /** Takes the job's targets out (to run them before a query that reads what they write). */
  take(): PlanTarget[] {
    const targets = this.targets.slice();
    this.pending = [];
    return targets;
  }

  /**
   * The materialised view `name` keeps its table where `target` says (its job's sink planned
   * with the `'url'` of an embedded Postgres): its target in the job becomes `target`.
   */
  placeView(name: string, target: TableTarget): void {
    this.pending = this.pending.map((p) => (p.view === name ? { target, view: name } : p));
  }

  /** Plans `targets` (by default the job's) into one DAG, or says why they do not plan. */
  plan(targets: readonly PlanTarget[] = this.targets): Planned {
    return this.compiler.plan(targets);
  }
}

/** A whole script compiled and its job planned, without running anything. */
export interface CompiledScript {
  readonly statements: readonly Statement[];
  /** Each statement's result in order, up to the first that is invalid. */
  readonly results: readonly CompiledStatement[];
  /** Every diagnostic, in order: parse errors, warnings, the error that stopped the script. */
  readonly diagnostics: readonly Diagnostic[];
  /** No error: every statement compiled and the job planned. */
  readonly ok: boolean;
  /** The job's targets (its SELECTs too with `queries: "join"`). */
  readonly targets: readonly PlanTarget[];
  /** The job planned; null when the script has an error or nothing to plan. */
  readonly dag: PhysicalDag | null;
}

/**
 * Compiles a script (its text, or its parsed statements) into `catalog` and `session` and plans
 * its job: what `weir explain` and `weir check` show, what a worker rebuilds. Stops at the first
 * statement that is invalid.
 */
export function compileScript(
  script: string | readonly Statement[],
  catalog: Catalog,
  session: Session,
  options: ScriptCompileOptions = {},
): CompiledScript {
  let statements: readonly Statement[];
  const diagnostics: Diagnostic[] = [];
  if (typeof script === "string") {
    const parsed = parse(script);
    statements = parsed.statements;
    diagnostics.push(...parsed.diagnostics);
    if (parsed.diagnostics.some((d) => d.severity === "error"))
      return { statements, results: [], diagnostics, ok: false, targets: [], dag: null };
  } else statements = script;
  const compiler = new ScriptCompiler(catalog, session, options);
  const results: CompiledStatement[] = [];
  for (const statement of statements) {
    const r = compiler.statement(statement);
    results.push(r);
    diagnostics.push(...r.diagnostics);
    if (r.kind === "invalid") return { statements, results, diagnostics, ok: false, targets: [], dag: null };
  }
  const targets = compiler.targets;
  if (targets.length === 0) return { statements, results, diagnostics, ok: true, targets, dag: null };
  const planned = compiler.plan(targets);
  if (!planned.ok) {
    diagnostics.push(...planned.diagnostics);
    return { statements, results, diagnostics, ok: false, targets, dag: null };
  }
  return { statements, results, diagnostics, ok: true, targets, dag: planned.dag };
}
