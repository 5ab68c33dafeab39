import { constants } from "node:fs";
import { type FileHandle, mkdir, open, readdir, readFile, rename, stat, unlink } from "node:fs/promises";
import { basename, dirname, extname, isAbsolute, join, resolve } from "node:path";
import { deliveryProblem } from "@weir/planner";
import {
  type ChangeBatch,
  ConnectorError,
  type Json,
  type Op,
  type SinkWriter,
  type SinkWriterContext,
} from "@weir/runtime";
import { ByteOut } from "../formats/byte-out.js";
import { csvHeader } from "../formats/csv.js";
import { FormatOptions, type RecordEncoder } from "../formats/format.js";
import { formatFactory } from "../formats/registry.js";
import { type FilesystemConfig, filesystemSpec } from "./spec.js";

/** Extensions that make `'path'` a single output file rather than a directory. */
export const SINGLE_FILE_EXTENSIONS: readonly string[] = [".json", ".jsonl", ".ndjson", ".csv", ".txt"];

/** Where a sink with this `'path'` writes: the file itself, or `<path>/part-0`. */
export function sinkFilePath(path: string, cwd: string): string {
  const absolute = isAbsolute(path) ? path : resolve(cwd, path);
  return SINGLE_FILE_EXTENSIONS.includes(extname(absolute).toLowerCase())
    ? absolute
    : join(absolute, "part-0");
}

/** The hidden file an exactly-once sink writes the current epoch to (readers skip dot files). */
export function inProgressPath(file: string): string {
  return join(dirname(file), `.${basename(file)}.inprogress`);
}

/** The hidden file holding the epoch of checkpoint `id` between its pre-commit and its commit. */
export function stagedPath(file: string, id: number): string {
  return join(dirname(file), `.${basename(file)}.pending-${id}`);
}

/** Writes `parts` in order at `position` (one `writev`, again for what a short write left); returns the byte count. */
async function writeAll(fh: FileHandle, parts: readonly Buffer[], position: number): Promise<number> {
  let total = 0;
  for (const p of parts) total += p.length;
  let done = 0;
  let rest = parts;
  while (done < total) {
    const { bytesWritten } = await fh.writev(rest as Buffer[], position + done);
    if (bytesWritten <= 0) throw new Error(`wrote ${done} of ${total} bytes`);
    done += bytesWritten;
    // Skip what was written; the first part left may be written in part.
    let skip = bytesWritten;
    let i = 0;
    while (i < rest.length && skip >= rest[i]!.length) skip -= rest[i++]!.length;
    rest = i < rest.length ? [rest[i]!.subarray(skip), ...rest.slice(i + 1)] : [];
  }
  return total;
}

/** At-least-once: the file's length at the checkpoint. */
interface AtLeastOnceCommit {
  readonly file: string;
  readonly length: number;
}

/** Exactly-once: the committed length, and the staged epochs (in order) that follow it. */
interface ExactlyOnceCommit {
  readonly file: string;
  readonly committed: number;
  readonly staged: readonly { readonly id: number; readonly length: number }[];
}

/**
 * The `filesystem` sink: one line per change, in the table's format, into one file.
 *
 * - `'sink.delivery-guarantee'` = `at-least-once` (default) / `none`: lines are appended to the
 *   file as the job flushes. A job that starts fresh truncates the file; a restored job cuts it
 *   back to its length at the checkpoint and continues there, so the replay after the checkpoint
 *   does not double it. A reader may see lines that a crash later cuts away.
 * - `exactly-once`: lines go to a hidden in-progress file (`.<name>.inprogress`). A checkpoint's
 *   pre-commit renames it to `.<name>.pending-<id>` (its length is in the checkpoint); the commit,
 *   once the checkpoint is complete, appends it to the visible file at the committed length and
 *   deletes it. A restore commits what the checkpoint staged (a staged file that is gone was
 *   committed) and continues after the committed part: the visible file only ever holds
 *   committed output, never truncated below it.
 */
export class FilesystemSink implements SinkWriter {
  private fh: FileHandle | null = null;
  private encoder!: RecordEncoder;
  /** The lines written since the last flush, as UTF-8 bytes in reusable chunks. */
  private readonly out = new ByteOut();
  /** Bytes in the file being written (the visible file, or the in-progress file). */
  private bytesWritten = 0;
  private file = "";
  private exactlyOnce = false;
  /** Exactly-once: the visible file's committed length, and the staged epochs after it. */
  private committed = 0;
  private staged: { id: number; length: number }[] = [];
  /** The CSV header line, written first into a file that starts over. */
  private header: string | null = null;
  /** The header goes before the lines of the next flush. */
  private headerPending = false;

