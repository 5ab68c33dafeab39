import type { ConnectorDefinition } from "@weir/connectors";
import { parse, renderDiagnostic } from "@weir/parser";
import {
  type CatalogTable,
  type ConnectorCatalog,
  materializedViewTarget,
  type PhysicalDag,
  PlanError,
  type PlanTarget,
  type SourceSpan,
} from "@weir/planner";
import type { CommandLine } from "../args.js";
import { UsageError } from "../args.js";
import { checkJob, type Finding } from "../check/checklist.js";
import { countFindings, findingsJson, renderFindings } from "../check/report.js";
import { Engine, EXIT_INVALID, EXIT_OK } from "../engine/engine.js";
import { scriptRedaction, scrubOutput } from "../engine/errors.js";
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
 * Binds a script statement by statement (DDL and SET take effect in order, as in `weir run`) and
 * plans its INSERTs, statement sets, CREATE TABLE AS, materialised views and SELECTs into one
 * DAG, the way `weir explain` does, without running anything or contacting a service. Undefined
 * when the script is invalid (its diagnostics are printed on standard error); null when it has
 * nothing to plan.
 */
export function planForCheck(
  source: string,
  file: string,
  out: Output,
  settings: readonly (readonly [string, string])[] = [],
  /** Connectors besides `@weir/connectors`' list (`EngineOptions.definitions`). */
  definitions?: readonly ConnectorDefinition[],
): PlannedScript | null | undefined {
  const parsed = parse(source);
  if (parsed.diagnostics.length > 0) {
    const redaction = scriptRedaction(source, parsed.statements, file);
    for (const d of parsed.diagnostics)
      out.err(scrubOutput(renderDiagnostic(d, source, file), redaction.secrets, redaction));
    if (parsed.diagnostics.some((d) => d.severity === "error")) return undefined;
  }
  const engine = new Engine({ cwd: process.cwd(), out, settings, ...(definitions ? { definitions } : {}) });
  engine.useScript(source, parsed.statements, file);
  const targets: PlanTarget[] = [];
  const settingSpans = new Map<string, SourceSpan>();
  const viewTables = new Set<string>();
  for (const stmt of parsed.statements) {
    if (stmt.kind === "SetStatement" && stmt.key !== undefined) settingSpans.set(stmt.key.value, stmt.span);
    if (stmt.kind === "ResetStatement") {
      if (stmt.key === undefined) settingSpans.clear();
      else settingSpans.delete(stmt.key.value);
    }
    const bound = engine.bindOne(stmt, source, file);
    if (bound === undefined) return undefined;
    switch (bound.kind) {
      case "insert":
      case "create-table-as":
        targets.push({
          kind: "table",
          table: bound.insert.sink,
          plan: bound.insert.plan,
          span: bound.insert.span,
        });
        break;
      case "statement-set":
        for (const i of bound.inserts)
          targets.push({ kind: "table", table: i.sink, plan: i.plan, span: i.span });
        break;
      case "query":
        targets.push({ kind: "collect", plan: bound.plan });
        break;
      case "create-materialized-view": {
        if (bound.view.table !== undefined) break;
        try {
          const target = materializedViewTarget(
            bound.view,
            bound.plan,
            engine.session.all(),
            undefined,
            engine.catalog.connectors,
          );
          engine.catalog.put({ ...bound.view, table: target.table }, false);
          targets.push(target);
          viewTables.add(target.table.name);
        } catch (e) {
          if (!(e instanceof PlanError)) throw e;
          const span = e.span ?? bound.view.span;
          out.err(
            renderDiagnostic(
              {
                code: e.code,
                message: e.message,
                span,
                severity: "error",
                ...(e.hint ? { hint: e.hint } : {}),
              },
              source,
              file,
            ),
          );
          return undefined;
        }
        break;
      }
      default:
        break;
    }
  }
  if (targets.length === 0) return null;
  const dag = engine.tryPlan(targets, source, file);
  if (dag === undefined) return undefined;
  const tables = new Map<string, CatalogTable>();
  for (const t of targets) if (t.kind === "table") tables.set(t.table.name, t.table);
  for (const n of dag.nodes) {
    if ((n.kind === "source" || n.kind === "sink") && !tables.has(n.table)) {
      const o = engine.catalog.get(n.table);
      if (o?.kind === "table") tables.set(n.table, o);
      else if (o?.kind === "materialized-view" && o.table !== undefined) tables.set(n.table, o.table);
    }
  }
  return { dag, tables, settingSpans, viewTables, connectors: engine.catalog.connectors };
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
