import type { PhysicalDag } from "@weir/planner";
import { Message } from "../changelog.js";
import type { ConnectorRegistry, PollResult, SinkWriterContext } from "../connector.js";
import { parseDurationSetting } from "../operators/common.js";
import { STATE_SNAPSHOT_VERSION } from "../state/api.js";
import { decodeJson, encodeJson } from "../state/codec.js";
import { NO_WATERMARK } from "../time/watermarks.js";
import type { JobCheckpoint, OperatorCheckpoint, SinkCheckpoint, SourceCheckpoint } from "./checkpoint.js";
import { checkRestorable, JOB_CHECKPOINT_VERSION, planFingerprint } from "./checkpoint.js";
import { describeNode, nodeFailure } from "./errors.js";
import type { OperatorRuntime, SinkRuntime, SourceRuntime } from "./graph.js";
import { JobGraph } from "./graph.js";
import type { JobMetrics, OperatorRunMetrics, SinkMetrics, SourceMetrics } from "./metrics.js";

export interface JobOptions {
  readonly connectors: ConnectorRegistry;
  /** Directory that relative connector paths resolve against. */
  readonly cwd: string;
  /** Overrides of the plan's settings. */
  readonly settings?: Readonly<Record<string, string>>;
  /** Processing-time clock (epoch ms); defaults to `Date.now`. */
  readonly now?: () => number;
  /** Where the `collect` sink sends a bare SELECT's changes. */
  readonly collect?: SinkWriterContext["collect"];
  readonly checkpoint?: {
    /** Take a checkpoint every `intervalMs` of processing time (0 or absent: never). */
    readonly intervalMs?: number;
    /** Stores a checkpoint; sinks commit once it resolves. */
    onCheckpoint?(cp: JobCheckpoint): Promise<void>;
  };
  readonly restoreFrom?: JobCheckpoint;
  /** Stop (cleanly: flush sinks, close) after this much processing time. */
  readonly maxRuntimeMs?: number;
  readonly signal?: AbortSignal;
  /** Called about once a second with the cumulative metrics. */
  onProgress?(metrics: JobMetrics): void;
  /** Rows asked of a source per poll; default 1024. */
  readonly pollBatchSize?: number;
}

export interface JobResult {
  /** `end`: every sink got the end of its input; otherwise why an unbounded job was stopped. */
  readonly reason: "end" | "max-runtime" | "aborted";
  readonly metrics: JobMetrics;
  /** Checkpoints completed by this run. */
  readonly checkpoints: number;
  readonly lastCheckpoint: JobCheckpoint | null;
}

/** Processing-time ticks (TTL cleanup, source idleness) at most this often. */
const TICK_MS = 100;
const PROGRESS_MS = 1000;
const FLUSH_EVERY_BATCHES = 64;
const DEFAULT_FLUSH_INTERVAL_MS = 1000;
const MAX_IDLE_SLEEP_MS = 100;

interface PendingCheckpoint {
  readonly id: number;
  readonly operators: Record<string, OperatorCheckpoint>;
  readonly sinks: Set<SinkRuntime>;
}

/**
 * A running job. The hot path is synchronous: {@link pushSource} pushes one poll result through
 * the whole DAG before it returns, so between two pushes the job is quiescent — that is where
 * checkpoints are taken and where tests look. Only the edges are async: opening and polling
 * readers, flushing and committing sinks.
 *
 * Lifecycle: `new Job(dag, options)` (builds and opens the operators) → `await open()` (opens
 * connectors, restores `restoreFrom`) → any of `step` / `pushSource` / `tick` / `checkpoint` →
 * `await close()`. {@link run} is the loop that `runJob` uses.
 */
export class Job {
  readonly graph: JobGraph;
  readonly settings: Readonly<Record<string, string>>;
  private readonly now: () => number;
  private startedAt = 0;
  private nextCheckpointId = 1;
  private pending: PendingCheckpoint | null = null;
  /** The node id from which the next poll looks for a live source (see `step`). */
  private pollCursor = 0;
  /** The `waitMs` of the last idle poll result (the loop sleeps at most that long). */
  private lastIdleWaitMs = MAX_IDLE_SLEEP_MS;
  private lastTick = Number.NEGATIVE_INFINITY;
  private lastFlush = 0;
  private closed = false;
  private readonly flushIntervals = new Map<SinkRuntime, number>();

