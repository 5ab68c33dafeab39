import { randomBytes } from "node:crypto";
import { join, resolve } from "node:path";
import type { PhysicalDag, PhysicalNode } from "@weir/planner";
import type { ConnectorRegistry, PollResult, SinkWriterContext } from "../connector.js";
import { parseDurationSetting } from "../operators/common.js";
import { operatorStateInfo } from "../operators/registry.js";
import type { StateBackend } from "../state/api.js";
import { stateBackendFactory } from "../state/backends.js";
import { decodeNumber } from "../state/codec.js";
import { TaskMetricGroup } from "../task.js";
import type { Clock } from "../time/watermarks.js";
import type { JobCheckpoint, SinkCheckpoint } from "./checkpoint.js";
import { checkRestorable, planFingerprint } from "./checkpoint.js";
import { type CheckpointConfig, checkpointConfig } from "./checkpoint-config.js";
import type { CheckpointRecord } from "./checkpoint-coordinator.js";
import { CheckpointDriver, type CheckpointHooks, type SavepointRequest } from "./checkpoint-driver.js";
import { type TaskLayout, taskLayouts, taskUids } from "./compat.js";
import { describeNode, nodeFailure } from "./errors.js";
import type { NodeRuntime, OperatorRuntime, SinkRuntime } from "./graph.js";
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
  /**
   * When and how the job checkpoints: interval, timeout, min-pause, mode, directory. Default: read
   * from the job's settings (`'execution.checkpointing.*'`, see `checkpointConfig`) when the job is
   * built; a caller that read and checked them already (the CLI) passes what it read.
   */
  readonly checkpointConfig?: CheckpointConfig;
  /** What the job's checkpoints are handed to (when it takes them is `checkpointConfig`'s). */
  readonly checkpoint?: CheckpointHooks;
  /** The job's id (its checkpoint subdirectory); default: the restored checkpoint's, else a new one. */
  readonly jobId?: string;
  readonly restoreFrom?: JobCheckpoint;
  /** Stop (cleanly: flush sinks, close) after this much processing time. */
  readonly maxRuntimeMs?: number;
  readonly signal?: AbortSignal;
  /** Called about once a second with the cumulative metrics. */
  onProgress?(metrics: JobMetrics): void;
  /** Rows asked of a source per poll; default 1024. */
  readonly pollBatchSize?: number;
  /**
   * Track each sink's event-time lag (processing time − the input's event-time column, per row
   * that reaches the sink; see {@link EventTimeLagSketch}). The CLI sets it when metrics are served.
   */
  readonly trackEventTimeLag?: boolean;
}

export interface JobResult {
  /**
   * `end`: every sink got the end of its input; `savepoint`: stopped right after a savepoint
   * (a {@link SavepointRequest} with `stop`); otherwise why an unbounded job was stopped.
   */
  readonly reason: "end" | "max-runtime" | "aborted" | "savepoint";
  readonly metrics: JobMetrics;
  /** Checkpoints completed by this run. */
  readonly checkpoints: number;
  /** Checkpoints this run aborted (timeout). */
  readonly abortedCheckpoints: number;
  readonly lastCheckpoint: JobCheckpoint | null;
}

