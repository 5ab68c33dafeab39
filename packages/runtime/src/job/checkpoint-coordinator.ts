import type { MetricGroup } from "../task.js";
import type { CheckpointConfig } from "./checkpoint-config.js";

/**
 * The checkpoint coordinator (Flink's CheckpointCoordinator, for one checkpoint at a time): when
 * to trigger, which tasks still owe an acknowledgement, when a checkpoint is complete, aborted or
 * failed, and its history and counters. It is a synchronous state machine with no job in it:
 * the job — or, later, a coordinator thread talking to subtasks over messages — feeds it the
 * inputs and carries out its outputs (the {@link CoordinatorPort}).
 *
 * ```
 *  inputs                                   outputs (port)
 *  trigger() ───────────────────────────►  injectBarriers(c)
 *  ack(task, id, payload) × every task ──►  store(c)                (the asynchronous phase)
 *  stored(id) ──────────────────────────►  notifyComplete(c)        (sinks commit)
 *  storeFailed(id, cause) | timeout() ──►  notifyAborted(c, reason) (the job goes on)
 *  decline(task, id, cause) ────────────►  declined(c, task, cause) (the job fails)
 * ```
 *
 * Invariants: at most one checkpoint is in flight (Flink's max-concurrent-checkpoints 1); ids
 * grow by one from {@link CheckpointCoordinator.nextCheckpointId}; a checkpoint ends exactly once
 * (completed, aborted or declined) and inputs about a checkpoint that ended, or another one, are
 * ignored (`ack` says so, so that the caller can release what the payload holds). A checkpoint is
 * due when `'execution.checkpointing.interval'` passed since the last trigger and
 * `'execution.checkpointing.min-pause'` since the last one ended, or at once when a savepoint is
 * requested; `'execution.checkpointing.timeout'` counts from the trigger on the real clock (a hung
 * acknowledgement advances no job clock), interval and min-pause on the job's clock.
 *
 * Nothing here assumes one thread: with subtasks elsewhere, `tasks` are the subtasks,
 * `injectBarriers` posts to the source subtasks, and their acknowledgements and declines come
 * back as messages fed to `ack` / `decline`. Every failed checkpoint passes through `abort`
 * (counted in `aborted`, recorded with its reason) or `decline`: the one place where a
 * tolerance of failed checkpoints would count them and fail the job past it.
 */
export class CheckpointCoordinator<T, A extends Acknowledgement, R = never> {
  /** The id the next checkpoint gets. */
  nextCheckpointId = 1;
  /** Checkpoints completed and aborted since {@link start} (declined ones fail the job). */
  completed = 0;
  aborted = 0;
  /** The last {@link CHECKPOINT_HISTORY} checkpoints that ended, oldest first. */
  readonly history: CheckpointRecord[] = [];
  private current: InFlight<T, A, R> | null = null;
  /** Barriers are being injected: acknowledgements are recorded, completion is checked after. */
  private injecting = false;
  private lastTrigger = Number.NEGATIVE_INFINITY;
  private lastEnd = Number.NEGATIVE_INFINITY;
  private requests: R[] = [];
  private readonly now: () => number;
  private readonly realNow: () => number;
  private readonly tasks: ReadonlySet<T>;

  constructor(private readonly options: CoordinatorOptions<T, A, R>) {
    this.now = options.now;
    this.realNow = options.realNow ?? (() => performance.now());
    this.tasks = new Set(options.tasks);
  }

  /** The run starts: the first checkpoint is due an interval from now (min-pause does not hold it). */
  start(): void {
    this.lastTrigger = this.now();
    this.lastEnd = Number.NEGATIVE_INFINITY;
    this.completed = 0;
    this.aborted = 0;
  }

  /** The checkpoint in flight, or null. */
  get inFlight(): PendingCheckpoint<T, A, R> | null {
    return this.current;
  }

  /** When the checkpoint in flight times out (real clock), or null. */
  get deadline(): number | null {
    return this.current === null ? null : this.current.triggeredReal + this.options.config.timeoutMs;
  }

  /** Queues a savepoint request: the next checkpoint is due at once and serves it. */
  requestSavepoint(request: R): void {
    this.requests.push(request);
  }

  /** The job ended: the savepoint requests no checkpoint took (the caller rejects them). */
  takeRequests(): R[] {
    return this.requests.splice(0);
  }

  /**
   * Whether a checkpoint should be triggered now: none in flight, and a savepoint requested, or
   * periodic checkpoints on and their interval and min-pause passed (`force`: a final checkpoint,
   * which waits for neither).
   */
  due(force = false): boolean {
    if (this.current !== null) return false;
    const savepoint = this.requests.length > 0;
    const { intervalMs, minPauseMs } = this.options.config;
    if (intervalMs <= 0 && !savepoint) return false;
    if (force || savepoint) return true;
    const now = this.now();
    return now - this.lastTrigger >= intervalMs && now - this.lastEnd >= minPauseMs;
  }

