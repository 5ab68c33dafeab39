import type { AggregateCall, GroupAggregateNode } from "@weir/planner";
import { createAggregate } from "../aggregates/create.js";
import type { AggregateBinding, GroupAcc } from "../aggregates/group.js";
import { GroupAggregates } from "../aggregates/group.js";
import type { ChangeBatch, Row } from "../changelog.js";
import { ChangeBatchBuilder, Op, opSign } from "../changelog.js";
import type { Operator, OperatorContext } from "../operator.js";
import type { ValueState } from "../state/api.js";
import type { KeyCodec } from "../state/keys.js";
import { keyCodec } from "../state/keys.js";
import { inputKeyTypes, rowsEqual, stateTtl, TTL_CLEANUP_BUDGET } from "./common.js";
import { registerOperator } from "./registry.js";

/** Per group: its accumulators and the row last emitted for it. */
type GroupState = [acc: GroupAcc, emitted: Row];

/**
 * Unbounded GROUP BY (Flink's GroupAggFunction). Per group it keeps the accumulators (with a count
 * of the group's rows, so the last retraction is known) and the row it last emitted:
 * - a group's first row emits `+I`;
 * - a change that alters the result emits `-U old`/`+U new` (`+U` only when the node's mode is
 *   upsert); one that does not alter it emits nothing;
 * - the retraction of a group's last row emits `-D` of the last emitted row and drops the group;
 * - a retraction for a group without state (never seen, or expired by TTL) is ignored.
 */
export class GroupAggregateOperator implements Operator {
  private ctx!: OperatorContext;
  private groups!: ValueState<GroupState>;
  private readonly keys: KeyCodec;
  private readonly aggs: GroupAggregates;
  private readonly upsert: boolean;

  constructor(readonly node: GroupAggregateNode) {
    const positions = node.groupKeys.map((_, i) => i);
    this.keys = keyCodec(node.groupKeys, inputKeyTypes(node.groupKeys, positions, node));
    this.aggs = new GroupAggregates(
      node.aggregates.map((a) => aggregateBinding(a, !node.inputInsertOnly)),
      { insertOnly: node.inputInsertOnly },
    );
    this.upsert = node.changelogMode.kind === "upsert";
  }

  open(ctx: OperatorContext): void {
    this.ctx = ctx;
    this.groups = ctx.state.value("groups", { ttl: stateTtl(ctx.settings) });
  }

  processBatch(_input: number, batch: ChangeBatch): void {
    const { ops, rows, length } = batch;
    const out = new ChangeBatchBuilder(this.upsert ? length : 2 * length);
    const gk = this.node.groupKeys;
    const nk = gk.length;
    const aggs = this.aggs;
    const groups = this.groups;
    for (let i = 0; i < length; i++) {
      const row = rows[i];
      const sign = opSign(ops[i] as Op);
      const key = this.keys.encode(row);
      const state = groups.get(key);
      if (state === undefined) {
        if (sign < 0) continue;
        const acc = aggs.create();
        aggs.apply(acc, row, 1);
        // Built by push, so rows stay packed arrays (`new Array(n)` makes holey ones, slower to read downstream).
        const emitted: Row = [];
        for (let k = 0; k < nk; k++) emitted.push(row[gk[k]]);
        aggs.pushValues(acc, emitted);
        groups.put(key, [acc, emitted]);
        out.push(Op.INSERT, emitted);
        continue;
      }
      const acc = state[0];
      const prev = state[1];
      aggs.apply(acc, row, sign);
      if (aggs.rowCount(acc) <= 0) {
        groups.delete(key);
        out.push(Op.DELETE, prev);
        continue;
      }
      const next: Row = [];
      for (let k = 0; k < nk; k++) next.push(prev[k]);
      aggs.pushValues(acc, next);
      if (rowsEqual(prev, next)) {
        groups.put(key, state);
        continue;
      }
      state[1] = next;
      groups.put(key, state);
      if (!this.upsert) out.push(Op.UPDATE_BEFORE, prev);
      out.push(Op.UPDATE_AFTER, next);
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

/** The accumulator binding of a planner aggregate call. */
export function aggregateBinding(call: AggregateCall, retractable: boolean): AggregateBinding {
  if (call.args.length > 1) {
    throw new Error(
      `${call.fn} over ${call.args.length} columns is not supported by the runtime (${call.name})`,
    );
  }
  return {
    fn: createAggregate(call, retractable),
    arg: call.args.length === 0 ? -1 : call.args[0],
    filter: call.filterColumn,
  };
}

// Version 2: DISTINCT aggregates over one column share one map of distinct values in the accumulators.
// Version 3: over an insert-only input that map keeps a bit set of members per value, not counts.
registerOperator("group-aggregate", (node) => new GroupAggregateOperator(node), { stateVersion: 3 });
