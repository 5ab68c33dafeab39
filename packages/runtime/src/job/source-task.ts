import type { SourceNode, TableQuality } from "@weir/planner";
import type { ChangeBatch, Row } from "../changelog.js";
import { ChangeBatchBuilder, Message, Op } from "../changelog.js";
import {
  ConnectorError,
  type PollResult,
  type RecordOrigins,
  type SourceReader,
  type SplitBatch,
} from "../connector.js";
import type { CompiledExpr } from "../expr/compile.js";
import { compileExpr } from "../expr/compile.js";
import type { EvalContext } from "../expr/context.js";
import type { OwnMessage, SourceContext, Task } from "../task.js";
import type { Clock } from "../time/watermarks.js";
import { NO_WATERMARK, WatermarkTracker } from "../time/watermarks.js";
import type { SourceCheckpoint } from "./checkpoint.js";

/**
 * A source as a {@link Task}: it opens its reader and turns the reader's poll results (which the
 * job's loop polls and hands to {@link processPoll}) into the messages of the source node — rows
 * completed with the computed columns (compiled once), then the source's watermark when it
 * advanced (tracked per split, with the node's idle timeout), or `idle`. The end of a bounded
 * source becomes the final watermark (+∞) and `end`. Processing time re-checks idleness
 * (`onProcessingTime`); a barrier records the reader's position and the tracker's state
 * ({@link SourceCheckpoint}), which a restore loads and a completed checkpoint hands back to the
 * reader. The source's watermark is kept in its tracker only.
 *
 * Quality (issue 14): a row whose rowtime (the watermark column) is NULL or cannot be computed,
 * or that breaks one of the table's `'quality.*'` rules, never reaches the query and never moves
 * the watermark. It goes to the `quarantine` side output (with the rule, the raw record and its
 * position) when the table names a quarantine table, is dropped and counted with
 * `'quality.on-violation' = 'drop'`, and otherwise fails the job naming the record's position
 * (Flink fails on a NULL rowtime too). Every such row is counted per rule (`quality.<rule>`).
 * A delete with a NULL rowtime (an upsert-kafka tombstone carries only its key) is no violation:
 * it passes without moving the watermark.
 */
export class SourceTask implements Task<SourceCheckpoint> {
  readonly tracker: WatermarkTracker;
  private readonly computed: { readonly index: number; readonly fn: CompiledExpr }[] = [];
  /** For each output column, the index of its value in a connector row, or -1 for computed. */
  private readonly physicalIndex: number[] = [];
  private readonly physicalCount: number;
  /**
   * The completed row is the connector row with its cached rowtime appended (the physical
   * columns first, in order, and the rowtime the only computed column, last): `complete` takes
   * such a row as it is, without copying it.
   */
  private readonly rowtimeLast: boolean;
  private readonly watermarkColumn: number;
  private readonly watermarkExpr: CompiledExpr | null;
  ended = false;
  /** Emit the watermark after each row that advances it (else once per poll result). */
  private readonly onEvent: boolean;
  /** Per split, the largest watermark candidate seen (on-event emission). */
  private readonly splitMax = new Map<string, number>();
  private readonly quality: TableQuality | null;
  private readonly checks: { readonly name: string; readonly fn: CompiledExpr }[];
  /** Counters of the run summary: the reader's, and `quality.<rule>` per rule. */
  readonly counters = new Map<string, number>();
  /** The reader's {@link SourceReader.describe}: a record's position as people read it. */
  private readonly describe: ((split: string, at: number | string) => string) | null;
  /** Where the source's messages go (the context's `send`, from `open`). */
  private out: (message: OwnMessage) => void = () => {
    throw new Error(`source '${this.node.table}' was not opened`);
  };

