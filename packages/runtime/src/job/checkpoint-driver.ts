import { isDeferredSnapshot, STATE_SNAPSHOT_VERSION } from "../state/api.js";
import { encodeNumber } from "../state/codec.js";
import type { MetricGroup } from "../task.js";
import type { JobCheckpoint, OperatorCheckpoint, SinkCheckpoint, SourceCheckpoint } from "./checkpoint.js";
import { JOB_CHECKPOINT_VERSION } from "./checkpoint.js";
import type { CheckpointConfig } from "./checkpoint-config.js";
import {
  CheckpointCoordinator,
  type CheckpointRecord,
  type PendingCheckpoint,
} from "./checkpoint-coordinator.js";
import type { TaskAck } from "./driver.js";
import { describeNode } from "./errors.js";
import type { AckOf, JobGraph, NodeRuntime } from "./graph.js";

/**
 * Where a job's checkpoints go and what else takes part in them. Without `onCheckpoint` a
 * checkpoint is complete once every task acknowledged it (kept in memory only: the job's
 * `lastCheckpoint`), as Flink's checkpoints are without a checkpoint storage.
 */
export interface CheckpointHooks {
  /**
   * Stores a complete checkpoint durably; sinks commit once it resolves. `savepoint`: it was
   * taken for `Job.requestSavepoint` (each request stores it where it asked, as well).
   */
  onCheckpoint?(cp: JobCheckpoint, savepoint: boolean): Promise<void>;
  /**
   * Savepoint requests (SIGUSR1 to `weir run`, `weir savepoint`, STOP JOB ... WITH SAVEPOINT):
   * while the job runs, `subscribe`'s listener is `Job.requestSavepoint`; `subscribe` returns the
   * unsubscribe function.
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

/** What the checkpoint driver needs of its job. */
export interface CheckpointHost {
  readonly graph: JobGraph;
  /** The job's clock (epoch ms). */
  readonly now: () => number;
  /** A task's stable id: its key in a checkpoint. */
  uid(rt: NodeRuntime): string;
  /** The parts of a checkpoint that are the job's, as they are now. */
  jobParts(): Pick<
    JobCheckpoint,
    "jobId" | "planFingerprint" | "layout" | "dagVersion" | "metrics" | "pollCursor"
  >;
  /** Waits until no asynchronous operator has work in flight (no request is part of a checkpoint). */
  drainAsync(): Promise<void>;
  /** Every sink got `end`: only a final checkpoint is taken now. */
  readonly finished: boolean;
}

/** Processing between two event-loop turns given to a checkpoint's asynchronous phase (ms). */
const ASYNC_SHARE_MS = 10;

/**
 * The job's side of its checkpoints: carries out what the {@link CheckpointCoordinator} asks in a
 * job that runs in one thread — injects the barriers into the graph and collects the tasks'
 * acknowledgements, writes the manifest, runs the asynchronous phase (`onCheckpoint`, then the
 * savepoint requests' stores) while the job goes on, tells the tasks a checkpoint completed or
 * was aborted — and gives the coordinator its inputs at the job loop's turns ({@link turn}).
 * The snapshot flags are read by the graph's drivers while barriers flow.
 */
export class CheckpointDriver {
  readonly coordinator: CheckpointCoordinator<NodeRuntime, TaskAck, SavepointWaiter>;
  /** The checkpoint being triggered is a savepoint: state is snapshotted in the canonical form. */
  canonicalSnapshot = false;
  /** The checkpoint being triggered has an asynchronous phase: snapshots are copy-on-write. */
  deferredSnapshot = false;
  /** The last checkpoint completed since {@link start}. */
  lastCheckpoint: JobCheckpoint | null = null;
  /** A stop-with-savepoint completed: the job processes nothing more. */
  stopRequested = false;
  /** Where acknowledgements go while barriers are injected (null: nowhere, they are released). */
  private ackReceiver: AckReceiver | null = null;
  /** The tasks that acknowledged while the barriers of the checkpoint being triggered flowed. */
  private acked = new Set<NodeRuntime>();
  /** The asynchronous acknowledgements (sinks' pre-commits) of the checkpoint last triggered. */
  private asyncAcks: Promise<TaskAck>[] = [];
  /** A task declined the checkpoint in flight: the job fails with this. */
  private declined: { readonly error: unknown } | null = null;
  /** The acknowledged checkpoint being stored while the job goes on (at most one). */
  private asyncPhase: AsyncPhase | null = null;
  /** When the job loop last gave the asynchronous phase a turn of the event loop (`performance.now()`). */
  private lastAsyncTurn = 0;