  constructor(private readonly config: FilesystemConfig) {}

  get transactional(): boolean {
    return this.exactlyOnce;
  }

  async open(ctx: SinkWriterContext): Promise<void> {
    const { node } = ctx;
    const path = this.config.path;
    if (path === undefined)
      throw new ConnectorError("option 'path' is required for the filesystem connector", "user");
    this.exactlyOnce = this.config.delivery === "exactly-once";
    const problem = deliveryProblem(filesystemSpec.sink!, this.config, ctx.checkpointIntervalMs ?? 0);
    if (problem !== null) throw new ConnectorError(problem, "user", `sink ${node.table}`);
    const format = formatFactory(this.config.format);
    const options = new FormatOptions(node.options, format.name);
    try {
      this.encoder = format.encoder(node.tableSchema, options);
    } catch (e) {
      throw e instanceof ConnectorError ? e : new ConnectorError((e as Error).message, "user");
    }
    this.file = sinkFilePath(path, ctx.cwd);
    try {
      await mkdir(dirname(this.file), { recursive: true });
      // A restored job continues the file (restore cuts it to the checkpoint); a new one replaces it.
      const visible = await open(this.file, ctx.restoring ? constants.O_RDWR | constants.O_CREAT : "w");
      if (this.exactlyOnce) {
        await visible.close();
        if (!ctx.restoring) await this.removeHidden(() => true);
        this.fh = await open(inProgressPath(this.file), "w");
      } else {
        this.fh = visible;
      }
    } catch (e) {
      throw new ConnectorError(`cannot open '${path}' for writing: ${(e as Error).message}`, "user");
    }
    this.header = format.name === "csv" ? csvHeader(node.tableSchema, options) : null;
    this.headerPending = this.header !== null && !ctx.restoring;
  }

  write(batch: ChangeBatch): void {
    const { ops, rows, length } = batch;
    const out = this.out;
    const encoder = this.encoder;
    // A line the encoder rejects half-way is cut back out (the lines before it stay).
    try {
      if (encoder.encodeTo !== undefined) {
        for (let i = 0; i < length; i++) {
          out.mark();
          encoder.encodeTo(ops[i] as Op, rows[i], out);
          out.byte(0x0a);
        }
      } else {
        for (let i = 0; i < length; i++) {
          out.mark();
          out.utf8(encoder.encode(ops[i] as Op, rows[i]));
          out.byte(0x0a);
        }
      }
    } catch (e) {
      out.rollback();
      throw e;
    }
  }

  async flush(): Promise<void> {
    if ((this.out.length === 0 && !this.headerPending) || this.fh === null) return;
    const chunks = this.out.take();
    const parts = this.headerPending ? [Buffer.from(`${this.header}\n`, "utf8"), ...chunks] : chunks;
    this.headerPending = false;
    try {
      this.bytesWritten += await writeAll(this.fh, parts, this.bytesWritten);
    } finally {
      this.out.release(chunks);
    }
  }

  /**
   * At-least-once: flushes and reports the file length. Exactly-once: stages the epoch as
   * `.<name>.pending-<id>` and reports the committed length and every staged epoch.
   */
  async preCommit(checkpointId: number): Promise<Json> {
    await this.flush();
    await this.fh?.sync();
    if (!this.exactlyOnce) {
      const pre: AtLeastOnceCommit = { file: this.file, length: this.bytesWritten };
      return pre as unknown as Json;
    }
    if (this.bytesWritten > 0) {
      await this.fh?.close();
      this.fh = null;
      await rename(inProgressPath(this.file), stagedPath(this.file, checkpointId));
      this.staged.push({ id: checkpointId, length: this.bytesWritten });
      this.fh = await open(inProgressPath(this.file), "w");
      this.bytesWritten = 0;
    }
    const pre: ExactlyOnceCommit = { file: this.file, committed: this.committed, staged: [...this.staged] };
    return pre as unknown as Json;
  }

