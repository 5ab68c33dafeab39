import { createHash, type Hash, randomUUID } from "node:crypto";
import {
  closeSync,
  existsSync,
  fsync,
  fsyncSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  renameSync,
  rmSync,
  statSync,
  writeSync,
} from "node:fs";
import { rm } from "node:fs/promises";
import { basename, join } from "node:path";
import { promisify } from "node:util";
import { isDeferredSnapshot, type StateSnapshot } from "../state/api.js";
import { isSnapshotLinesHead, parseSnapshotLines, snapshotLines, tablesOf } from "../state/snapshot-text.js";
import type { JobCheckpoint, OperatorCheckpoint } from "./checkpoint.js";

/** The manifest of one checkpoint; its presence is what makes a `chk-N` directory complete. */
export const CHECKPOINT_METADATA = "_metadata.json";

const CHECKPOINT_DIR = /^chk-(\d+)$/;

/** A complete checkpoint on disk. */
export interface StoredCheckpoint {
  readonly id: number;
  /** The job whose checkpoint it is (its directory under the base). */
  readonly jobId: string;
  /** The `chk-<id>` directory. */
  readonly path: string;
  /** When it was triggered (epoch ms; 0 when the manifest does not say). */
  readonly timestamp: number;
  /** Bytes of each operator's state file, by task uid (set by `write` only). */
  readonly stateBytes?: { readonly [uid: string]: number };
}

/**
 * Where an operator's state lives on disk: a file in the `chk-N` directory that the manifest
 * references, with its size and hash (a torn or truncated file makes the checkpoint incomplete).
 */
export interface StateHandle {
  readonly file: string;
  readonly bytes: number;
  readonly sha256: string;
}

/** A manifest as written: operator state replaced by {@link StateHandle}s. */
type StoredManifest = Omit<JobCheckpoint, "operators"> & {
  readonly operators: {
    readonly [nodeId: string]: Omit<OperatorCheckpoint, "state"> & {
      state: StateHandle;
      /** The shared files (`shared/...`, beside the `chk-N` directories) the state needs. */
      shared?: readonly StateHandle[];
    };
  };
};

/** Where native state files live in a job's directory, shared between its checkpoints. */
export const SHARED_STATE_DIR = "shared";

/**
 * Checkpoints in a directory, one subdirectory per job, laid out as Flink lays them out:
 * `<dir>/<job id>/chk-<id>/_metadata.json`, the manifest being the versioned {@link JobCheckpoint}
 * JSON whose operator state lives in handle files beside it (`state-<node>.json`). Invariants: a
 * checkpoint is complete only when its manifest parses and every handle it references is whole;
 * the manifest is written last and atomically (temp file, fsync, rename, fsync of the directory),
 * so a crash leaves the previous checkpoint complete; the checkpoints past retention
 * (`'state.checkpoints.num-retained'`) are deleted only after the new one is complete; ids order
 * as numbers (chk-9 < chk-10); jobs sharing a directory never see each other's checkpoints.
 */
export class CheckpointStore {
  constructor(
    readonly dir: string,
    readonly numRetained = 1,
  ) {
    if (!Number.isInteger(numRetained) || numRetained < 1)
      throw new Error(`'state.checkpoints.num-retained' must be a positive integer, got ${numRetained}`);
  }

  /**
   * Writes `cp` as `<job id>/chk-<id>` (state files, then the manifest, durably), then applies
   * retention — all at once (the caller waits). See {@link writeAsync} for the sliced write.
   */
  write(cp: JobCheckpoint): StoredCheckpoint {
    const steps = this.steps(cp);
    for (;;) {
      const r = steps.next();
      if (r.done) return r.value;
      const io = r.value;
      if (io === null) continue;
      if ("fsync" in io) fsyncSync(io.fsync);
      else rmSync(io.rm, { recursive: true, force: true });
    }
  }

