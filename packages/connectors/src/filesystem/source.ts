import type { DataType, Field } from "@weir/planner";
import {
  ChangeBatchBuilder,
  ConnectorError,
  type Json,
  type Op,
  type PollResult,
  type Row,
  type SourceReader,
  type SourceReaderContext,
} from "@weir/runtime";
import { FormatError } from "../formats/errors.js";
import { FormatOptions, type RecordDecoder } from "../formats/format.js";
import { formatFactory } from "../formats/registry.js";
import { fileMetadata, type InputFile, listInputFiles } from "./files.js";
import { LineReader } from "./line-reader.js";

/** Per-file progress: the byte offset after the last returned line, and that line's number. */
interface FilePosition {
  readonly offset: number;
  readonly line: number;
  readonly done: boolean;
}

interface FileSplit extends InputFile {
  pos: FilePosition;
}

/**
 * The bounded `filesystem` source. `'path'` is a file or a directory (its regular, non-hidden
 * files, sorted by name; not recursive). Each file is a split, read one after another; the
 * position is the byte offset per file, so a restore resumes at the exact next line.
 */
export class FilesystemSource implements SourceReader {
  private files: FileSplit[] = [];
  private current = 0;
  private reader: LineReader | null = null;
  private decoder!: RecordDecoder;
  private metrics!: Map<string, number>;
  /** For each non-computed output column: physical field index (≥ 0) or a metadata getter. */
  private layout: (number | ((f: FileSplit) => unknown))[] = [];
  private identity = true;
  /** Decoded rows before metadata columns are added (only when the table has metadata columns). */
  private readonly scratch = new ChangeBatchBuilder(4);

  /** The table (errors name it) and its format's name (`json` of `'json.ignore-parse-errors'`). */
  private table = "";
  private formatName = "";
  private blankIsNoRecord = false;
  /** Per returned row, its line and the line's text (`recordOrigins`); null when not asked for. */
  private originAt: number[] | null = null;
  private originRaw: string[] | null = null;
  private onBadRecord: SourceReaderContext["onBadRecord"];

  async open(ctx: SourceReaderContext): Promise<void> {
    try {
      await this.openFiles(ctx);
    } catch (e) {
      throw e instanceof ConnectorError ? e.ofTable(ctx.node.table) : e;
    }
  }

  private async openFiles(ctx: SourceReaderContext): Promise<void> {
    const { node } = ctx;
    this.table = node.table;
    this.metrics = ctx.metrics;
    this.onBadRecord = ctx.onBadRecord;
    if (ctx.recordOrigins) {
      this.originAt = [];
      this.originRaw = [];
    }
    const physical: Field[] = [];
    const wanted = node.projectedColumns === null ? null : new Set(node.projectedColumns);
    const projection = new Set<number>();
    node.columns.forEach((c, i) => {
      if (c.kind === "physical") {
        this.layout.push(physical.length);
        if (wanted === null || wanted.has(i)) projection.add(physical.length);
        physical.push({ name: c.name, type: node.schema[i].type as DataType });
      } else if (c.kind === "metadata") {
        this.identity = false;
        this.layout.push(fileMetadata(c.key));
      }
    });
    const format = formatFactory(node.options.format);
    this.formatName = format.name;
    // The JSON formats read a blank line as no record (csv and raw read it as a record).
    this.blankIsNoRecord = format.name.endsWith("json");
    try {
      this.decoder = format.decoder(
        physical,
        new FormatOptions(node.options, format.name, wanted === null ? undefined : projection),
      );
    } catch (e) {
      throw e instanceof ConnectorError ? e : new ConnectorError((e as Error).message, "user");
    }
    const path = node.options.path;
    if (path === undefined)
      throw new ConnectorError("option 'path' is required for the filesystem connector", "user");
    this.files = await listFiles(path, ctx.cwd);
  }

