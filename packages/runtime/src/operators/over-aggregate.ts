import type { OverAggregateNode } from "@weir/planner";
import type { GroupAcc, GroupAggregates } from "../aggregates/group.js";
import { type ChangeBatch, ChangeBatchBuilder, Op, type Row } from "../changelog.js";
import type { Operator, OperatorContext } from "../operator.js";
import type { ListState, TimeIndexedState, ValueState } from "../state/api.js";
import { type KeyCodec, keyCodec, type StateKey } from "../state/keys.js";
import { inputKeyTypes } from "./common.js";
import { registerOperator } from "./registry.js";
import { bindAggregates } from "./time-support.js";

/**
 * OVER aggregation ordered by rowtime: `agg(...) OVER (PARTITION BY keys ORDER BY rowtime frame)`.
 * Output = the input row followed by one value per aggregate, `+I` only (insert-only input).
 *
 * Rows wait in state (by timestamp, then partition key) until the watermark passes their
 * timestamp; then each partition's rows are processed in timestamp order (ties in arrival order):
 * - ROWS frames: a row's frame is itself and the N (or all) rows before it;
 * - RANGE frames: rows with equal timestamps are peers — they are accumulated together and get
 *   the same result; the frame is every row with a timestamp in [ts − N, ts] (or all before).
 * Per partition the operator keeps the frame's accumulators and, for bounded frames, the rows in
 * the frame (to retract them as they leave). Late rows are dropped and counted, by Flink's rules:
 * - unbounded frames (Flink's AbstractRowTimeUnboundedPrecedingOver): a row whose timestamp is
 *   not after the watermark;
 * - bounded frames (`N PRECEDING`, Flink's RowTime{Rows,Range}BoundedPrecedingFunction): a row
 *   whose timestamp is not after the last timestamp its partition has processed (`last`), so a
 *   row behind the watermark is still taken, at the next watermark, when its partition has not
 *   got that far.
 */
export class OverAggregateOperator implements Operator {
  private ctx!: OperatorContext;
  private aggs!: GroupAggregates;
  private codec!: KeyCodec;
  private pending!: TimeIndexedState<Row[]>;
  private accs!: ValueState<GroupAcc>;
  private frames!: ListState<Row>;
  /** Bounded frames: per partition, the last timestamp processed. */
  private last!: ValueState<number>;
  private readonly bounded: boolean;

  constructor(private readonly node: OverAggregateNode) {
    this.bounded = node.frame.preceding !== null;
  }

  open(ctx: OperatorContext): void {
    this.ctx = ctx;
    const n = this.node;
    this.aggs = bindAggregates(n.aggregates, n.frame.preceding !== null);
    this.codec = keyCodec(n.partitionKeys, inputKeyTypes(n.partitionKeys, n.partitionKeys, n));
    this.pending = ctx.state.timeIndexed<Row[]>("pending");
    this.accs = ctx.state.value<GroupAcc>("accumulators");
    this.frames = ctx.state.list<Row>("frames");
    this.last = ctx.state.value<number>("last");
  }

  processBatch(_input: number, batch: ChangeBatch): void {
    const { ops, rows, length } = batch;
    const tc = this.node.timeColumn;
    const wm = this.ctx.watermark;
    for (let i = 0; i < length; i++) {
      if (ops[i] !== Op.INSERT) {
        throw new Error(
          `OVER aggregation (node ${this.node.id}) received a retraction: its input must be insert-only`,
        );
      }
      const row = rows[i];
      const ts = row[tc] as number | null;
      if (ts === null || ts === undefined) continue;
      const key = this.codec.encode(row);
      if (this.bounded ? ts <= (this.last.get(key) ?? Number.NEGATIVE_INFINITY) : ts <= wm) {
        this.ctx.late(row, "behind-watermark", { time: ts });
        continue;
      }
      const list = this.pending.get(ts, key);
      if (list === undefined) this.pending.put(ts, key, [row]);
      else {
        list.push(row);
        this.pending.put(ts, key, list);
      }
    }
  }

  onWatermark(watermark: number): number {
    const out = new ChangeBatchBuilder();
    this.pending.expireUpTo(watermark, (ts, partitions) => {
      for (const [key, rows] of partitions) {
        if (this.node.frame.kind === "rows") this.processRows(key, rows, out);
        else this.processRange(key, ts, rows, out);
        if (this.bounded) this.last.put(key, ts);
      }
    });
    if (out.length > 0) {
      this.ctx.emit(out.finish());
    }
    return watermark;
  }

  private processRows(key: StateKey, rows: Row[], out: ChangeBatchBuilder): void {
    const n = this.node.frame.preceding;
    const acc = this.accs.get(key) ?? this.aggs.create();
    const frame = n === null ? null : [...this.frames.get(key)];
    for (const row of rows) {
      this.aggs.apply(acc, row, 1);
      out.push(Op.INSERT, this.withValues(row, acc));
      if (frame !== null) {
        frame.push(row);
        if (frame.length > (n as number)) this.aggs.apply(acc, frame.shift() as Row, -1);
      }
    }
    this.accs.put(key, acc);
    if (frame !== null) this.frames.update(key, frame);
  }

  private processRange(key: StateKey, ts: number, rows: Row[], out: ChangeBatchBuilder): void {
    const n = this.node.frame.preceding;
    const acc = this.accs.get(key) ?? this.aggs.create();
    for (const row of rows) this.aggs.apply(acc, row, 1);
    if (n !== null) {
      // Rows kept in timestamp order; those before ts − n leave the frame.
      const frame = [...this.frames.get(key)];
      const tc = this.node.timeColumn;
      let drop = 0;
      while (drop < frame.length && (frame[drop][tc] as number) < ts - n)
        this.aggs.apply(acc, frame[drop++], -1);
      const kept = frame.slice(drop);
      for (const row of rows) kept.push(row);
      this.frames.update(key, kept);
    }
    for (const row of rows) out.push(Op.INSERT, this.withValues(row, acc));
    this.accs.put(key, acc);
  }

  private withValues(row: Row, acc: GroupAcc): Row {
    const values = this.aggs.values(acc);
    const out = row.slice();
    for (let i = 0; i < values.length; i++) out.push(values[i]);
    return out;
  }
}

// State version 2: the `last` table (per-partition lateness of bounded frames), and DISTINCT
// aggregates over one column share one map of distinct values in the accumulators. Version 3: with
// an unbounded frame (no retraction) that map keeps a bit set of members per value, not counts.
registerOperator("over-aggregate", (node) => new OverAggregateOperator(node), { stateVersion: 3 });