  constructor(
    private readonly host: CheckpointHost,
    config: CheckpointConfig,
    private readonly hooks: CheckpointHooks = {},
    metrics?: MetricGroup,
  ) {
    const deferred = hooks.copyOnWrite === true;
    this.coordinator = new CheckpointCoordinator({
      config,
      tasks: host.graph.tasks,
      now: host.now,
      describe: (rt) => describeNode(rt.node),
      ...(metrics ? { metrics } : {}),
      port: {
        injectBarriers: (c) => {
          this.inject(c.id, this.coordinator, { canonical: c.savepoint, deferred });
        },
        store: (c) => this.startAsyncPhase(c),
        notifyComplete: (c) => this.completed(c),
        notifyAborted: (c, reason) => this.aborted(c, reason),
        declined: (c, _rt, error) => {
          releaseSnapshots(c.acks.values());
          for (const w of c.requests) w.reject(asError(error));
          this.declined = { error };
        },
      },
    });
  }

  /** The last checkpoints that ended, oldest first (at most 100). */
  get history(): readonly CheckpointRecord[] {
    return this.coordinator.history;
  }

  /** The job loop starts (see `CheckpointCoordinator.start`). */
  start(): void {
    this.coordinator.start();
    this.lastCheckpoint = null;
  }

  /** Queues a savepoint request for the next turn; see `Job.requestSavepoint`. */
  requestSavepoint(request: SavepointRequest): Promise<string> {
    return new Promise((resolve, reject) => this.coordinator.requestSavepoint({ request, resolve, reject }));
  }

  /**
   * The graph's listener: a task aligned checkpoint `id`. Its acknowledgement goes where the
   * injection said, once it is there (a promise: when it resolves; its failure declines the
   * checkpoint). One nobody takes — of a checkpoint aborted meanwhile — has its copy-on-write
   * snapshot released.
   */
  onAck(rt: NodeRuntime, id: number, ack: TaskAck | Promise<TaskAck>): void {
    const to = this.ackReceiver;
    this.acked.add(rt);
    if (!(ack instanceof Promise)) {
      if (to === null || !to.ack(rt, id, ack)) releaseSnapshots([ack]);
      return;
    }
    this.asyncAcks.push(ack);
    ack.then(
      (a) => {
        if (to === null || !to.ack(rt, id, a)) releaseSnapshots([a]);
      },
      (error) => to?.decline(rt, id, error),
    );
  }