  constructor(
    readonly node: SourceNode,
    readonly reader: SourceReader,
    evalContext: EvalContext,
    private readonly clock: Clock,
    /** Directory that relative `'path'` options resolve against. */
    private readonly cwd = ".",
    /** Sends quarantine rows ({@link QUARANTINE_FIELDS} order) to the quarantine table. */
    private readonly quarantine: ((rows: readonly Row[]) => void) | null = null,
  ) {
    this.describe = reader.describe ? reader.describe.bind(reader) : null;
    this.tracker = new WatermarkTracker({
      idleTimeoutMs: node.idleTimeoutMs,
      idleAdvanceMs: node.idleAdvanceMs ?? 0,
      clock,
    });
    let p = 0;
    node.columns.forEach((c, i) => {
      if (c.kind === "computed") {
        this.computed.push({ index: i, fn: compileExpr(c.expr, evalContext) });
        this.physicalIndex.push(-1);
      } else {
        this.physicalIndex.push(p++);
      }
    });
    this.physicalCount = p;
    this.watermarkColumn = node.watermark?.column ?? -1;
    this.rowtimeLast =
      this.computed.length === 1 &&
      this.computed[0].index === p &&
      this.watermarkColumn === p &&
      this.physicalIndex.every((v, i) => (i < p ? v === i : v === -1));
    this.watermarkExpr = node.watermark ? compileExpr(node.watermark.expr, evalContext) : null;
    this.onEvent = (node.options["scan.watermark.emit.strategy"] ?? "on-event") === "on-event";
    this.quality = node.quality ?? null;
    this.checks = (this.quality?.checks ?? []).map((c) => ({
      name: c.name,
      fn: compileExpr(c.expr, evalContext),
    }));
  }

  async open(ctx: SourceContext): Promise<void> {
    this.out = ctx.send;
    const rowtime = this.rowtimeOf();
    await this.reader.open({
      node: this.node,
      metrics: this.counters,
      settings: ctx.settings,
      cwd: this.cwd,
      ...(rowtime !== null ? { rowtime } : {}),
      ...(this.wantsOrigins ? { recordOrigins: true } : {}),
      ...(this.wantsRaw ? { recordRaw: true } : {}),
      ...(this.node.quality ? { onBadRecord: this.badRecord.bind(this) } : {}),
    });
    for (const split of this.reader.splits?.() ?? []) this.tracker.addSplit(split);
    ctx.metrics.gauge("currentWatermark", () => this.watermark);
  }

  processBatch(): void {
    throw new Error(`source '${this.node.table}' has no inputs`);
  }

  onWatermark(watermark: number): number {
    return watermark;
  }

  /** Re-checks idleness against the clock: the watermark or `idle` when that changed. */
  onProcessingTime(): void {
    if (!this.ended) this.pollWatermark(this.out);
  }

  onBarrier(): SourceCheckpoint {
    return { position: this.reader.position(), watermarks: this.tracker.snapshot(), ended: this.ended };
  }

  async onCheckpointComplete(_checkpointId: number, own: SourceCheckpoint | null): Promise<void> {
    if (own !== null) await this.reader.onCheckpointComplete?.(own.position);
  }

  async restore(own: SourceCheckpoint): Promise<void> {
    await this.reader.restore(own.position);
    this.tracker.restore(own.watermarks);
  }

  /**
   * After a restore: sends the restored watermark again, so that downstream inputs do not wait
   * for an advance.
   */
  announceWatermark(): void {
    const w = this.tracker.currentWatermark;
    if (!this.ended && w > NO_WATERMARK) this.out(Message.watermark(w));
  }

  close(): Promise<void> {
    return this.reader.close();
  }

  /** One poll result of the reader, through the whole DAG (synchronously); returns the rows read. */
  processPoll(result: PollResult): number {
    return this.process(result, this.out);
  }

  /** Whether the source needs each broken row's record from its reader (for the quarantine table). */
  get wantsRaw(): boolean {
    return this.quarantine !== null && !!this.quality?.quarantine;
  }

  /** Whether the source needs each row's origin from its reader (positions of bad rows). */
  get wantsOrigins(): boolean {
    return this.watermarkColumn >= 0 || this.quality !== null;
  }

  /**
   * The event time of a connector row (before computed columns), for readers that merge splits
   * by event time; null when the table has no watermark.
   */
  rowtimeOf(): ((row: Row) => unknown) | null {
    const col = this.watermarkColumn;
    if (col < 0) return null;
    const physical = this.physicalIndex[col];
    if (physical >= 0) return (row) => row[physical];
    // A computed rowtime is evaluated once: the value is appended to the connector row, where
    // `complete` takes it instead of evaluating the column again.
    const fn = this.computed.find((c) => c.index === col)!.fn;
    const idx = this.physicalIndex;
    const width = this.physicalCount;
    const full: Row = new Array(idx.length).fill(null);
    // The rowtime the only computed column, after the physical ones: it reads physical columns
    // only, so the connector row itself is its input (no copy).
    const direct = this.rowtimeLast;
    return (row) => {
      if (row.length > width) return row[width];
      if (!direct) for (let c = 0; c < idx.length; c++) full[c] = idx[c] < 0 ? null : row[idx[c]];
      let value: unknown;
      try {
        value = fn(direct ? row : full);
      } catch {
        return null; // `complete` evaluates it again and reports the failure, in order
      }
      row.push(value);
      return value;
    };
  }

