import type { PhysicalNode } from "@weir/planner";
import type { BarrierMessage, ChangeBatch, Message, Row } from "./changelog.js";
import type { EvalContext } from "./expr/context.js";
import type { StateBackend, TimerService } from "./state/api.js";
import type { Clock } from "./time/watermarks.js";

/**
 * The one lifecycle that sources, operators and sinks implement (Flink's StreamTask / operator
 * lifecycle, cut down to one thread). A {@link TaskDriver} (`job/driver.ts`) runs a task: it owns
 * the task's input gate (barrier alignment, the merged input watermark, end of input), its
 * context, its metrics and its checkpointed watermark.
 *
 * ```
 *          open(ctx) ──► [ processBatch | onWatermark | onProcessingTime ]* ──► endInput ──► close
 *                                 │ barrier aligned
 *                                 ▼
 *                     onBarrier(id) → snapshot (sync or a promise: the acknowledgement)
 *                                 │ every task acknowledged, manifest durable
 *                                 ▼
 *             onCheckpointComplete(id)   (or onCheckpointAborted(id): timeout, newer barrier)
 * ```
 *
 * Invariants the driver guarantees: calls never overlap; the synchronous calls run on the hot
 * path (no promise or closure per row); `onWatermark` gets only watermarks greater than the last
 * (the minimum over the inputs, idle inputs excluded); `onBarrier(id)` runs when every message
 * before barrier `id` on every input was processed and none after it (EXACTLY_ONCE alignment);
 * `endInput` runs once, after the +∞ watermark, when every input ended.
 *
 * `Own` is what the task adds to a checkpoint beyond its state (`onBarrier`): a source's position
 * and watermarks (`SourceCheckpoint`), a sink's pre-committed transaction (`SinkCheckpoint`).
 */
export interface Task<Own = unknown> {
  /** Declare state, compile expressions; connectors open here (asynchronously). */
  open(ctx: TaskContext): void | Promise<void>;
  /** Changes arriving on input `input` (0 for single-input tasks; 0 = left, 1 = right). */
  processBatch(input: number, batch: ChangeBatch): void;
  /**
   * The combined input watermark advanced to `watermark`: fire windows and timers up to it.
   * Returns the watermark to forward downstream (usually `watermark`; an operator that emits
   * rows with earlier event times, such as an interval join, may hold it back).
   * `ctx.watermark` is still the previous watermark during this call.
   */
  onWatermark(watermark: number): number;
  /** Processing time advanced (TTL cleanup, processing-time timers). */
  onProcessingTime?(now: number): void;
  /**
   * Checkpoint `checkpointId` is aligned here. Returns what the task adds to the checkpoint
   * beyond its `ctx.state` (which the driver snapshots itself): a source's position, a sink's
   * pre-committed transaction. A promise is an asynchronous acknowledgement: the checkpoint
   * completes only when every task's promise resolved, and is aborted if one does not within
   * `'execution.checkpointing.timeout'`.
   */
  onBarrier?(checkpointId: number): Own | Promise<Own>;
  /**
   * Checkpoint `checkpointId` is complete (every task acknowledged, the manifest is durable);
   * `own` is what the task's `onBarrier` returned for it, as the checkpoint holds it (null when
   * the checkpoint has no part of this task).
   */
  onCheckpointComplete?(checkpointId: number, own: Own | null): void | Promise<void>;
  /** Checkpoint `checkpointId` will not complete (timeout, or a task failed to acknowledge it). */
  onCheckpointAborted?(checkpointId: number): void;
  /** Loads what `onBarrier` returned, from the checkpoint being restored (after open). */
  restore?(own: Own): void | Promise<void>;
  /** Every input ended (after the final +∞ watermark); emit anything left. */
  endInput?(): void;
  close?(): void | Promise<void>;
  /** Work in flight outside the driver's calls (a lookup join's queries); see {@link AsyncWork}. */
  readonly async?: AsyncWork;
}

