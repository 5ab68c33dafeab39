import { type FileHandle, open } from "node:fs/promises";
import type { DataType, Field } from "@weir/planner";
import {
  ChangeBatchBuilder,
  ConnectorError,
  type Json,
  Op,
  type PollResult,
  type SourceReader,
  type SourceReaderContext,
} from "@weir/runtime";
import type * as A from "apache-arrow";
import { Arrow } from "../formats/arrow-lib.js";
import { ArrowTypeMismatch, type ArrowValueReader, compileArrowReader } from "../formats/arrow-read.js";
import { FormatError } from "../formats/errors.js";
import { fileMetadata, type InputFile, listInputFiles } from "./files.js";
import type { FilesystemConfig } from "./spec.js";

/** Per-file progress: the next row to return is row `row` of record batch `batch`. */
interface ArrowFilePosition {
  readonly batch: number;
  readonly row: number;
  readonly done: boolean;
}

interface ArrowSplit extends InputFile {
  pos: ArrowFilePosition;
}

/** An open Arrow IPC file (file or stream format, detected from its first bytes). */
class ArrowFileCursor {
  /** Index of the next batch a stream-format reader yields. */
  private nextIndex = 0;

  private constructor(
    private readonly fh: FileHandle,
    private readonly reader: A.AsyncRecordBatchFileReader | A.AsyncRecordBatchStreamReader,
  ) {}

  static async open(file: InputFile): Promise<ArrowFileCursor> {
    let fh: FileHandle;
    try {
      fh = await open(file.absolute, "r");
    } catch (e) {
      throw new ConnectorError(`cannot read: ${(e as Error).message}`, "user", `file ${file.split}`);
    }
    try {
      const reader = await Arrow.RecordBatchReader.from(fh);
      await reader.open();
      if (reader.schema === null || reader.schema === undefined) throw new Error("no schema message");
      return new ArrowFileCursor(fh, reader as A.AsyncRecordBatchFileReader | A.AsyncRecordBatchStreamReader);
    } catch (e) {
      await fh.close().catch(() => {});
      throw new ConnectorError(
        `not an Arrow IPC file or stream: ${(e as Error).message}`,
        "user",
        `file ${file.split}`,
      );
    }
  }

  get schema(): A.Schema {
    return this.reader.schema;
  }

  /** Record batch `index` (0-based), or null past the last one. Stream files only move forward. */
  async batch(index: number): Promise<A.RecordBatch | null> {
    if (this.reader.isFile()) {
      return index < this.reader.numRecordBatches ? await this.reader.readRecordBatch(index) : null;
    }
    if (index < this.nextIndex) throw new ConnectorError("arrow stream read out of order", "internal");
    for (;;) {
      const r = await this.reader.next();
      if (r.done) return null;
      if (this.nextIndex++ === index) return r.value;
    }
  }

  async close(): Promise<void> {
    await this.reader.cancel();
    await this.fh.close().catch(() => {});
  }
}

/**
 * The bounded `filesystem` source with `'format' = 'arrow'`: Arrow IPC files (the file format
 * that Feather v2 and `pyarrow.ipc.new_file` write, or the stream format). Columns are matched
 * by name, so a file may hold extra columns or order them differently. Each file is a split,
 * read one after another; the position is (record batch, row) per file, exact to the row.
 */
export class ArrowFileSource implements SourceReader {
  private files: ArrowSplit[] = [];
  private current = 0;
  private cursor: ArrowFileCursor | null = null;
  private batch: A.RecordBatch | null = null;
  /** The physical columns in table order; `layout` places them and the metadata columns. */
  private physical: Field[] = [];
  /** For each non-computed output column: physical field index (≥ 0) or a metadata getter. */
  private layout: (number | ((f: InputFile) => unknown))[] = [];
  /** Per physical column of the open file: its child index in the batches and its reader. */
  private columns: { child: number; read: ArrowValueReader }[] = [];

  constructor(private readonly config: FilesystemConfig) {}

  async open(ctx: SourceReaderContext): Promise<void> {
    const { node } = ctx;
    node.columns.forEach((c, i) => {
      if (c.kind === "physical") {
        this.layout.push(this.physical.length);
        this.physical.push({ name: c.name, type: node.schema[i].type as DataType });
      } else if (c.kind === "metadata") {
        this.layout.push(fileMetadata(c.key));
      }
    });
    const path = this.config.path;
    if (path === undefined)
      throw new ConnectorError("option 'path' is required for the filesystem connector", "user");
    const start: ArrowFilePosition = { batch: 0, row: 0, done: false };
    try {
      this.files = (await listInputFiles(path, ctx.cwd)).map((f) => ({ ...f, pos: start }));
    } catch (e) {
      throw e instanceof ConnectorError ? e.ofTable(node.table) : e;
    }
  }

