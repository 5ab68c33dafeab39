import type { DeduplicateNode } from "@weir/planner";
import type { ChangeBatch, Row } from "../changelog.js";
import { ChangeBatchBuilder, Op, opDisplay, opSign } from "../changelog.js";
import type { Operator, OperatorContext } from "../operator.js";
import type { ValueState } from "../state/api.js";
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
 * - rowtime (`RowTimeDeduplicateFunction`): a row replaces the kept one when its rowtime is
 *   earlier (keep first) or not earlier (keep last), emitting `-U kept`/`+U row`; otherwise it
 *   is dropped. Rows are emitted at once, not on the watermark, as Flink does.
 * A `-U`/`-D` of the kept row deletes it (`-D`); other retractions are ignored. In upsert mode (`changelogMode` upsert) the `-U` of an update is not emitted.
 */
export class DeduplicateOperator implements Operator {
  private ctx!: OperatorContext;
  private kept!: ValueState<Row | true>;
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
  }

  processBatch(_input: number, batch: ChangeBatch): void {
    const { ops, rows, length } = batch;
    const out = new ChangeBatchBuilder(length);
    const rowtime = this.node.timeKind === "rowtime";
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

  onWatermark(watermark: number): number {
    return watermark;
  }

  onProcessingTime(): void {
    this.ctx.state.cleanupExpired(TTL_CLEANUP_BUDGET);
  }

  /** Whether `row` takes the place of `prev` (Flink's `isDuplicate` on rowtime). */
  private replaces(prev: Row, row: Row): boolean {
    const t = this.node.timeColumn;
    const now = row[t];
    if (now === null || now === undefined) {
      throw new Error(`deduplication on rowtime: the time column '${this.node.schema[t]?.name}' is NULL`);
    }
    return this.node.keepLast
      ? (now as number) >= (prev[t] as number)
      : (now as number) < (prev[t] as number);
  }
}

registerOperator("deduplicate", (node) => new DeduplicateOperator(node));
