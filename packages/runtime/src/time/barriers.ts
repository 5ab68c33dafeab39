import type { Message } from "../changelog.js";

/** Receives the aligned stream of an operator with several inputs. */
export interface AlignedHandler {
  /** Every message except barriers, per input in arrival order. */
  onMessage(input: number, message: Exclude<Message, { kind: "barrier" }>): void;
  /**
   * Checkpoint `checkpointId` is aligned: every message before its barrier on every input has been
   * delivered, none after. Snapshot state here, then forward the barrier.
   */
  onCheckpoint(checkpointId: number): void;
  /** A newer barrier overtook an unfinished alignment; checkpoint `checkpointId` will not happen here. */
  onCheckpointAborted?(checkpointId: number): void;
}

/**
 * Aligned checkpoints for an operator with `inputCount` inputs (Flink's exactly-once alignment).
 *
 * Once the barrier of checkpoint n arrives on an input, that input's later messages are buffered
 * until the barrier of n has arrived on every input that has not ended; then `onCheckpoint(n)`
 * runs and the buffered messages are replayed in arrival order (they may start the next
 * alignment). An input that ended counts as having passed every later barrier. A barrier older
 * than the current or last checkpoint is stale and ignored; a newer one aborts the current
 * alignment. Ids compare as numbers.
 */
export class BarrierAligner {
  private readonly arrived: boolean[];
  private readonly ended: boolean[];
  /** The checkpoint being aligned, or null. */
  private pending: number | null = null;
  private lastCheckpoint = Number.NEGATIVE_INFINITY;
  private buffer: [number, Message][] = [];

  constructor(
    readonly inputCount: number,
    private readonly handler: AlignedHandler,
    /**
     * `'execution.checkpointing.mode'`: `EXACTLY_ONCE` (the default) holds back an input's
     * messages after its barrier until the checkpoint aligned; `AT_LEAST_ONCE` processes them
     * right away, so the snapshot (taken when the last barrier arrives) may include records
     * after the cut, which a restore replays again.
     */
    private readonly aligned = true,
  ) {
    if (inputCount < 1) throw new Error("BarrierAligner needs at least one input");
    this.arrived = new Array(inputCount).fill(false);
    this.ended = new Array(inputCount).fill(false);
  }

  /** The checkpoint currently being aligned, or null. */
  get aligning(): number | null {
    return this.pending;
  }

  /** Number of messages held back by the current alignment. */
  get buffered(): number {
    return this.buffer.length;
  }

  /** True when every input has ended. */
  get finished(): boolean {
    return this.ended.every(Boolean);
  }

  receive(input: number, message: Message): void {
    if (input < 0 || input >= this.inputCount) throw new Error(`no input ${input}`);
    if (this.pending !== null && this.arrived[input] && (this.aligned || message.kind === "barrier")) {
      this.buffer.push([input, message]);
      return;
    }
    switch (message.kind) {
      case "barrier":
        this.onBarrier(input, message.checkpointId);
        return;
      case "end":
        this.ended[input] = true;
        this.handler.onMessage(input, message);
        this.maybeComplete();
        return;
      case "data":
      case "watermark":
      case "idle":
        this.handler.onMessage(input, message);
        return;
      default: {
        const _exhaustive: never = message;
        throw new Error(`unknown message kind ${(_exhaustive as Message).kind}`);
      }
    }
  }

  private onBarrier(input: number, id: number): void {
    if (this.pending === null) {
      if (id <= this.lastCheckpoint) return;
      this.start(id);
    } else if (id < this.pending) {
      return;
    } else if (id > this.pending) {
      const aborted = this.pending;
      this.handler.onCheckpointAborted?.(aborted);
      this.start(id);
      this.arrived[input] = true;
      this.release();
      this.maybeComplete();
      return;
    }
    this.arrived[input] = true;
    this.maybeComplete();
  }

  private start(id: number): void {
    this.pending = id;
    this.arrived.fill(false);
  }

  private maybeComplete(): void {
    if (this.pending === null) return;
    for (let i = 0; i < this.inputCount; i++) if (!this.arrived[i] && !this.ended[i]) return;
    const id = this.pending;
    this.pending = null;
    this.lastCheckpoint = id;
    this.arrived.fill(false);
    this.handler.onCheckpoint(id);
    this.release();
  }

  /** Replays the buffer through `receive`; inputs blocked again re-buffer their tail in order. */
  private release(): void {
    const held = this.buffer;
    this.buffer = [];
    for (const [input, message] of held) this.receive(input, message);
  }
}