  constructor(
    readonly dag: PhysicalDag,
    private readonly options: JobOptions,
  ) {
    if (options.restoreFrom) checkRestorable(options.restoreFrom, dag);
    this.settings = { ...dag.settings, ...options.settings };
    this.now = options.now ?? Date.now;
    this.graph = new JobGraph(dag, {
      settings: this.settings,
      now: this.now,
      reader: (node) => options.connectors.source(node),
      writer: (node) => options.connectors.sink(node),
    });
    this.graph.listener = {
      onOperatorCheckpoint: (rt, id) => this.onOperatorCheckpoint(rt, id),
      onSinkCheckpoint: (rt, id) => {
        if (this.pending?.id === id) this.pending.sinks.add(rt);
      },
    };
    for (const s of this.graph.sinks()) {
      const text = s.node.options["sink.buffer-flush.interval"];
      this.flushIntervals.set(
        s,
        text === undefined
          ? DEFAULT_FLUSH_INTERVAL_MS
          : parseDurationSetting("sink.buffer-flush.interval", text),
      );
    }
  }

  /** Opens the connectors, restores the checkpoint if any, and ends operators without inputs. */
  async open(): Promise<void> {
    this.startedAt = this.now();
    this.lastFlush = this.startedAt;
    const { cwd, collect } = this.options;
    for (const s of this.graph.sources()) {
      const rowtime = s.op.rowtimeOf();
      await s.reader.open({
        node: s.node,
        metrics: s.counters,
        settings: this.settings,
        cwd,
        ...(rowtime !== null ? { rowtime } : {}),
      });
      for (const split of s.reader.splits?.() ?? []) s.op.tracker.addSplit(split);
    }
    for (const s of this.graph.sinks()) {
      await s.writer.open({
        node: s.node,
        metrics: s.counters,
        settings: this.settings,
        cwd,
        ...(collect ? { collect } : {}),
      });
    }
    const cp = this.options.restoreFrom;
    if (cp) await this.restore(cp);
    for (const rt of this.graph.operators()) {
      if (rt.node.inputs.length > 0) continue;
      try {
        rt.driver.finishWithoutInputs();
      } catch (e) {
        throw nodeFailure(rt.node, e);
      }
    }
    if (cp) {
      // Re-announce restored source watermarks, so downstream inputs do not wait for an advance.
      for (const s of this.graph.sources()) {
        const w = s.op.tracker.currentWatermark;
        if (!s.op.ended && w > NO_WATERMARK) this.graph.forward(s.node.id, Message.watermark(w));
      }
    }
  }

  /** True when every sink got `end` (a job without sinks: when every source ended). */
  get finished(): boolean {
    const sinks = this.graph.sinks();
    if (sinks.length === 0) return this.graph.sources().every((s) => s.op.ended);
    return sinks.every((s) => s.ended);
  }

  /** Pushes one poll result of source node `nodeId` through the DAG, synchronously. */
  pushSource(nodeId: number, result: PollResult): void {
    const rt = this.graph.nodes.get(nodeId);
    if (rt?.kind !== "source") throw new Error(`node ${nodeId} is not a source`);
    if (rt.op.ended) throw new Error(`source ${describeNode(rt.node)} already ended`);
    try {
      rt.recordsRead += rt.op.process(result, (m) => this.graph.forward(nodeId, m));
    } catch (e) {
      throw nodeFailure(rt.node, e);
    }
  }