  async poll(maxRows: number): Promise<PollResult> {
    const out = new ChangeBatchBuilder(Math.min(maxRows, 1024));
    while (this.current < this.files.length) {
      const file = this.files[this.current];
      if (file.pos.done) {
        this.current++;
        continue;
      }
      if (this.reader === null) this.reader = new LineReader(file.absolute, file.pos.offset, file.pos.line);
      const reader = this.reader;
      for (;;) {
        let line = reader.nextBuffered();
        if (line === undefined) {
          if (out.length > 0) break; // hand over what we have before blocking on I/O
          await reader.fill();
          continue;
        }
        if (line === null) {
          await reader.close();
          this.reader = null;
          file.pos = { offset: reader.offset, line: reader.line, done: true };
          this.current++;
          break;
        }
        if (reader.line === 1 && this.decoder.skipHeader) line = "";
        else this.decodeLine(line, file, reader.line, out);
        file.pos = { offset: reader.offset, line: reader.line, done: false };
        if (out.length >= maxRows) break;
      }
      if (out.length > 0) {
        const batch = out.finish();
        if (this.originAt === null) return { kind: "data", splits: [{ split: file.split, batch }] };
        const origins = { at: this.originAt, raw: this.originRaw! };
        this.originAt = [];
        this.originRaw = [];
        return { kind: "data", splits: [{ split: file.split, batch, origins }] };
      }
    }
    return { kind: "end" };
  }

  private decodeLine(line: string, file: FileSplit, lineNo: number, out: ChangeBatchBuilder): void {
    const target = this.identity ? out : this.scratch;
    if (this.blankIsNoRecord && (line.length === 0 || (line.charCodeAt(0) <= 32 && line.trim() === ""))) {
      // A blank line is no record: skipped, and counted so that the summary shows it.
      this.metrics.set("blankLinesSkipped", (this.metrics.get("blankLinesSkipped") ?? 0) + 1);
      return;
    }
    try {
      this.decoder.decode(line, target);
    } catch (e) {
      if (!(e instanceof FormatError)) throw e;
      if (this.onBadRecord?.(file.split, lineNo, line, e.message)) return;
      if (this.decoder.ignoreParseErrors) {
        this.metrics.set("skippedRecords", (this.metrics.get("skippedRecords") ?? 0) + 1);
        return;
      }
      throw new ConnectorError(e.message, "user", `file ${file.split} line ${lineNo}`, false, {
        table: this.table,
        hint: `to skip records that do not parse (and count them), set '${this.formatName}.ignore-parse-errors' = 'true' on table '${this.table}'`,
      });
    }
    if (this.originAt !== null) {
      const produced = this.identity ? out.length - this.originAt.length : this.scratch.length;
      for (let i = 0; i < produced; i++) {
        this.originAt.push(lineNo);
        this.originRaw!.push(line);
      }
    }
    if (this.identity || this.scratch.length === 0) return;
    const decoded = this.scratch.finish();
    for (let i = 0; i < decoded.length; i++)
      out.push(decoded.ops[i] as Op, this.withMetadata(decoded.rows[i], file));
  }

  private withMetadata(decoded: Row, file: FileSplit): Row {
    const row = new Array<unknown>(this.layout.length);
    for (let i = 0; i < this.layout.length; i++) {
      const l = this.layout[i];
      row[i] = typeof l === "number" ? decoded[l] : l(file);
    }
    return row;
  }

  describe(split: string, at: number | string): string {
    return `file ${split} line ${at}`;
  }

  position(): Json {
    const files: { [split: string]: Json } = {};
    for (const f of this.files) files[f.split] = { offset: f.pos.offset, line: f.pos.line, done: f.pos.done };
    return { files };
  }

  async restore(position: Json): Promise<void> {
    const saved = (position as { files?: Record<string, FilePosition> } | null)?.files;
    if (!saved || typeof saved !== "object") {
      throw new ConnectorError("cannot restore the filesystem source: malformed position", "internal");
    }
    for (const f of this.files) {
      const p = saved[f.split];
      if (p) f.pos = { offset: p.offset, line: p.line, done: p.done };
    }
    this.current = 0;
  }

  async close(): Promise<void> {
    await this.reader?.close();
    this.reader = null;
  }
}

async function listFiles(path: string, cwd: string): Promise<FileSplit[]> {
  const start: FilePosition = { offset: 0, line: 0, done: false };
  return (await listInputFiles(path, cwd)).map((f) => ({ ...f, pos: start }));
}
