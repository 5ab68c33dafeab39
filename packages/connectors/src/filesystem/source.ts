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
import { FormatOptions, nestedProjectionOf, type RecordDecoder } from "../formats/format.js";
import { formatFactory } from "../formats/registry.js";
import { fileMetadata, type InputFile, listInputFiles } from "./files.js";
import { LineReader } from "./line-reader.js";
import type { FilesystemConfig } from "./spec.js";

/** `origins.raw` when the source did not ask for the records (`recordRaw`). */
const NO_RAW: readonly unknown[] = [];

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
 * The `filesystem` source. `'path'` is a file or a directory (its regular, non-hidden files,
 * sorted by name; not recursive). Each file is a split, read one after another; the position is
 * the byte offset per file, so a restore resumes at the exact next line.
 *
 * Bounded by default. With `'source.monitor-interval'` (Flink's option) it is unbounded: after the
 * files it knows it lists the path again every interval and reads the files that are new since
 * (by name, sorted), each once from its start, as Flink's continuous file source does. A file is
 * finished at its end: lines appended to it later are not read (write files elsewhere, or under a
 * hidden `.name`, and rename them into the directory when complete).
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
  /** `'source.monitor-interval'` in ms; 0: bounded (read the files listed at open, then end). */
  private monitorMs = 0;

  constructor(private readonly config: FilesystemConfig) {}
  /** When the path is listed again (monitoring). */
  private nextScanAt = 0;
  private path = "";
  private cwd = "";
  /** Per returned row, its line and the line's text (`recordOrigins`); null when not asked for. */
  /** `SourceReaderContext.rowtime` when the table's rowtime is a computed column, else null. */
  private rowtime: ((row: Row) => unknown) | null = null;
  private originAt: number[] | null = null;
  private originRaw: (string | Uint8Array)[] | null = null;
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
      // The records only for a quarantine table: a view of each line's bytes costs an object a row.
      if (ctx.recordRaw) this.originRaw = [];
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
    // A computed rowtime is evaluated here and appended to each row (as the Kafka source does):
    // the source operator then takes the rows as they are instead of copying each to add it.
    const wm = node.watermark?.column;
    if (ctx.rowtime !== undefined && wm !== undefined && node.columns[wm]?.kind === "computed")
      this.rowtime = ctx.rowtime;
    const spare = this.rowtime !== null && this.identity ? 1 : 0;
    const format = formatFactory(this.config.format);
    this.formatName = format.name;
    // The JSON formats read a blank line as no record (csv and raw read it as a record).
    this.blankIsNoRecord = format.name.endsWith("json");
    try {
      this.decoder = format.decoder(
        physical,
        new FormatOptions(
          node.options,
          format.name,
          wanted === null ? undefined : projection,
          spare,
          nestedProjectionOf(node.projectedPaths, (c) => {
            const k = this.layout[c];
            return node.columns[c]?.kind === "physical" && typeof k === "number" ? k : undefined;
          }),
        ),
      );
    } catch (e) {
      throw e instanceof ConnectorError ? e : new ConnectorError((e as Error).message, "user");
    }
    const path = this.config.path;
    if (path === undefined)
      throw new ConnectorError("option 'path' is required for the filesystem connector", "user");
    const monitor = this.config.monitorInterval;
    if (monitor !== undefined) {
      const ms = this.config.monitorIntervalMs;
      if (ms === undefined || ms <= 0) {
        throw new ConnectorError(
          `'source.monitor-interval' = '${monitor}' is not a positive duration (e.g. '10 s'); leave it out for a bounded read`,
          "user",
          undefined,
          false,
          { option: "source.monitor-interval" },
        );
      }
      this.monitorMs = ms;
      this.nextScanAt = Date.now() + ms;
    }
    this.path = path;
    this.cwd = ctx.cwd;
    this.files = await listFiles(path, ctx.cwd);
  }

  /**
   * Monitoring: lists the path again and adds the files not seen before (sorted by name, after the
   * known ones). Returns how many were added.
   */
  private async discover(): Promise<number> {
    const known = new Set(this.files.map((f) => f.split));
    const added = (await listFiles(this.path, this.cwd)).filter((f) => !known.has(f.split));
    this.files.push(...added);
    const n = this.metrics.get("filesDiscovered") ?? 0;
    if (added.length > 0) this.metrics.set("filesDiscovered", n + added.length);
    return added.length;
  }

  async poll(maxRows: number): Promise<PollResult> {
    for (;;) {
      const r = await this.pollKnown(maxRows);
      if (r !== null) return r;
      if (this.monitorMs === 0) return { kind: "end" };
      const now = Date.now();
      if (now < this.nextScanAt) return { kind: "idle", waitMs: this.nextScanAt - now };
      this.nextScanAt = now + this.monitorMs;
      if ((await this.discover()) === 0) return { kind: "idle", waitMs: this.monitorMs };
    }
  }

  /** Rows of the known files, or null once every known file is read to its end. */
  private async pollKnown(maxRows: number): Promise<PollResult | null> {
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
        const got = reader.advanceBuffered();
        if (got === false) {
          if (out.length > 0) break; // hand over what we have before blocking on I/O
          await reader.fill();
          continue;
        }
        if (got === null) {
          await reader.close();
          this.reader = null;
          file.pos = { offset: reader.offset, line: reader.line, done: true };
          this.current++;
          break;
        }
        if (reader.line !== 1 || !this.decoder.skipHeader) this.decodeLine(file, reader, out);
        if (out.length >= maxRows) break;
      }
      // The position after the last line read (once per poll, not per line).
      if (this.reader === reader) file.pos = { offset: reader.offset, line: reader.line, done: false };
      if (out.length > 0) {
        const batch = out.finish();
        const rowtime = this.rowtime;
        if (rowtime !== null) for (let i = 0; i < batch.length; i++) rowtime(batch.rows[i]);
        if (this.originAt === null) return { kind: "data", splits: [{ split: file.split, batch }] };
        const origins = { at: this.originAt, raw: this.originRaw ?? NO_RAW };
        this.originAt = [];
        if (this.originRaw !== null) this.originRaw = [];
        return { kind: "data", splits: [{ split: file.split, batch, origins }] };
      }
    }
    return null;
  }

  private decodeLine(file: FileSplit, reader: LineReader, out: ChangeBatchBuilder): void {
    const lineNo = reader.line;
    const target = this.identity ? out : this.scratch;
    const bytes = reader.lastLine;
    // Straight from the bytes when the decoder can (no string for the line); a line it does not
    // read there (not ASCII, blank, bad...) is decoded to text and read as before.
    if (this.decoder.decodeBytes?.(bytes.buffer, bytes.start, bytes.start + bytes.length, target)) {
      this.decoded(undefined, lineNo, file, reader, out);
      return;
    }
    const line = reader.lastText();
    if (this.blankIsNoRecord && (line.length === 0 || (line.charCodeAt(0) <= 32 && line.trim() === ""))) {
      // A blank line is no record: skipped, and counted so that the summary shows it.
      this.metrics.set("blankLinesSkipped", (this.metrics.get("blankLinesSkipped") ?? 0) + 1);
      return;
    }
    try {
      // One byte per UTF-16 unit: the decoder may copy values out of the bytes (see AsciiSource).
      if (this.decoder.decodeFrom !== undefined && line.length === bytes.length)
        this.decoder.decodeFrom(line, bytes, target);
      else this.decoder.decode(line, target);
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
    this.decoded(line, lineNo, file, reader, out);
  }

  /** After a line is decoded: its origins (when asked for) and the metadata columns. */
  private decoded(
    text: string | undefined,
    lineNo: number,
    file: FileSplit,
    reader: LineReader,
    out: ChangeBatchBuilder,
  ): void {
    if (this.originAt !== null) {
      const produced = this.identity ? out.length - this.originAt.length : this.scratch.length;
      for (let i = 0; i < produced; i++) this.originAt.push(lineNo);
      if (this.originRaw !== null) {
        // A line read from its bytes keeps them as its record (a view, not a decoded copy).
        const last = reader.lastLine;
        const line = text ?? last.buffer.subarray(last.start, last.start + last.length);
        for (let i = 0; i < produced; i++) this.originRaw.push(line);
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
