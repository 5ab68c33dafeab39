import type { PhysicalNode } from "@weir/planner";
import { ConnectorError } from "../connector.js";

/**
 * A run-time failure of one plan node: names the node's kind, id and SQL position so that the
 * user can find the query part that failed. The original error is the `cause`.
 */
export class JobError extends Error {
  override readonly name = "JobError";
  constructor(
    message: string,
    readonly nodeId: number | null,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** `calc (node 3, line 4, column 8)`: how a run-time error names a node. */
export function describeNode(node: PhysicalNode): string {
  const where = node.span ? `, line ${node.span.line}, column ${node.span.column}` : "";
  const table = node.kind === "source" || node.kind === "sink" ? ` '${node.table}'` : "";
  return `${node.kind}${table} (node ${node.id}${where})`;
}

/**
 * Wraps an error thrown while `node` was running. A {@link JobError} (from a node downstream) and
 * a {@link ConnectorError} (which carries its own location) pass through unchanged.
 */
export function nodeFailure(node: PhysicalNode, e: unknown): Error {
  if (e instanceof JobError || e instanceof ConnectorError) return e;
  const message = e instanceof Error ? e.message : String(e);
  return new JobError(`${describeNode(node)} failed: ${message}`, node.id, { cause: e });
}
