import type { ExpandNode } from "@weir/planner";
import type { ChangeBatch } from "../changelog.js";
import { ChangeBatchBuilder, Op } from "../changelog.js";
import type { CompiledProjection } from "../expr/compile.js";
import { compileProjection } from "../expr/compile.js";
import type { Operator, OperatorContext } from "../operator.js";
import { registerOperator } from "./registry.js";

/**
 * One output row per input row and projection list (GROUPING SETS / ROLLUP / CUBE), with the
 * input's op. An update pair becomes one adjacent `-U`/`+U` pair per projection list.
 */
export class ExpandOperator implements Operator {
  private ctx!: OperatorContext;
  private projections: CompiledProjection[] = [];

  constructor(readonly node: ExpandNode) {}

  open(ctx: OperatorContext): void {
    this.ctx = ctx;
    this.projections = this.node.projections.map((p) => compileProjection(p, undefined, ctx.evalContext));
  }

  processBatch(_input: number, batch: ChangeBatch): void {
    const { ops, rows, length } = batch;
    const ps = this.projections;
    const out = new ChangeBatchBuilder(length * ps.length);
    for (let i = 0; i < length; i++) {
      const op = ops[i] as Op;
      if (op === Op.UPDATE_BEFORE && i + 1 < length && ops[i + 1] === Op.UPDATE_AFTER) {
        const before = rows[i];
        const after = rows[++i];
        for (const p of ps) {
          out.push(Op.UPDATE_BEFORE, p(before)!);
          out.push(Op.UPDATE_AFTER, p(after)!);
        }
        continue;
      }
      for (const p of ps) out.push(op, p(rows[i])!);
    }
    if (out.length > 0) this.ctx.emit(out.finish());
  }

  onWatermark(watermark: number): number {
    return watermark;
  }
}

registerOperator("expand", (node) => new ExpandOperator(node), { stateless: true });