  /**
   * {@link write} in slices: the state files are encoded and written for at most `sliceMs` at a
   * time, then the event loop gets a turn (the job loop goes on processing), and the fsyncs run
   * off the main thread. The state text is streamed to its file (never one string), so a
   * copy-on-write snapshot is encoded only here. Resolves once the checkpoint is durable and
   * complete; rejects (leaving the previous checkpoints as they were) when a write fails.
   */
  async writeAsync(
    cp: JobCheckpoint,
    options: { readonly sliceMs?: number } = {},
  ): Promise<StoredCheckpoint> {
    const sliceMs = options.sliceMs ?? DEFAULT_SLICE_MS;
    const steps = this.steps(cp);
    let sliceStart = performance.now();
    for (;;) {
      const r = steps.next();
      if (r.done) return r.value;
      const io = r.value;
      if (io !== null) {
        if ("fsync" in io) await fsyncAsync(io.fsync);
        else await rm(io.rm, { recursive: true, force: true });
        sliceStart = performance.now();
      } else if (performance.now() - sliceStart >= sliceMs) {
        await new Promise<void>((resolve) => setImmediate(resolve));
        sliceStart = performance.now();
      }
    }
  }

  /**
   * The write of `cp` as steps: yields null after each piece of a state file (a place to pause)
   * and the I/O that may take long (an fsync, deleting an expired checkpoint) for the caller to
   * do before going on; returns what was stored.
   */
  private *steps(cp: JobCheckpoint): Generator<SlowIo | null, StoredCheckpoint, void> {
    if (!/^[A-Za-z0-9_-]+$/.test(cp.jobId))
      throw new Error(`checkpoint job id '${cp.jobId}' is not a directory name`);
    const jobDir = join(this.dir, cp.jobId);
    const path = join(jobDir, `chk-${cp.checkpointId}`);
    // A leftover directory of the same id (a crash mid-write, or an aborted run) is replaced.
    rmSync(path, { recursive: true, force: true });
    mkdirSync(path, { recursive: true });
    const operators: Record<string, StoredManifest["operators"][string]> = {};
    for (const [node, oc] of Object.entries(cp.operators)) {
      const file = `state-${node}.json`;
      const out = { bytes: 0, hash: createHash("sha256") };
      const fd = openSync(join(path, file), "w");
      try {
        yield* writeLines(fd, stateLines(oc.state), out);
        yield { fsync: fd };
      } finally {
        closeSync(fd);
      }
      const shared = oc.state.native?.files.map(({ file: f, bytes, sha256: h }) => ({
        file: f,
        bytes,
        sha256: h,
      }));
      operators[node] = {
        ...oc,
        state: { file, bytes: out.bytes, sha256: out.hash.digest("hex") },
        ...(shared ? { shared } : {}),
      };
    }
    const manifest: StoredManifest = { ...cp, operators };
    const tmp = join(path, `.${CHECKPOINT_METADATA}.${randomUUID()}.tmp`);
    const fd = openSync(tmp, "w");
    try {
      writeSync(fd, JSON.stringify(manifest));
      yield { fsync: fd };
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, join(path, CHECKPOINT_METADATA));
    for (const d of [path, jobDir]) {
      const dfd = openSync(d, "r");
      try {
        yield { fsync: dfd };
      } finally {
        closeSync(dfd);
      }
    }
    const complete = completeCheckpoints(jobDir, cp.jobId);
    for (const old of complete.slice(0, Math.max(0, complete.length - this.numRetained))) {
      if (old.id !== cp.checkpointId) yield { rm: old.path };
    }
    collectSharedFiles(jobDir);
    const stateBytes: Record<string, number> = {};
    // The on-disk backend's state is its base and delta files in `shared/` (the state file only
    // lists them): an operator's state size is both.
    for (const [node, o] of Object.entries(operators))
      stateBytes[node] = o.state.bytes + (o.shared ?? []).reduce((n, f) => n + f.bytes, 0);
    return { id: cp.checkpointId, jobId: cp.jobId, path, timestamp: cp.timestamp, stateBytes };
  }

  /** Complete checkpoints of `jobId` (default: of every job), oldest first. */
  list(jobId?: string): StoredCheckpoint[] {
    if (jobId !== undefined) return completeCheckpoints(join(this.dir, jobId), jobId);
    return jobDirs(this.dir)
      .flatMap((j) => completeCheckpoints(join(this.dir, j), j))
      .sort((a, b) => a.timestamp - b.timestamp || a.id - b.id);
  }

