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
  stateBackendFactory,
} from "@weir/runtime";

/** What `weir run` does about checkpoints, from the settings and `--restore`. */
export interface CheckpointPlan {
  /** Where completed checkpoints go, or null when checkpointing is off. */
  readonly store: CheckpointStore | null;
  readonly intervalMs: number;
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
      store:
        config.intervalMs > 0 ? new CheckpointStore(resolve(cwd, config.dir!), config.numRetained) : null,
      intervalMs: config.intervalMs,
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

/** The bytes of each operator's state file (by task uid) of a checkpoint this process stored. */
export function checkpointStateBytes(cp: JobCheckpoint): { readonly [uid: string]: number } | undefined {
  return storedStateBytes.get(cp);
}

function directoryBytes(path: string): number {
  let n = 0;
  for (const f of readdirSync(path)) n += statSync(join(path, f)).size;
  return n;
}

/** Savepoint requests: `weir run` emits one on SIGUSR1; the running job subscribes. */
export class SavepointRequests {
  private readonly listeners = new Set<() => void>();
  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
  /** Asks every running job for a savepoint; false when none listens. */
  request(): boolean {
    for (const l of this.listeners) l();
    return this.listeners.size > 0;
  }
}

/**
 * The job options that take and restore checkpoints as `plan` says. A savepoint (requested
 * through `savepoints`) is a checkpoint written to the savepoint directory, never expired, as
 * well as to the checkpoint directory (so that the latest checkpoint is never older than what
 * the sinks committed); `onSavepoint` is told where it went.
 */
export function checkpointJobOptions(
  plan: CheckpointPlan,
  savepoints?: { readonly requests: SavepointRequests; onSavepoint(path: string): void },
): Pick<JobOptions, "checkpoint" | "restoreFrom"> {
  const store = plan.store;
  const spStore = plan.savepoints;
  const takesSavepoints = spStore !== null && savepoints !== undefined;
  return {
    ...(store || takesSavepoints
      ? {
          checkpoint: {
            intervalMs: plan.intervalMs,
            onCheckpoint: async (cp: JobCheckpoint, savepoint: boolean) => {
              const stored = store?.write(cp);
              if (stored !== undefined) {
                storedBytes.set(cp, directoryBytes(stored.path));
                if (stored.stateBytes) storedStateBytes.set(cp, stored.stateBytes);
              }
              if (savepoint && spStore !== null) savepoints?.onSavepoint(spStore.write(cp).path);
            },
            ...(takesSavepoints ? { savepointRequests: savepoints.requests } : {}),
          },
        }
      : {}),
    ...(plan.restore ? { restoreFrom: plan.restore.checkpoint } : {}),
  };
}
