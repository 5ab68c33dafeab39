import { randomBytes } from "node:crypto";
import { join, resolve } from "node:path";
import type { PhysicalDag, PhysicalNode } from "@weir/planner";
import { Message } from "../changelog.js";
import type { ConnectorRegistry, PollResult, SinkWriterContext } from "../connector.js";
import { parseDurationSetting } from "../operators/common.js";
import { operatorStateInfo } from "../operators/registry.js";
import { isDeferredSnapshot, STATE_SNAPSHOT_VERSION, type StateBackend } from "../state/api.js";
import { stateBackendFactory } from "../state/backends.js";
import { decodeJson, encodeJson, type Json } from "../state/codec.js";
import { TaskMetricGroup } from "../task.js";
import { type Clock, NO_WATERMARK } from "../time/watermarks.js";
import type { JobCheckpoint, OperatorCheckpoint, SinkCheckpoint, SourceCheckpoint } from "./checkpoint.js";
import { checkRestorable, JOB_CHECKPOINT_VERSION, planFingerprint } from "./checkpoint.js";
import { type CheckpointConfig, checkpointConfig } from "./checkpoint-config.js";
import { type TaskLayout, taskLayouts, taskUids } from "./compat.js";
import type { SinkOwnState, SourceOwnState } from "./connector-tasks.js";
import type { TaskAck } from "./driver.js";
import { describeNode, nodeFailure } from "./errors.js";
import type { NodeRuntime, OperatorRuntime, SinkRuntime, SourceRuntime } from "./graph.js";
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
    /** Trigger a checkpoint every `intervalMs` of processing time (0 or absent: never). */
    readonly intervalMs?: number;
    /** Abort a checkpoint not acknowledged by every task in this time; default `'execution.checkpointing.timeout'`. */
    readonly timeoutMs?: number;
    /** Least time from the end of a checkpoint to the next trigger; default `'execution.checkpointing.min-pause'`. */
    readonly minPauseMs?: number;
    /**
     * Stores a complete checkpoint durably; sinks commit once it resolves. `savepoint`: it was
     * taken for {@link Job.requestSavepoint} (each request stores it where it asked, as well).
     */
    onCheckpoint?(cp: JobCheckpoint, savepoint: boolean): Promise<void>;
    /**
     * Savepoint requests (SIGUSR1 to `weir run`, `weir savepoint`, STOP JOB ... WITH SAVEPOINT):
     * while the job runs, `subscribe`'s listener is {@link Job.requestSavepoint}; `subscribe`
     * returns the unsubscribe function.
     */
    readonly savepointRequests?: {
      subscribe(
        take: (request: SavepointRequest) => Promise<string>,
        job: { readonly jobId: string },
      ): () => void;
    };
    /** Checkpoint `id` was aborted (the job goes on). */
    onAborted?(id: number, reason: string): void;
    /**
     * Take the periodic checkpoints' and savepoints' state copy-on-write (see
     * `DeferredStateSnapshot`): the synchronous part at the barrier is O(entries) reference
     * copies and the state is encoded as it is written. The operator states handed to
     * `onCheckpoint` and to savepoint stores are then views, valid until the checkpoint ends:
     * write them (`CheckpointStore.writeAsync`) before the promise resolves, and keep only the
     * files. Off, they are plain JSON, encoded at the barrier.
     */
    readonly copyOnWrite?: boolean;
  };
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

/**
 * A savepoint asked of a running job: a checkpoint taken at the job's next turn (even without
 * periodic checkpoints), stored by `store` after `onCheckpoint` and before the sinks commit.
 */
export interface SavepointRequest {
  /** Writes the savepoint durably and returns where it is (a path); a throw fails this request only. */
  store(cp: JobCheckpoint): string | Promise<string>;
  /**
   * Stop the job once the savepoint is stored and its sinks committed, without processing
   * anything after it (Flink's stop-with-savepoint): the job ends with reason `savepoint`.
   */
  readonly stop?: boolean;
}

/** One checkpoint of this run, for the job page's history. */
export interface CheckpointRecord {
  readonly id: number;
  /** When it was triggered (epoch ms of the job clock). */
  readonly triggeredAt: number;
  readonly status: "completed" | "aborted";
  /** Trigger to commit (completed) or to the abort, in ms. */
  readonly durationMs: number;
  /** The longest barrier alignment of a task with several inputs (0 without such a task), ms. */
  readonly alignmentMs: number;
  readonly savepoint: boolean;
  /**
   * Of `durationMs`, the asynchronous phase: from every task's acknowledgement to the checkpoint
   * stored (the job processes meanwhile); absent when it was aborted before.
   */
  readonly asyncMs?: number;
  /** Why it was aborted. */
  readonly reason?: string;
}

