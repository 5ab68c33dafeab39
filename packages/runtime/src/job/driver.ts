import type { PhysicalNode } from "@weir/planner";
import type { ChangeBatch } from "../changelog.js";
import { Message } from "../changelog.js";
import type { EvalContext } from "../expr/context.js";
import type { Operator, OperatorContext, OperatorMetrics } from "../operator.js";
import type { StateSnapshot } from "../state/api.js";
import { MemoryStateBackend } from "../state/memory.js";
import { BarrierAligner } from "../time/barriers.js";
import type { Clock, WatermarkEvent } from "../time/watermarks.js";
import { InputWatermarkMerger, NO_WATERMARK } from "../time/watermarks.js";
import { nodeFailure } from "./errors.js";

export interface DriverOptions {
  readonly settings: Readonly<Record<string, string>>;
  readonly now: Clock;
  /** Receives every message the operator sends downstream (data, watermark, idle, barrier, end). */
  readonly output: (message: Message) => void;
  /** The operator aligned checkpoint `id` (called before the barrier is forwarded). */
  readonly onCheckpoint?: (id: number) => void;
}

/**
 * Runs one operator on its input messages, as the job and the test harness both do: barriers
 * are aligned across inputs ({@link BarrierAligner}); watermarks are merged across inputs
 * ({@link InputWatermarkMerger}) and `onWatermark` is called only when the merged watermark
 * advances; when every input ended the operator gets the +∞ watermark and `end` is forwarded.
 * Errors are rethrown naming the node (see `nodeFailure`).
 */
export class OperatorDriver {
  readonly state: MemoryStateBackend;
  readonly metrics: OperatorMetrics = { recordsIn: 0, recordsOut: 0, lateRecordsDropped: 0 };
  private readonly merger: InputWatermarkMerger | null;
  private readonly aligner: BarrierAligner | null;
  private readonly ended: boolean[];
  /** The last watermark passed to `onWatermark`. */
  watermark = NO_WATERMARK;
  /** The last watermark forwarded downstream. */
  forwarded = NO_WATERMARK;
  finished = false;

  constructor(
    readonly node: PhysicalNode,
    readonly op: Operator,
    private readonly options: DriverOptions,
  ) {
    this.state = new MemoryStateBackend({ clock: options.now });
    const n = node.inputs.length;
    this.ended = new Array(n).fill(false);
    this.merger = n > 0 ? new InputWatermarkMerger(n) : null;
    this.aligner =
      n > 0
        ? new BarrierAligner(n, {
            onMessage: (input, m) => this.onMessage(input, m),
            onCheckpoint: (id) => {
              options.onCheckpoint?.(id);
              options.output(Message.barrier(id));
            },
          })
        : null;
    const ctx: OperatorContext = {
      node,
      emit: (batch: ChangeBatch) => {
        if (batch.length === 0) return;
        this.metrics.recordsOut += batch.length;
        options.output(Message.data(batch));
      },
      state: this.state,
      metrics: this.metrics,
      evalContext: evalContextOf(options.settings, options.now, () => this.watermark),
      settings: options.settings,
      now: options.now,
    };
    try {
      op.open(ctx);
    } catch (e) {
      throw nodeFailure(node, e);
    }
  }

  receive(input: number, message: Message): void {
    if (this.aligner === null) throw new Error(`${this.node.kind} (node ${this.node.id}) has no inputs`);
    this.aligner.receive(input, message);
  }

  /** Ends an operator without inputs (VALUES): the final watermark, then `end`. */
  finishWithoutInputs(): void {
    try {
      this.finish();
    } catch (e) {
      throw nodeFailure(this.node, e);
    }
  }

  /** Processing time advanced (TTL cleanup, processing-time timers). */
  onProcessingTime(now: number): void {
    if (this.op.onProcessingTime === undefined) return;
    try {
      this.op.onProcessingTime(now);
    } catch (e) {
      throw nodeFailure(this.node, e);
    }
  }

  snapshot(): StateSnapshot {
    return this.state.snapshot();
  }

  /** Loads a snapshot and the watermarks of the checkpoint (before any message). */
  restore(state: StateSnapshot, watermark: number, forwarded: number): void {
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
          this.metrics.recordsIn += m.batch.length;
          this.op.processBatch(input, m.batch);
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
      this.watermark = ev.timestamp;
      const fwd = this.op.onWatermark(ev.timestamp);
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
    this.finished = true;
    this.options.output(Message.end());
  }
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