  /**
   * One turn of the checkpoint coordinator, between two pushes. A checkpoint has Flink's two
   * phases. Synchronous, at the trigger: every task snapshots at its barrier — the in-memory
   * backend copy-on-write, in O(entries) reference copies — and the turn waits for every
   * acknowledgement — as a Flink sink's pre-commit holds its task — for at most the timeout.
   * Asynchronous: the checkpoint is stored by `onCheckpoint` (which encodes and writes the state
   * in slices) while the job goes on processing; later turns give it event-loop turns and, once
   * it is stored, complete it: every task is told (sinks commit). The coordinator decides when to
   * trigger and ends each checkpoint: aborted, the job going on, when it is not acknowledged or
   * not stored within the timeout or storing failed (every task is told; a sink abandons the
   * pre-commit). A task that fails to snapshot, or a commit that fails, fails the job (this
   * throws). The final checkpoint and a stop-with-savepoint wait for their asynchronous phase
   * (nothing is processed after a stop-with-savepoint's barrier). Returns whether a checkpoint
   * completed in this turn's wait.
   */
  async turn(final = false): Promise<boolean> {
    const c = this.coordinator;
    const phase = this.asyncPhase;
    if (phase !== null) {
      if (phase.outcome === null && !final) {
        const t = performance.now();
        if (t < c.deadline!) {
          // The asynchronous phase works in the event loop's turns: give it one after every
          // ASYNC_SHARE_MS of processing, so that processing and storing share the thread
          // about evenly (a slice of the store is as long, see CheckpointStore.writeAsync).
          if (t - this.lastAsyncTurn >= ASYNC_SHARE_MS) {
            await new Promise<void>((resolve) => setImmediate(resolve));
            this.lastAsyncTurn = performance.now();
          }
          return false;
        }
        c.timeout();
      } else {
        await phase.done;
        await this.settle(phase);
      }
    }
    if ((this.host.finished && !final) || !c.due(final)) return false;
    await this.host.drainAsync();
    const p = c.trigger();
    await settledOrDeadline(this.asyncAcks, c.deadline ?? 0);
    const declined = this.declined;
    if (declined !== null) {
      this.declined = null;
      throw declined.error;
    }
    if (c.inFlight === p && this.asyncPhase === null) c.timeout();
    const started = this.asyncPhase;
    if (started === null || started.id !== p.id) return false;
    if (!final && !p.requests.some((w) => w.request.stop)) return false;
    await started.done;
    return this.settle(started);
  }

  /** The job loop ends: the checkpoint being stored completes (or is aborted) first. */
  async finish(): Promise<void> {
    const phase = this.asyncPhase;
    if (phase === null) return;
    await phase.done;
    await this.settle(phase);
  }

  /**
   * The job loop ended (`outcome`: finished, stopped, failed): a checkpoint still in flight will
   * not complete, and savepoint requests not yet served fail.
   */
  abandon(outcome: string): void {
    const c = this.coordinator.abandon();
    this.asyncPhase = null;
    if (c !== null) {
      releaseSnapshots(c.acks.values());
      for (const w of c.requests) w.reject(new Error(`the job ${outcome} before the savepoint was stored`));
    }
    for (const w of this.coordinator.takeRequests())
      w.reject(new Error(`the job ${outcome} before the savepoint was taken`));
  }

  /** See `Job.checkpoint`. */
  async checkpoint(id: number, options: { readonly copyOnWrite?: boolean }): Promise<JobCheckpoint> {
    const inFlight = this.coordinator.inFlight;
    if (inFlight !== null)
      throw new Error(
        this.asyncPhase?.id === inFlight.id
          ? `checkpoint ${inFlight.id} is still being stored`
          : `checkpoint ${inFlight.id} is still in progress`,
      );
    await this.host.drainAsync();
    this.coordinator.nextCheckpointId = id + 1;
    const triggeredAt = this.host.now();
    const acks = new Map<NodeRuntime, TaskAck>();
    const table: AckReceiver = {
      ack: (rt, ackId, ack) => {
        if (ackId !== id) return false;
        acks.set(rt, ack);
        return true;
      },
      decline: () => undefined,
    };
    await Promise.all(this.inject(id, table, { canonical: false, deferred: options.copyOnWrite === true }));
    return this.manifest(id, triggeredAt, acks);
  }

  /**
   * The checkpoint is complete and durable: every task is told, and sinks make its pre-committed
   * writes visible (commits must be idempotent: a restore re-commits its checkpoint).
   */
  async commit(cp: JobCheckpoint): Promise<void> {
    const id = cp.checkpointId;
    for (const rt of this.host.graph.tasks) {
      const uid = this.host.uid(rt);
      if (rt.kind === "source") await rt.driver.notifyComplete(id, cp.sources[uid] ?? null);
      else if (rt.kind === "sink")
        await rt.driver.notifyComplete(id, { preCommitted: cp.sinks[uid]?.preCommitted ?? null });
      else await rt.driver.notifyComplete(id, null);
    }
  }