  /** The newest complete checkpoint (of `jobId`), or null when there is none. */
  latest(jobId?: string): StoredCheckpoint | null {
    return this.list(jobId).at(-1) ?? null;
  }

  /** {@link readCheckpoint} of `path` (default: this store's directory). */
  read(
    path: string = this.dir,
    fits?: CheckpointFit,
  ): { readonly checkpoint: JobCheckpoint; readonly path: string } {
    return readCheckpoint(path, fits);
  }
}

/** Why a checkpoint cannot be restored into the job at hand, or null when it fits. */
export type CheckpointFit = (cp: JobCheckpoint) => string | null;

/** How long {@link CheckpointStore.writeAsync} works before giving the event loop a turn. */
export const DEFAULT_SLICE_MS = 10;

/** Characters of state text gathered before they are written (and a slice may end). */
const WRITE_CHUNK_CHARS = 1 << 18;

const fsyncAsync = promisify(fsync);

/** I/O of a checkpoint write that the async write does off the main thread. */
type SlowIo = { readonly fsync: number } | { readonly rm: string };

/**
 * A state file's text: a deferred (copy-on-write) snapshot's lines, a plain snapshot laid out
 * the same way (see `snapshot-text.ts`), or a native one (a list of files) as one line.
 */
function stateLines(state: StateSnapshot): Iterable<string> {
  if (isDeferredSnapshot(state)) return state.lines();
  if (state.native !== undefined) return [JSON.stringify(state)];
  return snapshotLines(state.version, tablesOf(state));
}

/** Writes `lines` (newline-terminated) to `fd` in chunks, hashing them; yields after each chunk. */
function* writeLines(
  fd: number,
  lines: Iterable<string>,
  out: { bytes: number; readonly hash: Hash },
): Generator<null, void, void> {
  let parts: string[] = [];
  let chars = 0;
  const flush = (): void => {
    const buf = Buffer.from(parts.join(""), "utf8");
    parts = [];
    chars = 0;
    for (let off = 0; off < buf.length; ) off += writeSync(fd, buf, off, buf.length - off);
    out.hash.update(buf);
    out.bytes += buf.length;
  };
  for (const line of lines) {
    parts.push(line, "\n");
    chars += line.length + 1;
    if (chars >= WRITE_CHUNK_CHARS) {
      flush();
      yield null;
    }
  }
  flush();
}

/** Bytes read at a time when a state file is read back line by line. */
const READ_CHUNK_BYTES = 1 << 24;

/**
 * Reads a state file back, checking its size and hash: a file laid out by `snapshotLines` is
 * parsed line by line (it may be larger than a JS string can be); any other (a native
 * snapshot's, or one written before that layout) is parsed whole.
 */
function readStateFile(dir: string, h: StateHandle): StateSnapshot {
  const hp = join(dir, h.file);
  const damaged = (): Error =>
    new Error(`cannot restore from ${dir}: state handle ${h.file} is damaged (size or hash differs)`);
  let fd: number;
  try {
    fd = openSync(hp, "r");
  } catch (e) {
    throw new Error(`cannot restore from ${dir}: state handle ${h.file}: ${(e as Error).message}`);
  }
  try {
    const head = Buffer.alloc(64);
    const n = readSync(fd, head, 0, head.length, 0);
    const nl = head.subarray(0, n).indexOf(10);
    if (nl < 0 || !isSnapshotLinesHead(head.toString("utf8", 0, nl))) {
      const text = readFileSync(hp, "utf8");
      if (Buffer.byteLength(text) !== h.bytes || sha256(text) !== h.sha256) throw damaged();
      return JSON.parse(text) as StateSnapshot;
    }
    if (statSync(hp).size !== h.bytes) throw damaged();
    const hash = createHash("sha256");
    const at = { pos: 0, carry: Buffer.alloc(0) };
    let state: StateSnapshot;
    try {
      state = parseSnapshotLines(fileLines(fd, hash, at), hp);
    } catch (e) {
      // A torn file reads as broken text: say it is damaged when its hash says so.
      for (const _ of fileLines(fd, hash, at, true));
      throw hash.digest("hex") !== h.sha256 ? damaged() : e;
    }
    if (hash.digest("hex") !== h.sha256) throw damaged();
    return state;
  } finally {
    closeSync(fd);
  }
}