/**
 * A task whose results complete asynchronously (Flink's AsyncWaitOperator): `processBatch` starts
 * requests and returns; the job calls `emitCompleted` at its turns (between pushes, like a source
 * poll), which emits the completed results through the task's context, and forwards the held-back
 * watermarks (`TaskContext.forwardWatermark`) once the rows before them are out. The driver holds
 * the task's end of input back until nothing is pending. Before a checkpoint the job drains every
 * such task (waits until nothing is pending), so no request is in flight when a barrier passes.
 */
export interface AsyncWork {
  /** Connects whatever the requests need (after open and restore, before the first row). */
  start(): Promise<void>;
  /** Requests in flight, or results and watermarks not emitted yet. */
  readonly pending: boolean;
  /** At its limit of requests in flight: the job pushes no more input until `progress`. */
  readonly saturated: boolean;
  /** Resolves when a request completed (or failed) since the last `emitCompleted`. */
  progress(): Promise<void>;
  /** Emits what completed, as far as the output order allows; throws the error of a failed request. */
  emitCompleted(): void;
}

/** Why a row was late: the late-data channel's routing (drop, side output, update) keys on it. */
export type LateReason =
  /** Every window the row belongs to has fired (window aggregate, TVF, window join/rank/dedup). */
  | "window-fired"
  /** The row's time is at or before the operator's watermark (OVER aggregates). */
  | "behind-watermark"
  /** A session window's row cannot be found (a retraction of a fired session). */
  | "session-fired";

/** What an operator knows about a late row, for the side-output report (all optional). */
export interface LateInfo {
  /** The input the row arrived on (0 for single-input operators). */
  readonly input?: number;
  /** The row's event time (the value of its time column, comparable with the watermark). */
  readonly time?: number;
  /** The window the row is late for, in the window's wall-clock milliseconds [start, end). */
  readonly window?: { readonly start: number; readonly end: number };
}

/** A monotonically increasing count. */
export interface Counter {
  inc(n?: number): void;
  /** Sets the count (a restore continues a checkpoint's cumulative count). */
  set(n: number): void;
  readonly count: number;
}

/** Count, sum, min and max of observed values (e.g. checkpoint durations). */
export interface Histogram {
  update(value: number): void;
  readonly count: number;
  readonly sum: number;
  readonly min: number;
  readonly max: number;
}

/** A task's metrics, named `<scope>.<name>` where the scope names the task (`calc-3`). */
export interface MetricGroup {
  readonly scope: string;
  counter(name: string): Counter;
  gauge(name: string, read: () => number | null): void;
  histogram(name: string): Histogram;
  /** Every metric's current value, by full name. */
  values(): Record<string, number | null | { count: number; sum: number; min: number; max: number }>;
}

/**
 * What a task's driver gives it. Everything a task keeps across batches lives in `state` (tables
 * declared in `open`, before a restore): that is what a checkpoint sees.
 */
