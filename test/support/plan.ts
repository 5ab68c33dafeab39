// Plans SQL for tests with the planner's script compiler (no CLI): what `weir explain` plans.
import { connectorCatalog } from "@weir/connectors";
import { type Diagnostic, parse, renderDiagnostic } from "@weir/parser";
import {
  Catalog,
  type CompiledStatement,
  type PhysicalDag,
  type PlanTarget,
  ScriptCompiler,
  Session,
} from "@weir/planner";

export interface PlanSqlOptions {
  /** The file name diagnostics are rendered with (default `test.sql`). */
  readonly file?: string;
  /** Session settings before the script's own SET statements (as `--set`). */
  readonly settings?: Readonly<Record<string, string>>;
  /** Whether bare SELECTs join the job (default) or are left out of it, as `weir run` runs them apart. */
  readonly queries?: "join" | "run";
  /** What is planned of the job's targets (e.g. each INSERT's query into a collect sink). */
  readonly targets?: (targets: readonly PlanTarget[]) => readonly PlanTarget[];
}

export interface CompiledSql {
  readonly dag: PhysicalDag;
  /** Each statement's result, in order. */
  readonly results: readonly CompiledStatement[];
  readonly catalog: Catalog;
}

/**
 * Compiles a script and plans its job (its INSERTs, statement sets, CTAS, materialised views and,
 * unless `queries: "run"`, SELECTs) into one DAG; throws an error with the rendered diagnostics
 * when it does not parse, bind or plan.
 */
export function compileSql(source: string, options: PlanSqlOptions = {}): CompiledSql {
  const file = options.file ?? "test.sql";
  const fail = (diagnostics: readonly Diagnostic[]): never => {
    throw new Error(diagnostics.map((d) => renderDiagnostic(d, source, file)).join("\n"));
  };
  const parsed = parse(source);
  if (parsed.diagnostics.length > 0) fail(parsed.diagnostics);
  const catalog = new Catalog(connectorCatalog());
  const session = new Session();
  for (const [k, v] of Object.entries(options.settings ?? {})) session.set(k, v);
  const script = new ScriptCompiler(catalog, session, { queries: options.queries ?? "join" });
  const results: CompiledStatement[] = [];
  for (const statement of parsed.statements) {
    const r = script.statement(statement);
    if (r.kind === "invalid") fail(r.diagnostics);
    results.push(r);
  }
  const planned = script.plan(options.targets ? options.targets(script.targets) : script.targets);
  if (!planned.ok) return fail(planned.diagnostics);
  return { dag: planned.dag, results, catalog };
}

/** {@link compileSql}'s DAG. */
export function planSql(source: string, options: PlanSqlOptions = {}): PhysicalDag {
  return compileSql(source, options).dag;
}

/** Each INSERT's query into a collect sink instead of its table: the rows as the query makes them. */
export function collectInserts(targets: readonly PlanTarget[]): PlanTarget[] {
  return targets.map((t) => (t.kind === "table" ? { kind: "collect", plan: t.plan } : t));
}
