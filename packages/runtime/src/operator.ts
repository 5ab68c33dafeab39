import type { PhysicalNode } from "@weir/planner";
import type { Task, TaskContext } from "./task.js";

/**
 * Counters an operator's driver keeps for the run summary and SHOW JOBS. Cumulative from the
 * start of the job (restored from a checkpoint), never a sum over a recent window.
 */
export interface OperatorMetrics {
  recordsIn: number;
  recordsOut: number;
  /** Rows handed to the late-row channel (`ctx.late`) and dropped there. */
  lateRecordsDropped: number;
  /** Late rows routed to a side-output table (`'late.policy'` = 'side-output'); absent = 0. */
  lateRecordsRouted?: number;
  /** Late rows that corrected an emitted window result (`'late.policy'` update/retract); absent = 0. */
  lateRecordsUpdated?: number;
}

/** What the job gives an operator: the {@link TaskContext} every task gets. */
export type OperatorContext = TaskContext;

/**
 * One physical operator: a {@link Task} whose `open` is synchronous (it declares state and
 * compiles expressions; only connectors open asynchronously). See `task.ts` for the lifecycle
 * and the invariants the driver guarantees.
 */
export interface Operator extends Task {
  open(ctx: OperatorContext): void;
}

/** Builds the operator for a physical node kind. */
export type OperatorFactory = (node: PhysicalNode) => Operator;