export interface TaskContext {
  readonly node: PhysicalNode;
  /** This subtask's index among `parallelism` subtasks of the node (0 of 1 today). */
  readonly subtaskIndex: number;
  readonly parallelism: number;
  /** Sends changes downstream. The batch is owned by the receiver from then on. */
  emit(batch: ChangeBatch): void;
  /** The state backend chosen by `'state.backend.type'`. */
  readonly state: StateBackend;
  /** Timers declared as state table `name` (checkpointed with the state). */
  timers(name: string): TimerService;
  readonly metrics: MetricGroup;
  /**
   * The late-row channel: every operator hands a late row here instead of dropping it itself,
   * once per row (a HOP row late for several windows is one late row). The node's
   * {@link PhysicalNode.late} decides: dropped and counted (`numLateRecordsDropped`), or routed
   * to side-output port `late-<input>` with the report columns (`numLateRecordsRouted`).
   */
  late(row: Row, reason: LateReason, info?: LateInfo): void;
  /**
   * A late row that was not dropped but corrected a result already emitted (`'late.policy'` =
   * 'update' / 'retract', within `'late.allowed-lateness'`): counted once per row
   * (`numLateRecordsUpdated`). Optional for contexts that never plan corrections.
   */
  lateUpdated?(): void;
  /**
   * Routes `row` from inside the task to side-output port `port`: a {@link SideOutputNode} the
   * planner added for it feeds a sink table. The row's layout is the port's contract (for
   * `late-<input>`: the input row, then observed_at, current_watermark, lateness_ms, reason).
   * Rows routed before a barrier belong to that checkpoint, like emitted rows. A port without a
   * side-output node is a planner bug and throws.
   */
  side(port: string, row: Row): void;
  /**
   * Forwards watermark `watermark` downstream now (if above the last forwarded): an asynchronous
   * task ({@link AsyncWork}) releases a watermark it held back once the rows before it are out.
   */
  forwardWatermark(watermark: number): void;
  /** The last watermark this task processed (−∞ before the first): the one copy, checkpointed by the driver. */
  readonly watermark: number;
  /** For compiled expressions: time zone, current watermark, processing time. */
  readonly evalContext: EvalContext;
  /** Job settings (`SET` and `--set`), e.g. 'table.exec.state.ttl'. */
  readonly settings: Readonly<Record<string, string>>;
  /** Processing time in epoch millis (the job's injectable clock). */
  readonly clock: Clock;
  now(): number;
}

/** The messages a task without inputs makes itself (a barrier is injected by its driver). */
export type OwnMessage = Exclude<Message, BarrierMessage>;

/**
 * The context of a task without inputs (a source): besides emitting data, it makes its own
 * watermarks, idleness and end of input, which an operator's driver derives from its inputs.
 */
export interface SourceContext extends TaskContext {
  /**
   * Sends one of the task's own messages downstream, synchronously: data (counted as output), its
   * watermark or `idle`, and `end` (after which the task is finished and sends nothing more).
   */
  send(message: OwnMessage): void;
}

/** The in-memory {@link MetricGroup}. */
export class TaskMetricGroup implements MetricGroup {
  private readonly counters = new Map<string, CounterImpl>();
  private readonly gauges = new Map<string, () => number | null>();
  private readonly histograms = new Map<string, HistogramImpl>();

  constructor(readonly scope: string) {}

  counter(name: string): Counter {
    let c = this.counters.get(name);
    if (c === undefined) {
      c = new CounterImpl();
      this.counters.set(name, c);
    }
    return c;
  }

  gauge(name: string, read: () => number | null): void {
    this.gauges.set(name, read);
  }

  histogram(name: string): Histogram {
    let h = this.histograms.get(name);
    if (h === undefined) {
      h = new HistogramImpl();
      this.histograms.set(name, h);
    }
    return h;
  }

  values(): ReturnType<MetricGroup["values"]> {
    const out: ReturnType<MetricGroup["values"]> = {};
    for (const [n, c] of this.counters) out[`${this.scope}.${n}`] = c.count;
    for (const [n, g] of this.gauges) out[`${this.scope}.${n}`] = g();
    for (const [n, h] of this.histograms)
      out[`${this.scope}.${n}`] = { count: h.count, sum: h.sum, min: h.min, max: h.max };
    return out;
  }
}

class CounterImpl implements Counter {
  count = 0;
  inc(n = 1): void {
    this.count += n;
  }
  set(n: number): void {
    this.count = n;
  }
}

class HistogramImpl implements Histogram {
  count = 0;
  sum = 0;
  min = Number.POSITIVE_INFINITY;
  max = Number.NEGATIVE_INFINITY;
  update(value: number): void {
    this.count++;
    this.sum += value;
    if (value < this.min) this.min = value;
    if (value > this.max) this.max = value;
  }
}
