import type { RankNode, SortKey } from "@weir/planner";
import { compareValues } from "../aggregates/compare.js";
import type { ChangeBatch, Row } from "../changelog.js";
import { ChangeBatchBuilder, Op, opSign } from "../changelog.js";
import type { Operator, OperatorContext } from "../operator.js";
import type { ValueState } from "../state/api.js";
import type { KeyCodec } from "../state/keys.js";
import { keyCodec } from "../state/keys.js";
import { rowsEqual, stateTtl, TTL_CLEANUP_BUDGET } from "./common.js";
import type { OperatorBuildInfo } from "./registry.js";
import { registerOperator } from "./registry.js";

/** A row with its rank, as materialised in the output. */
type Ranked = [row: Row, rank: number];

/** Compares rows by the ORDER BY keys (NULLS FIRST/LAST per key); 0 = tie. */
export function rowComparator(orderBy: readonly SortKey[]): (a: Row, b: Row) => number {
  return (a, b) => {
    for (let i = 0; i < orderBy.length; i++) {
      const k = orderBy[i];
      const x = a[k.column];
      const y = b[k.column];
      let c: number;
      if (x === null || x === undefined || y === null || y === undefined) {
        const xn = x === null || x === undefined;
        const yn = y === null || y === undefined;
        if (xn && yn) continue;
        // NULLS FIRST puts a null before a value whatever the direction.
        c = xn ? (k.nullsFirst ? -1 : 1) : k.nullsFirst ? 1 : -1;
        return c;
      }
      c = compareValues(x, y);
      if (c !== 0) return k.descending ? -c : c;
    }
    return 0;
  };
}

/**
 * Top-N (Flink's Rank with ROW_NUMBER, RANK or DENSE_RANK), kept while `rankStart <= rank <= rankEnd`.
 *
 * Per partition it keeps the rows sorted by the ORDER BY keys, ties in arrival order (so with no
 * ORDER BY the first N arrivals win). After each input change it emits the difference between the
 * materialised Top-N before and after, so a retract sink always holds exactly the batch answer:
 * - with the rank column (`outputRank`), per rank position: `-U old`/`+U new` when the row at a
 *   rank changed (ROW_NUMBER), or per row `-U`/`+U` when its rank changed (RANK, DENSE_RANK); `+I`
 *   for a rank newly filled and `-D` for one that emptied;
 * - without it, `-D` for each row that left the Top-N and `+I` for each that entered.
 *
 * A retract input keeps every row of a partition (a retraction may pull a lower row into the
 * Top-N); an insert-only input keeps only rows that can still be ranked within `rankEnd`.
 * Retracting a row that is not in state (expired by TTL) is ignored, as Flink does.
 */
export class RankOperator implements Operator {
  private ctx!: OperatorContext;
  private partitions!: ValueState<Row[]>;
  private readonly keys: KeyCodec;
  private readonly compare: (a: Row, b: Row) => number;
  private readonly appendOnly: boolean;
  /** ROW_NUMBER with the rank column over an insert-only input: {@link insertRowNumber}. */
  private readonly rowNumberAppend: boolean;

  constructor(
    readonly node: RankNode,
    info: OperatorBuildInfo,
  ) {
    if (node.rankStart < 1 || node.rankEnd < node.rankStart) {
      throw new Error(`invalid rank range ${node.rankStart}..${node.rankEnd}`);
    }
    this.keys = keyCodec(
      node.partitionKeys,
      node.schema.map((f) => f.type),
    );
    this.compare = rowComparator(node.orderBy);
    this.appendOnly = info.inputModes[0]?.kind === "insert-only";
    this.rowNumberAppend = this.appendOnly && node.rankFunction === "ROW_NUMBER" && node.outputRank;
  }

  open(ctx: OperatorContext): void {
    this.ctx = ctx;
    this.partitions = ctx.state.value("partitions", { ttl: stateTtl(ctx.settings) });
  }

  processBatch(_input: number, batch: ChangeBatch): void {
    const { ops, rows, length } = batch;
    const out = new ChangeBatchBuilder(length * 2);
    for (let i = 0; i < length; i++) {
      const row = rows[i];
      const key = this.keys.encode(row);
      const list = this.partitions.get(key) ?? [];
      if (opSign(ops[i] as Op) > 0) this.insert(list, row, out);
      else this.retract(list, row, out);
      if (list.length === 0) this.partitions.delete(key);
      else this.partitions.put(key, list);
    }
    if (out.length > 0) this.ctx.emit(out.finish());
  }

  onWatermark(watermark: number): number {
    return watermark;
  }

  onProcessingTime(): void {
    this.ctx.state.cleanupExpired(TTL_CLEANUP_BUDGET);
  }

