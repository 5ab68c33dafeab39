import { resolve } from "node:path";
import { parseDuration } from "@weir/planner";
import {
  CheckpointStore,
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

const INTERVAL = "execution.checkpointing.interval";
const DIR = "execution.checkpointing.dir";
const RETAINED = "execution.checkpointing.num-retained";

/**
 * Reads Flink's checkpoint settings: `'execution.checkpointing.interval'` (a duration; 0 or absent
 * = off), `'execution.checkpointing.dir'` (required when the interval is set),
 * `'execution.checkpointing.num-retained'` (default 1); and reads the checkpoint of `restore` (a
 * `chk-N` directory, or a base directory whose newest complete checkpoint is used).
 */
export function planCheckpoints(
  settings: Readonly<Record<string, string>>,
  restore: string | undefined,
  /** Relative directories resolve against it. */
  cwd: string,
): CheckpointPlanResult {
  const fail = (message: string): CheckpointPlanResult => ({ ok: false, message });
  try {
    stateBackendFactory(settings);
  } catch (e) {
    return fail((e as Error).message);
  }
  const intervalText = settings[INTERVAL];
  const intervalMs = intervalText === undefined ? 0 : parseDuration(intervalText);
  if (intervalMs === undefined)
    return fail(`'${INTERVAL}' expects a duration such as 10 s or 1 min, got '${intervalText}'`);
  const retainedText = settings[RETAINED] ?? "1";
  const retained = /^\s*\d+\s*$/.test(retainedText) ? Number(retainedText) : Number.NaN;
  if (!(retained >= 1)) return fail(`'${RETAINED}' expects a positive integer, got '${retainedText}'`);
  const dir = settings[DIR]?.trim();
  if (intervalMs > 0 && (dir === undefined || dir === ""))
    return fail(
      `'${INTERVAL}' = '${intervalText}' needs a checkpoint directory: SET '${DIR}' = '/path/to/checkpoints' (or --set ${DIR}=PATH)`,
    );
  let restored: CheckpointPlan["restore"] = null;
  if (restore !== undefined) {
    try {
      restored = readCheckpoint(resolve(cwd, restore));
    } catch (e) {
      return fail((e as Error).message);
    }
  }
  return {
    ok: true,
    plan: {
      store: intervalMs > 0 ? new CheckpointStore(resolve(cwd, dir!), retained) : null,
      intervalMs,
      restore: restored,
    },
  };
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
              store.write(cp);
            },
          },
        }
      : {}),
    ...(plan.restore ? { restoreFrom: plan.restore.checkpoint } : {}),
  };
}