  /** Quarantine rows of records the reader could not parse, sent with the next poll result. */
  private pendingBad: Row[] = [];

  /**
   * For the reader (`onBadRecord`): a record that does not parse is quarantined or dropped
   * (rule `invalid-record`) when the table has quality rules that say so; false: the reader
   * handles it as without rules (fails, naming the position).
   */
  private badRecord(split: string, at: number | string, raw: unknown, message: string): boolean {
    const q = this.quality;
    if (q === null) return false;
    if (q.quarantine !== null && this.quarantine !== null) {
      this.count("invalid-record");
      const position = this.describe !== null ? this.describe(split, at) : `split ${split} record ${at}`;
      const wm = this.watermark;
      this.pendingBad.push([
        "invalid-record",
        `the record does not parse: ${message}`,
        this.node.table,
        position,
        rawText(raw),
        null,
        wm === null || !Number.isFinite(wm) ? null : wm,
        this.clock(),
      ]);
      return true;
    }
    if (q.onViolation === "drop") {
      this.count("invalid-record");
      return true;
    }
    return false;
  }

  /** Messages for one poll result, in order; `emit` is called synchronously. */
  process(result: PollResult, emit: (m: OwnMessage) => void): number {
    if (this.pendingBad.length > 0) {
      const rows = this.pendingBad;
      this.pendingBad = [];
      this.quarantine!(rows);
    }
    switch (result.kind) {
      case "data": {
        let n = 0;
        if (this.watermarkExpr !== null && this.onEvent) {
          const out = new ChangeBatchBuilder(64);
          const splits = result.splits;
          for (let k = 0; k < splits.length; k++) {
            const s = splits[k];
            if (s.batch.length === 0) continue;
            const { batch, rowSplits } = this.complete(s);
            n += batch.length;
            if (batch.length === 0) continue;
            const from = this.emitOnEvent(s.split, rowSplits, batch, out, emit);
            if (from === batch.length) continue;
            // The rows after the last watermark: as they are when nothing else is pending.
            if (out.length === 0 && k === splits.length - 1) emit(Message.data(sliceBatch(batch, from)));
            else for (let i = from; i < batch.length; i++) out.push(batch.ops[i] as Op, batch.rows[i]);
          }
          if (out.length > 0) emit(Message.data(out.finish()));
        } else {
          for (const s of result.splits) {
            if (s.batch.length === 0) continue;
            const { batch, rowSplits } = this.complete(s);
            n += batch.length;
            if (batch.length === 0) continue;
            if (this.watermarkExpr !== null) this.track(s.split, rowSplits, batch);
            emit(Message.data(batch));
          }
        }
        this.pollWatermark(emit);
        return n;
      }
      case "idle":
        this.pollWatermark(emit);
        return 0;
      case "end":
        this.ended = true;
        emit(Message.watermark(Number.POSITIVE_INFINITY));
        emit(Message.end());
        return 0;
      default: {
        const _exhaustive: never = result;
        return _exhaustive;
      }
    }
  }

  /** Emits the source watermark if it advanced or the source went idle (checked against the clock). */
  pollWatermark(emit: (m: OwnMessage) => void): void {
    if (this.watermarkExpr === null || this.ended) return;
    const ev = this.tracker.poll();
    if (ev !== null) emit(ev);
  }

  /** The current source watermark (Infinity once ended), or null before the first. */
  get watermark(): number | null {
    if (this.ended) return Number.POSITIVE_INFINITY;
    const w = this.tracker.currentWatermark;
    return w === Number.NEGATIVE_INFINITY ? null : w;
  }

