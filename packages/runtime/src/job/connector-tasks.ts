import { COLLECT_CONNECTOR, type SinkNode } from "@weir/planner";
import { type ChangeBatch, ChangeBatchBuilder, type Op } from "../changelog.js";
import { ConnectorError, type SinkWriter, type SinkWriterContext } from "../connector.js";
import type { Json } from "../state/codec.js";
import type { Task, TaskContext } from "../task.js";
import type { SinkCheckpoint } from "./checkpoint.js";
import { EventTimeLagSketch, LatencyHistogram } from "./latency.js";

const NOT_NULL_ENFORCER = "table.exec.sink.not-null-enforcer";

/**
 * A sink as a {@link Task}: `processBatch` writes (synchronously, into the writer's buffer); a
 * barrier flushes and pre-commits asynchronously — the sink's acknowledgement — and a completed
 * checkpoint commits. While such an asynchronous call is in flight, arriving batches are held
 * back and written in order when it settles, so a writer never sees a write in the middle of its
 * own flush, and a pre-committed transaction holds exactly the rows before the barrier.
 */
export class SinkTask implements Task<SinkCheckpoint> {
  readonly counters = new Map<string, number>();
  /** Durations of the writer's flushes that had something to write (e.g. a Postgres transaction). */
  readonly flushLatency = new LatencyHistogram();
  /** Durations of the writer's commits of completed checkpoints (exactly-once sinks). */
  readonly commitLatency = new LatencyHistogram();
  /**
   * Processing time − event time of the rows arriving here, when the job tracks it
   * ({@link enableEventTimeLag}) and the input has an event-time column.
   */
  eventTimeLag: EventTimeLagSketch | null = null;
  private now: () => number = Date.now;
  batchesSinceFlush = 0;
  private inflight: Promise<unknown> | null = null;
  private held: ChangeBatch[] = [];
  /** A write of held batches failed outside the hot loop; the next call reports it. */
  private failure: { readonly error: unknown } | null = null;
  /** Pre-committed transactions by checkpoint id, until completed or aborted. */
  private readonly pending = new Map<number, Json>();
  /** Set by the job before `open`: who the sink is and how the job checkpoints. */
  identity: Pick<
    SinkWriterContext,
    "jobId" | "sinkId" | "subtaskIndex" | "checkpointIntervalMs" | "restoring"
  > = {};

  /**
   * The NOT NULL columns of the sink table, checked before each write as Flink's
   * ConstraintEnforcer does (every change, retractions too); empty (no cost) when there are none.
   */
  private readonly notNull: readonly number[];
  /** `table.exec.sink.not-null-enforcer` = 'DROP': a change with a NULL there is left out. */
  private dropNulls = false;

  constructor(
    readonly node: SinkNode,
    readonly writer: SinkWriter,
    private readonly cwd: string,
    private readonly collect: SinkWriterContext["collect"] | undefined,
  ) {
    // The columns of the rows the sink receives (`schema`: the table's writable columns; a
    // writer may append columns of its own to `tableSchema`, as a backfill's staging sink does).
    // A bare SELECT's collect sink has the query's own types, not a table's constraints.
    this.notNull =
      node.connector === COLLECT_CONNECTOR
        ? []
        : node.schema.flatMap((f, i) => (f.type.nullable === false ? [i] : []));
  }

  /** Starts tracking event-time lag on input column `column` (the input's watermark column). */
  enableEventTimeLag(column: number, now: () => number): void {
    this.now = now;
    this.eventTimeLag = new EventTimeLagSketch(column, now());
  }

  async open(ctx: TaskContext): Promise<void> {
    this.dropNulls = ctx.settings[NOT_NULL_ENFORCER]?.trim().toUpperCase() === "DROP";
    await this.writer.open({
      node: this.node,
      metrics: this.counters,
      settings: ctx.settings,
      cwd: this.cwd,
      ...(this.collect ? { collect: this.collect } : {}),
      ...this.identity,
    });
  }

  /** Loads the restored checkpoint's pre-commit into the writer (before its re-commit). */
  async restoreSink(checkpointId: number, own: SinkCheckpoint | null): Promise<void> {
    if (this.writer.restore) await this.writer.restore(checkpointId, own?.preCommitted ?? null);
  }