  /**
   * Polls the next source that has not ended (round robin) and pushes the result. Returns what the
   * poll gave, or null when every source has ended.
   */
  async step(): Promise<PollResult["kind"] | null> {
    const live = this.graph.sources().filter((s) => !s.op.ended);
    if (live.length === 0) return null;
    // Round robin by node id, from the cursor: the order a checkpoint records and a restore
    // continues, so a restored run interleaves its sources as the uninterrupted one does.
    const rt = live.find((s) => s.node.id >= this.pollCursor) ?? live[0]!;
    this.pollCursor = rt.node.id + 1;
    let result: PollResult;
    try {
      result = await rt.reader.poll(this.options.pollBatchSize ?? 1024);
    } catch (e) {
      throw nodeFailure(rt.node, e);
    }
    if (result.kind === "idle") this.lastIdleWaitMs = result.waitMs;
    this.pushSource(rt.node.id, result);
    return result.kind;
  }

  /**
   * Processing time advanced: sources re-check idleness, operators clean expired state. Runs at
   * most every {@link TICK_MS} unless `force`.
   */
  tick(force = false): void {
    const now = this.now();
    if (!force && now - this.lastTick < TICK_MS) return;
    this.lastTick = now;
    for (const s of this.graph.sources()) {
      if (s.op.ended) continue;
      try {
        s.op.pollWatermark((m) => this.graph.forward(s.node.id, m));
      } catch (e) {
        throw nodeFailure(s.node, e);
      }
    }
    for (const rt of this.graph.operators()) rt.driver.onProcessingTime(now);
  }

  /** Flushes the sinks whose buffer is due (every {@link FLUSH_EVERY_BATCHES} batches or their interval), or all. */
  async flushSinks(all = false): Promise<void> {
    const now = this.now();
    for (const s of this.graph.sinks()) {
      const due =
        all ||
        s.batchesSinceFlush >= FLUSH_EVERY_BATCHES ||
        (s.batchesSinceFlush > 0 && now - this.lastFlush >= this.flushIntervals.get(s)!);
      if (!due) continue;
      await this.sinkCall(s, () => s.writer.flush());
      s.batchesSinceFlush = 0;
    }
    if (all || now - this.lastFlush >= DEFAULT_FLUSH_INTERVAL_MS) this.lastFlush = now;
  }

  /**
   * Takes checkpoint `id` (default: the next id): records source positions, sends a barrier from
   * every live source through the DAG (operators snapshot when aligned, sinks see it), then
   * flushes and pre-commits the sinks. Call only between pushes.
   */
  async checkpoint(id = this.nextCheckpointId): Promise<JobCheckpoint> {
    if (this.pending !== null) throw new Error(`checkpoint ${this.pending.id} is still in progress`);
    this.nextCheckpointId = id + 1;
    const pending: PendingCheckpoint = { id, operators: {}, sinks: new Set() };
    const sources: Record<string, SourceCheckpoint> = {};
    this.pending = pending;
    try {
      for (const s of this.graph.sources()) {
        sources[s.node.id] = {
          position: s.reader.position(),
          watermarks: s.op.snapshotWatermarks(),
          ended: s.op.ended,
        };
      }
      for (const s of this.graph.sources()) {
        if (!s.op.ended) this.graph.forward(s.node.id, Message.barrier(id));
      }
      // Operators whose inputs all ended saw no barrier; they are quiescent, so snapshot them now.
      for (const rt of this.graph.operators()) {
        if (pending.operators[rt.node.id] === undefined) this.onOperatorCheckpoint(rt, id);
      }
    } finally {
      this.pending = null;
    }
    const sinks: Record<string, SinkCheckpoint> = {};
    for (const s of this.graph.sinks()) {
      await this.sinkCall(s, () => s.writer.flush());
      s.batchesSinceFlush = 0;
      const preCommitted = s.writer.preCommit ? await this.sinkCall(s, () => s.writer.preCommit!(id)) : null;
      sinks[s.node.id] = { preCommitted };
    }
    return {
      version: JOB_CHECKPOINT_VERSION,
      checkpointId: id,
      planFingerprint: planFingerprint(this.dag),
      dagVersion: this.dag.version,
      stateVersion: STATE_SNAPSHOT_VERSION,
      sources,
      operators: pending.operators,
      sinks,
      metrics: this.metrics(),
      pollCursor: this.pollCursor,
    };
  }

