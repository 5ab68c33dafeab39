import type { WindowTableFunctionNode } from "@weir/planner";
import { type ChangeBatch, ChangeBatchBuilder, Op, opSign, type Row } from "../changelog.js";
import type { Operator, OperatorContext } from "../operator.js";
import { type KeyCodec, keyCodec } from "../state/keys.js";
import type { SliceAssigner } from "../windows/slices.js";
import { rowsEqual } from "./common.js";
import { registerOperator } from "./registry.js";
import { SessionStore } from "./session-store.js";
import { type WindowClock, windowClock } from "./time-support.js";
import { sliceAssignerOf } from "./window-aggregate.js";

/**
 * A window TVF that is not fused into an aggregate, join, rank or dedup: output = input columns
 * + window_start, window_end, window_time (= end − 1).
 *
 * - TUMBLE / HOP / CUMULATE: each row is emitted at once, once per window it belongs to, late or
 *   not — as Flink's AlignedWindowTableFunctionOperator does. Lateness is judged downstream, by
 *   the window join / rank / dedup with its own (merged) watermark: a left row behind the left
 *   input's watermark is not late for a join whose right input is further behind.
 * - SESSION (Flink 1.19+): rows are buffered per partition key until their session closes (the
 *   watermark reaches its end − 1), then emitted with the session's bounds, by session end and
 *   then in arrival order; a row whose session has already fired is late.
 *
 * Changes keep their sign: `+I`/`+U` become `+I`, `-U`/`-D` become `-D` (one input change may
 * fan out to several windows, so an update pair is not kept as a pair).
 */
export class WindowTableFunctionOperator implements Operator {
  private ctx!: OperatorContext;
  private assigner: SliceAssigner | null = null;
  private sessions: SessionStore<Row[]> | null = null;
  private codec: KeyCodec | null = null;
  private clock!: WindowClock;

  constructor(private readonly node: WindowTableFunctionNode) {}

  open(ctx: OperatorContext): void {
    this.ctx = ctx;
    const timeType = this.node.schema[this.node.schema.length - 1]!.type;
    this.clock = windowClock(timeType.kind === "TIMESTAMP_LTZ", ctx.evalContext.localTimeZone);
    const w = this.node.window;
    this.assigner = sliceAssignerOf(w);
    if (w.kind === "session") {
      this.sessions = new SessionStore<Row[]>(ctx.state, "", w.gap, (into, from) => into.concat(from));
      this.codec = keyCodec(w.partitionKeys, []);
    }
  }

  processBatch(_input: number, batch: ChangeBatch): void {
    const { ops, rows, length } = batch;
    const tc = this.node.timeColumn;
    const toWall = this.clock.toWall;
    const wm = toWall(this.ctx.watermark);
    const out = new ChangeBatchBuilder();
    for (let i = 0; i < length; i++) {
      const row = rows[i];
      const ts = row[tc] as number | null;
      if (ts === null || ts === undefined) continue;
      const sign = opSign(ops[i] as Op);
      if (this.assigner !== null) this.assignAligned(row, toWall(ts), sign, out);
      else this.assignSession(row, toWall(ts), sign, wm, ts);
    }
    this.flush(out);
  }

  private assignAligned(row: Row, ts: number, sign: 1 | -1, out: ChangeBatchBuilder): void {
    const a = this.assigner!;
    const op = sign > 0 ? Op.INSERT : Op.DELETE;
    for (const end of a.windowEndsOf(a.sliceEnd(ts))) {
      out.push(op, withWindow(row, a.windowStart(end), end, this.clock));
    }
  }

  private assignSession(row: Row, ts: number, sign: 1 | -1, wm: number, time: number): void {
    const store = this.sessions!;
    const key = this.codec!.encode(row);
    if (sign > 0) {
      const w = store.assign(key, ts, wm, () => []);
      if (w === null) {
        this.ctx.late(row, "window-fired", { time, window: { start: ts, end: ts + store.gapMs } });
        return;
      }
      const rows = store.get(key, w)!;
      rows.push(row);
      store.set(key, w, rows);
      return;
    }
    const w = store.find(key, ts);
    const rows = w === undefined ? undefined : store.get(key, w);
    const at = rows === undefined ? -1 : rows.findIndex((r) => rowsEqual(r, row));
    if (w === undefined || rows === undefined || at < 0) {
      this.ctx.late(row, "session-fired", { time });
      return;
    }
    rows.splice(at, 1);
    store.set(key, w, rows);
  }

  onWatermark(watermark: number): number {
    if (this.sessions !== null) {
      const out = new ChangeBatchBuilder();
      this.sessions.fire(this.clock.toWall(watermark), (_key, w, rows) => {
        for (const r of rows) out.push(Op.INSERT, withWindow(r, w.start, w.end, this.clock));
      });
      this.flush(out);
    }
    return watermark;
  }

  private flush(out: ChangeBatchBuilder): void {
    if (out.length === 0) return;
    this.ctx.emit(out.finish());
  }
}

function withWindow(row: Row, start: number, end: number, clock: WindowClock): Row {
  const out = row.slice();
  out.push(start, end, clock.toInstant(end) - 1);
  return out;
}

registerOperator("window-table-function", (node) => new WindowTableFunctionOperator(node));