  /**
   * Sends barrier `id` from every source — the DAG is quiescent between two pushes, so the
   * barriers of all sources form one cut — and acknowledges directly the tasks that saw no
   * barrier (their inputs all ended). Synchronous tasks acknowledge at once; the others (sinks
   * flushing and pre-committing) when their promise resolves, returned here. Acknowledgements go
   * to `to`; `canonical` and `deferred` say how states are snapshotted (see `SnapshotOptions`).
   */
  private inject(
    id: number,
    to: AckReceiver,
    snapshots: { readonly canonical: boolean; readonly deferred: boolean },
  ): Promise<TaskAck>[] {
    const graph = this.host.graph;
    this.ackReceiver = to;
    this.acked = new Set();
    const pending: Promise<TaskAck>[] = [];
    this.asyncAcks = pending;
    this.canonicalSnapshot = snapshots.canonical;
    this.deferredSnapshot = snapshots.deferred;
    try {
      for (const s of graph.sources()) s.driver.injectBarrier(id);
      for (const rt of graph.tasks) if (!this.acked.has(rt)) rt.driver.acknowledge(id);
    } finally {
      this.ackReceiver = null;
      this.canonicalSnapshot = false;
      this.deferredSnapshot = false;
    }
    return pending;
  }

  /** The asynchronous phase of `phase` settled: the coordinator completes or aborts it. */
  private async settle(phase: AsyncPhase): Promise<boolean> {
    const outcome = phase.outcome!;
    if (!outcome.ok) {
      this.coordinator.storeFailed(phase.id, outcome.error);
      return false;
    }
    await this.coordinator.stored(phase.id);
    return true;
  }

