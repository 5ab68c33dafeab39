import type { JoinNode } from "@weir/planner";
import { type ChangeBatch, ChangeBatchBuilder, Op, opSign, type Row } from "../changelog.js";
import type { Operator, OperatorContext } from "../operator.js";
import type { MapState, StateOptions } from "../state/api.js";
import { stateTtl, TTL_CLEANUP_BUDGET } from "./common.js";
import { registerOperator } from "./registry.js";
import { compileResidual, concat, joinKey, padRow, rowKey } from "./time-support.js";

/**
 * A buffered row of one side: the row, how many copies of it are live (its multiplicity), and
 * how many rows of the other side it matches (counted with their multiplicity, for one copy).
 */
type Entry = [row: Row, count: number, matches: number];

/**
 * Regular join over inputs that may retract. Per join key, each side keeps its rows with their
 * multiplicity and their number of matches on the other side, so that every change emits exactly
 * the changes that keep the materialised output equal to the batch join of the live rows:
 *
 * - inner: ±(l, r) for each matching pair (times the multiplicities);
 * - outer side X: a row of X with no match is present as (x, nulls); its first match arriving
 *   emits `-D (x, nulls)` before `+I (x, r)`, its last match leaving emits `-D (x, r)` then
 *   `+I (x, nulls)`;
 * - semi: a left row is present while it has ≥ 1 match; anti: while it has none.
 *
 * Output ops are `+I` and `-D` only (an input update pair may fan out to several pairs, so it is
 * not kept as `-U`/`+U`). A row with a NULL join key never matches: outer sides emit it padded at
 * once, and it is not buffered. A retraction of a row that is not in state (expired by TTL) is
 * ignored. `'table.exec.state.ttl'` applies to both sides, refreshed on write (Flink's
 * OnCreateAndWrite).
 */
export class JoinOperator implements Operator {
  private ctx!: OperatorContext;
  private sides!: [MapState<string, Entry>, MapState<string, Entry>];
  private keys!: [readonly number[], readonly number[]];
  private condition: ((row: Row) => boolean) | null = null;
  private readonly outer: [boolean, boolean];
  private readonly semi: boolean;
  private readonly anti: boolean;
  private readonly width: number;

  constructor(private readonly node: JoinNode) {
    const t = node.joinType;
    this.outer = [t === "left" || t === "full", t === "right" || t === "full"];
    this.semi = t === "semi";
    this.anti = t === "anti";
    this.width = node.schema.length;
  }

  open(ctx: OperatorContext): void {
    this.ctx = ctx;
    const ttl = stateTtl(ctx.settings);
    const options: StateOptions = ttl === undefined ? {} : { ttl };
    this.sides = [
      ctx.state.map<string, Entry>("left", options),
      ctx.state.map<string, Entry>("right", options),
    ];
    this.keys = [this.node.leftKeys, this.node.rightKeys];
    this.condition = compileResidual(this.node.condition, ctx.evalContext);
  }

  processBatch(input: number, batch: ChangeBatch): void {
    const side = input === 0 ? 0 : 1;
    const out = new ChangeBatchBuilder();
    const { ops, rows, length } = batch;
    for (let i = 0; i < length; i++) this.processRow(side, opSign(ops[i] as Op), rows[i], out);
    if (out.length > 0) {
      this.ctx.emit(out.finish());
    }
  }

  private processRow(side: 0 | 1, sign: 1 | -1, row: Row, out: ChangeBatchBuilder): void {
    const op = sign > 0 ? Op.INSERT : Op.DELETE;
    const key = joinKey(row, this.keys[side]);
    const semiAnti = this.semi || this.anti;
    if (key === null) {
      if (this.outer[side]) out.push(op, this.pad(side, row));
      else if (this.anti && side === 0) out.push(op, row);
      return;
    }
    const own = this.sides[side];
    const rk = rowKey(row);
    const entry = own.get(key, rk);
    if (sign < 0 && entry === undefined) return;
    const otherSide = side === 0 ? 1 : 0;
    const other = this.sides[otherSide];
    let matched = 0;
    {
      // Collect first: writing back into the other side's map while iterating it is not allowed.
      const hits: [string, Entry][] = [];
      for (const e of other.entries(key)) if (this.matches(side, row, e[1][0])) hits.push(e);
      for (const [ork, oe] of hits) {
        matched += oe[1];
        const [o, n, m] = oe;
        if (semiAnti) {
          if (side === 1) {
            // A right row changes whether a left row has a match.
            const becomes = sign > 0 ? m === 0 : m === 1;
            if (becomes)
              for (let c = 0; c < n; c++) out.push(this.semi === sign > 0 ? Op.INSERT : Op.DELETE, o);
          }
        } else {
          const otherOuter = this.outer[otherSide];
          if (otherOuter && sign > 0 && m === 0)
            for (let c = 0; c < n; c++) out.push(Op.DELETE, this.pad(otherSide, o));
          const joined = side === 0 ? concat(row, o) : concat(o, row);
          for (let c = 0; c < n; c++) out.push(op, c === 0 ? joined : joined.slice());
          if (otherOuter && sign < 0 && m === 1)
            for (let c = 0; c < n; c++) out.push(Op.INSERT, this.pad(otherSide, o));
        }
        oe[2] = m + sign;
        other.put(key, ork, oe);
      }
    }
    if (side === 0 && semiAnti) {
      if (matched > 0 === this.semi) out.push(op, row);
    } else if (this.outer[side] && matched === 0) {
      out.push(op, this.pad(side, row));
    }
    if (sign > 0) {
      if (entry === undefined) own.put(key, rk, [row, 1, matched]);
      else {
        entry[1]++;
        own.put(key, rk, entry);
      }
    } else if (entry !== undefined) {
      if (--entry[1] === 0) own.delete(key, rk);
      else own.put(key, rk, entry);
    }
  }

  private matches(side: 0 | 1, row: Row, other: Row): boolean {
    const c = this.condition;
    if (c === null) return true;
    return c(side === 0 ? concat(row, other) : concat(other, row));
  }

  private pad(side: 0 | 1, row: Row): Row {
    return padRow(side, row, this.width);
  }

  onWatermark(watermark: number): number {
    return watermark;
  }

  onProcessingTime(_now: number): void {
    this.ctx.state.cleanupExpired(TTL_CLEANUP_BUDGET);
  }
}

registerOperator("join", (node) => new JoinOperator(node));
