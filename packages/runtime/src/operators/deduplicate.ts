import type { DeduplicateNode } from "@weir/planner";
import type { ChangeBatch, Row } from "../changelog.js";
import { ChangeBatchBuilder, Op, opDisplay, opSign } from "../changelog.js";
import type { Operator, OperatorContext } from "../operator.js";
import type { TimeIndexedState, ValueState } from "../state/api.js";
import type { KeyCodec } from "../state/keys.js";
import { keyCodec } from "../state/keys.js";
import { rowsEqual, stateTtl, TTL_CLEANUP_BUDGET } from "./common.js";
import { registerOperator } from "./registry.js";

/**
 * `ROW_NUMBER() OVER (PARTITION BY keys ORDER BY time [DESC]) = 1`, per Flink's deduplicate
 * functions. Per key it keeps one row (or, for proctime keep-first, only that a row was seen):
 * - proctime, keep first (`ProcTimeDeduplicateKeepFirstRowFunction`): the first row per key is
 *   `+I`, later rows are dropped; insert-only in and out;
 * - proctime, keep last: the first row is `+I`, each later row `-U previous`/`+U row`;
 * - rowtime, keep last (`RowTimeDeduplicateFunction`): a row replaces the kept one when its
 *   rowtime is not earlier, emitting `-U kept`/`+U row`; otherwise it is dropped. Rows are
 *   emitted at once, not on the watermark, as Flink does.
 * - rowtime, keep first (Flink 2.1+'s `RowTimeDeduplicateKeepFirstRowFunction`, insert-only):
 *   per key the row with the smallest rowtime (ties: the first to arrive) waits in state until
 *   the watermark reaches its rowtime, then is emitted once as `+I`; the key is then remembered
 *   (until 'table.exec.state.ttl') and later rows of it are dropped as duplicates (not counted).
 *   A row whose rowtime is before the watermark on arrival is late (as in Flink, a row at the
 *   watermark is not): it goes to `ctx.late` (counted), whatever its key. The waiting row has no
 *   TTL (it leaves on the watermark; expiring it first would lose it). Insert-only in and out.
 * A `-U`/`-D` of the kept row deletes it (`-D`); other retractions are ignored. In upsert mode (`changelogMode` upsert) the `-U` of an update is not emitted.
 */
export class DeduplicateOperator implements Operator {
  private ctx!: OperatorContext;
  private kept!: ValueState<Row | true>;
  /** Rowtime keep first: the rows waiting for the watermark, by rowtime then key. */
  private pending!: TimeIndexedState<Row>;
  /** Rowtime keep first: each key's waiting row (no TTL); `kept` holds only `true` (emitted). */
  private waiting!: ValueState<Row>;
  private readonly keys: KeyCodec;
  private readonly upsert: boolean;

  constructor(readonly node: DeduplicateNode) {
    this.keys = keyCodec(
      node.keys,
      node.schema.map((f) => f.type),
    );
    this.upsert = node.changelogMode.kind === "upsert";
  }

  open(ctx: OperatorContext): void {
    this.ctx = ctx;
    this.kept = ctx.state.value("kept", { ttl: stateTtl(ctx.settings) });
    if (this.firstOnRowtime) {
      this.pending = ctx.state.timeIndexed<Row>("pending");
      this.waiting = ctx.state.value<Row>("waiting");
    }
  }

  private get firstOnRowtime(): boolean {
    return this.node.timeKind === "rowtime" && !this.node.keepLast;
  }

  processBatch(_input: number, batch: ChangeBatch): void {
    const { ops, rows, length } = batch;
    const out = new ChangeBatchBuilder(length);
    const rowtime = this.node.timeKind === "rowtime";
    if (rowtime && !this.node.keepLast) {
      this.firstRowOnRowtime(batch);
      return;
    }
    for (let i = 0; i < length; i++) {
      const op = ops[i] as Op;
      const row = rows[i];
      const key = this.keys.encode(row);
      if (!this.node.keepLast && !rowtime) {
        if (opSign(op) < 0) {
          throw new Error(
            `deduplication keeping the first row by processing time needs an insert-only input, got ${opDisplay(op)}`,
          );
        }
        if (this.kept.get(key) === undefined) {
          this.kept.put(key, true);
          out.push(Op.INSERT, row);
        }
        continue;
      }
      const prev = this.kept.get(key) as Row | undefined;
      if (opSign(op) < 0) {
        if (prev !== undefined && rowsEqual(prev, row)) {
          out.push(Op.DELETE, prev);
          this.kept.delete(key);
        }
        continue;
      }
      if (prev === undefined) {
        this.kept.put(key, row);
        out.push(Op.INSERT, row);
        continue;
      }
      if (rowtime && !this.replaces(prev, row)) continue;
      this.kept.put(key, row);
      if (!this.upsert) out.push(Op.UPDATE_BEFORE, prev);
      out.push(Op.UPDATE_AFTER, row);
    }
    if (out.length > 0) this.ctx.emit(out.finish());
  }

  /**
   * Rowtime keep first: the earliest row per key waits in `pending` (and in `waiting`, to find
   * it when an earlier row replaces it) until the watermark passes it.
   */
  private firstRowOnRowtime(batch: ChangeBatch): void {
    const { ops, rows, length } = batch;
    const t = this.node.timeColumn;
    const watermark = this.ctx.watermark;
    for (let i = 0; i < length; i++) {
      const op = ops[i] as Op;
      const row = rows[i];
      if (op !== Op.INSERT) {
        throw new Error(
          `deduplication keeping the first row by event time needs an insert-only input, got ${opDisplay(op)}`,
        );
      }
      const ts = this.rowtime(row);
      if (ts < watermark) {
        this.ctx.late(row, "behind-watermark", { time: ts });
        continue;
      }
      const key = this.keys.encode(row);
      // The key's first row was emitted; this one is not earlier than the watermark it was
      // emitted at, so it is a duplicate (Flink drops it without counting it as late).
      if (this.kept.get(key) === true) continue;
      const prev = this.waiting.get(key);
      if (prev !== undefined) {
        const prevTs = prev[t] as number;
        if (ts >= prevTs) continue;
        this.pending.delete(prevTs, key);
      }
      this.waiting.put(key, row);
      this.pending.put(ts, key, row);
    }
  }

  onWatermark(watermark: number): number {
    if (this.firstOnRowtime) {
      const out = new ChangeBatchBuilder();
      this.pending.expireUpTo(watermark, (_ts, entries) => {
        for (const [key, row] of entries) {
          out.push(Op.INSERT, row);
          this.waiting.delete(key);
          this.kept.put(key, true);
        }
      });
      if (out.length > 0) this.ctx.emit(out.finish());
    }
    return watermark;
  }

  onProcessingTime(): void {
    this.ctx.state.cleanupExpired(TTL_CLEANUP_BUDGET);
  }

  /** Whether `row` takes the place of `prev` (Flink's `isDuplicate` on rowtime). */
  private replaces(prev: Row, row: Row): boolean {
    const now = this.rowtime(row);
    const t = this.node.timeColumn;
    return this.node.keepLast ? now >= (prev[t] as number) : now < (prev[t] as number);
  }

  private rowtime(row: Row): number {
    const t = this.node.timeColumn;
    const now = row[t];
    if (now === null || now === undefined) {
      throw new Error(`deduplication on rowtime: the time column '${this.node.schema[t]?.name}' is NULL`);
    }
    return now as number;
  }
}

registerOperator("deduplicate", (node) => new DeduplicateOperator(node));