  /** Every task acknowledged `c`: it is stored (`onCheckpoint`, then the savepoint requests'). */
  private startAsyncPhase(c: Pending): void {
    const cp = this.manifest(c.id, c.triggeredAt, c.acks);
    const phase: AsyncPhase = { id: c.id, cp, stored: [], outcome: null, done: Promise.resolve() };
    phase.done = (async () => {
      await this.hooks.onCheckpoint?.(cp, c.savepoint);
      for (const w of c.requests) {
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
  }

  /**
   * `c` is stored: every task is told (sinks commit), then its savepoint requests resolve (a
   * stop-with-savepoint stops the job). A commit that fails fails them and the job.
   */
  private async completed(c: Pending): Promise<void> {
    const phase = this.asyncPhase!;
    this.asyncPhase = null;
    releaseSnapshots(c.acks.values());
    try {
      await this.commit(phase.cp);
    } catch (e) {
      for (const s of phase.stored) s.waiter.reject(asError(e));
      throw e;
    }
    for (const s of phase.stored) {
      if (s.waiter.request.stop) this.stopRequested = true;
      s.waiter.resolve(s.path);
    }
    this.lastCheckpoint = phase.cp;
  }

  /** `c` will not complete: every task is told, its savepoint requests fail, the job goes on. */
  private aborted(c: Pending, reason: string): void {
    if (this.asyncPhase?.id === c.id) this.asyncPhase = null;
    releaseSnapshots(c.acks.values());
    for (const rt of this.host.graph.tasks) rt.driver.notifyAborted(c.id);
    for (const w of c.requests)
      w.reject(new Error(`savepoint ${c.id} was aborted: ${reason}; the job goes on`));
    this.hooks.onAborted?.(c.id, reason);
  }

  /** The checkpoint `id` triggered at `triggeredAt`, from every task's acknowledgement. */
  private manifest(id: number, triggeredAt: number, acks: ReadonlyMap<NodeRuntime, TaskAck>): JobCheckpoint {
    const { graph } = this.host;
    const sources: Record<string, SourceCheckpoint> = {};
    const operators: Record<string, OperatorCheckpoint> = {};
    const sinks: Record<string, SinkCheckpoint> = {};
    for (const s of graph.sources()) sources[this.host.uid(s)] = ackOf(acks, s).own!;
    for (const rt of graph.operators()) {
      const ack = ackOf(acks, rt);
      operators[this.host.uid(rt)] = {
        state: ack.state,
        watermark: encodeNumber(ack.watermark),
        forwarded: encodeNumber(ack.forwarded),
      };
    }
    for (const s of graph.sinks()) sinks[this.host.uid(s)] = ackOf(acks, s).own!;
    const job = this.host.jobParts();
    return {
      version: JOB_CHECKPOINT_VERSION,
      jobId: job.jobId,
      checkpointId: id,
      timestamp: triggeredAt,
      planFingerprint: job.planFingerprint,
      layout: job.layout,
      dagVersion: job.dagVersion,
      stateVersion: STATE_SNAPSHOT_VERSION,
      sources,
      operators,
      sinks,
      metrics: job.metrics,
      pollCursor: job.pollCursor ?? 0,
    };
  }
}

/** A {@link SavepointRequest} waiting for its checkpoint. */
interface SavepointWaiter {
  readonly request: SavepointRequest;
  resolve(path: string): void;
  reject(error: Error): void;
}

/** The job's triggered checkpoints, as the coordinator hands them over. */
type Pending = PendingCheckpoint<NodeRuntime, TaskAck, SavepointWaiter>;

/** Where the acknowledgements of a checkpoint go (the coordinator, or `checkpoint`'s table). */
interface AckReceiver {
  /** False: not taken (the caller releases its snapshot). */
  ack(rt: NodeRuntime, id: number, ack: TaskAck): boolean;
  decline(rt: NodeRuntime, id: number, cause: unknown): void;
}

/** An acknowledged checkpoint being stored while the job goes on (its asynchronous phase). */
interface AsyncPhase {
  readonly id: number;
  readonly cp: JobCheckpoint;
  /** The savepoint requests stored so far, resolved once the checkpoint completes. */
  readonly stored: { readonly waiter: SavepointWaiter; readonly path: string }[];
  /** Null while it runs. */
  outcome: { readonly ok: true } | { readonly ok: false; readonly error: unknown } | null;
  /** Resolves (never rejects) when it settled. */
  done: Promise<void>;
}

/** The acknowledgement of `rt` in `acks`, its own part typed by the task's kind. */
function ackOf<R extends NodeRuntime>(acks: ReadonlyMap<NodeRuntime, TaskAck>, rt: R): AckOf<R> {
  const ack = acks.get(rt);
  if (ack === undefined)
    throw new Error(`checkpoint without the acknowledgement of ${describeNode(rt.node)}`);
  return ack as AckOf<R>;
}

/** Ends the copy-on-write of the acknowledgements' deferred snapshots (written, or never to be). */
function releaseSnapshots(acks: Iterable<TaskAck>): void {
  for (const ack of acks) if (isDeferredSnapshot(ack.state)) ack.state.release();
}

function asError(e: unknown): Error {
  return e instanceof Error ? e : new Error(String(e));
}

/**
 * Waits until every acknowledgement in `waiting` settled, or one failed, or the real clock
 * (`performance.now()`) reached `deadline`: a hung acknowledgement advances no job clock.
 */
function settledOrDeadline(waiting: readonly Promise<unknown>[], deadline: number): Promise<void> {
  if (waiting.length === 0) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(done, Math.max(0, deadline - performance.now()));
    // The coordinator hears of each acknowledgement first: its handlers were registered earlier.
    Promise.all(waiting).then(done, done);
    function done(): void {
      clearTimeout(timer);
      resolve();
    }
  });
}
