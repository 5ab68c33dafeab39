export { DagBuilder } from "./builder.js";
export { PlanError } from "./errors.js";
export type { ExplainOptions } from "./explain.js";
export { explainDag, formatChangelogMode, nodeLabel } from "./explain.js";
export { formatExpr } from "./exprs.js";
export { materializedViewKey, materializedViewTable, materializedViewTarget } from "./materialized-view.js";
export type { CollectTarget, PlanCatalog, PlanTarget, TableTarget } from "./plan.js";
export { COLLECT_CONNECTOR, optimize, sinkAcceptsUpdates } from "./plan.js";
