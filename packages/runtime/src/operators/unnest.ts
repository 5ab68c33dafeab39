import type { UnnestNode } from "@weir/planner";
import type { ChangeBatch, Row } from "../changelog.js";
import { ChangeBatchBuilder, Op } from "../changelog.js";
import type { CompiledExpr } from "../expr/compile.js";
import { compileExpr } from "../expr/compile.js";
import type { Operator, OperatorContext } from "../operator.js";
import { registerOperator } from "./registry.js";

/**
 * `CROSS JOIN UNNEST(collection)` (and `LEFT JOIN ... ON TRUE` when `leftOuter`). Output row: the
 * input columns, then the element columns — a ROW element's fields, a MAP's key and value, or the
 * element itself — then the 1-based ordinality when `withOrdinality`. A MULTISET repeats each
 * element by its count. A NULL or empty collection gives no rows, or one row of NULLs when
 * `leftOuter`.
 *
 * An update pair of the input becomes element-wise `-U`/`+U` pairs; elements only the old row had
 * are deleted and those only the new row has are inserted, so pairs stay adjacent.
 */
export class UnnestOperator implements Operator {
  private ctx!: OperatorContext;
  private collection!: CompiledExpr;
  private readonly shape: "array" | "row-array" | "map" | "multiset";
  private readonly elementWidth: number;

  constructor(readonly node: UnnestNode) {
    const t = node.array.type;
    switch (t.kind) {
      case "ARRAY":
        this.shape = t.element.kind === "ROW" ? "row-array" : "array";
        this.elementWidth = t.element.kind === "ROW" ? t.element.fields.length : 1;
        break;
      case "MULTISET":
        this.shape = "multiset";
        this.elementWidth = t.element.kind === "ROW" ? t.element.fields.length : 1;
        break;
      case "MAP":
        this.shape = "map";
        this.elementWidth = 2;
        break;
      default:
        throw new Error(`UNNEST expects an ARRAY, MAP or MULTISET, got ${t.kind}`);
    }
  }

  open(ctx: OperatorContext): void {
    this.ctx = ctx;
    this.collection = compileExpr(this.node.array, ctx.evalContext);
  }

  processBatch(_input: number, batch: ChangeBatch): void {
    const { ops, rows, length } = batch;
    const out = new ChangeBatchBuilder(length * 2);
    for (let i = 0; i < length; i++) {
      const op = ops[i] as Op;
      if (op === Op.UPDATE_BEFORE && i + 1 < length && ops[i + 1] === Op.UPDATE_AFTER) {
        const before = this.expand(rows[i]);
        const after = this.expand(rows[++i]);
        const n = Math.min(before.length, after.length);
        for (let k = 0; k < n; k++) {
          out.push(Op.UPDATE_BEFORE, before[k]);
          out.push(Op.UPDATE_AFTER, after[k]);
        }
        for (let k = n; k < before.length; k++) out.push(Op.DELETE, before[k]);
        for (let k = n; k < after.length; k++) out.push(Op.INSERT, after[k]);
        continue;
      }
      for (const r of this.expand(rows[i])) out.push(op, r);
    }
    if (out.length > 0) this.ctx.emit(out.finish());
  }

  onWatermark(watermark: number): number {
    return watermark;
  }

  /** The output rows of one input row. */
  private expand(row: Row): Row[] {
    const c = this.collection(row);
    const out: Row[] = [];
    const ord = this.node.withOrdinality;
    const emit = (elementCols: unknown[], ordinal: number | null): void => {
      const r = row.concat(elementCols);
      if (ord) r.push(ordinal);
      out.push(r);
    };
    if (c !== null && c !== undefined) {
      let n = 0;
      switch (this.shape) {
        case "array":
          for (const e of c as unknown[]) emit([e], ++n);
          break;
        case "row-array":
          for (const e of c as unknown[]) emit(this.rowFields(e), ++n);
          break;
        case "map":
          for (const [k, v] of c as Map<unknown, unknown>) emit([k, v], ++n);
          break;
        case "multiset":
          for (const [e, count] of c as Map<unknown, number>) {
            const cols = this.elementWidth > 1 ? this.rowFields(e) : [e];
            for (let k = 0; k < count; k++) emit(cols, ++n);
          }
          break;
        default: {
          const _exhaustive: never = this.shape;
          return _exhaustive;
        }
      }
    }
    if (out.length === 0 && this.node.leftOuter) emit(new Array(this.elementWidth).fill(null), null);
    return out;
  }

  private rowFields(e: unknown): unknown[] {
    if (e === null || e === undefined) return new Array(this.elementWidth).fill(null);
    return (e as unknown[]).slice(0, this.elementWidth);
  }
}

registerOperator("unnest", (node) => new UnnestOperator(node), { stateless: true });
