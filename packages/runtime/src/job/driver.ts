import type { PhysicalNode } from "@weir/planner";
import type { Row } from "../changelog.js";
import { ChangeBatch, Message } from "../changelog.js";
import type { EvalContext } from "../expr/context.js";
import type { OperatorMetrics } from "../operator.js";
import type { StateBackend, StateSnapshot } from "../state/api.js";
import { stateBackendFactory } from "../state/backends.js";
import type { Counter, LateInfo, LateReason, OwnMessage, SourceContext, Task } from "../task.js";
import { TaskMetricGroup } from "../task.js";
import { BarrierAligner } from "../time/barriers.js";
import type { Clock, WatermarkEvent } from "../time/watermarks.js";
import { InputWatermarkMerger, NO_WATERMARK } from "../time/watermarks.js";
import { nodeFailure } from "./errors.js";

/** What a task contributes to checkpoint `id` once it aligned: its state, watermarks and own part. */
export interface TaskAck<Own = unknown> {
  readonly state: StateSnapshot;
  /** The last watermark the task processed and the last it forwarded. */
  readonly watermark: number;
  readonly forwarded: number;
  /**
   * What `Task.onBarrier` returned (a source's position and watermarks, a sink's pre-committed
   * transaction); null for a task without `onBarrier`.
   */
  readonly own: Own | null;
  /** The barrier alignment at this task: first barrier on any input to the last, ms (0 for one input). */
  readonly alignmentMs: number;
}

/** The `Own` of a task type: what its `onBarrier` returns. */
export type OwnOf<T> = T extends Task<infer O> ? O : unknown;

export interface DriverOptions<Own = unknown> {
  readonly settings: Readonly<Record<string, string>>;
  readonly now: Clock;
  /** Receives every message the task sends downstream (data, watermark, idle, barrier, end). */
  readonly output: (message: Message) => void;
  /**
   * The task aligned checkpoint `id` (called before the barrier is forwarded) with its
   * acknowledgement: the snapshot, or a promise of it (an asynchronous task such as a sink).
   */
  readonly onAck?: (id: number, ack: TaskAck<Own> | Promise<TaskAck<Own>>) => void;
  /** `'execution.checkpointing.mode'`: aligned barriers (EXACTLY_ONCE, default) or not. */
  readonly aligned?: boolean;
  readonly subtaskIndex?: number;
  readonly parallelism?: number;
  /** The state backend; default: the one `'state.backend.type'` names. */
  readonly state?: StateBackend;
  /** True while a savepoint is taken: snapshots are canonical (see `SnapshotOptions`). */
  readonly canonicalSnapshots?: () => boolean;
  /** True while a checkpoint with an asynchronous phase is triggered (see `SnapshotOptions.deferred`). */
  readonly deferredSnapshots?: () => boolean;
  /** Receives the rows the task routes to side-output port `port` (`TaskContext.side`). */
  readonly side?: (port: string, batch: ChangeBatch) => void;
}

/**
 * Runs one {@link Task} — source, operator or sink — as the job and the test harness both do:
 * barriers are aligned across inputs ({@link BarrierAligner}); watermarks are merged across inputs
 * ({@link InputWatermarkMerger}) and `onWatermark` is called only when the merged watermark
 * advances; when every input ended the task gets the +∞ watermark, `endInput`, and `end` is
 * forwarded. The driver holds the task's watermark (the one copy a checkpoint stores), its
 * metrics and its late-row channel. Errors are rethrown naming the node (see `nodeFailure`).
 * A task without inputs (a source) sends its own messages through its context's `send`.
 */
export class TaskDriver<T extends Task = Task> {
  readonly state: StateBackend;
  readonly metricGroup: TaskMetricGroup;
  private readonly recordsInC: Counter;
  private readonly recordsOutC: Counter;
  private readonly lateC: Counter;
  private readonly routedC: Counter;
  private readonly updatedC: Counter;
  private readonly merger: InputWatermarkMerger | null;
  private readonly aligner: BarrierAligner | null;
  private readonly ended: boolean[];
  /** The last watermark the task finished processing (`onWatermark` returned). */
  watermark = NO_WATERMARK;
  /** The watermark being processed by `onWatermark`, for expressions (CURRENT_WATERMARK). */
  private advancing: number | null = null;
  /** The last watermark forwarded downstream. */
  forwarded = NO_WATERMARK;
  finished = false;
  /** Every input ended, and an asynchronous task still had work pending (see `pumpAsync`). */
  private endDeferred = false;
  /**
   * The last checkpoint's barrier alignment at this task: the time from its first barrier on
   * any input to the last (0 for a single input), in ms of `performance.now()`.
   */
  lastAlignment: { readonly id: number; readonly ms: number } | null = null;
  /** When the first barrier of the alignment in progress arrived, and its id. */
  private alignStart: { readonly id: number; readonly at: number } | null = null;
  private readonly ctx: SourceContext;