  processBatch(_input: number, input: ChangeBatch): void {
    this.rethrow();
    const batch = this.notNull.length === 0 ? input : this.enforceNotNull(input);
    if (batch.length === 0) return;
    if (this.eventTimeLag !== null) this.eventTimeLag.addBatch(batch, this.now());
    if (this.inflight !== null) {
      this.held.push(batch);
      return;
    }
    this.writer.write(batch);
    this.batchesSinceFlush++;
  }

  /** `batch` without the changes that have a NULL in a NOT NULL column ('DROP'), or the error ('ERROR'). */
  private enforceNotNull(batch: ChangeBatch): ChangeBatch {
    const { rows, length } = batch;
    const cols = this.notNull;
    let kept: ChangeBatchBuilder | null = null;
    for (let i = 0; i < length; i++) {
      const row = rows[i]!;
      let bad = -1;
      for (let k = 0; k < cols.length; k++) {
        const v = row[cols[k]!];
        if (v === null || v === undefined) {
          bad = cols[k]!;
          break;
        }
      }
      if (bad < 0) {
        kept?.push(batch.ops[i] as Op, row);
        continue;
      }
      if (!this.dropNulls) {
        throw new ConnectorError(
          `Column '${this.node.schema[bad]!.name}' is NOT NULL, however, a null value is being written into it. You can set job configuration '${NOT_NULL_ENFORCER}'='DROP' to suppress this exception and drop such records silently.`,
          "user",
          undefined,
          false,
          { table: this.node.table },
        );
      }
      this.counters.set("notNullDropped", (this.counters.get("notNullDropped") ?? 0) + 1);
      if (kept === null) {
        kept = new ChangeBatchBuilder(length);
        for (let j = 0; j < i; j++) kept.push(batch.ops[j] as Op, rows[j]!);
      }
    }
    return kept === null ? batch : kept.finish();
  }

  onWatermark(watermark: number): number {
    return watermark;
  }

  /** Whether a flush or pre-commit is in flight (a periodic flush then waits for the next turn). */
  get busy(): boolean {
    return this.inflight !== null;
  }

  /** Flushes the writer (after anything in flight). */
  flush(): Promise<void> {
    return this.serial(async () => {
      this.rethrow();
      await this.timedFlush();
    });
  }

  /** Flushes the writer, timing it when there was something to write. */
  private async timedFlush(): Promise<void> {
    if (this.batchesSinceFlush === 0) {
      await this.writer.flush();
      return;
    }
    const t0 = performance.now();
    await this.writer.flush();
    this.flushLatency.observe(performance.now() - t0);
    this.batchesSinceFlush = 0;
  }

  onBarrier(checkpointId: number): Promise<SinkCheckpoint> {
    return this.serial(async () => {
      await this.timedFlush();
      const preCommitted = this.writer.preCommit ? await this.writer.preCommit(checkpointId) : null;
      this.pending.set(checkpointId, preCommitted);
      return { preCommitted };
    });
  }

  async onCheckpointComplete(checkpointId: number, own: SinkCheckpoint | null): Promise<void> {
    this.pending.delete(checkpointId);
    const pre = own?.preCommitted ?? null;
    if (!this.writer.commit) return;
    await this.serial(async () => {
      const t0 = performance.now();
      await this.writer.commit!(checkpointId, pre);
      if (pre !== null) this.commitLatency.observe(performance.now() - t0);
    });
  }

  /**
   * The checkpoint will not complete: forget its transaction; a pre-commit that never settled is
   * abandoned (later calls no longer wait for it) and the held batches are written.
   */
  onCheckpointAborted(checkpointId: number): void {
    this.pending.delete(checkpointId);
    this.inflight = null;
    this.drain();
  }

  close(): Promise<void> {
    return this.writer.close();
  }

  /** Runs `f` after whatever is in flight; batches arriving meanwhile are held, then written. */
  private serial<T>(f: () => Promise<T>): Promise<T> {
    const prev = this.inflight ?? Promise.resolve();
    const run = prev.then(f);
    const settled = run.then(
      () => undefined,
      () => undefined,
    );
    this.inflight = settled;
    void settled.then(() => {
      if (this.inflight === settled) {
        this.inflight = null;
        this.drain();
      }
    });
    return run;
  }

  private drain(): void {
    const held = this.held;
    this.held = [];
    try {
      for (const b of held) {
        this.writer.write(b);
        this.batchesSinceFlush++;
      }
    } catch (error) {
      this.failure ??= { error };
    }
  }

  private rethrow(): void {
    if (this.failure !== null) throw this.failure.error;
  }
}