  /**
   * The split's rows completed with their computed columns, without the rows that break a quality
   * rule (or have no valid event time): those are quarantined, dropped or fail the job here.
   */
  private complete(s: SplitBatch): { batch: ChangeBatch; rowSplits: readonly string[] | undefined } {
    const batch = s.batch;
    const wmCol = this.watermarkColumn;
    if (this.computed.length === 0 && this.quality === null) {
      this.checkWidth(batch);
      let clean = true;
      if (wmCol >= 0) {
        const physical = this.physicalIndex[wmCol];
        for (let i = 0; i < batch.length && clean; i++)
          if (batch.rows[i][physical] == null && batch.ops[i] !== Op.DELETE) clean = false;
      }
      if (clean) return { batch, rowSplits: s.rowSplits };
    } else if (this.rowtimeLast && this.quality === null && this.allCompleted(batch)) {
      return { batch, rowSplits: s.rowSplits };
    }
    const out = new ChangeBatchBuilder(batch.length);
    const kept: string[] | undefined = s.rowSplits === undefined ? undefined : [];
    const quarantined: Row[] = [];
    const idx = this.physicalIndex;
    const width = this.physicalCount;
    const quality = this.quality;
    const now =
      quality !== null && (quality.maxFutureSkewMs !== null || quality.maxAgeMs !== null) ? this.clock() : 0;
    const rowtimeLast = this.rowtimeLast;
    for (let i = 0; i < batch.length; i++) {
      const src = batch.rows[i];
      // One more value than the physical ones: the rowtime, computed by `rowtimeOf` already.
      const cached = src.length === width + 1;
      if (src.length !== width && !cached) this.badWidth(src);
      let row: Row;
      let broken: { rule: string; reason: string } | null = null;
      if (cached && rowtimeLast) {
        // Already the completed row: the reader hands its rows over, so it is taken as it is.
        row = src;
      } else {
        row = new Array(idx.length);
        for (let c = 0; c < idx.length; c++) row[c] = idx[c] < 0 ? null : src[idx[c]];
      }
      for (const cc of this.computed) {
        if (cached && cc.index === wmCol) {
          row[cc.index] = src[width];
          continue;
        }
        try {
          row[cc.index] = cc.fn(row);
        } catch (e) {
          const name = this.node.schema[cc.index]?.name;
          broken = {
            rule: cc.index === wmCol ? "invalid-event-time" : "invalid-record",
            reason: `computed column '${name}': ${(e as Error).message}`,
          };
          break;
        }
      }
      // A tombstone (a delete with only its key) has no event time: it is no violation.
      const tombstone = batch.ops[i] === Op.DELETE && wmCol >= 0 && row[wmCol] == null;
      if (broken === null && !tombstone) broken = this.violation(row, now);
      if (broken === null) {
        out.push(batch.ops[i] as Op, row);
        kept?.push(s.rowSplits![i]);
        continue;
      }
      const split = s.rowSplits?.[i] ?? s.split;
      this.count(broken.rule);
      const position = this.position(split, s.origins, i);
      if (this.quarantine !== null && quality?.quarantine) {
        const t = wmCol >= 0 ? row[wmCol] : null;
        const wm = this.watermark;
        quarantined.push([
          broken.rule,
          broken.reason,
          this.node.table,
          position,
          rawText(s.origins?.raw[i]),
          typeof t === "number" ? t : null,
          wm === null || !Number.isFinite(wm) ? null : wm,
          this.clock(),
        ]);
      } else if (quality?.onViolation !== "drop") {
        this.fail(broken, position);
      }
    }
    if (quarantined.length > 0) this.quarantine!(quarantined);
    return { batch: out.finish(), rowSplits: kept };
  }

  /**
   * Every row is already its completed row (the connector row with its cached rowtime, see
   * `rowtimeLast`) with an event time, or a delete without one: without quality rules `complete`
   * would keep each as it is.
   */
  private allCompleted(batch: ChangeBatch): boolean {
    const width = this.physicalCount;
    const rows = batch.rows;
    for (let i = 0; i < batch.length; i++) {
      const row = rows[i];
      if (row.length !== width + 1) return false;
      const t = row[width];
      if ((t === null || t === undefined) && batch.ops[i] !== Op.DELETE) return false;
    }
    return true;
  }

