import type { BoundInsert } from "../binder/insert.js";
import type { BoundStatement } from "../binder/statement.js";
import type { Catalog } from "../catalog/catalog.js";
import type { Session } from "../catalog/session.js";
import { optimize, type PlanTarget, type TableTarget } from "../optimizer/plan.js";
import type { PhysicalDag } from "../physical.js";

/** What plans into a job or a query: an INSERT, a statement set, CTAS, a bare SELECT. */
export type PlannableStatement = Extract<
  BoundStatement,
  { kind: "insert" | "statement-set" | "create-table-as" | "query" }
>;

/** The target an INSERT (of a statement set, of CREATE TABLE AS) plans into: its sink fed by its query. */
export function insertTarget(insert: BoundInsert): TableTarget {
  return { kind: "table", table: insert.sink, plan: insert.plan, span: insert.span };
}

/** The targets of an INSERT, a statement set or CREATE TABLE AS: one per INSERT. */
export function insertTargets(bound: Exclude<PlannableStatement, { kind: "query" }>): TableTarget[] {
  return bound.kind === "statement-set" ? bound.inserts.map(insertTarget) : [insertTarget(bound.insert)];
}

/**
 * The targets of a bound statement that plans: one per INSERT, and a bare SELECT's collect
 * target (which carries no span, so that a plan error without its own is not placed at it).
 */
export function statementTargets(bound: PlannableStatement): PlanTarget[] {
  return bound.kind === "query" ? [{ kind: "collect", plan: bound.plan }] : insertTargets(bound);
}

/**
 * Plans targets into one DAG with the session's settings and the catalog's connectors, resolving
 * the tables that late rows and quarantined rows go to in the catalog. Throws `PlanError` (and, for a shape too deep to
 * plan, `RangeError`); `StatementCompiler.plan` turns both into diagnostics.
 */
export function planTargets(targets: readonly PlanTarget[], catalog: Catalog, session: Session): PhysicalDag {
  return optimize(targets, session.all(), catalog);
}
