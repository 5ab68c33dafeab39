import type { WindowRankNode } from "@weir/planner";
import { type ChangeBatch, ChangeBatchBuilder, Op, opSign, type Row } from "../changelog.js";
import type { Operator, OperatorContext } from "../operator.js";
import type { TimeIndexedState } from "../state/api.js";
import { type KeyCodec, keyCodec } from "../state/keys.js";
import { isWindowFired } from "../windows/slices.js";
import { inputKeyTypes, rowsEqual } from "./common.js";
import { registerOperator } from "./registry.js";
import { rowComparator, type WindowClock, windowClock } from "./time-support.js";

/**
 * Window Top-N over the output of a window TVF or window aggregate: per window (by window_end) and
 * partition key, the rows ordered by `orderBy`; when the window fires (watermark ≥ end − 1), the
 * rows whose rank is in [rankStart, rankEnd] are emitted as `+I`, with the rank number appended
 * when `outputRank`, in order of window end, partition first appearance, then rank.
 *
 * Each partition's rows are kept sorted (ties in arrival order). With an insert-only input only
 * the rows that can still rank ≤ rankEnd are kept; when the input may retract every row is kept,
 * so that a retraction can bring back the row it displaced. Rows for a fired window are late:
 * dropped and counted.
 */
export class WindowRankOperator implements Operator {
  private ctx!: OperatorContext;
  private buffers!: TimeIndexedState<Row[]>;
  private clock!: WindowClock;
  private codec!: KeyCodec;
  private readonly compare: (a: Row, b: Row) => number;

  constructor(
    private readonly node: WindowRankNode,
    private readonly insertOnly = false,
  ) {
    this.compare = rowComparator(node.orderBy);
  }

  open(ctx: OperatorContext): void {
    this.ctx = ctx;
    this.buffers = ctx.state.timeIndexed<Row[]>("windows");
    this.clock = windowClock(this.node.window.timeZoneAligned === true, ctx.evalContext.localTimeZone);
    const keys = this.node.partitionKeys;
    this.codec = keyCodec(keys, inputKeyTypes(keys, keys, this.node));
  }

  processBatch(_input: number, batch: ChangeBatch): void {
    const { ops, rows, length } = batch;
    const wm = this.clock.toWall(this.ctx.watermark);
    const endCol = this.node.window.end;
    for (let i = 0; i < length; i++) {
      const row = rows[i];
      const end = row[endCol] as number | null;
      if (end === null || end === undefined) continue;
      if (isWindowFired(end, wm)) {
        this.ctx.late(row, "window-fired", {
          time: this.clock.toInstant(end) - 1,
          window: { start: row[this.node.window.start] as number, end },
        });
        continue;
      }
      const key = this.codec.encode(row);
      const list = this.buffers.get(end, key) ?? [];
      if (opSign(ops[i] as Op) > 0) this.insert(list, row);
      else {
        const at = list.findIndex((r) => rowsEqual(r, row));
        if (at < 0) continue;
        list.splice(at, 1);
      }
      if (list.length === 0) this.buffers.delete(end, key);
      else this.buffers.put(end, key, list);
    }
  }

  /** Inserts after the rows that sort equal (arrival order among ties), then trims if allowed. */
  private insert(list: Row[], row: Row): void {
    let lo = 0;
    let hi = list.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.compare(list[mid], row) <= 0) lo = mid + 1;
      else hi = mid;
    }
    list.splice(lo, 0, row);
    if (!this.insertOnly) return;
    const ranks = this.ranks(list);
    let keep = list.length;
    while (keep > 0 && ranks[keep - 1] > this.node.rankEnd) keep--;
    list.length = keep;
  }

  /** The rank of each row of a sorted list, by the node's rank function. */
  private ranks(list: Row[]): number[] {
    const out = new Array<number>(list.length);
    let dense = 0;
    for (let i = 0; i < list.length; i++) {
      const tie = i > 0 && this.compare(list[i - 1], list[i]) === 0;
      if (!tie) dense++;
      switch (this.node.rankFunction) {
        case "ROW_NUMBER":
          out[i] = i + 1;
          break;
        case "RANK":
          out[i] = tie ? out[i - 1] : i + 1;
          break;
        case "DENSE_RANK":
          out[i] = dense;
          break;
        default: {
          const _exhaustive: never = this.node.rankFunction;
          return _exhaustive;
        }
      }
    }
    return out;
  }

  onWatermark(watermark: number): number {
    const out = new ChangeBatchBuilder();
    const { rankStart, rankEnd, outputRank } = this.node;
    this.buffers.expireUpTo(this.clock.toWall(watermark) + 1, (_end, partitions) => {
      for (const list of partitions.values()) {
        const ranks = this.ranks(list);
        for (let i = 0; i < list.length; i++) {
          const r = ranks[i];
          if (r < rankStart || r > rankEnd) continue;
          out.push(Op.INSERT, outputRank ? [...list[i], r] : list[i]);
        }
      }
    });
    if (out.length > 0) {
      this.ctx.emit(out.finish());
    }
    return watermark;
  }
}

registerOperator(
  "window-rank",
  (node, info) => new WindowRankOperator(node, (info.inputModes[0]?.kind ?? "retract") === "insert-only"),
);
