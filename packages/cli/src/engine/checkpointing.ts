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
      restore: restored,
    },
  };
}

/** The bytes each checkpoint written by {@link checkpointJobOptions} takes on disk (for the metrics). */
const storedBytes = new WeakMap<JobCheckpoint, number>();

/** The size on disk (manifest and state files) of a checkpoint this process stored, if it did. */
export function checkpointBytes(cp: JobCheckpoint): number | undefined {
  return storedBytes.get(cp);
}

function directoryBytes(path: string): number {
  let n = 0;
  for (const f of readdirSync(path)) n += statSync(join(path, f)).size;
  return n;
}

/** The job options that take and restore checkpoints as `plan` says. */
export function checkpointJobOptions(plan: CheckpointPlan): Pick<JobOptions, "checkpoint" | "restoreFrom"> {
  const store = plan.store;
  return {
    ...(store
      ? {
          checkpoint: {
            intervalMs: plan.intervalMs,
            onCheckpoint: async (cp: JobCheckpoint) => {
              const stored = store.write(cp);
              storedBytes.set(cp, directoryBytes(stored.path));
            },
          },
        }
      : {}),
    ...(plan.restore ? { restoreFrom: plan.restore.checkpoint } : {}),
  };
}