/** How many checkpoint records a job keeps. */
const CHECKPOINT_HISTORY = 100;

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
/** Processing between two event-loop turns given to a checkpoint's asynchronous phase (ms). */
const ASYNC_SHARE_MS = 10;

/** A triggered checkpoint (at most one at a time: max-concurrent-checkpoints 1). */
interface PendingCheckpoint {
  readonly id: number;
  readonly startedAt: number;
  /** `performance.now()` at the trigger (the timeout is real time). */
  readonly startedReal: number;
  /** Every task's acknowledgement, as it aligned (a promise for an asynchronous task). */
  readonly acks: Map<NodeRuntime, TaskAck | Promise<TaskAck>>;
  /** The acknowledgements received so far. */
  readonly received: Map<NodeRuntime, TaskAck>;
  /** A task failed to snapshot (e.g. a sink's pre-commit threw): the job fails with it. */
  failure: { readonly error: unknown } | null;
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
  readonly jobId: string;
  /** Every task's stable id (by node id) and the layout a checkpoint records for a later restore. */
  private readonly uids: Map<number, string>;
  private readonly layout: Record<string, TaskLayout>;
  /** The checkpoint coordinator's settings (`'execution.checkpointing.*'`). */
  readonly checkpointConfig: CheckpointConfig;
  /** Job-level metrics: completed/aborted checkpoints, checkpoint durations. */
  readonly jobMetrics = new TaskMetricGroup("job");
  private nextCheckpointId = 1;
  /** The checkpoint whose barriers are being injected (acks are collected into it). */
  private pending: PendingCheckpoint | null = null;
  /** The checkpoint triggered and not yet acknowledged by every task (or aborted). */
  private inflight: PendingCheckpoint | null = null;
  /** The acknowledged checkpoint being stored while the job goes on (at most one). */
  private asyncPhase: AsyncPhase | null = null;
  /** When the job loop last gave the asynchronous phase a turn of the event loop (`performance.now()`). */
  private lastAsyncTurn = 0;
  /** The checkpoint being triggered has an asynchronous phase: snapshots are copy-on-write. */
  private deferredSnapshot = false;
  /** The node id from which the next poll looks for a live source (see `step`). */
  private pollCursor = 0;
  /** The `waitMs` of the last idle poll result (the loop sleeps at most that long). */
  private lastIdleWaitMs = MAX_IDLE_SLEEP_MS;
  private lastTick = Number.NEGATIVE_INFINITY;
  private lastFlush = 0;
  private closed = false;
  private readonly flushIntervals = new Map<SinkRuntime, number>();
  /** The checkpoint being triggered is a savepoint: state is snapshotted in the canonical form. */
  private canonicalSnapshot = false;
  /** Savepoint requests not yet taken (they are served by the next checkpoint the loop triggers). */
  private savepointWaiters: SavepointWaiter[] = [];
  /** Whether {@link run} is looping (savepoints can be taken). */
  private running = false;
  /** A savepoint with `stop` was taken: the loop ends before its next poll. */
  private stopAfterSavepoint = false;
  /** The operators with asynchronous work (see `asyncOperators`). */
  private asyncList: OperatorRuntime[] | null = null;
  /** The last {@link CHECKPOINT_HISTORY} checkpoints of this run, oldest first. */
  readonly checkpointHistory: CheckpointRecord[] = [];

