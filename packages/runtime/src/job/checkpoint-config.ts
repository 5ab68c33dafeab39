import { parseDuration } from "@weir/planner";

/**
 * Flink's checkpoint settings, as the job's checkpoint coordinator honours them. Every one that
 * is set is checked; a value Weir cannot honour is an error naming the option.
 */
export interface CheckpointConfig {
  /** `'execution.checkpointing.interval'`: a barrier this often (0: no checkpoints). */
  readonly intervalMs: number;
  /** `'execution.checkpointing.timeout'` (default 10 min): a checkpoint not acknowledged by every task in time is aborted. */
  readonly timeoutMs: number;
  /** `'execution.checkpointing.min-pause'` (default 0): the least time from the end of one checkpoint to the start of the next. */
  readonly minPauseMs: number;
  /** `'execution.checkpointing.mode'`: EXACTLY_ONCE (aligned barriers, default) or AT_LEAST_ONCE. */
  readonly mode: "EXACTLY_ONCE" | "AT_LEAST_ONCE";
  /** `'state.checkpoints.num-retained'` / `'execution.checkpointing.num-retained'` (default 1). */
  readonly numRetained: number;
  /** `'execution.checkpointing.dir'` / `'state.checkpoints.dir'`, as written (relative to the script), or null. */
  readonly dir: string | null;
  /** `'execution.checkpointing.savepoint-dir'` / `'state.savepoints.dir'`, as written, or null. */
  readonly savepointDir: string | null;
}

export const CHECKPOINT_SETTINGS = {
  interval: "execution.checkpointing.interval",
  timeout: "execution.checkpointing.timeout",
  minPause: "execution.checkpointing.min-pause",
  mode: "execution.checkpointing.mode",
  maxConcurrent: "execution.checkpointing.max-concurrent-checkpoints",
  numRetained: "state.checkpoints.num-retained",
  numRetainedNew: "execution.checkpointing.num-retained",
  dir: "execution.checkpointing.dir",
  dirOld: "state.checkpoints.dir",
  savepointDir: "execution.checkpointing.savepoint-dir",
  savepointDirOld: "state.savepoints.dir",
} as const;

const DEFAULT_TIMEOUT_MS = 10 * 60_000;

/** Reads and checks the checkpoint settings; throws a message naming the option that is wrong. */
export function checkpointConfig(settings: Readonly<Record<string, string>>): CheckpointConfig {
  const S = CHECKPOINT_SETTINGS;
  const duration = (key: string, dflt: number): number => {
    const text = settings[key];
    if (text === undefined) return dflt;
    const ms = parseDuration(text);
    if (ms === undefined || ms < 0)
      throw new Error(`'${key}' expects a duration such as 10 s or 1 min, got '${text}'`);
    return ms;
  };
  const intervalMs = duration(S.interval, 0);
  const timeoutMs = duration(S.timeout, DEFAULT_TIMEOUT_MS);
  if (timeoutMs === 0) throw new Error(`'${S.timeout}' must be positive, got '${settings[S.timeout]}'`);
  const minPauseMs = duration(S.minPause, 0);
  const modeText = settings[S.mode];
  const mode = (modeText ?? "EXACTLY_ONCE").trim().toUpperCase().replace("-", "_");
  if (mode !== "EXACTLY_ONCE" && mode !== "AT_LEAST_ONCE")
    throw new Error(`'${S.mode}' expects EXACTLY_ONCE or AT_LEAST_ONCE, got '${modeText}'`);
  const concurrent = settings[S.maxConcurrent];
  if (concurrent !== undefined && concurrent.trim() !== "1")
    throw new Error(
      `'${S.maxConcurrent}' = '${concurrent}': Weir runs one checkpoint at a time (1, Flink's default); remove the setting or set it to 1`,
    );
  const retained = (key: string): number | undefined => {
    const text = settings[key];
    if (text === undefined) return undefined;
    const n = /^\s*\d+\s*$/.test(text) ? Number(text) : Number.NaN;
    if (!(n >= 1)) throw new Error(`'${key}' expects a positive integer, got '${text}'`);
    return n;
  };
  const a = retained(S.numRetained);
  const b = retained(S.numRetainedNew);
  if (a !== undefined && b !== undefined && a !== b)
    throw new Error(`'${S.numRetained}' = ${a} and '${S.numRetainedNew}' = ${b} disagree; set one of them`);
  const dirA = settings[S.dir]?.trim() || undefined;
  const dirB = settings[S.dirOld]?.trim() || undefined;
  if (dirA !== undefined && dirB !== undefined && dirA !== dirB)
    throw new Error(`'${S.dir}' = '${dirA}' and '${S.dirOld}' = '${dirB}' disagree; set one of them`);
  const spA = settings[S.savepointDir]?.trim() || undefined;
  const spB = settings[S.savepointDirOld]?.trim() || undefined;
  if (spA !== undefined && spB !== undefined && spA !== spB)
    throw new Error(
      `'${S.savepointDir}' = '${spA}' and '${S.savepointDirOld}' = '${spB}' disagree; set one of them`,
    );
  return {
    intervalMs,
    timeoutMs,
    minPauseMs,
    mode,
    numRetained: a ?? b ?? 1,
    dir: dirA ?? dirB ?? null,
    savepointDir: spA ?? spB ?? null,
  };
}