/** Processing-time ticks (TTL cleanup, source idleness) at most this often. */
const TICK_MS = 100;
const PROGRESS_MS = 1000;
const FLUSH_EVERY_BATCHES = 64;
const DEFAULT_FLUSH_INTERVAL_MS = 1000;
const MAX_IDLE_SLEEP_MS = 100;

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
  readonly jobId: string;
  /** Every task's stable id (by node id) and the layout a checkpoint records for a later restore. */
  private readonly uids: Map<number, string>;
  private readonly layout: Record<string, TaskLayout>;
  /** The checkpoint settings (`'execution.checkpointing.*'`): the one copy the job reads. */
  readonly checkpointConfig: CheckpointConfig;
  /** Job-level metrics: completed/aborted checkpoints, checkpoint durations. */
  readonly jobMetrics = new TaskMetricGroup("job");
  /** The job's checkpoints: the coordinator, and what its outputs do in this job. */
  private readonly checkpoints: CheckpointDriver;
  /** The node id from which the next poll looks for a live source (see `step`). */
  private pollCursor = 0;
  /** The `waitMs` of the last idle poll result (the loop sleeps at most that long). */
  private lastIdleWaitMs = MAX_IDLE_SLEEP_MS;
  private lastTick = Number.NEGATIVE_INFINITY;
  private lastFlush = 0;
  private closed = false;
  private readonly flushIntervals = new Map<SinkRuntime, number>();
  /** Whether {@link run} is looping (savepoints can be taken). */
  private running = false;
  /** The operators with asynchronous work (see `asyncOperators`). */
  private asyncList: OperatorRuntime[] | null = null;

  constructor(
    readonly dag: PhysicalDag,
    private readonly options: JobOptions,
  ) {
    if (options.restoreFrom) checkRestorable(options.restoreFrom, dag);
    this.settings = { ...dag.settings, ...options.settings };
    this.now = options.now ?? Date.now;
    this.checkpointConfig = options.checkpointConfig ?? checkpointConfig(this.settings);
    this.uids = taskUids(dag);
    this.layout = taskLayouts(dag);
    this.jobId = options.jobId ?? options.restoreFrom?.jobId ?? randomBytes(16).toString("hex");
    this.graph = new JobGraph(dag, {
      settings: this.settings,
      now: this.now,
      cwd: options.cwd,
      reader: (node) => options.connectors.source(node),
      writer: (node) => options.connectors.sink(node),
      lookup: (node) => {
        if (options.connectors.lookup === undefined)
          throw new Error(`no connector registry here looks up tables (lookup join on ${node.table})`);
        return options.connectors.lookup(node, { settings: this.settings, cwd: options.cwd });
      },
      ...(options.collect ? { collect: options.collect } : {}),
      stateBackend: this.stateBackends(),
      canonicalSnapshots: () => this.checkpoints.canonicalSnapshot,
      deferredSnapshots: () => this.checkpoints.deferredSnapshot,
      aligned: this.checkpointConfig.mode === "EXACTLY_ONCE",
    });
    const job = this;
    this.checkpoints = new CheckpointDriver(
      {
        graph: this.graph,
        now: this.now,
        uid: (rt) => this.uid(rt),
        jobParts: () => ({
          jobId: this.jobId,
          planFingerprint: planFingerprint(dag),
          layout: this.layout,
          dagVersion: dag.version,
          metrics: this.metrics(),
          pollCursor: this.pollCursor,
        }),
        drainAsync: () => this.drainAsync(),
        get finished() {
          return job.finished;
        },
      },
      this.checkpointConfig,
      options.checkpoint,
      this.jobMetrics,
    );
    this.graph.listener = { onAck: (rt, id, ack) => this.checkpoints.onAck(rt, id, ack) };
    if (options.trackEventTimeLag) {
      for (const s of this.graph.sinks()) {
        const input = this.graph.nodes.get(s.node.inputs[0] ?? -1)?.node;
        const col = input?.watermarkColumn ?? null;
        if (col !== null) s.task.enableEventTimeLag(col, this.now);
      }
    }
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

  /**
   * Takes a savepoint at the next turn of the job loop: resolves with where `request.store` put
   * it once the sinks committed it; rejects when the job is not running, when the savepoint's
   * checkpoint is aborted (timeout; the job goes on), when storing it fails, or when the job
   * ends or fails first. Requests made before one turn share one checkpoint.
   */
  requestSavepoint(request: SavepointRequest): Promise<string> {
    if (!this.running) return Promise.reject(new Error("the job is not running"));
    return this.checkpoints.requestSavepoint(request);
  }

  /** The last checkpoints of this run that ended, oldest first (at most 100). */
  get checkpointHistory(): readonly CheckpointRecord[] {
    return this.checkpoints.history;
  }

  /** Opens the connectors, restores the checkpoint if any, and ends operators without inputs. */
  async open(): Promise<void> {
    this.startedAt = this.now();
    this.lastFlush = this.startedAt;
    for (const s of this.graph.sources()) await s.driver.open();
    const cp = this.options.restoreFrom;
    for (const s of this.graph.sinks()) {
      s.task.identity = {
        jobId: this.jobId,
        sinkId: this.uid(s),
        subtaskIndex: 0,
        checkpointIntervalMs: this.checkpointConfig.intervalMs,
        restoring: cp !== undefined,
      };
      await s.driver.open();
    }
    if (cp) await this.restore(cp);
    for (const rt of this.asyncOperators()) {
      try {
        await rt.driver.task.async!.start();
      } catch (e) {
        throw nodeFailure(rt.node, e);
      }
    }
    for (const rt of this.graph.operators()) {
      if (rt.node.inputs.length > 0) continue;
      try {
        rt.driver.finishWithoutInputs();
      } catch (e) {
        throw nodeFailure(rt.node, e);
      }
    }
    if (cp) for (const s of this.graph.sources()) s.task.announceWatermark();
  }

  /** True when every sink got `end` (a job without sinks: when every source ended). */
  get finished(): boolean {
    const sinks = this.graph.sinks();
    if (sinks.length === 0) return this.graph.sources().every((s) => s.driver.finished);
    return sinks.every((s) => s.driver.finished);
  }

  /** Pushes one poll result of source node `nodeId` through the DAG, synchronously. */
  pushSource(nodeId: number, result: PollResult): void {
    const rt = this.graph.nodes.get(nodeId);
    if (rt?.kind !== "source") throw new Error(`node ${nodeId} is not a source`);
    if (rt.driver.finished) throw new Error(`source ${describeNode(rt.node)} already ended`);
    try {
      rt.task.processPoll(result);
    } catch (e) {
      throw nodeFailure(rt.node, e);
    }
  }

  /**
   * Polls the next source that has not ended (round robin) and pushes the result. Returns what the
   * poll gave, or null when every source has ended.
   */
  async step(): Promise<PollResult["kind"] | null> {
    await this.whileSaturated();
    const live = this.graph.sources().filter((s) => !s.driver.finished);
    if (live.length === 0) return null;
    // Round robin by node id, from the cursor: the order a checkpoint records and a restore
    // continues, so a restored run interleaves its sources as the uninterrupted one does.
    const rt = live.find((s) => s.node.id >= this.pollCursor) ?? live[0]!;
    this.pollCursor = rt.node.id + 1;
    let result: PollResult;
    try {
      result = await rt.task.reader.poll(this.options.pollBatchSize ?? 1024);
    } catch (e) {
      throw nodeFailure(rt.node, e);
    }
    if (result.kind === "idle") this.lastIdleWaitMs = result.waitMs;
    this.pushSource(rt.node.id, result);
    this.pumpAsync();
    return result.kind;
  }

  /** The operators with asynchronous work (lookup joins), in node order (upstream first). */
  private asyncOperators(): OperatorRuntime[] {
    this.asyncList ??= this.graph.operators().filter((rt) => rt.driver.task.async !== undefined);
    return this.asyncList;
  }

  /** Whether an asynchronous operator has requests in flight or results not yet emitted. */
  get asyncPending(): boolean {
    return this.asyncOperators().some((rt) => rt.driver.task.async!.pending);
  }

  /**
   * Emits what the asynchronous operators completed (upstream first, so a lookup join that feeds
   * another passes its results on in the same turn). Synchronous, like a push.
   */
  pumpAsync(): void {
    for (const rt of this.asyncOperators()) rt.driver.pumpAsync();
  }

  /** Waits until some asynchronous operator completed a request, then emits. */
  private async awaitAsync(): Promise<void> {
    const pending = this.asyncOperators().filter((rt) => rt.driver.task.async!.pending);
    if (pending.length === 0) return;
    await Promise.race(pending.map((rt) => rt.driver.task.async!.progress()));
    this.pumpAsync();
  }

  /**
   * Backpressure: while an asynchronous operator has its maximum of requests in flight
   * ('table.exec.async-lookup.buffer-capacity'), no source is polled.
   */
  private async whileSaturated(): Promise<void> {
    while (this.asyncOperators().some((rt) => rt.driver.task.async!.saturated)) await this.awaitAsync();
  }

  /**
   * Waits until no asynchronous operator has anything in flight, emitting as results complete:
   * before a checkpoint's barriers (so in-flight requests are never part of a checkpoint) and
   * at the end of the input.
   */
  async drainAsync(): Promise<void> {
    this.pumpAsync();
    while (this.asyncPending) await this.awaitAsync();
  }

  /**
   * Processing time advanced: sources re-check idleness, operators clean expired state. Runs at
   * most every {@link TICK_MS} unless `force`.
   */
  tick(force = false): void {
    const now = this.now();
    if (!force && now - this.lastTick < TICK_MS) return;
    this.lastTick = now;
    for (const s of this.graph.sources()) s.driver.onProcessingTime(now);
    for (const rt of this.graph.operators()) rt.driver.onProcessingTime(now);
  }

  /** Flushes the sinks whose buffer is due (every {@link FLUSH_EVERY_BATCHES} batches or their interval), or all. */
  async flushSinks(all = false): Promise<void> {
    const now = this.now();
    for (const s of this.graph.sinks()) {
      const n = s.task.batchesSinceFlush;
      const due =
        all || n >= FLUSH_EVERY_BATCHES || (n > 0 && now - this.lastFlush >= this.flushIntervals.get(s)!);
      // A sink busy with a pre-commit flushes on a later turn (the final flush waits for it).
      if (!due || (!all && s.task.busy)) continue;
      await this.sinkCall(s, () => s.task.flush());
    }
    if (all || now - this.lastFlush >= DEFAULT_FLUSH_INTERVAL_MS) this.lastFlush = now;
  }

  /**
   * Takes checkpoint `id` (default: the next id) outside the coordinator: records source
   * positions, sends a barrier from every live source through the DAG (operators snapshot when
   * aligned, sinks see it), then waits, without a timeout, for the sinks to flush and pre-commit.
   * It is neither stored nor completed (`commit` completes it). Call only between pushes.
   * `copyOnWrite`: the operator states are copy-on-write views (see `DeferredStateSnapshot`) that
   * stay the state at the barrier while the job goes on, until `releaseCheckpoint(cp)`.
   */
  async checkpoint(
    id = this.checkpoints.coordinator.nextCheckpointId,
    options: { readonly copyOnWrite?: boolean } = {},
  ): Promise<JobCheckpoint> {
    return this.checkpoints.checkpoint(id, options);
  }

  /**
   * The checkpoint is complete and durable: every task is told, and sinks make its pre-committed
   * writes visible (commits must be idempotent: a restore re-commits its checkpoint).
   */
  commit(cp: JobCheckpoint): Promise<void> {
    return this.checkpoints.commit(cp);
  }

  /**
   * Every task's metric group (`<kind>-<node>.numRecordsIn`, `.numRecordsOut`,
   * `.numLateRecordsDropped`, `.currentWatermark`) and the job's (`job.numberOfCompletedCheckpoints`,
   * `job.numberOfFailedCheckpoints`, `job.checkpointDurationMs`), by full name.
   */
  metricValues(): ReturnType<TaskMetricGroup["values"]> {
    const out = { ...this.jobMetrics.values() };
    for (const rt of this.graph.tasks) Object.assign(out, rt.driver.metricGroup.values());
    return out;
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
        recordsRead: s.driver.metrics.recordsOut,
        watermark: s.task.watermark,
        counters: Object.fromEntries(s.task.counters),
        ...(s.task.reader.lag ? { lag: s.task.reader.lag() } : {}),
      };
    }
    for (const rt of this.graph.operators())
      operators[rt.node.id] = { kind: rt.node.kind, ...rt.driver.metrics, state: rt.driver.state.stats() };
    const now = this.now();
    for (const s of this.graph.sinks()) {
      const t = s.task;
      const rows = t.writer.tableRows?.() ?? null;
      const lag = t.eventTimeLag?.quantiles(now) ?? null;
      sinks[s.node.id] = {
        table: s.node.table,
        connector: s.node.connector,
        // Changes the NOT NULL enforcer dropped ('DROP') were received, not written.
        recordsWritten: s.driver.metrics.recordsIn - (t.counters.get("notNullDropped") ?? 0),
        counters: Object.fromEntries(t.counters),
        flushLatency: t.flushLatency.toJson(),
        commitLatency: t.commitLatency.toJson(),
        ...(rows !== null ? { tableRows: rows } : {}),
        ...(lag !== null ? { eventTimeLag: lag } : {}),
      };
    }
    return { durationMs: now - this.startedAt, sources, operators, sinks };
  }

  /**
   * The job loop: polls the sources round robin and pushes what they give, takes checkpoints on
   * the interval, flushes sinks, ticks processing time; sleeps briefly when every source is idle.
   * Ends when every sink saw `end`, or stops cleanly on `maxRuntimeMs` / `signal`.
   */
  async run(): Promise<JobResult> {
    this.running = true;
    const unsubscribe = this.options.checkpoint?.savepointRequests?.subscribe(
      (r) => this.requestSavepoint(r),
      this,
    );
    let outcome = "failed";
    try {
      const result = await this.loop();
      outcome = result.reason === "end" ? "finished" : "stopped";
      return result;
    } finally {
      this.running = false;
      unsubscribe?.();
      // A checkpoint still being stored will not complete; requests not yet served fail.
      this.checkpoints.abandon(outcome);
    }
  }

  private async loop(): Promise<JobResult> {
    const { maxRuntimeMs, signal, onProgress } = this.options;
    const start = this.now();
    this.checkpoints.start();
    let lastProgress = start;
    let reason: JobResult["reason"] = "end";
    let idleRound = 0;
    let idleWait = Number.POSITIVE_INFINITY;
    while (!this.finished) {
      if (this.checkpoints.stopRequested) {
        reason = "savepoint";
        break;
      }
      if (signal?.aborted) {
        reason = "aborted";
        break;
      }
      if (maxRuntimeMs !== undefined && this.now() - this.startedAt >= maxRuntimeMs) {
        reason = "max-runtime";
        break;
      }
      const kind = await this.step();
      if (kind === null) {
        // Every source ended; lookups still in flight end the job when they are out.
        if (this.asyncPending) {
          await this.awaitAsync();
          continue;
        }
        break;
      }
      if (kind === "idle") {
        idleRound++;
        idleWait = Math.min(idleWait, this.lastIdleWaitMs, MAX_IDLE_SLEEP_MS);
      } else {
        idleRound = 0;
        idleWait = Number.POSITIVE_INFINITY;
      }
      this.tick();
      await this.flushSinks();
      await this.checkpoints.turn();
      const now = this.now();
      if (onProgress && now - lastProgress >= PROGRESS_MS) {
        lastProgress = now;
        onProgress(this.metrics());
      }
      const live = this.graph.sources().filter((s) => !s.driver.finished).length;
      if (idleRound >= live && live > 0 && Number.isFinite(idleWait)) {
        if (this.asyncPending) await Promise.race([sleep(idleWait, signal), this.awaitAsync()]);
        else await sleep(idleWait, signal);
        idleRound = 0;
        idleWait = Number.POSITIVE_INFINITY;
      }
    }
    await this.drainAsync();
    // The checkpoint being stored completes (or is aborted) before the job ends.
    await this.checkpoints.finish();
    await this.flushSinks(true);
    // A sink that writes only at commit (exactly-once) gets its last epoch committed: a final
    // checkpoint when the input ended, as Flink takes one at the end of a bounded job.
    if (
      reason === "end" &&
      this.checkpointConfig.intervalMs > 0 &&
      this.graph.sinks().some((s) => s.task.writer.transactional)
    )
      if (!(await this.checkpoints.turn(true)))
        throw new Error(
          "the final checkpoint did not complete, so the exactly-once sinks did not commit their last epoch: run again with --restore to commit it",
        );
    // What the tables hold at the end, for the summary (a count query of a Postgres sink).
    for (const s of this.graph.sinks()) {
      const w = s.task.writer;
      if (w.countTableRows) await this.sinkCall(s, () => w.countTableRows!());
    }
    return {
      reason,
      metrics: this.metrics(),
      checkpoints: this.checkpoints.coordinator.completed,
      abortedCheckpoints: this.checkpoints.coordinator.aborted,
      lastCheckpoint: this.checkpoints.lastCheckpoint,
    };
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
    for (const rt of this.graph.operators()) await attempt(() => rt.driver.task.close?.());
    for (const s of this.graph.sources()) await attempt(() => s.task.close());
    for (const s of this.graph.sinks()) await attempt(() => s.task.close());
    for (const rt of this.graph.tasks) await attempt(() => rt.driver.state.dispose?.());
    if (first !== null) throw first;
  }

  /** Each task's state backend, as `'state.backend.type'` says, in the job's and task's directories. */
  private stateBackends(): (clock: Clock, node: PhysicalNode) => StateBackend {
    const factory = stateBackendFactory(this.settings);
    const dir = this.checkpointConfig.dir;
    const checkpointDir = dir === null ? null : join(resolve(this.options.cwd, dir), this.jobId);
    return (clock, node) =>
      factory(clock, {
        jobId: this.jobId,
        taskId: this.uids.get(node.id) ?? `node-${node.id}`,
        checkpointDir,
        cwd: this.options.cwd,
      });
  }

  /** The stable id (checkpoint key) of node `nodeId`'s task. */
  taskUid(nodeId: number): string | undefined {
    return this.uids.get(nodeId);
  }

  /** The stable id of a task: what its checkpoint entries are keyed by. */
  private uid(rt: NodeRuntime): string {
    return this.uids.get(rt.node.id)!;
  }

  /**
   * Loads `cp` (checked by `checkRestorable` already) by task uid: reader positions, watermark
   * trackers, operator state and watermarks, cumulative metrics (keyed by the node ids of the
   * plan that took it). A stateless operator the checkpoint does not have starts empty.
   */
  private async restore(cp: JobCheckpoint): Promise<void> {
    this.checkpoints.coordinator.nextCheckpointId = cp.checkpointId + 1;
    this.pollCursor = cp.pollCursor ?? 0;
    const missing = (rt: NodeRuntime): Error =>
      new Error(`cannot restore: checkpoint ${cp.checkpointId} has no state for ${describeNode(rt.node)}`);
    const oldNode = (rt: NodeRuntime): number | undefined => cp.layout[this.uid(rt)]?.node;
    for (const s of this.graph.sources()) {
      const sc = cp.sources[this.uid(s)];
      if (sc === undefined) throw missing(s);
      await s.driver.restoreOwn(sc);
      const m = cp.metrics.sources[oldNode(s) ?? -1];
      if (m) {
        s.driver.restoreMetrics({ recordsIn: 0, recordsOut: m.recordsRead, lateRecordsDropped: 0 });
        // Counters are cumulative: what this run counted so far (e.g. in a restore) adds to them.
        const c = s.task.counters;
        for (const [k, v] of Object.entries(m.counters)) c.set(k, (c.get(k) ?? 0) + v);
      }
    }
    for (const rt of this.graph.operators()) {
      const oc = cp.operators[this.uid(rt)];
      if (oc === undefined) {
        if (operatorStateInfo(rt.node.kind).stateless) continue;
        throw missing(rt);
      }
      rt.driver.restoreSync(oc.state, decodeNumber(oc.watermark), decodeNumber(oc.forwarded));
      const m = cp.metrics.operators[oldNode(rt) ?? -1];
      if (m) rt.driver.restoreMetrics(m);
    }
    for (const s of this.graph.sinks()) {
      const m = cp.metrics.sinks[oldNode(s) ?? -1];
      if (m) {
        s.driver.restoreMetrics({ recordsIn: m.recordsWritten, recordsOut: 0, lateRecordsDropped: 0 });
        // Counters are cumulative: what this run counted so far (e.g. in a restore) adds to them.
        const c = s.task.counters;
        for (const [k, v] of Object.entries(m.counters)) c.set(k, (c.get(k) ?? 0) + v);
        if (m.flushLatency) s.task.flushLatency.add(m.flushLatency);
        if (m.commitLatency) s.task.commitLatency.add(m.commitLatency);
      }
    }
    // A source that had ended before the checkpoint ends again now, without taking a poll's
    // turn: downstream operators learn it, and the round robin matches the first run's.
    for (const s of this.graph.sources()) {
      if (cp.sources[this.uid(s)]?.ended && !s.driver.finished) this.pushSource(s.node.id, { kind: "end" });
    }
    // Sinks continue after the checkpoint (a file sink cuts what it wrote after it), then the
    // restored checkpoint, which was complete, is re-committed (idempotently).
    for (const s of this.graph.sinks()) {
      const own: SinkCheckpoint = { preCommitted: cp.sinks[this.uid(s)]?.preCommitted ?? null };
      await this.sinkCall(s, () => s.task.restoreSink(cp.checkpointId, own));
    }
    await this.commit(cp);
  }

  private async sinkCall<T>(s: SinkRuntime, f: () => Promise<T>): Promise<T> {
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