  /**
   * The first rule `row` breaks, or null: the zone of the event time's text, a NULL event time,
   * future skew, age, then the checks by name.
   */
  private violation(row: Row, now: number): { rule: string; reason: string } | null {
    const q = this.quality;
    // The zone first: text without one is the cause of the NULL event time it gives.
    for (const c of q === null ? NO_COLUMNS : q.requireZoneColumns) {
      const v = row[c];
      if (typeof v === "string" && !ZONED_ISO_8601.test(v)) {
        return {
          rule: "require-zone",
          reason: `'${this.node.schema[c]?.name}' = '${v}' is not an ISO-8601 timestamp with a time zone (such as 2026-06-24T11:48:31+09:00)`,
        };
      }
    }
    const wmCol = this.watermarkColumn;
    const t = wmCol >= 0 ? row[wmCol] : undefined;
    if (wmCol >= 0 && (t === null || t === undefined)) {
      return {
        rule: "null-event-time",
        reason: `the event time '${this.node.schema[wmCol]?.name}' is NULL (missing, or text that does not parse as a timestamp)`,
      };
    }
    if (q === null) return null;
    if (typeof t === "number") {
      if (q.maxFutureSkewMs !== null && t > now + q.maxFutureSkewMs) {
        return {
          rule: "max-future-skew",
          reason: `event time ${iso(t)} is more than ${this.node.options["quality.max-future-skew"]} ahead of processing time ${iso(now)}`,
        };
      }
      if (q.maxAgeMs !== null && t < now - q.maxAgeMs) {
        return {
          rule: "max-age",
          reason: `event time ${iso(t)} is more than ${this.node.options["quality.max-age"]} behind processing time ${iso(now)}`,
        };
      }
    }
    for (let k = 0; k < this.checks.length; k++) {
      const c = this.checks[k];
      let v: unknown;
      try {
        v = c.fn(row);
      } catch (e) {
        return { rule: c.name, reason: `check '${c.name}' failed to evaluate: ${(e as Error).message}` };
      }
      if (v !== true) {
        const sql = q.checks[k].sql;
        return { rule: c.name, reason: `check '${c.name}' (${sql}) is ${v === null ? "NULL" : "FALSE"}` };
      }
    }
    return null;
  }

  private count(rule: string): void {
    const key = `quality.${rule}`;
    this.counters.set(key, (this.counters.get(key) ?? 0) + 1);
  }

  private position(split: string, origins: RecordOrigins | undefined, i: number): string {
    const at = origins?.at[i];
    if (at === undefined) return `split ${split}`;
    return this.describe !== null ? this.describe(split, at) : `split ${split} record ${at}`;
  }

  private fail(broken: { rule: string; reason: string }, position: string): never {
    const q = this.quality;
    const hint =
      broken.rule === "null-event-time" || broken.rule === "invalid-event-time"
        ? `a WATERMARK column must not be NULL: route such rows to a quarantine table with 'quality.quarantine' = '<table>', drop and count them with 'quality.on-violation' = 'drop', or COALESCE the column in a computed column`
        : `route such rows to a quarantine table with 'quality.quarantine' = '<table>', or drop and count them with 'quality.on-violation' = 'drop'`;
    throw new ConnectorError(
      `${q === null ? "" : `quality rule '${broken.rule}': `}${broken.reason}`,
      "user",
      position,
      false,
      { table: this.node.table, hint },
    );
  }

