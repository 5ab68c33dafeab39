import type { IntervalJoinNode } from "@weir/planner";
import { type ChangeBatch, ChangeBatchBuilder, Op, type Row } from "../changelog.js";
import type { Operator, OperatorContext } from "../operator.js";
import type { TimeIndexedState } from "../state/api.js";
import { registerOperator } from "./registry.js";
import { compileResidual, concat, joinKey, padRow } from "./time-support.js";

/** A buffered row and whether it has joined with at least one row of the other side (0/1). */
type Entry = [row: Row, matched: number];

/**
 * Interval join: `l.t BETWEEN r.t + lowerBound AND r.t + upperBound` plus equi keys and a residual
 * condition, over insert-only inputs; insert-only output (left columns, right columns).
 *
 * Each side keeps its rows in time-indexed state (by row time, then join key). A new left row at
 * `lt` joins the buffered right rows with `rt ∈ [lt − upper, lt − lower]`, a new right row at `rt`
 * the left rows with `lt ∈ [rt + lower, rt + upper]`. Cleanup follows Flink's TimeIntervalJoin: at
 * watermark `w` no future row (time > w) can reach a left row with `lt ≤ w + lower` or a right row
 * with `rt ≤ w − upper`, so those are dropped — an outer side emits its never-matched rows padded
 * with NULLs then. A row that arrives already unreachable (late) still joins what is buffered, is
 * not buffered, and is emitted padded at once if it is on an outer side and matched nothing.
 *
 * Watermark: holding it back is needed. Padded rows are emitted when their time is up to
 * `max(−lower, upper)` behind the watermark, and a joined row's two times differ by up to that
 * much, so the forwarded watermark is `w − max(0, −lower, upper)` (as Flink's
 * KeyedCoProcessOperatorWithWatermarkDelay): every row emitted for on-time input then has both
 * its times greater than the last forwarded watermark (checked by the differential test).
 */
export class IntervalJoinOperator implements Operator {
  private ctx!: OperatorContext;
  private sides!: [TimeIndexedState<Entry[]>, TimeIndexedState<Entry[]>];
  private condition: ((row: Row) => boolean) | null = null;
  private readonly outer: [boolean, boolean];
  private readonly width: number;
  private readonly delay: number;

  constructor(private readonly node: IntervalJoinNode) {
    const t = node.joinType;
    this.outer = [t === "left" || t === "full", t === "right" || t === "full"];
    this.width = node.schema.length;
    if (node.lowerBound > node.upperBound) {
      throw new Error(
        `interval join lower bound ${node.lowerBound} ms is above the upper bound ${node.upperBound} ms`,
      );
    }
    this.delay = Math.max(0, -node.lowerBound, node.upperBound);
  }

  open(ctx: OperatorContext): void {
    this.ctx = ctx;
    this.sides = [ctx.state.timeIndexed<Entry[]>("left"), ctx.state.timeIndexed<Entry[]>("right")];
    this.condition = compileResidual(this.node.condition, ctx.evalContext);
  }

  processBatch(input: number, batch: ChangeBatch): void {
    const side = input === 0 ? 0 : 1;
    const out = new ChangeBatchBuilder();
    const { ops, rows, length } = batch;
    const wm = this.ctx.watermark;
    for (let i = 0; i < length; i++) {
      if (ops[i] !== Op.INSERT) {
        throw new Error(
          `interval join (node ${this.node.id}) received a ${["+I", "-U", "+U", "-D"][ops[i]]}: its inputs must be insert-only`,
        );
      }
      this.processRow(side, rows[i], wm, out);
    }
    this.flush(out);
  }

  private processRow(side: 0 | 1, row: Row, wm: number, out: ChangeBatchBuilder): void {
    const n = this.node;
    const t = row[side === 0 ? n.leftTimeColumn : n.rightTimeColumn];
    if (t === null || t === undefined) return;
    const time = t as number;
    const key = joinKey(row, side === 0 ? n.leftKeys : n.rightKeys);
    if (key === null) {
      if (this.outer[side]) out.push(Op.INSERT, padRow(side, row, this.width));
      return;
    }
    const other = this.sides[side === 0 ? 1 : 0];
    const from = side === 0 ? time - n.upperBound : time + n.lowerBound;
    const to = side === 0 ? time - n.lowerBound : time + n.upperBound;
    let matched = 0;
    for (const ts of other.timestamps(from, to)) {
      const list = other.get(ts, key);
      if (list === undefined) continue;
      let dirty = false;
      for (const e of list) {
        const joined = side === 0 ? concat(row, e[0]) : concat(e[0], row);
        if (this.condition !== null && !this.condition(joined)) continue;
        out.push(Op.INSERT, joined);
        matched = 1;
        if (e[1] === 0) {
          e[1] = 1;
          dirty = true;
        }
      }
      if (dirty) other.put(ts, key, list);
    }
    const reachable = side === 0 ? time > wm + n.lowerBound : time > wm - n.upperBound;
    if (reachable) {
      const own = this.sides[side];
      const list = own.get(time, key);
      if (list === undefined) own.put(time, key, [[row, matched]]);
      else {
        list.push([row, matched]);
        own.put(time, key, list);
      }
    } else {
      // Unreachable: rows that expired could have matched it. With 'late.policy' =
      // 'side-output' the row is also reported; by default it only joins what is buffered (Flink).
      if (n.late?.sideOutput[side] === true) this.ctx.late(row, "behind-watermark", { input: side, time });
      if (matched === 0 && this.outer[side]) out.push(Op.INSERT, padRow(side, row, this.width));
    }
  }

  onWatermark(watermark: number): number {
    const out = new ChangeBatchBuilder();
    const n = this.node;
    this.expire(0, watermark + n.lowerBound, out);
    this.expire(1, watermark - n.upperBound, out);
    this.flush(out);
    return watermark - this.delay;
  }

  /** Drops the rows of `side` with time ≤ `upTo`, emitting the unmatched ones of an outer side. */
  private expire(side: 0 | 1, upTo: number, out: ChangeBatchBuilder): void {
    const outer = this.outer[side];
    this.sides[side].expireUpTo(upTo, (_ts, entries) => {
      if (!outer) return;
      for (const list of entries.values()) {
        for (const [row, matched] of list)
          if (matched === 0) out.push(Op.INSERT, padRow(side, row, this.width));
      }
    });
  }

  private flush(out: ChangeBatchBuilder): void {
    if (out.length === 0) return;
    this.ctx.emit(out.finish());
  }
}

registerOperator("interval-join", (node) => new IntervalJoinOperator(node));
