import { randomUUID } from "node:crypto";
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { basename, join } from "node:path";
import type { JobCheckpoint } from "./checkpoint.js";

/** The manifest of one checkpoint; its presence is what makes a `chk-N` directory complete. */
export const CHECKPOINT_METADATA = "_metadata.json";

const CHECKPOINT_DIR = /^chk-(\d+)$/;

/** A complete checkpoint on disk. */
export interface StoredCheckpoint {
  readonly id: number;
  /** The `chk-<id>` directory. */
  readonly path: string;
}

/**
 * Checkpoints in a directory, laid out as Flink lays them out: `<dir>/chk-<id>/_metadata.json`,
 * the manifest being the versioned {@link JobCheckpoint} JSON. Invariants: a `chk-N` directory
 * without `_metadata.json` is incomplete and never read (the manifest is written to a temp file
 * and renamed, so it is either absent or whole); ids order as numbers (chk-9 < chk-10); after a
 * `write`, only the newest `numRetained` complete checkpoints are kept (Flink's
 * `'execution.checkpointing.num-retained'`).
 */
export class CheckpointStore {
  constructor(
    readonly dir: string,
    readonly numRetained = 1,
  ) {
    if (!Number.isInteger(numRetained) || numRetained < 1)
      throw new Error(
        `'execution.checkpointing.num-retained' must be a positive integer, got ${numRetained}`,
      );
  }

  /** Writes `cp` as `chk-<id>` (atomically), then drops the complete checkpoints past retention. */
  write(cp: JobCheckpoint): StoredCheckpoint {
    const path = join(this.dir, `chk-${cp.checkpointId}`);
    mkdirSync(path, { recursive: true });
    const tmp = join(path, `.${CHECKPOINT_METADATA}.${randomUUID()}.tmp`);
    writeFileSync(tmp, JSON.stringify(cp));
    renameSync(tmp, join(path, CHECKPOINT_METADATA));
    const complete = this.list();
    for (const old of complete.slice(0, Math.max(0, complete.length - this.numRetained))) {
      if (old.id !== cp.checkpointId) rmSync(old.path, { recursive: true, force: true });
    }
    return { id: cp.checkpointId, path };
  }

  /** Complete checkpoints, oldest first (numeric id order). */
  list(): StoredCheckpoint[] {
    return completeCheckpoints(this.dir);
  }

  /** The newest complete checkpoint, or null when there is none. */
  latest(): StoredCheckpoint | null {
    return this.list().at(-1) ?? null;
  }

  /** {@link readCheckpoint} of `path` (default: this store's directory, i.e. its newest). */
  read(path: string = this.dir): { readonly checkpoint: JobCheckpoint; readonly path: string } {
    return readCheckpoint(path);
  }
}

function completeCheckpoints(dir: string): StoredCheckpoint[] {
  if (!existsSync(dir)) return [];
  const out: StoredCheckpoint[] = [];
  for (const name of readdirSync(dir)) {
    const m = CHECKPOINT_DIR.exec(name);
    if (m === null) continue;
    const path = join(dir, name);
    if (existsSync(join(path, CHECKPOINT_METADATA))) out.push({ id: Number(m[1]), path });
  }
  return out.sort((a, b) => a.id - b.id);
}

/**
 * Reads the checkpoint at `path`: a `chk-N` directory (which must be complete), or a base
 * directory, of which the newest complete checkpoint is read. Throws a message a user can act on
 * when there is none or the manifest is not a checkpoint.
 */
export function readCheckpoint(path: string): { readonly checkpoint: JobCheckpoint; readonly path: string } {
  if (!existsSync(path) || !statSync(path).isDirectory())
    throw new Error(`cannot restore from ${path}: no such checkpoint directory`);
  let dir = path;
  if (!CHECKPOINT_DIR.test(basename(path)) || !existsSync(join(path, CHECKPOINT_METADATA))) {
    if (CHECKPOINT_DIR.test(basename(path)))
      throw new Error(
        `cannot restore from ${path}: the checkpoint is incomplete (no ${CHECKPOINT_METADATA})`,
      );
    const latest = completeCheckpoints(path).at(-1);
    if (latest === undefined)
      throw new Error(
        `cannot restore from ${path}: it holds no complete checkpoint (chk-N/${CHECKPOINT_METADATA})`,
      );
    dir = latest.path;
  }
  const file = join(dir, CHECKPOINT_METADATA);
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, "utf8"));
  } catch (e) {
    throw new Error(`cannot restore from ${file}: ${(e as Error).message}`);
  }
  if (
    parsed === null ||
    typeof parsed !== "object" ||
    typeof (parsed as { checkpointId?: unknown }).checkpointId !== "number" ||
    typeof (parsed as { version?: unknown }).version !== "number"
  ) {
    throw new Error(`cannot restore from ${file}: it is not a Weir checkpoint manifest`);
  }
  return { checkpoint: parsed as JobCheckpoint, path: dir };
}