  /**
   * Triggers the next checkpoint (check {@link due} first): it serves every savepoint request
   * queued so far. Acknowledgements may arrive while the barriers are injected; the checkpoint
   * goes to `store` once the last one is in (here already, when every task acknowledged at once).
   * If injecting throws, the checkpoint never was: its requests go back to the queue.
   */
  trigger(): PendingCheckpoint<T, A, R> {
    if (this.current !== null) throw new Error(`checkpoint ${this.current.id} is still in flight`);
    const requests = this.requests.splice(0);
    const c: InFlight<T, A, R> = {
      id: this.nextCheckpointId++,
      triggeredAt: this.now(),
      triggeredReal: this.realNow(),
      requests,
      savepoint: requests.length > 0,
      acks: new Map(),
      phase: "acknowledging",
      storingSince: 0,
    };
    this.current = c;
    this.lastTrigger = c.triggeredAt;
    this.injecting = true;
    try {
      this.options.port.injectBarriers(c);
    } catch (e) {
      if (this.current === c) this.current = null;
      this.requests.unshift(...requests);
      throw e;
    } finally {
      this.injecting = false;
    }
    if (this.current === c) this.acknowledged(c);
    return c;
  }

  /**
   * `task` acknowledged checkpoint `id` with `payload`. False when the coordinator does not take
   * it (another checkpoint, one that ended, a task that acknowledged already or is not one of
   * the job's): the payload is the caller's to release.
   */
  ack(task: T, id: number, payload: A): boolean {
    const c = this.current;
    if (c === null || c.id !== id || c.phase !== "acknowledging") return false;
    if (c.acks.has(task) || !this.tasks.has(task)) return false;
    c.acks.set(task, payload);
    if (!this.injecting) this.acknowledged(c);
    return true;
  }

  /** `task` failed to snapshot checkpoint `id` (e.g. a sink's pre-commit threw). */
  decline(task: T, id: number, cause: unknown): void {
    const c = this.current;
    if (c === null || c.id !== id || c.phase !== "acknowledging") return;
    this.current = null;
    this.options.port.declined(c, task, cause);
  }

  /**
   * The checkpoint in flight ran out of `'execution.checkpointing.timeout'` (the caller's timer,
   * or its check of {@link deadline}): it is aborted, naming what it waited for.
   */
  timeout(): void {
    const c = this.current;
    if (c === null) return;
    const ms = this.options.config.timeoutMs;
    if (c.phase === "storing") {
      this.abort(c, `not stored within ${ms} ms`);
      return;
    }
    const missing = this.options.tasks.filter((t) => !c.acks.has(t)).map(this.options.describe);
    this.abort(c, `not acknowledged within ${ms} ms by ${missing.join(", ")}`);
  }

  /**
   * Checkpoint `id` is stored durably: it is complete, and `notifyComplete` tells the tasks
   * (whatever that returns, for the caller to wait on). Nothing happens for another id.
   */
  stored(id: number): void | Promise<void> {
    const c = this.current;
    if (c === null || c.id !== id || c.phase !== "storing") return;
    this.current = null;
    const end = this.now();
    this.lastEnd = end;
    this.completed++;
    const asyncMs = end - c.storingSince;
    const alignmentMs = alignmentOf(c);
    const m = this.options.metrics;
    m?.counter("numberOfCompletedCheckpoints").inc();
    m?.histogram("checkpointDurationMs").update(end - c.triggeredAt);
    m?.histogram("checkpointAlignmentMs").update(alignmentMs);
    m?.histogram("checkpointAsyncDurationMs").update(asyncMs);
    this.record({
      id: c.id,
      triggeredAt: c.triggeredAt,
      status: "completed",
      durationMs: end - c.triggeredAt,
      alignmentMs,
      savepoint: c.savepoint,
      asyncMs,
    });
    return this.options.port.notifyComplete(c);
  }

  /** Storing checkpoint `id` failed: it is aborted. */
  storeFailed(id: number, cause: unknown): void {
    const c = this.current;
    if (c === null || c.id !== id || c.phase !== "storing") return;
    this.abort(c, `it could not be stored: ${cause instanceof Error ? cause.message : String(cause)}`);
  }

  /**
   * The job ends (or fails) with a checkpoint in flight: it will not complete and nothing is told;
   * returns it, for the caller to release what it holds.
   */
  abandon(): PendingCheckpoint<T, A, R> | null {
    const c = this.current;
    this.current = null;
    return c;
  }

  /** Every task acknowledged `c`: its asynchronous phase begins. */
  private acknowledged(c: InFlight<T, A, R>): void {
    if (c.acks.size < this.tasks.size) return;
    c.phase = "storing";
    c.storingSince = this.now();
    this.options.port.store(c);
  }

