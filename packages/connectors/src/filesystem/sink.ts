import { type FileHandle, mkdir, open } from "node:fs/promises";
import { dirname, extname, isAbsolute, join, resolve } from "node:path";
import {
  type ChangeBatch,
  ConnectorError,
  type Json,
  type Op,
  type SinkWriter,
  type SinkWriterContext,
} from "@weir/runtime";
import { csvHeader } from "../formats/csv.js";
import { FormatOptions, type RecordEncoder } from "../formats/format.js";
import { formatFactory } from "../formats/registry.js";

/** Extensions that make `'path'` a single output file rather than a directory. */
export const SINGLE_FILE_EXTENSIONS: readonly string[] = [".json", ".jsonl", ".ndjson", ".csv", ".txt"];

/** Where a sink with this `'path'` writes: the file itself, or `<path>/part-0`. */
export function sinkFilePath(path: string, cwd: string): string {
  const absolute = isAbsolute(path) ? path : resolve(cwd, path);
  return SINGLE_FILE_EXTENSIONS.includes(extname(absolute).toLowerCase())
    ? absolute
    : join(absolute, "part-0");
}

/**
 * The `filesystem` sink: one line per change, in the table's format. The output file is
 * truncated when the job opens the sink (Flink instead adds new part files next to old ones).
 * `write` only encodes into a buffer; `flush` appends the buffer to the file.
 */
export class FilesystemSink implements SinkWriter {
  private fh: FileHandle | null = null;
  private encoder!: RecordEncoder;
  private pending: string[] = [];
  private bytesWritten = 0;
  private file = "";

  async open(ctx: SinkWriterContext): Promise<void> {
    const { node } = ctx;
    const path = node.options.path;
    if (path === undefined)
      throw new ConnectorError("option 'path' is required for the filesystem connector", "user");
    const format = formatFactory(node.options.format);
    const options = new FormatOptions(node.options, format.name);
    try {
      this.encoder = format.encoder(node.tableSchema, options);
    } catch (e) {
      throw e instanceof ConnectorError ? e : new ConnectorError((e as Error).message, "user");
    }
    this.file = sinkFilePath(path, ctx.cwd);
    try {
      await mkdir(dirname(this.file), { recursive: true });
      this.fh = await open(this.file, "w");
    } catch (e) {
      throw new ConnectorError(`cannot open '${path}' for writing: ${(e as Error).message}`, "user");
    }
    const header = format.name === "csv" ? csvHeader(node.tableSchema, options) : null;
    if (header !== null) this.pending.push(header);
  }

  write(batch: ChangeBatch): void {
    const { ops, rows, length } = batch;
    for (let i = 0; i < length; i++) this.pending.push(this.encoder.encode(ops[i] as Op, rows[i]));
  }

  async flush(): Promise<void> {
    if (this.pending.length === 0 || this.fh === null) return;
    const text = `${this.pending.join("\n")}\n`;
    this.pending = [];
    const data = Buffer.from(text, "utf8");
    await this.fh.write(data, 0, data.length, this.bytesWritten);
    this.bytesWritten += data.length;
  }

  /** Flushes and reports the file length; the file is the committed output up to that length. */
  async preCommit(_checkpointId: number): Promise<Json> {
    await this.flush();
    await this.fh?.sync();
    return { file: this.file, length: this.bytesWritten };
  }

  async commit(_checkpointId: number, _preCommitted: Json): Promise<void> {}

  async close(): Promise<void> {
    await this.flush();
    const fh = this.fh;
    this.fh = null;
    await fh?.close();
  }
}