  constructor(
    readonly node: PhysicalNode,
    readonly task: T,
    private readonly options: DriverOptions<OwnOf<T>>,
  ) {
    this.state = options.state ?? stateBackendFactory(options.settings)(options.now);
    this.metricGroup = new TaskMetricGroup(`${node.kind}-${node.id}`);
    this.recordsInC = this.metricGroup.counter("numRecordsIn");
    this.recordsOutC = this.metricGroup.counter("numRecordsOut");
    this.lateC = this.metricGroup.counter("numLateRecordsDropped");
    this.routedC = this.metricGroup.counter("numLateRecordsRouted");
    this.updatedC = this.metricGroup.counter("numLateRecordsUpdated");
    this.metricGroup.gauge("currentWatermark", () =>
      Number.isFinite(this.watermark) ? this.watermark : null,
    );
    const n = node.inputs.length;
    this.ended = new Array(n).fill(false);
    this.merger = n > 0 ? new InputWatermarkMerger(n) : null;
    this.aligner =
      n > 0
        ? new BarrierAligner(
            n,
            {
              onMessage: (input, m) => this.onMessage(input, m),
              onCheckpoint: (id) => {
                const start = this.alignStart;
                const alignment = { id, ms: start?.id === id ? performance.now() - start.at : 0 };
                this.lastAlignment = alignment;
                this.alignStart = null;
                this.acknowledge(id, alignment.ms);
                options.output(Message.barrier(id));
              },
            },
            options.aligned ?? true,
          )
        : null;
    const driver = this;
    const ctx: SourceContext = {
      node,
      subtaskIndex: options.subtaskIndex ?? 0,
      parallelism: options.parallelism ?? 1,
      emit: (batch: ChangeBatch) => {
        if (batch.length === 0) return;
        this.recordsOutC.inc(batch.length);
        options.output(Message.data(batch));
      },
      send: (message: OwnMessage) => this.emitOwn(message),
      state: this.state,
      timers: (name) => this.state.timers(name),
      metrics: this.metricGroup,
      late: (row: Row, reason: LateReason, info?: LateInfo) => this.late(row, reason, info),
      lateUpdated: () => this.updatedC.inc(),
      side: (port: string, row: Row) => this.side(port, row),
      forwardWatermark: (watermark: number) => {
        if (watermark > this.forwarded) {
          this.forwarded = watermark;
          options.output(Message.watermark(watermark));
        }
      },
      get watermark() {
        return driver.watermark;
      },
      evalContext: evalContextOf(options.settings, options.now, () => this.advancing ?? this.watermark),
      settings: options.settings,
      clock: options.now,
      now: options.now,
    };
    this.ctx = ctx;
  }

  /** The late-row channel: drop and count, or route to `late-<input>` (the node's `late`). */
  private late(row: Row, reason: LateReason, info: LateInfo | undefined): void {
    const input = info?.input ?? 0;
    if (this.node.late?.sideOutput[input] !== true) {
      this.lateC.inc();
      return;
    }
    this.routedC.inc();
    const now = this.options.now();
    const wm = this.advancing ?? this.watermark;
    const time = info?.time;
    const lateness = time === undefined || !Number.isFinite(wm) ? null : wm - time;
    const out = row.slice();
    out.push(now, Number.isFinite(wm) ? wm : null, lateness, lateReasonText(this.node, reason, info));
    this.side(`late-${input}`, out);
  }

  private side(port: string, row: Row): void {
    const side = this.options.side;
    if (side === undefined)
      throw new Error(
        `${this.node.kind} (node ${this.node.id}) routed a row to port '${port}', which has no side output`,
      );
    side(port, ChangeBatch.inserts([row]));
  }

  /**
   * Opens the task with its context: synchronously for an operator (the job opens operators
   * when it builds them), a promise for a connector task.
   */
  open(): void | Promise<void> {
    let opened: void | Promise<void>;
    try {
      opened = this.task.open(this.ctx);
    } catch (e) {
      throw nodeFailure(this.node, e);
    }
    if (opened instanceof Promise)
      return opened.catch((e) => {
        throw nodeFailure(this.node, e);
      });
  }

