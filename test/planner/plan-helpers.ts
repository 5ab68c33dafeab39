import { connectorCatalog } from "@weir/connectors";
import { type Diagnostic, parse } from "@weir/parser";
import { bindStatement } from "../../packages/planner/src/binder/statement.js";
import { Catalog } from "../../packages/planner/src/catalog/catalog.js";
import { Session } from "../../packages/planner/src/catalog/session.js";
import { explainDag } from "../../packages/planner/src/optimizer/explain.js";
import type { PlanTarget } from "../../packages/planner/src/optimizer/plan.js";
import type { PhysicalDag } from "../../packages/planner/src/physical.js";
import { planTargets, statementTargets } from "../../packages/planner/src/script/targets.js";

/** Parses and binds a script; returns the plan of its INSERTs and SELECTs as one DAG (throws `PlanError`). */
export function planScript(sql: string): PhysicalDag {
  const { statements, diagnostics } = parse(sql);
  if (diagnostics.length) throw new Error(`parse: ${format(diagnostics)}`);
  const catalog = new Catalog(connectorCatalog());
  const session = new Session();
  const targets: PlanTarget[] = [];
  for (const s of statements) {
    const r = bindStatement(s, catalog, session);
    if (!r.value) throw new Error(`bind: ${format(r.diagnostics)}`);
    const v = r.value;
    if (
      v.kind === "insert" ||
      v.kind === "create-table-as" ||
      v.kind === "statement-set" ||
      v.kind === "query"
    )
      targets.push(...statementTargets(v));
  }
  // Planned directly (not through the compiler), so that a plan error is thrown as the PlanError.
  return planTargets(targets, catalog, session);
}

export function explainScript(sql: string): string {
  return explainDag(planScript(sql), { changelogMode: true });
}

function format(ds: readonly Diagnostic[]): string {
  return ds.map((d) => `${d.span.line}:${d.span.column} ${d.message}`).join("; ");
}