  /** The checkpoint is durable: sinks make its pre-committed writes visible. */
  async commit(cp: JobCheckpoint): Promise<void> {
    for (const s of this.graph.sinks()) {
      if (!s.writer.commit) continue;
      const pre = cp.sinks[s.node.id]?.preCommitted ?? null;
      await this.sinkCall(s, () => s.writer.commit!(cp.checkpointId, pre));
    }
  }

  /** Cumulative metrics (restored counts included). */
  metrics(): JobMetrics {
    const sources: Record<string, SourceMetrics> = {};
    const operators: Record<string, OperatorRunMetrics> = {};
    const sinks: Record<string, SinkMetrics> = {};
    for (const s of this.graph.sources()) {
      sources[s.node.id] = {
        table: s.node.table,
        connector: s.node.connector,
        recordsRead: s.recordsRead,
        watermark: s.op.watermark,
        counters: Object.fromEntries(s.counters),
        ...(s.reader.lag ? { lag: s.reader.lag() } : {}),
      };
    }
    for (const rt of this.graph.operators())
      operators[rt.node.id] = { kind: rt.node.kind, ...rt.driver.metrics };
    for (const s of this.graph.sinks()) {
      sinks[s.node.id] = {
        table: s.node.table,
        connector: s.node.connector,
        recordsWritten: s.recordsWritten,
        counters: Object.fromEntries(s.counters),
      };
    }
    return { durationMs: this.now() - this.startedAt, sources, operators, sinks };
  }

  /**
   * The job loop: polls the sources round robin and pushes what they give, takes checkpoints on
   * the interval, flushes sinks, ticks processing time; sleeps briefly when every source is idle.
   * Ends when every sink saw `end`, or stops cleanly on `maxRuntimeMs` / `signal`.
   */
  async run(): Promise<JobResult> {
    const { checkpoint, maxRuntimeMs, signal, onProgress } = this.options;
    const interval = checkpoint?.intervalMs ?? 0;
    let lastCheckpointAt = this.now();
    let lastProgress = this.now();
    let completed = 0;
    let lastCheckpoint: JobCheckpoint | null = null;
    let reason: JobResult["reason"] = "end";
    let idleRound = 0;
    let idleWait = Number.POSITIVE_INFINITY;
    while (!this.finished) {
      if (signal?.aborted) {
        reason = "aborted";
        break;
      }
      if (maxRuntimeMs !== undefined && this.now() - this.startedAt >= maxRuntimeMs) {
        reason = "max-runtime";
        break;
      }
      const kind = await this.step();
      if (kind === null) break;
      if (kind === "idle") {
        idleRound++;
        idleWait = Math.min(idleWait, this.lastIdleWaitMs, MAX_IDLE_SLEEP_MS);
      } else {
        idleRound = 0;
        idleWait = Number.POSITIVE_INFINITY;
      }
      this.tick();
      await this.flushSinks();
      const now = this.now();
      if (interval > 0 && now - lastCheckpointAt >= interval) {
        lastCheckpoint = await this.checkpoint();
        await checkpoint?.onCheckpoint?.(lastCheckpoint);
        await this.commit(lastCheckpoint);
        completed++;
        lastCheckpointAt = this.now();
      }
      if (onProgress && now - lastProgress >= PROGRESS_MS) {
        lastProgress = now;
        onProgress(this.metrics());
      }
      const live = this.graph.sources().filter((s) => !s.op.ended).length;
      if (idleRound >= live && live > 0 && Number.isFinite(idleWait)) {
        await sleep(idleWait, signal);
        idleRound = 0;
        idleWait = Number.POSITIVE_INFINITY;
      }
    }
    await this.flushSinks(true);
    return { reason, metrics: this.metrics(), checkpoints: completed, lastCheckpoint };
  }

