import type { WindowDeduplicateNode } from "@weir/planner";
import { type ChangeBatch, ChangeBatchBuilder, Op, type Row } from "../changelog.js";
import type { Operator, OperatorContext } from "../operator.js";
import type { TimeIndexedState } from "../state/api.js";
import { type KeyCodec, keyCodec } from "../state/keys.js";
import { isWindowFired } from "../windows/slices.js";
import { inputKeyTypes } from "./common.js";
import { registerOperator } from "./registry.js";
import { type WindowClock, windowClock } from "./time-support.js";

/**
 * Window deduplication (`ROW_NUMBER() OVER (PARTITION BY window_start, window_end, keys ORDER BY
 * time [DESC]) = 1`): per window (by window_end) and key, the first row by the time column
 * (`keepLast`: the last; among equal times the earliest arrival for first, the latest for last,
 * as Flink's row-time deduplication). Emitted as `+I` when the window fires, by window end then
 * key first appearance. Insert-only input; rows for a fired window are dropped and counted.
 */
export class WindowDeduplicateOperator implements Operator {
  private ctx!: OperatorContext;
  private kept!: TimeIndexedState<Row>;
  private clock!: WindowClock;
  private codec!: KeyCodec;

  constructor(private readonly node: WindowDeduplicateNode) {}

  open(ctx: OperatorContext): void {
    this.ctx = ctx;
    this.kept = ctx.state.timeIndexed<Row>("windows");
    this.clock = windowClock(this.node.window.timeZoneAligned === true, ctx.evalContext.localTimeZone);
    const keys = this.node.keys;
    this.codec = keyCodec(keys, inputKeyTypes(keys, keys, this.node));
  }

  processBatch(_input: number, batch: ChangeBatch): void {
    const { ops, rows, length } = batch;
    const { window, timeColumn, keepLast } = this.node;
    const wm = this.clock.toWall(this.ctx.watermark);
    for (let i = 0; i < length; i++) {
      if (ops[i] !== Op.INSERT) {
        throw new Error(
          `window deduplication (node ${this.node.id}) received a retraction: its input must be insert-only`,
        );
      }
      const row = rows[i];
      const end = row[window.end] as number | null;
      const time = row[timeColumn] as number | null;
      if (end === null || end === undefined || time === null || time === undefined) continue;
      if (isWindowFired(end, wm)) {
        this.ctx.late(row, "window-fired", {
          time,
          window: { start: row[window.start] as number, end },
        });
        continue;
      }
      const key = this.codec.encode(row);
      const prev = this.kept.get(end, key);
      const replace =
        prev === undefined ||
        (keepLast ? time >= (prev[timeColumn] as number) : time < (prev[timeColumn] as number));
      if (replace) this.kept.put(end, key, row);
    }
  }

  onWatermark(watermark: number): number {
    const out = new ChangeBatchBuilder();
    this.kept.expireUpTo(this.clock.toWall(watermark) + 1, (_end, rows) => {
      for (const row of rows.values()) out.push(Op.INSERT, row);
    });
    if (out.length > 0) {
      this.ctx.emit(out.finish());
    }
    return watermark;
  }
}

registerOperator("window-deduplicate", (node) => new WindowDeduplicateOperator(node));