  /** Cumulative counters for the run summary (records in/out, late rows dropped). */
  get metrics(): OperatorMetrics {
    return {
      recordsIn: this.recordsInC.count,
      recordsOut: this.recordsOutC.count,
      lateRecordsDropped: this.lateC.count,
      ...(this.routedC.count > 0 ? { lateRecordsRouted: this.routedC.count } : {}),
      ...(this.updatedC.count > 0 ? { lateRecordsUpdated: this.updatedC.count } : {}),
    };
  }

  /** Continues the counts a checkpoint carried. */
  restoreMetrics(m: OperatorMetrics): void {
    this.recordsInC.set(m.recordsIn);
    this.recordsOutC.set(m.recordsOut);
    this.lateC.set(m.lateRecordsDropped);
    this.routedC.set(m.lateRecordsRouted ?? 0);
    this.updatedC.set(m.lateRecordsUpdated ?? 0);
  }

  receive(input: number, message: Message): void {
    if (this.aligner === null) throw new Error(`${this.node.kind} (node ${this.node.id}) has no inputs`);
    if (message.kind === "barrier" && this.aligner.inputCount > 1 && this.aligner.aligning === null)
      this.alignStart = { id: message.checkpointId, at: performance.now() };
    this.aligner.receive(input, message);
  }

  /**
   * A task without inputs (a source) emits its own messages (`SourceContext.send`): data is
   * counted as output. The task's own watermark logic (a source's per-split tracker) decides
   * what it sends.
   */
  private emitOwn(message: OwnMessage): void {
    if (message.kind === "data") this.recordsOutC.inc(message.batch.length);
    if (message.kind === "end") this.finished = true;
    this.options.output(message);
  }

  /**
   * Checkpoint `id` at a task without inputs (a source): acknowledges, then sends the barrier
   * downstream unless the task already ended.
   */
  injectBarrier(id: number): void {
    this.acknowledge(id);
    if (!this.finished) this.options.output(Message.barrier(id));
  }

  /**
   * Acknowledges checkpoint `id` now (without a barrier: a task whose inputs all ended is
   * quiescent); `alignmentMs`: how long the barrier took to align here.
   */
  acknowledge(id: number, alignmentMs = 0): void {
    type Own = OwnOf<T>;
    let own: Own | null | Promise<Own> = null;
    try {
      own = (this.task as Task<Own>).onBarrier?.(id) ?? null;
    } catch (e) {
      throw nodeFailure(this.node, e);
    }
    const state = this.state.snapshot({
      checkpointId: id,
      canonical: this.options.canonicalSnapshots?.() ?? false,
      deferred: this.options.deferredSnapshots?.() ?? false,
    });
    const watermark = this.watermark;
    const forwarded = this.forwarded;
    const ack: TaskAck<Own> | Promise<TaskAck<Own>> =
      own instanceof Promise
        ? own.then(
            (o) => ({ state, watermark, forwarded, own: o, alignmentMs }),
            (e) => {
              throw nodeFailure(this.node, e);
            },
          )
        : { state, watermark, forwarded, own, alignmentMs };
    this.options.onAck?.(id, ack);
  }

  /** Checkpoint `id` is complete: the task may make its effects visible (a sink commits). */
  async notifyComplete(id: number, own: OwnOf<T> | null): Promise<void> {
    const t = this.task as Task<OwnOf<T>>;
    if (t.onCheckpointComplete === undefined) return;
    try {
      await t.onCheckpointComplete(id, own);
    } catch (e) {
      throw nodeFailure(this.node, e);
    }
  }

  /** Checkpoint `id` will not complete. */
  notifyAborted(id: number): void {
    const t: Task = this.task;
    try {
      t.onCheckpointAborted?.(id);
    } catch (e) {
      throw nodeFailure(this.node, e);
    }
  }

  /** Ends a task without inputs (VALUES): the final watermark, then `end`. */
  finishWithoutInputs(): void {
    try {
      this.finish();
    } catch (e) {
      throw nodeFailure(this.node, e);
    }
  }

  /** Processing time advanced (TTL cleanup, processing-time timers). */
  onProcessingTime(now: number): void {
    if (this.task.onProcessingTime === undefined) return;
    try {
      this.task.onProcessingTime(now);
    } catch (e) {
      throw nodeFailure(this.node, e);
    }
  }

  snapshot(): StateSnapshot {
    return this.state.snapshot();
  }

  /** Loads the task's own part of the checkpoint being restored (what its `onBarrier` returned). */
  async restoreOwn(own: OwnOf<T>): Promise<void> {
    const t = this.task as Task<OwnOf<T>>;
    try {
      if (t.restore) await t.restore(own);
    } catch (e) {
      throw nodeFailure(this.node, e);
    }
  }