/**
 * The lines of the file open at `fd` (without newlines), read in chunks from `state.pos` on
 * (where the last call stopped), every byte hashed into `hash`. `rest`: only hash what is left.
 */
function* fileLines(
  fd: number,
  hash: Hash,
  state: { pos: number; carry: Buffer },
  rest = false,
): Generator<string> {
  const buf = Buffer.alloc(READ_CHUNK_BYTES);
  for (;;) {
    const n = readSync(fd, buf, 0, buf.length, state.pos);
    if (n === 0) break;
    state.pos += n;
    const chunk = buf.subarray(0, n);
    hash.update(chunk);
    if (rest) continue;
    let start = 0;
    let data = chunk;
    if (state.carry.length > 0) {
      data = Buffer.concat([state.carry, chunk]);
      state.carry = Buffer.alloc(0);
    }
    for (let nl = data.indexOf(10, start); nl >= 0; nl = data.indexOf(10, start)) {
      const line = data.toString("utf8", start, nl);
      start = nl + 1;
      yield line;
    }
    state.carry = Buffer.from(data.subarray(start));
  }
  if (!rest && state.carry.length > 0) yield state.carry.toString("utf8");
}

function sha256(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

/**
 * Deletes the shared state files of `jobDir` that no complete checkpoint lists any more: the
 * reference count of a file is the number of retained manifests that name it, recomputed from
 * the manifests themselves (so a crash between writing and deleting leaves nothing wrong, only
 * garbage for the next checkpoint to collect). Also removes incomplete `chk-N` leftovers' files.
 */
function collectSharedFiles(jobDir: string): void {
  const shared = join(jobDir, SHARED_STATE_DIR);
  if (!existsSync(shared)) return;
  const live = new Set<string>();
  for (const name of readdirSync(jobDir)) {
    if (!CHECKPOINT_DIR.test(name)) continue;
    const m = completeManifest(join(jobDir, name));
    if (m === null) continue;
    for (const oc of Object.values(m.operators ?? {})) for (const f of oc.shared ?? []) live.add(f.file);
  }
  for (const f of readdirSync(shared)) {
    if (!live.has(`${SHARED_STATE_DIR}/${f}`)) rmSync(join(shared, f), { force: true });
  }
}

/** Subdirectories of `dir` that hold `chk-N` directories (job directories). */
function jobDirs(dir: string): string[] {
  if (!existsSync(dir)) return [];
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (!CHECKPOINT_DIR.test(name) && isDir(p) && readdirSync(p).some((n) => CHECKPOINT_DIR.test(n)))
      out.push(name);
  }
  return out.sort();
}

function isDir(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}

/** The manifest of a `chk-N` directory if it is complete (parses, every handle whole), else null. */
function completeManifest(path: string): StoredManifest | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(join(path, CHECKPOINT_METADATA), "utf8"));
  } catch {
    return null;
  }
  if (!isManifest(parsed)) return null;
  for (const oc of Object.values(parsed.operators ?? {})) {
    const h = (oc as { state?: StateHandle }).state;
    if (!isHandle(h)) return null;
    try {
      if (statSync(join(path, h.file)).size !== h.bytes) return null;
      for (const f of (oc as { shared?: StateHandle[] }).shared ?? [])
        if (statSync(join(path, "..", f.file)).size !== f.bytes) return null;
    } catch {
      return null;
    }
  }
  return parsed;
}

function completeCheckpoints(jobDir: string, jobId: string): StoredCheckpoint[] {
  if (!existsSync(jobDir)) return [];
  const out: StoredCheckpoint[] = [];
  for (const name of readdirSync(jobDir)) {
    const m = CHECKPOINT_DIR.exec(name);
    if (m === null) continue;
    const path = join(jobDir, name);
    const manifest = completeManifest(path);
    if (manifest !== null) out.push({ id: Number(m[1]), jobId, path, timestamp: manifest.timestamp ?? 0 });
  }
  return out.sort((a, b) => a.id - b.id);
}