  private abort(c: InFlight<T, A, R>, reason: string): void {
    this.current = null;
    const end = this.now();
    this.lastEnd = end;
    this.aborted++;
    this.options.metrics?.counter("numberOfFailedCheckpoints").inc();
    this.record({
      id: c.id,
      triggeredAt: c.triggeredAt,
      status: "aborted",
      durationMs: end - c.triggeredAt,
      alignmentMs: alignmentOf(c),
      savepoint: c.savepoint,
      reason,
    });
    this.options.port.notifyAborted(c, reason);
  }

  private record(r: CheckpointRecord): void {
    this.history.push(r);
    if (this.history.length > CHECKPOINT_HISTORY) this.history.shift();
  }
}

/** How many checkpoint records a coordinator keeps. */
export const CHECKPOINT_HISTORY = 100;

/** What every acknowledgement tells the coordinator, whatever else it carries. */
export interface Acknowledgement {
  /** The barrier alignment at the task: its first barrier on any input to its last (ms). */
  readonly alignmentMs: number;
}

/** A triggered checkpoint, as the coordinator's outputs see it. */
export interface PendingCheckpoint<T, A, R> {
  readonly id: number;
  /** When it was triggered (the job's clock, epoch ms). */
  readonly triggeredAt: number;
  /** The savepoint requests it serves; it is a savepoint when there is one. */
  readonly requests: readonly R[];
  readonly savepoint: boolean;
  /** The acknowledgements received so far, by task (all of them from `store` on). */
  readonly acks: ReadonlyMap<T, A>;
}

interface InFlight<T, A, R> extends PendingCheckpoint<T, A, R> {
  readonly triggeredReal: number;
  readonly acks: Map<T, A>;
  phase: "acknowledging" | "storing";
  /** When the asynchronous phase began (job clock). */
  storingSince: number;
}

/**
 * What the coordinator asks for. In one thread the job does each at once; with subtasks in other
 * threads these become messages, and their answers come back as the coordinator's inputs.
 */
export interface CoordinatorPort<T, A, R> {
  /**
   * Starts checkpoint `c.id`: every source records its position and sends the barrier; tasks
   * whose inputs all ended acknowledge directly. `c.savepoint`: snapshots in the canonical form.
   */
  injectBarriers(c: PendingCheckpoint<T, A, R>): void;
  /** Every task acknowledged `c`: store it (and its savepoint requests'), then report `stored` or `storeFailed`. */
  store(c: PendingCheckpoint<T, A, R>): void;
  /** `c` is complete: every task is told (sinks commit); a promise to wait for, if any. */
  notifyComplete(c: PendingCheckpoint<T, A, R>): void | Promise<void>;
  /** `c` will not complete (`reason`, e.g. a timeout): every task is told, its requests fail; the job goes on. */
  notifyAborted(c: PendingCheckpoint<T, A, R>, reason: string): void;
  /** `task` failed to snapshot `c`: the job fails with `cause` (not counted as an abort). */
  declined(c: PendingCheckpoint<T, A, R>, task: T, cause: unknown): void;
}

export interface CoordinatorOptions<T, A, R> {
  /** The checkpoint settings it honours (from `checkpointConfig`). */
  readonly config: Pick<CheckpointConfig, "intervalMs" | "timeoutMs" | "minPauseMs">;
  /** Every task that acknowledges each checkpoint. */
  readonly tasks: readonly T[];
  readonly port: CoordinatorPort<T, A, R>;
  /** The job's clock (interval, min-pause, the history's times), epoch ms. */
  readonly now: () => number;
  /** The real clock of the timeout (ms, monotonic); default `performance.now`. */
  readonly realNow?: () => number;
  /** A task as messages name it (`sink 'out' (node 5)`). */
  readonly describe: (task: T) => string;
  /**
   * Where the coordinator counts: `numberOfCompletedCheckpoints`, `numberOfFailedCheckpoints`,
   * and the histograms `checkpointDurationMs`, `checkpointAlignmentMs`, `checkpointAsyncDurationMs`.
   */
  readonly metrics?: MetricGroup;
}

/** One checkpoint that ended, for the job page's history. */
export interface CheckpointRecord {
  readonly id: number;
  /** When it was triggered (epoch ms of the job clock). */
  readonly triggeredAt: number;
  readonly status: "completed" | "aborted";
  /** Trigger to stored (completed) or to the abort, in ms of the job clock. */
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

function alignmentOf(c: PendingCheckpoint<unknown, Acknowledgement, unknown>): number {
  let ms = 0;
  for (const a of c.acks.values()) if (a.alignmentMs > ms) ms = a.alignmentMs;
  return ms;
}