  /**
   * `'scan.watermark.emit.strategy' = 'on-event'` (Weir's default): the watermark is emitted right
   * after the row that advanced it, so whether a later row is late does not depend on how rows
   * were batched — a run, a re-run and a run restored from a checkpoint agree. Rows collect in
   * `out` (across the splits of one poll, in the order the reader merged them), which is cut only
   * where the watermark advances. Every row counts as activity of its split for idleness, whether
   * or not it advances the split's watermark. The rows up to each watermark are emitted as a
   * slice of `batch` (after what `out` holds); returns the index of the first row not emitted.
   */
  private emitOnEvent(
    first: string,
    rowSplits: readonly string[] | undefined,
    batch: ChangeBatch,
    out: ChangeBatchBuilder,
    emit: (m: OwnMessage) => void,
  ): number {
    const col = this.watermarkColumn;
    const expr = this.watermarkExpr!;
    // One processing time for the rows of one poll result (idleness is processing time; the
    // rows of a batch arrive together).
    const now = this.clock();
    let split = first;
    let max = this.splitMax.get(split) ?? Number.NEGATIVE_INFINITY;
    let from = 0;
    const rows = batch.rows;
    for (let i = 0; i < batch.length; i++) {
      if (rowSplits !== undefined && rowSplits[i] !== split) {
        this.splitMax.set(split, max);
        this.tracker.onRecord(split, max, now);
        split = rowSplits[i];
        max = this.splitMax.get(split) ?? Number.NEGATIVE_INFINITY;
      }
      const row = rows[i];
      if (row[col] === null || row[col] === undefined) {
        // An upsert-kafka tombstone has only its key: changelog-normalize completes it with the
        // deleted row (and its rowtime); it does not move the watermark (Flink skips a NULL
        // watermark too).
        if (batch.ops[i] !== Op.DELETE) this.nullRowtime(col);
        continue;
      }
      const w = expr(row);
      if (typeof w !== "number" || w <= max) continue;
      max = w;
      this.tracker.onRecord(split, w, now);
      const ev = this.tracker.poll(now);
      if (ev === null) continue;
      if (out.length === 0) emit(Message.data(sliceBatch(batch, from, i + 1)));
      else {
        for (let j = from; j <= i; j++) out.push(batch.ops[j] as Op, rows[j]);
        emit(Message.data(out.finish()));
      }
      from = i + 1;
      emit(ev);
    }
    this.splitMax.set(split, max);
    this.tracker.onRecord(split, max, now);
    return from;
  }

  /** Unreachable after `complete` (which takes rows without an event time out); a guard. */
  private nullRowtime(col: number): never {
    throw new Error(
      `table '${this.node.table}': the rowtime column '${this.node.schema[col]?.name}' is NULL in a row; a WATERMARK column must not be NULL (filter or COALESCE it in a computed column)`,
    );
  }

  private track(first: string, rowSplits: readonly string[] | undefined, batch: ChangeBatch): void {
    const col = this.watermarkColumn;
    const expr = this.watermarkExpr!;
    let split = first;
    let max = Number.NEGATIVE_INFINITY;
    for (let i = 0; i < batch.length; i++) {
      if (rowSplits !== undefined && rowSplits[i] !== split) {
        this.tracker.onRecord(split, max);
        split = rowSplits[i];
        max = Number.NEGATIVE_INFINITY;
      }
      const row = batch.rows[i];
      if (row[col] === null || row[col] === undefined) {
        if (batch.ops[i] !== Op.DELETE) this.nullRowtime(col);
        continue;
      }
      const w = expr(row);
      if (typeof w === "number" && w > max) max = w;
    }
    this.tracker.onRecord(split, max);
  }

  private checkWidth(batch: ChangeBatch): void {
    for (let i = 0; i < batch.length; i++)
      if (batch.rows[i].length !== this.physicalCount) this.badWidth(batch.rows[i]);
  }

  private badWidth(row: Row): never {
    throw new Error(
      `table '${this.node.table}': the connector '${this.node.connector}' produced a row of ${row.length} values, expected ${this.physicalCount} (physical and metadata columns)`,
    );
  }
}

const NO_COLUMNS: readonly number[] = [];

/** Changes `[from, to)` of `batch` (the batch itself when that is all of it). */
function sliceBatch(batch: ChangeBatch, from: number, to = batch.length): ChangeBatch {
  if (from === 0 && to === batch.length) return batch;
  const ops = batch.ops;
  return {
    ops: ops instanceof Uint8Array ? ops.subarray(from, to) : ops.slice(from, to),
    rows: batch.rows.slice(from, to),
    length: to - from,
  };
}

/** ISO-8601 with a zone designator: `2026-06-24T11:48:31+09:00`, `…Z`, `… 11:48:31.5+0900`. */
const ZONED_ISO_8601 =
  /^\s*[+-]?\d{4,}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|z|[+-]\d{2}(:?\d{2})?)\s*$/;

function iso(ms: number): string {
  return Math.abs(ms) <= 8.64e15 ? new Date(ms).toISOString() : String(ms);
}

/** A record as read, as text: a string as it is, bytes as UTF-8, null when unknown. */
function rawText(raw: unknown): string | null {
  if (raw === null || raw === undefined) return null;
  if (typeof raw === "string") return raw;
  if (raw instanceof Uint8Array)
    return Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength).toString("utf8");
  return String(raw);
}
