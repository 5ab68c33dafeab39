import type { WindowAggregateNode, WindowColumns } from "@weir/planner";
import type { GroupAcc, GroupAggregates } from "../aggregates/group.js";
import { type ChangeBatch, ChangeBatchBuilder, Op, opSign } from "../changelog.js";
import type { Operator, OperatorContext } from "../operator.js";
import type { TimeIndexedState } from "../state/api.js";
import { type KeyCodec, keyCodec, type StateKey } from "../state/keys.js";
import { isWindowFired } from "../windows/slices.js";
import { bindAggregates, inputTypesFromOutput, type WindowClock, windowClock } from "./time-support.js";

/**
 * Window aggregation over rows that already carry their window (`attachedWindow`: the output of
 * a window aggregate, Top-N or deduplication, grouped by its window_start and window_end): each
 * row is accumulated into the window it names, per group key (state `windows`, indexed by
 * window end; the key holds window_start and the group keys). When the watermark reaches
 * window_end − 1 the window's results are emitted as `+I` (group keys, aggregate values,
 * window_start, window_end, window_time = end − 1), in order of window end then of the keys'
 * first appearance, and its state is dropped. A row for a window that has fired is late:
 * dropped and counted. Retractions are applied to the accumulators (a group whose row count nets
 * to 0 emits nothing).
 */
export class WindowAttachedAggregateOperator implements Operator {
  private ctx!: OperatorContext;
  private aggs!: GroupAggregates;
  private codec!: KeyCodec;
  private windows!: TimeIndexedState<GroupAcc>;
  private clock!: WindowClock;
  private readonly window: WindowColumns;

  constructor(
    private readonly node: WindowAggregateNode,
    private readonly retractable = true,
  ) {
    if (node.attachedWindow === undefined)
      throw new Error("a window-attached aggregate needs attachedWindow");
    this.window = node.attachedWindow;
  }

  open(ctx: OperatorContext): void {
    this.ctx = ctx;
    const n = this.node;
    this.aggs = bindAggregates(n.aggregates, this.retractable);
    const k = n.groupKeys.length + n.aggregates.length;
    const types = inputTypesFromOutput(n.groupKeys, n.schema);
    types[this.window.start] = n.schema[k]!.type;
    this.codec = keyCodec([this.window.start, ...n.groupKeys], types);
    this.windows = ctx.state.timeIndexed<GroupAcc>("windows");
    this.clock = windowClock(this.window.timeZoneAligned === true, ctx.evalContext.localTimeZone);
  }

  processBatch(_input: number, batch: ChangeBatch): void {
    const { ops, rows, length } = batch;
    const { start, end: endCol } = this.window;
    const wm = this.clock.toWall(this.ctx.watermark);
    for (let i = 0; i < length; i++) {
      const row = rows[i];
      const end = row[endCol] as number | null | undefined;
      if (end === null || end === undefined || row[start] === null || row[start] === undefined) continue;
      if (isWindowFired(end, wm)) {
        this.ctx.late(row, "window-fired");
        continue;
      }
      const key = this.codec.encode(row);
      const acc = this.windows.get(end, key) ?? this.aggs.create();
      this.aggs.apply(acc, row, opSign(ops[i] as Op));
      this.windows.put(end, key, acc);
    }
  }

  onWatermark(watermark: number): number {
    const out = new ChangeBatchBuilder();
    // Windows whose end − 1 is at most the watermark (in the windows' wall clock).
    const upTo = this.clock.toWall(watermark) + 1;
    this.windows.expireUpTo(upTo, (end, entries) => {
      for (const [key, acc] of entries) this.emit(out, key, acc, end);
    });
    if (out.length > 0) this.ctx.emit(out.finish());
    return watermark;
  }

  private emit(out: ChangeBatchBuilder, key: StateKey, acc: GroupAcc, end: number): void {
    if (this.aggs.rowCount(acc) <= 0) return;
    const [start, ...row] = this.codec.decode(key);
    const values = this.aggs.values(acc);
    for (let i = 0; i < values.length; i++) row.push(values[i]);
    row.push(start, end, this.clock.toInstant(end) - 1);
    out.push(Op.INSERT, row);
  }
}
