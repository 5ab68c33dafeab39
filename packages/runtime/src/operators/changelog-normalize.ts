import type { ChangelogNormalizeNode } from "@weir/planner";
import type { ChangeBatch, Row } from "../changelog.js";
import { ChangeBatchBuilder, Op } from "../changelog.js";
import type { Operator, OperatorContext } from "../operator.js";
import type { ValueState } from "../state/api.js";
import type { KeyCodec } from "../state/keys.js";
import { keyCodec } from "../state/keys.js";
import { rowsEqual, stateTtl, TTL_CLEANUP_BUDGET } from "./common.js";
import { registerOperator } from "./registry.js";

/**
 * Upsert → retract (Flink's ChangelogNormalize): keeps the last row per key.
 * - `+I`/`+U` of a new key → `+I`; of a known key → `-U old`, `+U new`, or nothing when the row is
 *   unchanged;
 * - `-D` (or a stray `-U`) of a known key → `-D` with the stored row (the upsert `-D` may carry
 *   only the key); of an unknown key → nothing.
 */
export class ChangelogNormalizeOperator implements Operator {
  private ctx!: OperatorContext;
  private last!: ValueState<Row>;
  private readonly keys: KeyCodec;

  constructor(readonly node: ChangelogNormalizeNode) {
    this.keys = keyCodec(
      node.key,
      node.schema.map((f) => f.type),
    );
  }

  open(ctx: OperatorContext): void {
    this.ctx = ctx;
    this.last = ctx.state.value("last", { ttl: stateTtl(ctx.settings) });
  }

  processBatch(_input: number, batch: ChangeBatch): void {
    const { ops, rows, length } = batch;
    const out = new ChangeBatchBuilder(length);
    for (let i = 0; i < length; i++) {
      const op = ops[i] as Op;
      const row = rows[i];
      const key = this.keys.encode(row);
      const prev = this.last.get(key);
      if (op === Op.INSERT || op === Op.UPDATE_AFTER) {
        if (prev === undefined) {
          out.push(Op.INSERT, row);
        } else if (!rowsEqual(prev, row)) {
          out.push(Op.UPDATE_BEFORE, prev);
          out.push(Op.UPDATE_AFTER, row);
        }
        this.last.put(key, row);
      } else if (prev !== undefined) {
        out.push(Op.DELETE, prev);
        this.last.delete(key);
      }
    }
    if (out.length > 0) this.ctx.emit(out.finish());
  }

  onWatermark(watermark: number): number {
    return watermark;
  }

  onProcessingTime(): void {
    this.ctx.state.cleanupExpired(TTL_CLEANUP_BUDGET);
  }
}

registerOperator("changelog-normalize", (node) => new ChangelogNormalizeOperator(node));