function isManifest(x: unknown): x is StoredManifest {
  return (
    x !== null &&
    typeof x === "object" &&
    typeof (x as { checkpointId?: unknown }).checkpointId === "number" &&
    typeof (x as { version?: unknown }).version === "number"
  );
}

function isHandle(h: unknown): h is StateHandle {
  return (
    h !== null &&
    typeof h === "object" &&
    typeof (h as StateHandle).file === "string" &&
    typeof (h as StateHandle).bytes === "number" &&
    typeof (h as StateHandle).sha256 === "string"
  );
}

/** Loads a complete checkpoint directory: the manifest with its state handles read back. */
function load(path: string): JobCheckpoint {
  const file = join(path, CHECKPOINT_METADATA);
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, "utf8"));
  } catch (e) {
    throw new Error(`cannot restore from ${file}: ${(e as Error).message}`);
  }
  if (!isManifest(parsed))
    throw new Error(`cannot restore from ${file}: it is not a Weir checkpoint manifest`);
  const operators: Record<string, OperatorCheckpoint> = {};
  for (const [node, oc] of Object.entries(parsed.operators ?? {})) {
    const h = oc.state;
    if (!isHandle(h)) {
      operators[node] = oc as unknown as OperatorCheckpoint;
      continue;
    }
    const { shared: _shared, ...rest } = oc;
    const state = readStateFile(path, h);
    operators[node] = {
      ...rest,
      state:
        state.native === undefined
          ? state
          : {
              ...state,
              native: {
                ...state.native,
                files: state.native.files.map((f) => ({ ...f, path: join(path, "..", f.file) })),
              },
            },
    };
  }
  return { ...parsed, operators } as JobCheckpoint;
}

/**
 * Reads the checkpoint at `path`: a `chk-N` directory (which must be complete); a job directory,
 * of which the newest complete checkpoint is read; or a base directory shared by several jobs,
 * of which the newest complete checkpoint that `fits` the job at hand is read (a torn newest
 * checkpoint falls back to the previous complete one). Throws a message a user can act on when
 * there is none.
 */
export function readCheckpoint(
  path: string,
  fits?: CheckpointFit,
): { readonly checkpoint: JobCheckpoint; readonly path: string } {
  if (!isDir(path)) throw new Error(`cannot restore from ${path}: no such checkpoint directory`);
  if (CHECKPOINT_DIR.test(basename(path))) {
    if (completeManifest(path) === null) {
      if (!existsSync(join(path, CHECKPOINT_METADATA)))
        throw new Error(
          `cannot restore from ${path}: the checkpoint is incomplete (no ${CHECKPOINT_METADATA})`,
        );
      // A manifest that does not parse as one: report what is wrong with it.
      load(path);
      throw new Error(
        `cannot restore from ${path}: the checkpoint is incomplete (a state handle is missing or torn)`,
      );
    }
    return { checkpoint: load(path), path };
  }
  const own = completeCheckpoints(path, basename(path));
  const candidates =
    own.length > 0
      ? [own.at(-1)!]
      : jobDirs(path)
          .map((j) => completeCheckpoints(join(path, j), j).at(-1))
          .filter((c): c is StoredCheckpoint => c !== undefined);
  if (candidates.length === 0) {
    const anyChk = readdirSync(path).some((n) => CHECKPOINT_DIR.test(n));
    throw new Error(
      anyChk
        ? `cannot restore from ${path}: it holds no complete checkpoint (chk-N/${CHECKPOINT_METADATA})`
        : `cannot restore from ${path}: it holds no complete checkpoint (<job id>/chk-N/${CHECKPOINT_METADATA})`,
    );
  }
  candidates.sort((a, b) => b.timestamp - a.timestamp || b.id - a.id);
  if (fits === undefined || candidates.length === 1)
    return { checkpoint: load(candidates[0]!.path), path: candidates[0]!.path };
  const why: string[] = [];
  for (const c of candidates) {
    const cp = load(c.path);
    const problem = fits(cp);
    if (problem === null) return { checkpoint: cp, path: c.path };
    why.push(`${c.jobId}: ${problem}`);
  }
  throw new Error(
    `cannot restore from ${path}: none of its jobs' checkpoints fits this job (${why.join("; ")}); name one with --restore ${join(path, "<job id>")}`,
  );
}