  async poll(maxRows: number): Promise<PollResult> {
    const out = new ChangeBatchBuilder(Math.min(maxRows, 1024));
    while (this.current < this.files.length) {
      const file = this.files[this.current];
      if (file.pos.done) {
        this.current++;
        continue;
      }
      if (this.cursor === null) await this.openFile(file);
      while (out.length < maxRows) {
        if (this.batch === null) this.batch = await (this.cursor as ArrowFileCursor).batch(file.pos.batch);
        const batch = this.batch;
        if (batch === null) {
          await this.closeFile();
          file.pos = { batch: file.pos.batch, row: 0, done: true };
          this.current++;
          break;
        }
        const end = Math.min(batch.numRows, file.pos.row + maxRows - out.length);
        this.convert(batch, file, file.pos.row, end, out);
        file.pos =
          end >= batch.numRows
            ? { batch: file.pos.batch + 1, row: 0, done: false }
            : { ...file.pos, row: end };
        if (end >= batch.numRows) this.batch = null;
      }
      if (out.length > 0) return { kind: "data", splits: [{ split: file.split, batch: out.finish() }] };
    }
    return { kind: "end" };
  }

  private async openFile(file: ArrowSplit): Promise<void> {
    const cursor = await ArrowFileCursor.open(file);
    try {
      this.columns = this.bind(cursor.schema, file);
    } catch (e) {
      await cursor.close();
      throw e;
    }
    this.cursor = cursor;
    this.batch = null;
  }

  /** Matches the table's physical columns to the file's fields by name and compiles readers. */
  private bind(schema: A.Schema, file: InputFile): { child: number; read: ArrowValueReader }[] {
    const byName = new Map(schema.fields.map((f, k) => [f.name, k]));
    return this.physical.map((col) => {
      const child = byName.get(col.name);
      if (child === undefined) {
        const names = schema.fields.map((f) => f.name).join(", ");
        throw new ConnectorError(
          `column '${col.name}' is missing (the file has: ${names})`,
          "user",
          `file ${file.split}`,
        );
      }
      try {
        return { child, read: compileArrowReader(schema.fields[child].type, col.type, col.name) };
      } catch (e) {
        if (e instanceof ArrowTypeMismatch) throw new ConnectorError(e.message, "user", `file ${file.split}`);
        throw e;
      }
    });
  }

  private convert(
    batch: A.RecordBatch,
    file: ArrowSplit,
    from: number,
    to: number,
    out: ChangeBatchBuilder,
  ): void {
    const data = this.columns.map((c) => batch.data.children[c.child]);
    const cols = this.columns;
    const layout = this.layout;
    for (let r = from; r < to; r++) {
      const row = new Array<unknown>(layout.length);
      try {
        for (let k = 0; k < layout.length; k++) {
          const l = layout[k];
          row[k] = typeof l === "number" ? cols[l].read(data[l], r) : l(file);
        }
      } catch (e) {
        if (!(e instanceof FormatError)) throw e;
        throw new ConnectorError(e.message, "user", `file ${file.split} batch ${file.pos.batch} row ${r}`);
      }
      out.push(Op.INSERT, row);
    }
  }

  position(): Json {
    const files: { [split: string]: Json } = {};
    for (const f of this.files) files[f.split] = { batch: f.pos.batch, row: f.pos.row, done: f.pos.done };
    return { files };
  }

  async restore(position: Json): Promise<void> {
    const saved = (position as { files?: Record<string, ArrowFilePosition> } | null)?.files;
    if (!saved || typeof saved !== "object") {
      throw new ConnectorError("cannot restore the arrow filesystem source: malformed position", "internal");
    }
    await this.closeFile();
    for (const f of this.files) {
      const p = saved[f.split];
      if (p) f.pos = { batch: p.batch, row: p.row, done: p.done };
    }
    this.current = 0;
  }

  private async closeFile(): Promise<void> {
    const cursor = this.cursor;
    this.cursor = null;
    this.batch = null;
    await cursor?.close();
  }

  async close(): Promise<void> {
    await this.closeFile();
  }
}
