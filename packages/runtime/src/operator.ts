import type { PhysicalNode } from "@weir/planner";
import type { ChangeBatch } from "./changelog.js";
import type { EvalContext } from "./expr/context.js";
import type { StateBackend } from "./state/api.js";

/**
 * Counters an operator keeps for the run summary and SHOW JOBS. Cumulative from the start of
 * the job (restored from a checkpoint), never a sum over a recent window.
 */
export interface OperatorMetrics {
  recordsIn: number;
  recordsOut: number;
  /** Rows that arrived after the watermark had passed their window/slice and were dropped. */
  lateRecordsDropped: number;
}

/**
 * What the job gives an operator. Everything an operator keeps across batches lives in `state`
 * (tables declared in `open`, before a restore): that is what a checkpoint sees.
 */
export interface OperatorContext {
  /** The physical node this operator runs. */
  readonly node: PhysicalNode;
  /** Sends changes downstream. The batch is owned by the receiver from then on. */
  emit(batch: ChangeBatch): void;
  readonly state: StateBackend;
  readonly metrics: OperatorMetrics;
  /** For compiled expressions: time zone, current watermark, processing time. */
  readonly evalContext: EvalContext;
  /** Job settings (`SET` and `--set`), e.g. 'table.exec.state.ttl'. */
  readonly settings: Readonly<Record<string, string>>;
  /** Processing time in epoch millis (injectable in tests). */
  now(): number;
}

/**
 * One physical operator. The job calls, in order: `open` (declare state, compile expressions),
 * then optionally `restore`d state is loaded into `ctx.state` by the job, then any interleaving of
 * `processBatch` and `onWatermark`, and at the end `onWatermark(+Infinity)` followed by `close`.
 *
 * Invariants the job guarantees: calls are synchronous and never overlap; `onWatermark` is only
 * called with a watermark greater than the last one (the minimum over the inputs, idle inputs
 * excluded); a checkpoint snapshot is taken only between calls. An operator must emit changes
 * only from within these calls, and must keep the -U/+U pair rule of `ChangeBatch`.
 */
export interface Operator {
  open(ctx: OperatorContext): void;
  /** Changes arriving on input `input` (0 for single-input operators; 0 = left, 1 = right). */
  processBatch(input: number, batch: ChangeBatch): void;
  /**
   * The combined input watermark advanced to `watermark`: fire windows and timers up to it.
   * Returns the watermark to forward downstream (usually `watermark`; an operator that emits
   * rows with earlier event times, such as an interval join, may hold it back).
   */
  onWatermark(watermark: number): number;
  /** Processing time advanced (for TTL cleanup and processing-time timers); optional. */
  onProcessingTime?(now: number): void;
  close?(): void;
}

/** Builds the operator for a physical node kind. */
export type OperatorFactory = (node: PhysicalNode) => Operator;
