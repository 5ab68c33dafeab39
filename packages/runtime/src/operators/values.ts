import type { ValuesNode } from "@weir/planner";
import type { ChangeBatch, Row } from "../changelog.js";
import { ChangeBatch as Batch } from "../changelog.js";
import { compileExpr } from "../expr/compile.js";
import type { Operator, OperatorContext } from "../operator.js";
import type { ValueState } from "../state/api.js";
import { registerOperator } from "./registry.js";

/**
 * Constant rows, evaluated once when the operator opens and emitted as `+I` when its (empty) set
 * of inputs ends — the job ends a node without inputs at start, with the final watermark. A
 * state flag records the emission, so a job restored after it does not emit the rows twice.
 */
export class ValuesOperator implements Operator {
  private ctx!: OperatorContext;
  private rows: Row[] = [];
  private emitted!: ValueState<boolean>;

  constructor(readonly node: ValuesNode) {}

  open(ctx: OperatorContext): void {
    this.ctx = ctx;
    this.emitted = ctx.state.value("emitted");
    const empty: unknown[] = [];
    this.rows = this.node.rows.map((exprs) => exprs.map((e) => compileExpr(e, ctx.evalContext)(empty)));
  }

  processBatch(input: number, _batch: ChangeBatch): void {
    throw new Error(`VALUES has no inputs, but got data on input ${input}`);
  }

  onWatermark(watermark: number): number {
    if (watermark === Number.POSITIVE_INFINITY && this.emitted.get(0) !== true) {
      this.emitted.put(0, true);
      if (this.rows.length > 0) this.ctx.emit(Batch.inserts(this.rows.map((r) => [...r])));
    }
    return watermark;
  }
}

registerOperator("values", (node) => new ValuesOperator(node));
