import type { SourceNode } from "@weir/planner";
import type { ChangeBatch, Row } from "../changelog.js";
import { ChangeBatchBuilder, Message, Op } from "../changelog.js";
import type { PollResult } from "../connector.js";
import type { CompiledExpr } from "../expr/compile.js";
import { compileExpr } from "../expr/compile.js";
import type { EvalContext } from "../expr/context.js";
import { decodeJson, encodeJson, type Json } from "../state/codec.js";
import type { Clock } from "../time/watermarks.js";
import { WatermarkTracker } from "../time/watermarks.js";

/**
 * Turns a source reader's poll results into the messages of the source node: rows completed with
 * the computed columns (compiled once), then the source's watermark when it advanced (tracked per
 * split, with the node's idle timeout), or `idle`. The end of a bounded source becomes the final
 * watermark (+∞) and `end`.
 *
 * Invariant: a row whose rowtime (the watermark column) is NULL fails the job, as in Flink, except
 * a delete (an upsert-kafka tombstone carries only its key), which passes without moving the
 * watermark.
 */
export class SourceOperator {
  readonly tracker: WatermarkTracker;
  private readonly computed: { readonly index: number; readonly fn: CompiledExpr }[] = [];
  /** For each output column, the index of its value in a connector row, or -1 for computed. */
  private readonly physicalIndex: number[] = [];
  private readonly physicalCount: number;
  private readonly watermarkColumn: number;
  private readonly watermarkExpr: CompiledExpr | null;
  ended = false;
  /** Emit the watermark after each row that advances it (else once per poll result). */
  private readonly onEvent: boolean;
  /** Per split, the largest watermark candidate seen (on-event emission). */
  private readonly splitMax = new Map<string, number>();

  constructor(
    readonly node: SourceNode,
    evalContext: EvalContext,
    clock: Clock,
  ) {
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
    this.watermarkExpr = node.watermark ? compileExpr(node.watermark.expr, evalContext) : null;
    this.onEvent = (node.options["scan.watermark.emit.strategy"] ?? "on-event") === "on-event";
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
    return (row) => {
      if (row.length > width) return row[width];
      for (let c = 0; c < idx.length; c++) full[c] = idx[c] < 0 ? null : row[idx[c]];
      let value: unknown;
      try {
        value = fn(full);
      } catch {
        return null; // `complete` evaluates it again and reports the failure, in order
      }
      row.push(value);
      return value;
    };
  }

  /** Messages for one poll result, in order; `emit` is called synchronously. */
  process(result: PollResult, emit: (m: Message) => void): number {
    switch (result.kind) {
      case "data": {
        let n = 0;
        if (this.watermarkExpr !== null && this.onEvent) {
          const out = new ChangeBatchBuilder(64);
          for (const s of result.splits) {
            if (s.batch.length === 0) continue;
            const batch = this.complete(s.batch);
            n += batch.length;
            this.emitOnEvent(s.split, s.rowSplits, batch, out, emit);
          }
          if (out.length > 0) emit(Message.data(out.finish()));
        } else {
          for (const s of result.splits) {
            if (s.batch.length === 0) continue;
            const batch = this.complete(s.batch);
            n += batch.length;
            if (this.watermarkExpr !== null) this.track(s.split, s.rowSplits, batch);
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
  pollWatermark(emit: (m: Message) => void): void {
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

  snapshotWatermarks(): Json {
    return encodeJson(this.tracker.snapshot());
  }

  restoreWatermarks(j: Json): void {
    this.tracker.restore(decodeJson(j) as ReturnType<WatermarkTracker["snapshot"]>);
  }

  private complete(batch: ChangeBatch): ChangeBatch {
    if (this.computed.length === 0) {
      this.checkWidth(batch);
      return batch;
    }
    const out = new ChangeBatchBuilder(batch.length);
    const idx = this.physicalIndex;
    const width = this.physicalCount;
    const wmCol = this.watermarkColumn;
    for (let i = 0; i < batch.length; i++) {
      const src = batch.rows[i];
      // One more value than the physical ones: the rowtime, computed by `rowtimeOf` already.
      const cached = src.length === width + 1;
      if (src.length !== width && !cached) this.badWidth(src);
      const row: Row = new Array(idx.length);
      for (let c = 0; c < idx.length; c++) row[c] = idx[c] < 0 ? null : src[idx[c]];
      for (const cc of this.computed) row[cc.index] = cached && cc.index === wmCol ? src[width] : cc.fn(row);
      out.push(batch.ops[i] as Op, row);
    }
    return out.finish();
  }

  /**
   * `'scan.watermark.emit.strategy' = 'on-event'` (Weir's default): the watermark is emitted right
   * after the row that advanced it, so whether a later row is late does not depend on how rows
   * were batched — a run, a re-run and a run restored from a checkpoint agree. Rows collect in
   * `out` (across the splits of one poll, in the order the reader merged them), which is cut only
   * where the watermark advances. Every row counts as activity of its split for idleness, whether
   * or not it advances the split's watermark.
   */
  private emitOnEvent(
    first: string,
    rowSplits: readonly string[] | undefined,
    batch: ChangeBatch,
    out: ChangeBatchBuilder,
    emit: (m: Message) => void,
  ): void {
    const col = this.watermarkColumn;
    const expr = this.watermarkExpr!;
    let split = first;
    let max = this.splitMax.get(split) ?? Number.NEGATIVE_INFINITY;
    for (let i = 0; i < batch.length; i++) {
      if (rowSplits !== undefined && rowSplits[i] !== split) {
        this.splitMax.set(split, max);
        this.tracker.onRecord(split, max);
        split = rowSplits[i];
        max = this.splitMax.get(split) ?? Number.NEGATIVE_INFINITY;
      }
      const row = batch.rows[i];
      if (row[col] === null || row[col] === undefined) {
        // An upsert-kafka tombstone has only its key: changelog-normalize completes it with the
        // deleted row (and its rowtime); it does not move the watermark (Flink skips a NULL
        // watermark too).
        if (batch.ops[i] !== Op.DELETE) this.nullRowtime(col);
        out.push(Op.DELETE, row);
        continue;
      }
      out.push(batch.ops[i] as Op, row);
      const w = expr(row);
      if (typeof w !== "number" || w <= max) continue;
      max = w;
      this.tracker.onRecord(split, w);
      const ev = this.tracker.poll();
      if (ev === null) continue;
      emit(Message.data(out.finish()));
      emit(ev);
    }
    this.splitMax.set(split, max);
    this.tracker.onRecord(split, max);
  }

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
