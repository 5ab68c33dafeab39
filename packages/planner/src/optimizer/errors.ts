import type { SourceSpan } from "../physical.js";

/**
 * A query the planner cannot turn into a streaming plan. Carries the SQL span it is about and a
 * hint on what to write instead; the statement runner turns it into a diagnostic.
 */
export class PlanError extends Error {
  constructor(
    message: string,
    readonly span: SourceSpan | undefined,
    readonly hint?: string,
    readonly code = "plan",
  ) {
    super(message);
    this.name = "PlanError";
  }
}
