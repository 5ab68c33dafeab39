import type { SideOutputNode } from "@weir/planner";
import { type ChangeBatch, ChangeBatchBuilder, Op, type Row } from "../changelog.js";
import { isPreciseTimestamp, millisToNanos } from "../expr/timestamp-precision.js";
import type { Operator, OperatorContext } from "../operator.js";
import { registerOperator } from "./registry.js";

/**
 * The rows a task routed to side-output port `node.port`, projected to the sink table's columns
 * (`columns[i]` = index in the routed row, −1 = NULL). The graph delivers only routed rows here
 * (never the producer's main output), with the producer's watermarks, barriers and end.
 */
export class SideOutputOperator implements Operator {
  private ctx!: OperatorContext;
  /**
   * Sink columns of TIMESTAMP(4..9): a routed row's time fields are millisecond numbers (a
   * quarantine's event_time, quarantined_at), which such a column holds as bigint nanos.
   */
  private readonly widen: boolean[];

  constructor(readonly node: SideOutputNode) {
    this.widen = node.schema.map((f) => isPreciseTimestamp(f.type));
  }

  open(ctx: OperatorContext): void {
    this.ctx = ctx;
  }

  processBatch(_input: number, batch: ChangeBatch): void {
    const cols = this.node.columns;
    const out = new ChangeBatchBuilder(batch.length);
    for (let i = 0; i < batch.length; i++) {
      const row = batch.rows[i];
      const projected: Row = new Array(cols.length);
      for (let c = 0; c < cols.length; c++) {
        const v = cols[c] < 0 ? null : row[cols[c]];
        projected[c] = this.widen[c] && typeof v === "number" ? millisToNanos(v) : v;
      }
      out.push(Op.INSERT, projected);
    }
    this.ctx.emit(out.finish());
  }

  onWatermark(watermark: number): number {
    return watermark;
  }
}

registerOperator("side-output", (node) => new SideOutputOperator(node), { stateless: true });
