import { type ConnectorDefinition, connectorCatalog } from "@weir/connectors";
import { parse, renderDiagnostic } from "@weir/parser";
import {
  Catalog,
  type CatalogTable,
  type ConnectorCatalog,
  compileScript,
  type PhysicalDag,
  Session,
  type SourceSpan,
} from "@weir/planner";
import type { CommandLine } from "../args.js";
import { UsageError } from "../args.js";
import { checkJob, type Finding } from "../check/checklist.js";
import { countFindings, findingsJson, renderFindings } from "../check/report.js";
import { scriptRedaction, scrubOutput } from "../engine/errors.js";
import { EXIT_INVALID, EXIT_OK } from "../engine/exit-codes.js";
import type { Output } from "../output.js";
import { readSource } from "./parse.js";

/** What `planForCheck` gives: the job as `weir run` would plan it, and what the checklist reads. */
export interface PlannedScript {
  readonly dag: PhysicalDag;
  readonly tables: ReadonlyMap<string, CatalogTable>;
  readonly settingSpans: ReadonlyMap<string, SourceSpan>;
  readonly viewTables: ReadonlySet<string>;
  readonly connectors: ConnectorCatalog;
}

/**
 * Compiles a script (DDL and SET take effect in order, as in `weir run`) and plans its INSERTs,
 * statement sets, CREATE TABLE AS, materialised views and SELECTs into one DAG, the way `weir
 * explain` does, without running anything or contacting a service. Undefined when the script is
 * invalid (its diagnostics are printed on standard error); null when it has nothing to plan.
 */
export function planForCheck(
  source: string,
  file: string,
  out: Output,
  settings: readonly (readonly [string, string])[] = [],
  /** Connectors besides `@weir/connectors`' list (as `EngineOptions.definitions`). */
  definitions: readonly ConnectorDefinition[] = [],
): PlannedScript | null | undefined {
  const catalog = new Catalog(connectorCatalog(definitions));
  const session = new Session();
  for (const [k, v] of settings) session.set(k, v);
  const compiled = compileScript(source, catalog, session);
  // A diagnostic echoes its SQL line, which may hold a password: hidden as weir run hides it.
  const redaction = scriptRedaction(source, compiled.statements, file);
  for (const d of compiled.diagnostics)
    out.err(scrubOutput(renderDiagnostic(d, source, file), redaction.secrets, redaction));
  if (!compiled.ok) return undefined;
  if (compiled.dag === null) return null;
  const dag = compiled.dag;
  const settingSpans = new Map<string, SourceSpan>();
  const viewTables = new Set<string>();
  for (const r of compiled.results) {
    const stmt = r.statement;
    if (stmt.kind === "SetStatement" && stmt.key !== undefined) settingSpans.set(stmt.key.value, stmt.span);
    if (stmt.kind === "ResetStatement") {
      if (stmt.key === undefined) settingSpans.clear();
      else settingSpans.delete(stmt.key.value);
    }
    if (r.kind === "job" && r.bound.kind === "create-materialized-view")
      for (const t of r.targets) viewTables.add(t.table.name);
  }
  const tables = new Map<string, CatalogTable>();
  for (const t of compiled.targets) if (t.kind === "table") tables.set(t.table.name, t.table);
  for (const n of dag.nodes) {
    if ((n.kind === "source" || n.kind === "sink") && !tables.has(n.table)) {
      const o = catalog.get(n.table);
      if (o?.kind === "table") tables.set(n.table, o);
      else if (o?.kind === "materialized-view" && o.table !== undefined) tables.set(n.table, o.table);
    }
  }
  return { dag, tables, settingSpans, viewTables, connectors: catalog.connectors };
}

/** The findings of the checklist for a script, or the exit code when it cannot be planned. */
export function checkScript(...args: Parameters<typeof planForCheck>): Finding[] | number {
  const planned = planForCheck(...args);
  if (planned === undefined) return EXIT_INVALID;
  if (planned === null) return [];
  return checkJob(planned);
}

/**
 * `weir check FILE.sql [--strict] [--json] [--set k=v]...`: the seeds' pre-deployment checklist
 * over the planned job. Exit codes: 0 (findings are reported, whatever their severity), 1 when
 * the script is invalid or, with `--strict`, when there is an error or a warning.
 */
export function checkCommand(cmd: CommandLine, out: Output): number {
  const file = cmd.positionals[0];
  if (file === undefined)
    throw new UsageError("weir check needs a file: weir check FILE.sql [--strict] [--json]");
  const source = readSource(file, out);
  if (source === undefined) return EXIT_INVALID;
  // A finding echoes its SQL line, which may hold a password: hidden as weir run hides it.
  const redaction = scriptRedaction(source, parse(source).statements, file);
  const scrub = (l: string) => scrubOutput(l, redaction.secrets, redaction);
  const raw = out;
  out = { out: (l) => raw.out(scrub(l)), err: (l) => raw.err(scrub(l)) };
  const findings = checkScript(source, file, out, cmd.sets);
  if (typeof findings === "number") return findings;
  if (findings.length === 0 && !cmd.flags.has("json")) {
    out.err(`${file}: nothing to check (no INSERT or SELECT)`);
    return EXIT_OK;
  }
  if (cmd.flags.has("json")) out.out(findingsJson(findings, file));
  else for (const l of renderFindings(findings, source, file)) out.out(l);
  const c = countFindings(findings);
  return cmd.flags.has("strict") && c.error + c.warning > 0 ? EXIT_INVALID : EXIT_OK;
}
