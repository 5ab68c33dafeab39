import type { WindowJoinNode } from "@weir/planner";
import { type ChangeBatch, ChangeBatchBuilder, Op, opSign, type Row } from "../changelog.js";
import type { Operator, OperatorContext } from "../operator.js";
import type { TimeIndexedState } from "../state/api.js";
import type { StateKey } from "../state/keys.js";
import { isWindowFired } from "../windows/slices.js";
import { rowsEqual } from "./common.js";
import { registerOperator } from "./registry.js";
import { compileResidual, concat, joinKey, padRow, type WindowClock, windowClock } from "./time-support.js";

type Buckets = ReadonlyMap<StateKey, Row[]>;
const EMPTY: Buckets = new Map();

/**
 * Window join: both inputs are window TVF outputs; rows join when they are in the same window
 * (equal window_end, hence window_start) and have equal keys and pass the residual condition.
 * Each side's rows are buffered per (window_end, key) — rows with a NULL key, which match
 * nothing, apart per window — and when the watermark reaches window_end − 1 the window's rows are
 * joined (inner, left, right, full, semi, anti), emitted as `+I`, and the window's state dropped.
 * Emit order: by window end; left keys in first-appearance order, each left row with its matches
 * in arrival order; then unmatched right rows; then the NULL-key rows. Rows for a fired window
 * are late: dropped and counted. A retraction removes an equal buffered row.
 */
export class WindowJoinOperator implements Operator {
  private ctx!: OperatorContext;
  private keyed!: [TimeIndexedState<Row[]>, TimeIndexedState<Row[]>];
  private unkeyed!: [TimeIndexedState<Row[]>, TimeIndexedState<Row[]>];
  private clock!: WindowClock;
  private condition: ((row: Row) => boolean) | null = null;
  private readonly outer: [boolean, boolean];
  private readonly width: number;

  constructor(private readonly node: WindowJoinNode) {
    const t = node.joinType;
    this.outer = [t === "left" || t === "full", t === "right" || t === "full"];
    this.width = node.schema.length;
  }

  open(ctx: OperatorContext): void {
    this.ctx = ctx;
    const s = ctx.state;
    this.keyed = [s.timeIndexed<Row[]>("left"), s.timeIndexed<Row[]>("right")];
    this.unkeyed = [s.timeIndexed<Row[]>("left-null-keys"), s.timeIndexed<Row[]>("right-null-keys")];
    this.clock = windowClock(this.node.leftWindow.timeZoneAligned === true, ctx.evalContext.localTimeZone);
    this.condition = compileResidual(this.node.condition, ctx.evalContext);
  }

  processBatch(input: number, batch: ChangeBatch): void {
    const side = input === 0 ? 0 : 1;
    const endCol = side === 0 ? this.node.leftWindow.end : this.node.rightWindow.end;
    const keys = side === 0 ? this.node.leftKeys : this.node.rightKeys;
    const wm = this.clock.toWall(this.ctx.watermark);
    const { ops, rows, length } = batch;
    for (let i = 0; i < length; i++) {
      const row = rows[i];
      const end = row[endCol] as number | null;
      if (end === null || end === undefined) continue;
      if (isWindowFired(end, wm)) {
        this.ctx.late(row, "window-fired", {
          input: side,
          time: this.clock.toInstant(end) - 1,
          window: {
            start: row[side === 0 ? this.node.leftWindow.start : this.node.rightWindow.start] as number,
            end,
          },
        });
        continue;
      }
      const k = joinKey(row, keys);
      const table = k === null ? this.unkeyed[side] : this.keyed[side];
      const key = k ?? 0;
      const list = table.get(end, key) ?? [];
      if (opSign(ops[i] as Op) > 0) list.push(row);
      else {
        const at = list.findIndex((r) => rowsEqual(r, row));
        if (at < 0) continue;
        list.splice(at, 1);
      }
      if (list.length === 0) table.delete(end, key);
      else table.put(end, key, list);
    }
  }

  onWatermark(watermark: number): number {
    const out = new ChangeBatchBuilder();
    const upTo = this.clock.toWall(watermark) + 1;
    for (;;) {
      let end = Number.POSITIVE_INFINITY;
      for (const t of [...this.keyed, ...this.unkeyed]) {
        const m = t.minTimestamp();
        if (m !== undefined && m < end) end = m;
      }
      if (end === Number.POSITIVE_INFINITY || end > upTo) break;
      const take = (t: TimeIndexedState<Row[]>): Buckets => {
        let b: Buckets = EMPTY;
        t.expireUpTo(end, (_ts, entries) => {
          b = entries;
        });
        return b;
      };
      this.joinWindow(take(this.keyed[0]), take(this.keyed[1]), out);
      this.emitUnkeyed(take(this.unkeyed[0]), take(this.unkeyed[1]), out);
    }
    if (out.length > 0) {
      this.ctx.emit(out.finish());
    }
    return watermark;
  }

  private joinWindow(left: Buckets, right: Buckets, out: ChangeBatchBuilder): void {
    const type = this.node.joinType;
    const cond = this.condition;
    const rightMatched = new Map<StateKey, boolean[]>();
    for (const [key, lrows] of left) {
      const rrows = right.get(key) ?? [];
      const flags = new Array<boolean>(rrows.length).fill(false);
      rightMatched.set(key, flags);
      for (const l of lrows) {
        let matched = false;
        for (let j = 0; j < rrows.length; j++) {
          const r = rrows[j];
          const joined = concat(l, r);
          if (cond !== null && !cond(joined)) continue;
          matched = true;
          flags[j] = true;
          if (type === "semi") break;
          if (type !== "anti") out.push(Op.INSERT, joined);
        }
        if (type === "semi" ? matched : type === "anti" ? !matched : false) out.push(Op.INSERT, l);
        else if (this.outer[0] && !matched) out.push(Op.INSERT, padRow(0, l, this.width));
      }
    }
    if (this.outer[1]) {
      for (const [key, rrows] of right) {
        const flags = rightMatched.get(key);
        for (let j = 0; j < rrows.length; j++) {
          if (flags === undefined || !flags[j]) out.push(Op.INSERT, padRow(1, rrows[j], this.width));
        }
      }
    }
  }

  private emitUnkeyed(left: Buckets, right: Buckets, out: ChangeBatchBuilder): void {
    const anti = this.node.joinType === "anti";
    if (this.outer[0] || anti) {
      for (const rows of left.values())
        for (const l of rows) out.push(Op.INSERT, anti ? l : padRow(0, l, this.width));
    }
    if (this.outer[1]) {
      for (const rows of right.values()) for (const r of rows) out.push(Op.INSERT, padRow(1, r, this.width));
    }
  }
}

registerOperator("window-join", (node) => new WindowJoinOperator(node));