  /** Closes operators, readers and writers (each once, all of them even if one fails). */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    let first: unknown = null;
    const attempt = async (f: () => unknown): Promise<void> => {
      try {
        await f();
      } catch (e) {
        first ??= e;
      }
    };
    for (const rt of this.graph.operators()) await attempt(() => rt.driver.op.close?.());
    for (const s of this.graph.sources()) await attempt(() => s.reader.close());
    for (const s of this.graph.sinks()) await attempt(() => s.writer.close());
    if (first !== null) throw first;
  }

  private onOperatorCheckpoint(rt: OperatorRuntime, id: number): void {
    const p = this.pending;
    if (p === null || p.id !== id) return;
    p.operators[rt.node.id] = {
      state: rt.driver.snapshot(),
      watermark: encodeJson(rt.driver.watermark),
      forwarded: encodeJson(rt.driver.forwarded),
    };
  }

  private async restore(cp: JobCheckpoint): Promise<void> {
    this.nextCheckpointId = cp.checkpointId + 1;
    this.pollCursor = cp.pollCursor ?? 0;
    for (const s of this.graph.sources()) {
      const sc = cp.sources[s.node.id];
      if (sc === undefined)
        throw new Error(
          `cannot restore: checkpoint ${cp.checkpointId} has no state for ${describeNode(s.node)}`,
        );
      await this.sourceCall(s, () => s.reader.restore(sc.position));
      s.op.restoreWatermarks(sc.watermarks);
      const m = cp.metrics.sources[s.node.id];
      if (m) {
        s.recordsRead = m.recordsRead;
        // Counters are cumulative: what this run counted so far (e.g. in a restore) adds to them.
        for (const [k, v] of Object.entries(m.counters)) s.counters.set(k, (s.counters.get(k) ?? 0) + v);
      }
    }
    for (const rt of this.graph.operators()) {
      const oc = cp.operators[rt.node.id];
      if (oc === undefined)
        throw new Error(
          `cannot restore: checkpoint ${cp.checkpointId} has no state for ${describeNode(rt.node)}`,
        );
      rt.driver.restore(oc.state, decodeJson(oc.watermark) as number, decodeJson(oc.forwarded) as number);
      const m = cp.metrics.operators[rt.node.id];
      if (m) {
        rt.driver.metrics.recordsIn = m.recordsIn;
        rt.driver.metrics.recordsOut = m.recordsOut;
        rt.driver.metrics.lateRecordsDropped = m.lateRecordsDropped;
      }
    }
    for (const s of this.graph.sinks()) {
      const m = cp.metrics.sinks[s.node.id];
      if (m) {
        s.recordsWritten = m.recordsWritten;
        // Counters are cumulative: what this run counted so far (e.g. in a restore) adds to them.
        for (const [k, v] of Object.entries(m.counters)) s.counters.set(k, (s.counters.get(k) ?? 0) + v);
      }
    }
    // A source that had ended before the checkpoint ends again now, without taking a poll's
    // turn: downstream operators learn it, and the round robin matches the first run's.
    for (const s of this.graph.sources()) {
      if (cp.sources[s.node.id]?.ended && !s.op.ended) this.pushSource(s.node.id, { kind: "end" });
    }
    // The restored checkpoint was complete: re-commit (idempotently) what its sinks pre-committed.
    await this.commit(cp);
  }

  private async sinkCall<T>(s: SinkRuntime, f: () => Promise<T>): Promise<T> {
    try {
      return await f();
    } catch (e) {
      throw nodeFailure(s.node, e);
    }
  }

  private async sourceCall<T>(s: SourceRuntime, f: () => Promise<T>): Promise<T> {
    try {
      return await f();
    } catch (e) {
      throw nodeFailure(s.node, e);
    }
  }
}

/** Builds, runs and closes a job. Errors carry the failing node (see {@link JobError}). */
export async function runJob(dag: PhysicalDag, options: JobOptions): Promise<JobResult> {
  const job = new Job(dag, options);
  let result: JobResult;
  try {
    await job.open();
    result = await job.run();
  } catch (e) {
    // The run's error is the one to report; a failure to close after it is secondary.
    await job.close().catch(() => undefined);
    throw e;
  }
  await job.close();
  return result;
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const t = setTimeout(done, ms);
    function done(): void {
      clearTimeout(t);
      signal?.removeEventListener("abort", done);
      resolve();
    }
    signal?.addEventListener("abort", done, { once: true });
  });
}
