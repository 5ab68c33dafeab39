import type { CalcNode } from "@weir/planner";
import type { ChangeBatch } from "../changelog.js";
import { ChangeBatchBuilder, filterUpdatePair, Op } from "../changelog.js";
import type { CompiledProjection } from "../expr/compile.js";
import { compileProjection } from "../expr/compile.js";
import type { Operator, OperatorContext } from "../operator.js";
import { registerOperator } from "./registry.js";

/**
 * Projection and filter, compiled into one function per node. Works by row: `+I`/`+U`/`-D` rows
 * that pass are projected with their op; an update pair is rewritten by the filter rule
 * ({@link filterUpdatePair}), so downstream sees exactly the rows that pass before and after.
 * Input rows are never mutated (a batch may be shared by several consumers).
 */
export class CalcOperator implements Operator {
  private ctx!: OperatorContext;
  private project!: CompiledProjection;

  constructor(readonly node: CalcNode) {}

  open(ctx: OperatorContext): void {
    this.ctx = ctx;
    this.project = compileProjection(
      this.node.projections,
      this.node.condition ?? undefined,
      ctx.evalContext,
    );
  }

  processBatch(_input: number, batch: ChangeBatch): void {
    const { ops, rows, length } = batch;
    const project = this.project;
    const out = new ChangeBatchBuilder(length);
    for (let i = 0; i < length; i++) {
      const op = ops[i] as Op;
      if (op !== Op.UPDATE_BEFORE) {
        const p = project(rows[i]);
        if (p !== undefined) out.push(op, p);
        continue;
      }
      if (i + 1 >= length || ops[i + 1] !== Op.UPDATE_AFTER) {
        throw new Error(`changelog invariant broken: -U at index ${i} is not followed by +U`);
      }
      const before = project(rows[i]);
      const after = project(rows[++i]);
      switch (filterUpdatePair(before !== undefined, after !== undefined)) {
        case "update":
          out.push(Op.UPDATE_BEFORE, before!);
          out.push(Op.UPDATE_AFTER, after!);
          break;
        case "delete":
          out.push(Op.DELETE, before!);
          break;
        case "insert":
          out.push(Op.INSERT, after!);
          break;
        case "none":
          break;
      }
    }
    if (out.length > 0) this.ctx.emit(out.finish());
  }

  onWatermark(watermark: number): number {
    return watermark;
  }
}

registerOperator("calc", (node) => new CalcOperator(node), { stateless: true });