  private insert(list: Row[], row: Row, out: ChangeBatchBuilder): void {
    // After the last row that sorts before or ties with `row`: ties keep arrival order.
    let lo = 0;
    let hi = list.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.compare(list[mid], row) <= 0) lo = mid + 1;
      else hi = mid;
    }
    if (this.rankAt(list, lo, row) > this.node.rankEnd) {
      if (!this.appendOnly) list.splice(lo, 0, row);
      return;
    }
    if (this.rowNumberAppend) {
      this.insertRowNumber(list, lo, row, out);
      return;
    }
    const before = this.visible(list);
    list.splice(lo, 0, row);
    this.diff(before, this.visible(list), out);
    if (this.appendOnly) this.prune(list);
  }

  /**
   * {@link insert} for ROW_NUMBER with the rank column over an insert-only input (Nexmark q19), at
   * position `lo` < rankEnd, without building the Top-N before and after: what {@link diff} emits
   * for them. Every rank from the new row's down moves by one row (`-U`/`+U`), a rank newly filled
   * is `+I`, and the row pushed past rankEnd is dropped (it can never come back).
   */
  private insertRowNumber(list: Row[], lo: number, row: Row, out: ChangeBatchBuilder): void {
    const end = this.node.rankEnd;
    const oldLen = Math.min(list.length, end);
    list.splice(lo, 0, row);
    const newLen = Math.min(list.length, end);
    for (let p = Math.max(lo, this.node.rankStart - 1); p < newLen; p++) {
      const a = list[p];
      if (p < oldLen) {
        // the row at rank p + 1 before the insert is now one further down
        const b = list[p + 1];
        if (b === a) continue;
        out.push(Op.UPDATE_BEFORE, withRank([b, p + 1]));
        out.push(Op.UPDATE_AFTER, withRank([a, p + 1]));
      } else out.push(Op.INSERT, withRank([a, p + 1]));
    }
    if (list.length > end) list.length = end;
  }

  private retract(list: Row[], row: Row, out: ChangeBatchBuilder): void {
    // The first row that ties with `row`, then the equal row among the ties.
    let lo = 0;
    let hi = list.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.compare(list[mid], row) < 0) lo = mid + 1;
      else hi = mid;
    }
    let at = -1;
    for (let j = lo; j < list.length && this.compare(list[j], row) === 0; j++) {
      if (rowsEqual(list[j], row)) {
        at = j;
        break;
      }
    }
    if (at < 0) return;
    if (this.rankAt(list, at, list[at]) > this.node.rankEnd) {
      list.splice(at, 1);
      return;
    }
    const before = this.visible(list);
    list.splice(at, 1);
    this.diff(before, this.visible(list), out);
  }

  /** The rank a row has (or would have) at position `pos` of the sorted list. */
  private rankAt(list: Row[], pos: number, row: Row): number {
    switch (this.node.rankFunction) {
      case "ROW_NUMBER":
        return pos + 1;
      case "RANK": {
        let p = pos;
        while (p > 0 && this.compare(list[p - 1], row) === 0) p--;
        return p + 1;
      }
      case "DENSE_RANK": {
        let rank = 0;
        for (let p = 0; p < pos && rank <= this.node.rankEnd; p++) {
          if (p === 0 || this.compare(list[p - 1], list[p]) !== 0) rank++;
        }
        return pos > 0 && this.compare(list[pos - 1], row) === 0 ? rank : rank + 1;
      }
      default: {
        const _exhaustive: never = this.node.rankFunction;
        return _exhaustive;
      }
    }
  }

  /** The rows with rank in `[1, rankEnd]` and their ranks, in order. */
  private visible(list: Row[]): Ranked[] {
    const out: Ranked[] = [];
    const fn = this.node.rankFunction;
    let rank = 0;
    for (let p = 0; p < list.length; p++) {
      const tie = p > 0 && this.compare(list[p - 1], list[p]) === 0;
      if (fn === "ROW_NUMBER") rank = p + 1;
      else if (fn === "RANK") rank = tie ? rank : p + 1;
      else rank = tie ? rank : rank + 1;
      if (rank > this.node.rankEnd) break;
      out.push([list[p], rank]);
    }
    return out;
  }

  /** Emits what turns the Top-N `before` into `after` (both sorted, rows compared by identity). */
  private diff(before: Ranked[], after: Ranked[], out: ChangeBatchBuilder): void {
    const start = this.node.rankStart;
    const inRange = (r: Ranked): boolean => r[1] >= start;
    if (this.node.outputRank && this.node.rankFunction === "ROW_NUMBER") {
      const n = Math.max(before.length, after.length);
      for (let p = start - 1; p < n; p++) {
        const b = before[p];
        const a = after[p];
        if (b !== undefined && a !== undefined) {
          if (b[0] === a[0]) continue;
          out.push(Op.UPDATE_BEFORE, withRank(b));
          out.push(Op.UPDATE_AFTER, withRank(a));
        } else if (b !== undefined) {
          out.push(Op.DELETE, withRank(b));
        } else if (a !== undefined) {
          out.push(Op.INSERT, withRank(a));
        }
      }
      return;
    }
    const old = new Map<Row, number>();
    for (const r of before) if (inRange(r)) old.set(r[0], r[1]);
    const now = new Map<Row, number>();
    for (const r of after) if (inRange(r)) now.set(r[0], r[1]);
    const output = (r: Ranked): Row => (this.node.outputRank ? withRank(r) : r[0]);
    for (const r of before) {
      if (!inRange(r)) continue;
      const rank = now.get(r[0]);
      if (rank === undefined) out.push(Op.DELETE, output(r));
      else if (this.node.outputRank && rank !== r[1]) {
        out.push(Op.UPDATE_BEFORE, output(r));
        out.push(Op.UPDATE_AFTER, output([r[0], rank]));
      }
    }
    for (const r of after) if (inRange(r) && !old.has(r[0])) out.push(Op.INSERT, output(r));
  }

  /** Drops rows ranked beyond `rankEnd` (an insert-only input can never bring them back). */
  private prune(list: Row[]): void {
    const keep = this.visible(list).length;
    if (keep < list.length) list.length = keep;
  }
}

function withRank(r: Ranked): Row {
  const row = r[0].slice();
  row.push(r[1]);
  return row;
}

registerOperator("rank", (node, info) => new RankOperator(node, info));
