import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { Clock } from "../time/watermarks.js";
import type { StateBackend } from "./api.js";
import { DEFAULT_MAX_DELTAS, DiskStateBackend } from "./disk.js";
import { MemoryStateBackend } from "./memory.js";

/** The setting that picks the state backend (Flink's name). */
export const STATE_BACKEND_SETTING = "state.backend.type";

/** The settings the state backends read. */
export const STATE_SETTINGS = {
  type: STATE_BACKEND_SETTING,
  /** Flink's: `'execution.checkpointing.incremental'` (and the older `'state.backend.incremental'`). */
  incremental: "execution.checkpointing.incremental",
  incrementalOld: "state.backend.incremental",
  /** Flink's RocksDB option: where the on-disk backend keeps its working files. */
  localDir: "state.backend.rocksdb.localdir",
  /** Weir's: decoded values cached in memory per state table of the on-disk backend. */
  cacheEntries: "weir.state.cache-entries",
  /** Weir's: the cache's bound in bytes per state table (at the table's mean record size). */
  cacheBytes: "weir.state.cache-bytes",
  /** Weir's: after this many incremental deltas, the next checkpoint writes a new base. */
  maxDeltas: "weir.state.incremental.max-deltas",
} as const;

/** Where a task's backend runs: the job and task it belongs to, and the job's checkpoint directory. */
export interface StateBackendScope {
  readonly jobId: string;
  /** The task's stable uid (names its directory and checkpoint files). */
  readonly taskId: string;
  /** `<checkpoint dir>/<job id>`, absolute, or null when the job has no checkpoint directory. */
  readonly checkpointDir: string | null;
  /** Relative directories in the settings resolve against it. */
  readonly cwd?: string;
}

export type StateBackendFactory = (clock: Clock, scope?: StateBackendScope) => StateBackend;

type Settings = Readonly<Record<string, string>>;

/**
 * State backends by `'state.backend.type'` name: `hashmap` (Flink's default; `memory` is an
 * alias) keeps state in memory; `rocksdb` (Flink's name for its on-disk backend; `disk` and
 * `lmdb` are aliases) keeps it in an embedded LMDB store on local disk with a cache in front.
 */
const BACKENDS: Readonly<Record<string, "memory" | "disk">> = {
  hashmap: "memory",
  memory: "memory",
  rocksdb: "disk",
  disk: "disk",
  lmdb: "disk",
};

/** The backend names `'state.backend.type'` accepts. */
export const STATE_BACKEND_NAMES: readonly string[] = Object.keys(BACKENDS);

/**
 * The backend factory `settings` ask for; throws naming the option and the choices when a value
 * is wrong (call it when planning, so a typo fails before the job starts). Incremental
 * checkpoints need the on-disk backend: with `hashmap` they are refused, not ignored.
 */
export function stateBackendFactory(settings: Settings): StateBackendFactory {
  const raw = settings[STATE_BACKEND_SETTING];
  const name = (raw ?? "hashmap").trim().toLowerCase();
  const kind = BACKENDS[name];
  if (kind === undefined)
    throw new Error(
      `'${STATE_BACKEND_SETTING}' = '${raw}' is not a state backend this Weir has; use one of: ${STATE_BACKEND_NAMES.join(", ")}`,
    );
  const incremental = incrementalSetting(settings);
  if (kind === "memory") {
    if (incremental)
      throw new Error(
        `'${STATE_SETTINGS.incremental}' = 'true' needs the on-disk state backend: the '${name}' backend writes every checkpoint in full; SET '${STATE_BACKEND_SETTING}' = 'rocksdb', or remove the setting`,
      );
    return (clock) => new MemoryStateBackend({ clock });
  }
  // Unset: the tables' caches share a part of the heap (see CACHE_HEAP_FRACTION in disk.ts).
  const cacheEntries =
    settings[STATE_SETTINGS.cacheEntries] === undefined
      ? undefined
      : positive(settings, STATE_SETTINGS.cacheEntries, 1);
  const cacheBytes =
    settings[STATE_SETTINGS.cacheBytes] === undefined
      ? undefined
      : positive(settings, STATE_SETTINGS.cacheBytes, 1);
  const maxDeltas = positive(settings, STATE_SETTINGS.maxDeltas, DEFAULT_MAX_DELTAS);
  const localDir = settings[STATE_SETTINGS.localDir]?.trim() || undefined;
  return (clock, scope) => {
    // Flink's default is the machine's temporary directory (io.tmp.dirs): working files, not a checkpoint.
    const base =
      localDir !== undefined ? resolve(scope?.cwd ?? process.cwd(), localDir) : join(tmpdir(), "weir-state");
    const jobId = scope?.jobId ?? `anon-${process.pid}`;
    const taskId = scope?.taskId ?? `t${Math.random().toString(36).slice(2, 10)}`;
    return new DiskStateBackend({
      clock,
      dir: join(base, jobId, taskId),
      checkpointDir: scope?.checkpointDir ?? null,
      taskId,
      incremental,
      ...(cacheEntries !== undefined ? { cacheEntries } : {}),
      ...(cacheBytes !== undefined ? { cacheBytes } : {}),
      maxDeltas,
    });
  };
}

function incrementalSetting(settings: Settings): boolean {
  const read = (key: string): boolean | undefined => {
    const v = settings[key]?.trim().toLowerCase();
    if (v === undefined) return undefined;
    if (v !== "true" && v !== "false")
      throw new Error(`'${key}' expects 'true' or 'false', got '${settings[key]}'`);
    return v === "true";
  };
  const a = read(STATE_SETTINGS.incremental);
  const b = read(STATE_SETTINGS.incrementalOld);
  if (a !== undefined && b !== undefined && a !== b)
    throw new Error(
      `'${STATE_SETTINGS.incremental}' and '${STATE_SETTINGS.incrementalOld}' disagree; set one of them`,
    );
  return a ?? b ?? false;
}

function positive(settings: Settings, key: string, dflt: number): number {
  const text = settings[key];
  if (text === undefined) return dflt;
  if (!/^\s*\d+\s*$/.test(text) || Number(text) < 1)
    throw new Error(`'${key}' expects a positive integer, got '${text}'`);
  return Number(text);
}