  /** Loads a checkpoint's state and watermarks (before any message). */
  restoreSync(state: StateSnapshot, watermark: number, forwarded: number): void {
    try {
      this.state.restore(state);
    } catch (e) {
      throw nodeFailure(this.node, e);
    }
    this.watermark = watermark;
    this.forwarded = forwarded;
  }

  private onMessage(input: number, m: Exclude<Message, { kind: "barrier" }>): void {
    if (this.finished)
      throw new Error(`${this.node.kind} (node ${this.node.id}) got '${m.kind}' after the end of its inputs`);
    const merger = this.merger!;
    try {
      switch (m.kind) {
        case "data": {
          const ev = merger.onData(input);
          if (ev !== null) this.onEvent(ev);
          this.recordsInC.inc(m.batch.length);
          this.task.processBatch(input, m.batch);
          return;
        }
        case "watermark": {
          const ev = merger.onWatermark(input, m.timestamp);
          if (ev !== null) this.onEvent(ev);
          return;
        }
        case "idle": {
          const ev = merger.onIdle(input);
          if (ev !== null) this.onEvent(ev);
          return;
        }
        case "end": {
          this.ended[input] = true;
          const ev = merger.onEnd(input);
          if (ev !== null) this.onEvent(ev);
          if (this.ended.every(Boolean)) this.finish();
          return;
        }
        default: {
          const _exhaustive: never = m;
          throw new Error(`unknown message ${JSON.stringify(_exhaustive)}`);
        }
      }
    } catch (e) {
      throw nodeFailure(this.node, e);
    }
  }

  /** The combined input watermark moved, or the inputs went idle or came back. */
  private onEvent(ev: WatermarkEvent): void {
    if (ev.kind === "idle") {
      this.options.output(ev);
      return;
    }
    if (ev.timestamp > this.watermark) {
      this.advancing = ev.timestamp;
      const fwd = this.task.onWatermark(ev.timestamp);
      this.advancing = null;
      this.watermark = ev.timestamp;
      if (fwd > this.forwarded) {
        this.forwarded = fwd;
        this.options.output(Message.watermark(fwd));
      }
    } else {
      // Back from idleness (or a restored watermark re-announced): downstream counts us active again.
      this.options.output(Message.watermark(this.forwarded));
    }
  }

  private finish(): void {
    if (this.watermark < Number.POSITIVE_INFINITY) this.onEvent(Message.watermark(Number.POSITIVE_INFINITY));
    this.task.endInput?.();
    if (this.task.async?.pending) {
      // An asynchronous task ends once its last results are out (see pumpAsync).
      this.endDeferred = true;
      return;
    }
    this.finished = true;
    this.options.output(Message.end());
  }

  /**
   * An asynchronous task ({@link AsyncWork}) emits what completed; once nothing is pending, the
   * end of input it held back is forwarded. No-op for other tasks.
   */
  pumpAsync(): void {
    const work = this.task.async;
    if (work === undefined) return;
    try {
      work.emitCompleted();
    } catch (e) {
      throw nodeFailure(this.node, e);
    }
    if (this.endDeferred && !work.pending) {
      this.endDeferred = false;
      this.finished = true;
      this.options.output(Message.end());
    }
  }
}

/** Formats a wall-clock millisecond value as `yyyy-MM-dd HH:mm:ss.SSS`. */
function wallText(ms: number): string {
  return new Date(ms).toISOString().replace("T", " ").replace("Z", "");
}

/** The `reason` column of a late row: which operator, which window, why. */
export function lateReasonText(node: PhysicalNode, reason: LateReason, info: LateInfo | undefined): string {
  const w = info?.window;
  const window = w === undefined ? "" : `[${wallText(w.start)}, ${wallText(w.end)})`;
  const input = node.inputs.length > 1 ? ` input ${info?.input ?? 0}` : "";
  const why =
    reason === "window-fired"
      ? w === undefined
        ? "its window has fired"
        : `window ${window} has fired`
      : reason === "session-fired"
        ? "its session has fired"
        : "its time is behind the watermark";
  return `${node.kind} ${node.id}${input}: ${why}`;
}

/** The expression context of a node: the job's time zone, the node's watermark, the clock. */
export function evalContextOf(
  settings: Readonly<Record<string, string>>,
  now: Clock,
  watermark: () => number,
): EvalContext {
  return {
    localTimeZone: settings["table.local-time-zone"] ?? "UTC",
    currentWatermark: () => {
      const w = watermark();
      return Number.isFinite(w) ? w : null;
    },
    now,
  };
}