  constructor(
    readonly dag: PhysicalDag,
    private readonly options: JobOptions,
  ) {
    if (options.restoreFrom) checkRestorable(options.restoreFrom, dag);
    this.settings = { ...dag.settings, ...options.settings };
    this.now = options.now ?? Date.now;
    this.checkpointConfig = checkpointConfig(this.settings);
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
      canonicalSnapshots: () => this.canonicalSnapshot,
      deferredSnapshots: () => this.deferredSnapshot,
      aligned: this.checkpointConfig.mode === "EXACTLY_ONCE",
    });
    this.graph.listener = {
      onAck: (rt, id, ack) => {
        if (this.pending?.id === id) this.pending.acks.set(rt, ack);
        // A barrier of a checkpoint no longer pending (aborted) aligned late: its snapshot is not needed.
        else if (!(ack instanceof Promise) && isDeferredSnapshot(ack.state)) ack.state.release();
        else if (ack instanceof Promise)
          ack.then(
            (a) => isDeferredSnapshot(a.state) && a.state.release(),
            () => undefined,
          );
      },
    };
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
    return new Promise((resolve, reject) => this.savepointWaiters.push({ request, resolve, reject }));
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
        checkpointIntervalMs: this.options.checkpoint?.intervalMs ?? 0,
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
    if (cp) {
      // Re-announce restored source watermarks, so downstream inputs do not wait for an advance.
      for (const s of this.graph.sources()) {
        const w = s.task.op.tracker.currentWatermark;
        if (!s.task.op.ended && w > NO_WATERMARK) this.graph.forward(s.node.id, Message.watermark(w));
      }
    }
  }

  /** True when every sink got `end` (a job without sinks: when every source ended). */
  get finished(): boolean {
    const sinks = this.graph.sinks();
    if (sinks.length === 0) return this.graph.sources().every((s) => s.task.op.ended);
    return sinks.every((s) => s.driver.finished);
  }

  /** Pushes one poll result of source node `nodeId` through the DAG, synchronously. */
  pushSource(nodeId: number, result: PollResult): void {
    const rt = this.graph.nodes.get(nodeId);
    if (rt?.kind !== "source") throw new Error(`node ${nodeId} is not a source`);
    if (rt.task.op.ended) throw new Error(`source ${describeNode(rt.node)} already ended`);
    try {
      rt.task.op.process(result, rt.emit);
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
    const live = this.graph.sources().filter((s) => !s.task.op.ended);
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
    for (const s of this.graph.sources()) {
      if (s.task.op.ended) continue;
      try {
        s.task.op.pollWatermark(s.emit);
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
   * Takes checkpoint `id` (default: the next id): records source positions, sends a barrier from
   * every live source through the DAG (operators snapshot when aligned, sinks see it), then
   * flushes and pre-commits the sinks. Call only between pushes. `copyOnWrite`: the operator
   * states are copy-on-write views (see `DeferredStateSnapshot`) that stay the state at the
   * barrier while the job goes on, until `releaseCheckpoint(cp)`.
   */
  async checkpoint(
    id = this.nextCheckpointId,
    options: { readonly copyOnWrite?: boolean } = {},
  ): Promise<JobCheckpoint> {
    if (this.inflight !== null) throw new Error(`checkpoint ${this.inflight.id} is still in progress`);
    if (this.asyncPhase !== null) throw new Error(`checkpoint ${this.asyncPhase.p.id} is still being stored`);
    await this.drainAsync();
    this.deferredSnapshot = options.copyOnWrite === true;
    let p: PendingCheckpoint;
    try {
      p = this.trigger(id);
    } finally {
      this.deferredSnapshot = false;
    }
    this.inflight = null;
    for (const [rt, ack] of p.acks) p.received.set(rt, await ack);
    return this.manifest(p);
  }

  /**
   * Starts checkpoint `id`: every source records its position, then sends the barrier (the DAG
   * is quiescent, so the barriers of all sources form one cut); tasks whose inputs all ended saw
   * no barrier and are snapshotted directly. Synchronous tasks acknowledge at once; the others
   * (sinks flushing and pre-committing) acknowledge when their promise resolves.
   */
  private trigger(id: number): PendingCheckpoint {
    this.nextCheckpointId = id + 1;
    const p: PendingCheckpoint = {
      id,
      startedAt: this.now(),
      startedReal: performance.now(),
      acks: new Map(),
      received: new Map(),
      failure: null,
    };
    this.pending = p;
    try {
      for (const s of this.graph.sources()) s.driver.injectBarrier(id);
      for (const rt of this.graph.tasks) if (!p.acks.has(rt)) rt.driver.acknowledge(id);
    } finally {
      this.pending = null;
    }
    for (const [rt, ack] of p.acks) {
      if (!(ack instanceof Promise)) p.received.set(rt, ack);
      else
        ack.then(
          (a) => p.received.set(rt, a),
          (error) => {
            p.failure ??= { error };
          },
        );
    }
    this.inflight = p;
    return p;
  }

  /**
   * One turn of the checkpoint coordinator. A checkpoint has Flink's two phases. Synchronous, at
   * the trigger: every task snapshots at its barrier — the in-memory backend copy-on-write, in
   * O(entries) reference copies — and the coordinator waits for every acknowledgement — as a
   * Flink sink's pre-commit holds its task — for at most the timeout. Asynchronous: the
   * checkpoint is stored by `onCheckpoint` (which encodes and writes the state in slices) while
   * the job goes on processing; later turns give it event-loop turns and, once it is stored,
   * complete it: every task is told (sinks commit). At most one checkpoint is in flight (Flink's
   * max-concurrent-checkpoints 1): the next is triggered only after it ended (and min-pause).
   * Aborted, the job going on: not acknowledged, or not stored, within the timeout, or storing
   * failed (every task is told; a sink abandons the pre-commit). A task that fails to snapshot,
   * or a commit that fails, fails the job. The final checkpoint and a stop-with-savepoint wait
   * for their asynchronous phase (nothing is processed after a stop-with-savepoint's barrier).
   */
  private async coordinate(state: CoordinatorState, final = false): Promise<boolean> {
    const cfg = this.checkpointConfig;
    const opts = this.options.checkpoint;
    const timeoutMs = opts?.timeoutMs ?? cfg.timeoutMs;
    const phase = this.asyncPhase;
    if (phase !== null) {
      if (phase.outcome === null && !final) {
        const t = performance.now();
        if (t - phase.p.startedReal < timeoutMs) {
          // The asynchronous phase works in the event loop's turns: give it one after every
          // ASYNC_SHARE_MS of processing, so that processing and storing share the thread
          // about evenly (a slice of the store is as long, see CheckpointStore.writeAsync).
          if (t - this.lastAsyncTurn >= ASYNC_SHARE_MS) {
            await new Promise<void>((resolve) => setImmediate(resolve));
            this.lastAsyncTurn = performance.now();
          }
          return false;
        }
        this.asyncPhase = null;
        this.releaseSnapshots(phase.p);
        this.abortCheckpoint(
          state,
          phase.p,
          phase.savepoint,
          phase.waiters,
          `not stored within ${timeoutMs} ms`,
        );
      } else {
        await phase.done;
        await this.finishAsyncPhase(state, phase);
      }
    }
    const interval = opts?.intervalMs ?? 0;
    const savepoint = this.savepointWaiters.length > 0;
    if ((interval <= 0 && !savepoint) || (this.finished && !final)) return false;
    const now = this.now();
    if (!final && !savepoint) {
      if (now - state.lastTrigger < interval) return false;
      if (now - state.lastEnd < (opts?.minPauseMs ?? cfg.minPauseMs)) return false;
    }
    state.lastTrigger = now;
    // The requests made before this trigger are the ones this checkpoint serves.
    const waiters = this.savepointWaiters.splice(0);
    await this.drainAsync();
    this.canonicalSnapshot = savepoint;
    this.deferredSnapshot = opts?.copyOnWrite === true;
    let p: PendingCheckpoint;
    try {
      p = this.trigger(this.nextCheckpointId);
    } finally {
      this.canonicalSnapshot = false;
      this.deferredSnapshot = false;
    }
    const acked = await acknowledgedWithin(p, timeoutMs);
    this.inflight = null;
    if (p.failure !== null) {
      this.releaseSnapshots(p);
      for (const w of waiters) w.reject(asError(p.failure.error));
      throw p.failure.error;
    }
    if (!acked) {
      this.releaseSnapshots(p);
      const missing = [...p.acks.keys()]
        .filter((rt) => !p.received.has(rt))
        .map((rt) => describeNode(rt.node));
      this.abortCheckpoint(
        state,
        p,
        savepoint,
        waiters,
        `not acknowledged within ${timeoutMs} ms by ${missing.join(", ")}`,
      );
      return false;
    }
    const started = this.startAsyncPhase(p, savepoint, waiters);
    if (!final && !waiters.some((w) => w.request.stop)) return false;
    await started.done;
    return this.finishAsyncPhase(state, started);
  }

  /** Starts storing acknowledged checkpoint `p` (`onCheckpoint`, then the savepoint requests'). */
  private startAsyncPhase(p: PendingCheckpoint, savepoint: boolean, waiters: SavepointWaiter[]): AsyncPhase {
    const cp = this.manifest(p);
    const opts = this.options.checkpoint;
    const phase: AsyncPhase = {
      p,
      cp,
      savepoint,
      waiters,
      stored: [],
      startedAt: this.now(),
      outcome: null,
      done: Promise.resolve(),
    };
    phase.done = (async () => {
      await opts?.onCheckpoint?.(cp, savepoint);
      for (const w of waiters) {
        try {
          phase.stored.push({ waiter: w, path: await w.request.store(cp) });
        } catch (e) {
          w.reject(new Error(`savepoint ${cp.checkpointId} could not be stored: ${asError(e).message}`));
        }
      }
    })().then(
      () => {
        phase.outcome = { ok: true };
      },
      (error: unknown) => {
        phase.outcome = { ok: false, error };
      },
    );
    this.asyncPhase = phase;
    return phase;
  }

  /**
   * The asynchronous phase of `phase` settled: stored, the checkpoint completes (sinks commit,
   * savepoint requests resolve); not stored, it is aborted and the job goes on.
   */
  private async finishAsyncPhase(state: CoordinatorState, phase: AsyncPhase): Promise<boolean> {
    if (this.asyncPhase === phase) this.asyncPhase = null;
    const { p, cp, savepoint } = phase;
    const outcome = phase.outcome!;
    this.releaseSnapshots(p);
    if (!outcome.ok) {
      this.abortCheckpoint(
        state,
        p,
        savepoint,
        phase.waiters,
        `it could not be stored: ${asError(outcome.error).message}`,
      );
      return false;
    }
    const asyncMs = this.now() - phase.startedAt;
    try {
      await this.commit(cp);
    } catch (e) {
      for (const s of phase.stored) s.waiter.reject(asError(e));
      throw e;
    }
    for (const s of phase.stored) {
      if (s.waiter.request.stop) this.stopAfterSavepoint = true;
      s.waiter.resolve(s.path);
    }
    state.completed++;
    state.lastCheckpoint = cp;
    state.lastEnd = this.now();
    const alignmentMs = this.alignmentOf(p.id);
    this.jobMetrics.counter("numberOfCompletedCheckpoints").inc();
    this.jobMetrics.histogram("checkpointDurationMs").update(state.lastEnd - p.startedAt);
    this.jobMetrics.histogram("checkpointAlignmentMs").update(alignmentMs);
    this.jobMetrics.histogram("checkpointAsyncDurationMs").update(asyncMs);
    this.record({
      id: p.id,
      triggeredAt: p.startedAt,
      status: "completed",
      durationMs: state.lastEnd - p.startedAt,
      alignmentMs,
      savepoint,
      asyncMs,
    });
    return true;
  }

  /** Checkpoint `p` will not complete: every task is told, its savepoint requests fail, the job goes on. */
  private abortCheckpoint(
    state: CoordinatorState,
    p: PendingCheckpoint,
    savepoint: boolean,
    waiters: readonly SavepointWaiter[],
    reason: string,
  ): void {
    for (const rt of this.graph.tasks) rt.driver.notifyAborted(p.id);
    for (const w of waiters) w.reject(new Error(`savepoint ${p.id} was aborted: ${reason}; the job goes on`));
    state.aborted++;
    state.lastEnd = this.now();
    this.jobMetrics.counter("numberOfFailedCheckpoints").inc();
    this.record({
      id: p.id,
      triggeredAt: p.startedAt,
      status: "aborted",
      durationMs: state.lastEnd - p.startedAt,
      alignmentMs: this.alignmentOf(p.id),
      savepoint,
      reason,
    });
    this.options.checkpoint?.onAborted?.(p.id, reason);
  }

  /** Ends the copy-on-write of `p`'s deferred snapshots (its state files are written, or never will be). */
  private releaseSnapshots(p: PendingCheckpoint): void {
    for (const ack of p.received.values()) if (isDeferredSnapshot(ack.state)) ack.state.release();
    for (const ack of p.acks.values())
      if (!(ack instanceof Promise) && isDeferredSnapshot(ack.state)) ack.state.release();
  }

  /** The longest barrier alignment of checkpoint `id` over the tasks (ms). */
  private alignmentOf(id: number): number {
    let ms = 0;
    for (const rt of this.graph.tasks) {
      const a = rt.driver.lastAlignment;
      if (a !== null && a.id === id && a.ms > ms) ms = a.ms;
    }
    return ms;
  }

  private record(r: CheckpointRecord): void {
    this.checkpointHistory.push(r);
    if (this.checkpointHistory.length > CHECKPOINT_HISTORY) this.checkpointHistory.shift();
  }

  /** The checkpoint of `id` from every task's acknowledgement. */
  private manifest(p: PendingCheckpoint): JobCheckpoint {
    const { id, received: acks } = p;
    const sources: Record<string, SourceCheckpoint> = {};
    const operators: Record<string, OperatorCheckpoint> = {};
    const sinks: Record<string, SinkCheckpoint> = {};
    for (const rt of this.graph.tasks) {
      const ack = acks.get(rt)!;
      if (rt.kind === "source") {
        const own = ack.own as unknown as SourceOwnState;
        sources[this.uid(rt)] = { position: own.position, watermarks: own.watermarks, ended: own.ended };
      } else if (rt.kind === "sink") {
        sinks[this.uid(rt)] = { preCommitted: (ack.own as unknown as SinkOwnState).preCommitted };
      } else {
        operators[this.uid(rt)] = {
          state: ack.state,
          watermark: encodeJson(ack.watermark),
          forwarded: encodeJson(ack.forwarded),
        };
      }
    }
    return {
      version: JOB_CHECKPOINT_VERSION,
      jobId: this.jobId,
      checkpointId: id,
      timestamp: p.startedAt,
      planFingerprint: planFingerprint(this.dag),
      layout: this.layout,
      dagVersion: this.dag.version,
      stateVersion: STATE_SNAPSHOT_VERSION,
      sources,
      operators,
      sinks,
      metrics: this.metrics(),
      pollCursor: this.pollCursor,
    };
  }

  /**
   * The checkpoint is complete and durable: every task is told, and sinks make its pre-committed
   * writes visible (commits must be idempotent: a restore re-commits its checkpoint).
   */
  async commit(cp: JobCheckpoint): Promise<void> {
    for (const rt of this.graph.tasks) {
      let own: Json = null;
      if (rt.kind === "sink") {
        const sinkOwn: SinkOwnState = { preCommitted: cp.sinks[this.uid(rt)]?.preCommitted ?? null };
        own = sinkOwn as unknown as Json;
      } else if (rt.kind === "source") {
        own = (cp.sources[this.uid(rt)] ?? null) as unknown as Json;
      }
      await rt.driver.notifyComplete(cp.checkpointId, own);
    }
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
        watermark: s.task.op.watermark,
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
      // The job failed while a checkpoint was being stored: it will not complete.
      const phase = this.asyncPhase;
      if (phase !== null) {
        this.asyncPhase = null;
        this.releaseSnapshots(phase.p);
        for (const w of phase.waiters)
          w.reject(new Error(`the job ${outcome} before the savepoint was stored`));
      }
      for (const w of this.savepointWaiters.splice(0))
        w.reject(new Error(`the job ${outcome} before the savepoint was taken`));
    }
  }

  private async loop(): Promise<JobResult> {
    const { maxRuntimeMs, signal, onProgress } = this.options;
    const start = this.now();
    const cs: CoordinatorState = {
      lastTrigger: start,
      lastEnd: start - this.checkpointConfig.minPauseMs,
      completed: 0,
      aborted: 0,
      lastCheckpoint: null,
    };
    let lastProgress = start;
    let reason: JobResult["reason"] = "end";
    let idleRound = 0;
    let idleWait = Number.POSITIVE_INFINITY;
    while (!this.finished) {
      if (this.stopAfterSavepoint) {
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
      await this.coordinate(cs);
      const now = this.now();
      if (onProgress && now - lastProgress >= PROGRESS_MS) {
        lastProgress = now;
        onProgress(this.metrics());
      }
      const live = this.graph.sources().filter((s) => !s.task.op.ended).length;
      if (idleRound >= live && live > 0 && Number.isFinite(idleWait)) {
        if (this.asyncPending) await Promise.race([sleep(idleWait, signal), this.awaitAsync()]);
        else await sleep(idleWait, signal);
        idleRound = 0;
        idleWait = Number.POSITIVE_INFINITY;
      }
    }
    await this.drainAsync();
    // The checkpoint being stored completes (or is aborted) before the job ends.
    const phase = this.asyncPhase;
    if (phase !== null) {
      await phase.done;
      await this.finishAsyncPhase(cs, phase);
    }
    await this.flushSinks(true);
    // A sink that writes only at commit (exactly-once) gets its last epoch committed: a final
    // checkpoint when the input ended, as Flink takes one at the end of a bounded job.
    if (
      reason === "end" &&
      (this.options.checkpoint?.intervalMs ?? 0) > 0 &&
      this.graph.sinks().some((s) => s.task.writer.transactional)
    )
      if (!(await this.coordinate(cs, true)))
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
      checkpoints: cs.completed,
      abortedCheckpoints: cs.aborted,
      lastCheckpoint: cs.lastCheckpoint,
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
    this.nextCheckpointId = cp.checkpointId + 1;
    this.pollCursor = cp.pollCursor ?? 0;
    const missing = (rt: NodeRuntime): Error =>
      new Error(`cannot restore: checkpoint ${cp.checkpointId} has no state for ${describeNode(rt.node)}`);
    const oldNode = (rt: NodeRuntime): number | undefined => cp.layout[this.uid(rt)]?.node;
    for (const s of this.graph.sources()) {
      const sc = cp.sources[this.uid(s)];
      if (sc === undefined) throw missing(s);
      const own: SourceOwnState = { position: sc.position, watermarks: sc.watermarks, ended: sc.ended };
      await this.sourceCall(s, () => s.task.restore(own as unknown as Json));
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
      rt.driver.restoreSync(oc.state, decodeJson(oc.watermark) as number, decodeJson(oc.forwarded) as number);
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
      if (cp.sources[this.uid(s)]?.ended && !s.task.op.ended) this.pushSource(s.node.id, { kind: "end" });
    }
    // Sinks continue after the checkpoint (a file sink cuts what it wrote after it), then the
    // restored checkpoint, which was complete, is re-committed (idempotently).
    for (const s of this.graph.sinks()) {
      const own: SinkOwnState = { preCommitted: cp.sinks[this.uid(s)]?.preCommitted ?? null };
      await this.sinkCall(s, () => s.task.restoreSink(cp.checkpointId, own as unknown as Json));
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

  private async sourceCall<T>(s: SourceRuntime, f: () => Promise<T>): Promise<T> {
    try {
      return await f();
    } catch (e) {
      throw nodeFailure(s.node, e);
    }
  }
}

/** A {@link SavepointRequest} waiting for its checkpoint. */
interface SavepointWaiter {
  readonly request: SavepointRequest;
  resolve(path: string): void;
  reject(error: Error): void;
}

function asError(e: unknown): Error {
  return e instanceof Error ? e : new Error(String(e));
}

/** An acknowledged checkpoint being stored while the job goes on (its asynchronous phase). */
interface AsyncPhase {
  readonly p: PendingCheckpoint;
  readonly cp: JobCheckpoint;
  readonly savepoint: boolean;
  readonly waiters: readonly SavepointWaiter[];
  /** The savepoint requests stored so far, resolved once the checkpoint completes. */
  readonly stored: { readonly waiter: SavepointWaiter; readonly path: string }[];
  /** When it started (the job's clock). */
  readonly startedAt: number;
  /** Null while it runs. */
  outcome: { readonly ok: true } | { readonly ok: false; readonly error: unknown } | null;
  /** Resolves (never rejects) when it settled. */
  done: Promise<void>;
}

/** The checkpoint coordinator's bookkeeping over one `run`. */
interface CoordinatorState {
  lastTrigger: number;
  /** When the last checkpoint completed or was aborted (min-pause counts from here). */
  lastEnd: number;
  completed: number;
  aborted: number;
  lastCheckpoint: JobCheckpoint | null;
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

/**
 * Whether every task acknowledged `p` within `timeoutMs` (real time: a hung acknowledgement
 * advances no job clock). Resolves early when a task fails to acknowledge.
 */
function acknowledgedWithin(p: PendingCheckpoint, timeoutMs: number): Promise<boolean> {
  const waiting = [...p.acks.values()].filter((a): a is Promise<TaskAck> => a instanceof Promise);
  if (waiting.length === 0) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), timeoutMs);
    Promise.all(waiting).then(
      () => {
        clearTimeout(timer);
        // The received map is filled by the same promises' handlers, registered earlier.
        resolve(true);
      },
      () => {
        clearTimeout(timer);
        resolve(false);
      },
    );
  });
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
