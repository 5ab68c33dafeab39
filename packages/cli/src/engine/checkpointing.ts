import { readdirSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import {
  CHECKPOINT_SETTINGS,
  type CheckpointConfig,
  type CheckpointFit,
  CheckpointStore,
  checkpointConfig,
  type JobCheckpoint,
  type JobOptions,
  readCheckpoint,
  type SavepointRequest,
  stateBackendFactory,
} from "@weir/runtime";

/** What `weir run` does about checkpoints, from the settings and `--restore`. */
export interface CheckpointPlan {
  /** The checkpoint settings, read once: the job takes its checkpoints as they say. */
  readonly config: CheckpointConfig;
  /** Where completed checkpoints go, or null when checkpointing is off. */
  readonly store: CheckpointStore | null;
  /** Where savepoints go (`'execution.checkpointing.savepoint-dir'`; never expired), or null. */
  readonly savepoints: CheckpointStore | null;
  /** The checkpoint to restore and its `chk-N` directory. */
  readonly restore: { readonly checkpoint: JobCheckpoint; readonly path: string } | null;
}

/** The settings error or the plan; the message is a user's to fix (exit code 1). */
export type CheckpointPlanResult =
  | { readonly ok: true; readonly plan: CheckpointPlan }
  | { readonly ok: false; readonly message: string };

/**
 * Reads Flink's checkpoint settings through the runtime's `checkpointConfig` (interval, timeout,
 * min-pause, mode, max-concurrent-checkpoints, num-retained, dir; a wrong value names its option),
 * checks `'state.backend.type'`, and reads the checkpoint of `restore`: a `chk-N` directory, a
 * job directory, or a base directory shared by several jobs, of which the newest complete
 * checkpoint that `fits` this job is used.
 */
export function planCheckpoints(
  settings: Readonly<Record<string, string>>,
  restore: string | undefined,
  /** Relative directories resolve against it. */
  cwd: string,
  fits?: CheckpointFit,
): CheckpointPlanResult {
  const fail = (message: string): CheckpointPlanResult => ({ ok: false, message });
  let config: CheckpointConfig;
  try {
    stateBackendFactory(settings);
    config = checkpointConfig(settings);
  } catch (e) {
    return fail((e as Error).message);
  }
  const { interval, dir: DIR } = CHECKPOINT_SETTINGS;
  if (config.intervalMs > 0 && config.dir === null)
    return fail(
      `'${interval}' = '${settings[interval]}' needs a checkpoint directory: SET '${DIR}' = '/path/to/checkpoints' (or --set ${DIR}=PATH)`,
    );
  let restored: CheckpointPlan["restore"] = null;
  if (restore !== undefined) {
    try {
      restored = readCheckpoint(resolve(cwd, restore), fits);
    } catch (e) {
      return fail((e as Error).message);
    }
  }
  return {
    ok: true,
    plan: {
      config,
      store:
        config.intervalMs > 0 ? new CheckpointStore(resolve(cwd, config.dir!), config.numRetained) : null,
      savepoints:
        config.savepointDir === null
          ? null
          : new CheckpointStore(resolve(cwd, config.savepointDir), Number.MAX_SAFE_INTEGER),
      restore: restored,
    },
  };
}

/** The bytes each checkpoint written by {@link checkpointJobOptions} takes on disk (for the metrics). */
const storedBytes = new WeakMap<JobCheckpoint, number>();
const storedStateBytes = new WeakMap<JobCheckpoint, { readonly [uid: string]: number }>();

/** The size on disk (manifest and state files) of a checkpoint this process stored, if it did. */
export function checkpointBytes(cp: JobCheckpoint): number | undefined {
  return storedBytes.get(cp);
}

/**
 * The bytes of the on-disk backend's native files that checkpoint `cp` wrote (its base or delta
 * per task, in `<job>/shared/`; the files it shares with earlier checkpoints are not counted).
 */
function sharedBytesWritten(cp: JobCheckpoint): number {
  let n = 0;
  for (const oc of Object.values(cp.operators))
    for (const f of oc.state.native?.files ?? [])
      if (new RegExp(`-${cp.checkpointId}-(base|delta)-[0-9a-f]+\\.state$`).test(f.file)) n += f.bytes;
  return n;
}

/** The bytes of each operator's state file (by task uid) of a checkpoint this process stored. */
export function checkpointStateBytes(cp: JobCheckpoint): { readonly [uid: string]: number } | undefined {
  return storedStateBytes.get(cp);
}

function directoryBytes(path: string): number {
  let n = 0;
  for (const f of readdirSync(path)) n += statSync(join(path, f)).size;
  return n;
}

/** What a savepoint request asks for. */
export interface SavepointAsk {
  /** The job to take it of (a request naming another job is refused); default: the running one. */
  readonly jobId?: string;
  /** Where it goes (an absolute path); default: the job's `'execution.checkpointing.savepoint-dir'`. */
  readonly dir?: string;
  /** Stop the job right after it (STOP JOB ... WITH SAVEPOINT, `weir savepoint --stop`). */
  readonly stop?: boolean;
}

/** The job a {@link SavepointRequests} is attached to. */
interface AttachedJob {
  readonly jobId: string;
  readonly take: (request: SavepointRequest) => Promise<string>;
  /** The job's configured savepoint directory, or null. */
  readonly configured: CheckpointStore | null;
}

/**
 * The savepoint requests of one `weir run` (SIGUSR1, `weir savepoint`) or one shell job (STOP
 * JOB ... WITH SAVEPOINT): the job running under {@link checkpointJobOptions} attaches itself
 * while it runs. A savepoint is a checkpoint written to `<dir>/<job id>/chk-N`, never expired.
 */
export class SavepointRequests {
  private job: AttachedJob | null = null;

  /** Told the path of every savepoint taken (e.g. to print it). */
  constructor(private readonly onSavepoint?: (path: string) => void) {}

  /** The running job's id, or null. */
  get jobId(): string | null {
    return this.job?.jobId ?? null;
  }

  /** For {@link checkpointJobOptions}: the job is running; returns the detach function. */
  attach(job: AttachedJob): () => void {
    this.job = job;
    return () => {
      if (this.job === job) this.job = null;
    };
  }

  /**
   * Takes a savepoint of the running job and resolves with its `chk-N` path once its sinks
   * committed it; rejects with a message a user can act on (no job running, no savepoint
   * directory, the checkpoint aborted or the job ended first).
   */
  async take(ask: SavepointAsk = {}): Promise<string> {
    const job = this.job;
    if (job === null) throw new Error("no job is running (it is still starting, or it has ended)");
    if (ask.jobId !== undefined && ask.jobId !== job.jobId)
      throw new Error(`the running job is ${job.jobId}, not ${ask.jobId}`);
    const store =
      ask.dir !== undefined ? new CheckpointStore(ask.dir, Number.MAX_SAFE_INTEGER) : job.configured;
    if (store === null)
      throw new Error(
        "no savepoint directory: set 'execution.checkpointing.savepoint-dir' (or name one: weir savepoint --dir DIR)",
      );
    const path = await job.take({
      store: async (cp) => (await store.writeAsync(cp)).path,
      ...(ask.stop ? { stop: true } : {}),
    });
    this.onSavepoint?.(path);
    return path;
  }
}

/**
 * The job options that take and restore checkpoints as `plan` says (its `config`: the job reads
 * no checkpoint setting of its own). With `savepoints`, the job takes savepoints on request
 * (written to the savepoint directory, never expired, and to the checkpoint directory as well,
 * so that the latest checkpoint is never older than what the sinks committed).
 */
export function checkpointJobOptions(
  plan: CheckpointPlan,
  savepoints?: SavepointRequests,
): Pick<JobOptions, "checkpointConfig" | "checkpoint" | "restoreFrom"> {
  const store = plan.store;
  return {
    checkpointConfig: plan.config,
    ...(store || savepoints
      ? {
          checkpoint: {
            // State is written by writeAsync below (and by the savepoint requests'), never kept.
            copyOnWrite: true,
            onCheckpoint: async (cp: JobCheckpoint) => {
              // In slices, while the job goes on (the checkpoint's asynchronous phase).
              const stored = await store?.writeAsync(cp);
              if (stored !== undefined) {
                storedBytes.set(cp, directoryBytes(stored.path) + sharedBytesWritten(cp));
                if (stored.stateBytes) storedStateBytes.set(cp, stored.stateBytes);
              }
            },
            ...(savepoints
              ? {
                  savepointRequests: {
                    subscribe: (take: AttachedJob["take"], job: { readonly jobId: string }) =>
                      savepoints.attach({ jobId: job.jobId, take, configured: plan.savepoints }),
                  },
                }
              : {}),
          },
        }
      : {}),
    ...(plan.restore ? { restoreFrom: plan.restore.checkpoint } : {}),
  };
}
