import type { UnionNode } from "@weir/planner";
import type { ChangeBatch } from "../changelog.js";
import type { Operator, OperatorContext } from "../operator.js";
import { registerOperator } from "./registry.js";

/** UNION ALL: every input's changes, as they come. The job merges the inputs' watermarks. */
export class UnionOperator implements Operator {
  private ctx!: OperatorContext;

  constructor(readonly node: UnionNode) {}

  open(ctx: OperatorContext): void {
    this.ctx = ctx;
  }

  processBatch(_input: number, batch: ChangeBatch): void {
    if (batch.length > 0) this.ctx.emit(batch);
  }

  onWatermark(watermark: number): number {
    return watermark;
  }
}

registerOperator("union", (node) => new UnionOperator(node), { stateless: true });
