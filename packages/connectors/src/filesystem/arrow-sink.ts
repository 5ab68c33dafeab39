import { type FileHandle, mkdir, open } from "node:fs/promises";
import { dirname, extname, isAbsolute, join, resolve } from "node:path";
import { deliveryProblem } from "@weir/planner";
import {
  type ChangeBatch,
  ConnectorError,
  type Json,
  Op,
  opDisplay,
  type SinkWriter,
  type SinkWriterContext,
} from "@weir/runtime";
import type * as A from "apache-arrow";
import { Arrow } from "../formats/arrow-lib.js";
import { ArrowBatchEncoder } from "../formats/arrow-write.js";
import { type FilesystemConfig, filesystemSpec } from "./spec.js";

/** Extensions that make an arrow sink's `'path'` a single output file rather than a directory. */
export const ARROW_FILE_EXTENSIONS: readonly string[] = [".arrow", ".feather", ".ipc"];

/** Where an arrow sink with this `'path'` writes: the file itself, or `<path>/part-0.arrow`. */
export function arrowSinkFilePath(path: string, cwd: string): string {
  const absolute = isAbsolute(path) ? path : resolve(cwd, path);
  return ARROW_FILE_EXTENSIONS.includes(extname(absolute).toLowerCase())
    ? absolute
    : join(absolute, "part-0.arrow");
}

/** Rows buffered before `write` cuts a record batch on its own (besides every flush). */
export const ARROW_BATCH_ROWS = 65_536;

/** Collects the bytes apache-arrow's writer emits, synchronously, for the sink to write out. */
interface ChunkQueue extends A.AsyncByteQueue {
  chunks: Uint8Array[];
}

let chunkQueueClass: (new () => ChunkQueue) | undefined;

/** A new {@link ChunkQueue}; its class extends apache-arrow's, so it is defined on first use. */
function newChunkQueue(): ChunkQueue {
  chunkQueueClass ??= class extends Arrow.AsyncByteQueue {
    chunks: Uint8Array[] = [];
    override write(value: Uint8Array): void {
      this.chunks.push(value);
    }
  };
  return new chunkQueueClass();
}

/**
 * The `filesystem` sink with `'format' = 'arrow'`: an Arrow IPC **file** (magic, schema, record
 * batches, footer), readable by pyarrow, Polars, DuckDB and `apache-arrow` as `.arrow`/Feather
 * v2. Insert-only: the planner rejects updating queries for this format. Each `flush` cuts the
 * buffered rows into one record batch and appends it; the footer that makes the file readable
 * is written at `close`. The file is truncated when the sink opens.
 */
export class ArrowFileSink implements SinkWriter {
  private fh: FileHandle | null = null;
  private encoder!: ArrowBatchEncoder;
  private readonly queue = newChunkQueue();
  private readonly writer = new Arrow.RecordBatchFileWriter();
  private bytesWritten = 0;
  private file = "";

  constructor(private readonly config: FilesystemConfig) {}

  async open(ctx: SinkWriterContext): Promise<void> {
    const { node } = ctx;
    const path = this.config.path;
    if (path === undefined)
      throw new ConnectorError("option 'path' is required for the filesystem connector", "user");
    this.encoder = new ArrowBatchEncoder(node.tableSchema);
    this.file = arrowSinkFilePath(path, ctx.cwd);
    // Before anything is opened: the one refusal `weir run` makes up front (no exactly-once mode).
    const problem = deliveryProblem(filesystemSpec.sink!, this.config, ctx.checkpointIntervalMs ?? 0);
    if (problem !== null) throw new ConnectorError(problem, "user", `file ${this.file}`);
    if (ctx.restoring)
      throw new ConnectorError(
        "a restored job cannot continue an Arrow IPC file (its footer is written at close, and reopening would truncate the committed output): write to a new path, or use a line format (json, csv) for jobs that restore",
        "user",
        `file ${this.file}`,
      );
    try {
      await mkdir(dirname(this.file), { recursive: true });
      this.fh = await open(this.file, "w");
    } catch (e) {
      throw new ConnectorError(`cannot open '${path}' for writing: ${(e as Error).message}`, "user");
    }
    this.writer.reset(this.queue, this.encoder.schema);
  }

  write(batch: ChangeBatch): void {
    const { ops, rows, length } = batch;
    for (let i = 0; i < length; i++) {
      if (ops[i] !== Op.INSERT) {
        throw new ConnectorError(
          `format 'arrow' writes inserts only, got ${opDisplay(ops[i] as Op)}`,
          "internal",
          `file ${this.file}`,
        );
      }
      this.encoder.append(rows[i]);
      if (this.encoder.length >= ARROW_BATCH_ROWS) this.cutBatch();
    }
  }

  private cutBatch(): void {
    const batch = this.encoder.finish();
    if (batch !== null) this.writer.write(batch);
  }

  async flush(): Promise<void> {
    this.cutBatch();
    await this.writeOut();
  }

  private async writeOut(): Promise<void> {
    if (this.queue.chunks.length === 0 || this.fh === null) return;
    const data = Buffer.concat(this.queue.chunks);
    this.queue.chunks = [];
    await this.fh.write(data, 0, data.length, this.bytesWritten);
    this.bytesWritten += data.length;
  }

  /** Flushes and reports the length written so far (the file gets its footer only at close). */
  async preCommit(_checkpointId: number): Promise<Json> {
    await this.flush();
    await this.fh?.sync();
    return { file: this.file, length: this.bytesWritten };
  }

  async commit(_checkpointId: number, _preCommitted: Json): Promise<void> {}

  async close(): Promise<void> {
    if (this.fh === null) return;
    this.cutBatch();
    this.writer.close(); // writes the footer into the queue
    await this.writeOut();
    const fh = this.fh;
    this.fh = null;
    await fh.close();
  }
}