  /** Exactly-once: appends the staged epochs up to `checkpointId` to the visible file (idempotent). */
  async commit(checkpointId: number, preCommitted: Json): Promise<void> {
    if (!this.exactlyOnce || preCommitted === null) return;
    const pre = preCommitted as unknown as ExactlyOnceCommit;
    let at = pre.committed;
    const visible = await open(this.file, constants.O_RDWR | constants.O_CREAT);
    try {
      for (const s of pre.staged) {
        if (s.id > checkpointId) break;
        const staged = stagedPath(this.file, s.id);
        let data: Buffer | null = null;
        try {
          data = await readFile(staged);
        } catch {
          // Gone: this epoch was committed before (the restore of a checkpoint whose commit ran).
        }
        if (data !== null) {
          if (data.length !== s.length)
            throw new ConnectorError(
              `staged file ${staged} has ${data.length} bytes, the checkpoint says ${s.length}`,
              "internal",
              `file ${this.file}`,
            );
          await visible.write(data, 0, data.length, at);
          await visible.truncate(at + data.length);
          await visible.sync();
          await unlink(staged);
        } else if ((await visible.stat()).size < at + s.length) {
          throw new ConnectorError(
            `the epoch of checkpoint ${s.id} is neither staged (${staged}) nor in the file: the output was changed outside Weir`,
            "user",
            `file ${this.file}`,
          );
        }
        at += s.length;
      }
    } finally {
      await visible.close();
    }
    this.committed = at;
    this.staged = this.staged.filter((s) => s.id > checkpointId);
  }

  /**
   * A restore of `checkpointId`: at-least-once cuts the file to its length at the checkpoint and
   * continues there; exactly-once drops what was never staged (the crashed epoch) and epochs staged
   * after the checkpoint, cuts the visible file to the checkpoint's end, and lets `commit` append
   * what the checkpoint staged.
   */
  async restore(checkpointId: number, preCommitted: Json): Promise<void> {
    if (preCommitted === null) {
      // The checkpoint has nothing of this sink (it was not yet in the plan): start the file over.
      const visible = await open(this.file, constants.O_RDWR | constants.O_CREAT);
      try {
        await visible.truncate(0);
      } finally {
        await visible.close();
      }
      if (this.exactlyOnce) await this.removeHidden((p) => p !== inProgressPath(this.file));
      else this.bytesWritten = 0;
      if (this.header !== null) this.headerPending = true;
      return;
    }
    if (!this.exactlyOnce) {
      const pre = preCommitted as unknown as AtLeastOnceCommit;
      if (typeof pre.length !== "number")
        throw new ConnectorError(
          `checkpoint ${checkpointId} was taken with 'sink.delivery-guarantee' = 'exactly-once'; restore it with the same guarantee`,
          "user",
          `file ${this.file}`,
        );
      if ((await this.fh!.stat()).size > pre.length) await this.fh!.truncate(pre.length);
      this.bytesWritten = pre.length;
      return;
    }
    const pre = preCommitted as unknown as ExactlyOnceCommit;
    if (!Array.isArray(pre.staged))
      throw new ConnectorError(
        `checkpoint ${checkpointId} was taken with 'sink.delivery-guarantee' = 'at-least-once'; restore it with the same guarantee`,
        "user",
        `file ${this.file}`,
      );
    const keep = new Set(pre.staged.map((s) => stagedPath(this.file, s.id)));
    await this.removeHidden((p) => !keep.has(p) && p !== inProgressPath(this.file));
    const end = pre.committed + pre.staged.reduce((n, s) => n + s.length, 0);
    const size = (await stat(this.file)).size;
    if (size > end) {
      const visible = await open(this.file, constants.O_RDWR);
      try {
        await visible.truncate(end);
      } finally {
        await visible.close();
      }
    }
    this.committed = pre.committed;
    this.staged = pre.staged.map((s) => ({ ...s }));
  }

  async close(): Promise<void> {
    if (!this.exactlyOnce) await this.flush();
    const fh = this.fh;
    this.fh = null;
    await fh?.close();
    // Exactly-once: what was never pre-committed is not output (a restore writes it again).
    if (this.exactlyOnce) await unlink(inProgressPath(this.file)).catch(() => undefined);
  }

  /** Deletes this sink's hidden files (`.<name>.inprogress`, `.<name>.pending-N`) that `drop` selects. */
  private async removeHidden(drop: (path: string) => boolean): Promise<void> {
    const dir = dirname(this.file);
    const prefix = `.${basename(this.file)}.`;
    for (const name of await readdir(dir)) {
      if (!name.startsWith(prefix)) continue;
      const rest = name.slice(prefix.length);
      if (rest !== "inprogress" && !/^pending-\d+$/.test(rest)) continue;
      const p = join(dir, name);
      if (drop(p)) await unlink(p).catch(() => undefined);
    }
  }
}
