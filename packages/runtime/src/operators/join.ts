import type { JoinNode } from "@weir/planner";
import { type ChangeBatch, ChangeBatchBuilder, Op, opSign, type Row } from "../changelog.js";
import type { Operator, OperatorContext } from "../operator.js";
import type { ListState, MapState, StateOptions } from "../state/api.js";
import type { StateKey } from "../state/keys.js";
import { decodeRow, encodeRow } from "../state/row-codec.js";
import { stateTtl, TTL_CLEANUP_BUDGET } from "./common.js";
import type { OperatorBuildInfo } from "./registry.js";
import { registerOperator } from "./registry.js";
import { compileResidual, concat, joinKey, padRow } from "./time-support.js";

/**
 * The stored value of a row in a side kept as a map: its multiplicity `n` (live copies) and, when
 * the side needs it, `m`, the number of rows of the other side it matches (counted with their
 * multiplicity, for one copy). Packed into one number `m · 2^21 + n` while that is exact (a small
 * integer, no allocation), else the pair.
 */
type Counts = number | [n: number, m: number];

const N_LIMIT = 2 ** 21;
const M_LIMIT = 2 ** 31;

function pack(n: number, m: number): Counts {
  return n < N_LIMIT && m >= 0 && m < M_LIMIT ? m * N_LIMIT + n : [n, m];
}

function countOf(c: Counts): number {
  return typeof c === "number" ? c % N_LIMIT : c[0];
}

function matchesOf(c: Counts): number {
  return typeof c === "number" ? Math.floor(c / N_LIMIT) : c[1];
}

/** How many decoded rows {@link JoinOperator} keeps for repeated probes (a cache, not state). */
const DECODED_CACHE_SIZE = 4096;

/**
 * Regular join over inputs that may retract. Per join key, each side keeps its rows, so that
 * every change emits exactly the changes that keep the materialised output equal to the batch
 * join of the live rows:
 *
 * - inner: ±(l, r) for each matching pair (times the multiplicities);
 * - outer side X: a row of X with no match is present as (x, nulls); its first match arriving
 *   emits `-D (x, nulls)` before `+I (x, r)`, its last match leaving emits `-D (x, r)` then
 *   `+I (x, nulls)`;
 * - semi: a left row is present while it has ≥ 1 match; anti: while it has none.
 *
 * Rows are stored encoded ({@link encodeRow}: one compact string per row, its own identity). A
 * side whose input is insert-only and whose rows need no match count (any side of an inner join,
 * the inner side of an outer join, the right side of a semi/anti join) keeps a list of encoded
 * rows per key (Flink's state view for an input without a unique key, minus the counts no
 * retraction can need); any other side keeps a map from encoded row to {@link Counts}, and only
 * sides that need match counts are written when the other side probes them.
 *
 * Output ops are `+I` and `-D` only (an input update pair may fan out to several pairs, so it is
 * not kept as `-U`/`+U`). A row with a NULL join key never matches: outer sides emit it padded at
 * once, and it is not buffered. A retraction of a row that is not in state (expired by TTL) is
 * ignored. `'table.exec.state.ttl'` applies to both sides, refreshed on write (Flink's
 * OnCreateAndWrite).
 */
export class JoinOperator implements Operator {
  private ctx!: OperatorContext;
  /** Per side: the list view (insert-only, no match counts) or null. */
  private lists: [ListState<string> | null, ListState<string> | null] = [null, null];
  /** Per side: the map view, or null. */
  private maps: [MapState<string, Counts> | null, MapState<string, Counts> | null] = [null, null];
  private keys!: [readonly number[], readonly number[]];
  private condition: ((row: Row) => boolean) | null = null;
  private readonly outer: [boolean, boolean];
  private readonly semi: boolean;
  private readonly anti: boolean;
  private readonly width: number;
  /** Whether a side's rows keep how many rows of the other side they match. */
  private readonly needsMatches: [boolean, boolean];
  private readonly insertOnly: [boolean, boolean];
  private readonly decoded = new Map<string, Row>();

  constructor(
    private readonly node: JoinNode,
    info?: OperatorBuildInfo,
  ) {
    const t = node.joinType;
    this.outer = [t === "left" || t === "full", t === "right" || t === "full"];
    this.semi = t === "semi";
    this.anti = t === "anti";
    this.width = node.schema.length;
    this.needsMatches = [this.outer[0] || this.semi || this.anti, this.outer[1]];
    const modes = info?.inputModes;
    this.insertOnly = [modes?.[0]?.kind === "insert-only", modes?.[1]?.kind === "insert-only"];
  }

  open(ctx: OperatorContext): void {
    this.ctx = ctx;
    const ttl = stateTtl(ctx.settings);
    const options: StateOptions = ttl === undefined ? {} : { ttl };
    const names = ["left", "right"] as const;
    for (const side of [0, 1] as const) {
      if (this.insertOnly[side] && !this.needsMatches[side])
        this.lists[side] = ctx.state.list<string>(names[side], options);
      else this.maps[side] = ctx.state.map<string, Counts>(names[side], options);
    }
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
    if (key === null) {
      if (this.outer[side]) out.push(op, this.pad(side, row));
      else if (this.anti && side === 0) out.push(op, row);
      return;
    }
    const encoded = encodeRow(row);
    const ownMap = this.maps[side];
    const stored = ownMap === null ? undefined : ownMap.get(key, encoded);
    if (sign < 0 && ownMap !== null && stored === undefined) return;
    if (sign < 0 && ownMap === null && !this.removeFromList(side, key, encoded)) return;
    const otherSide = side === 0 ? 1 : 0;
    const matched =
      this.maps[otherSide] === null
        ? this.probeList(side, sign, row, key, out)
        : this.probeMap(side, sign, row, key, out);
    if (side === 0 && (this.semi || this.anti)) {
      if (matched > 0 === this.semi) out.push(op, row);
    } else if (this.outer[side] && matched === 0) {
      out.push(op, this.pad(side, row));
    }
    if (ownMap === null) {
      if (sign > 0) this.lists[side]!.add(key, encoded);
      return;
    }
    const m = this.needsMatches[side] ? matched : 0;
    if (sign > 0) {
      ownMap.put(
        key,
        encoded,
        stored === undefined ? pack(1, m) : pack(countOf(stored) + 1, matchesOf(stored)),
      );
    } else if (stored !== undefined) {
      const n = countOf(stored) - 1;
      if (n === 0) ownMap.delete(key, encoded);
      else ownMap.put(key, encoded, pack(n, matchesOf(stored)));
    }
  }

  /**
   * Probes the other side when it is a list (insert-only rows, no match counts: an inner join's
   * side, or the inner side of an outer join): emits the joined rows; returns the number of matches.
   */
  private probeList(side: 0 | 1, sign: 1 | -1, row: Row, key: StateKey, out: ChangeBatchBuilder): number {
    const list = this.lists[side === 0 ? 1 : 0]!.get(key);
    if (list.length === 0) return 0;
    const op = sign > 0 ? Op.INSERT : Op.DELETE;
    const semiAnti = this.semi || this.anti;
    const c = this.condition;
    let matched = 0;
    for (let i = 0; i < list.length; i++) {
      const o = this.rowOf(list[i]);
      const joined = side === 0 ? concat(row, o) : concat(o, row);
      if (c !== null && !c(joined)) continue;
      matched++;
      if (!semiAnti) out.push(op, joined);
    }
    return matched;
  }

  /** Probes the other side when it is a map: emits, and updates its rows' match counts if it keeps them. */
  private probeMap(side: 0 | 1, sign: 1 | -1, row: Row, key: StateKey, out: ChangeBatchBuilder): number {
    const otherSide = side === 0 ? 1 : 0;
    const other = this.maps[otherSide]!;
    const op = sign > 0 ? Op.INSERT : Op.DELETE;
    const semiAnti = this.semi || this.anti;
    const c = this.condition;
    const counted = this.needsMatches[otherSide];
    // Collect first: writing back into the other side's map while iterating it is not allowed.
    const hits: [string, Counts, Row, Row][] = [];
    for (const [oenc, counts] of other.entries(key)) {
      const o = this.rowOf(oenc);
      const joined = side === 0 ? concat(row, o) : concat(o, row);
      if (c !== null && !c(joined)) continue;
      hits.push([oenc, counts, o, joined]);
    }
    let matched = 0;
    const otherOuter = this.outer[otherSide];
    for (let h = 0; h < hits.length; h++) {
      const [oenc, counts, o, joined] = hits[h];
      const n = countOf(counts);
      const m = matchesOf(counts);
      matched += n;
      if (semiAnti) {
        if (side === 1) {
          // A right row changes whether a left row has a match.
          const becomes = sign > 0 ? m === 0 : m === 1;
          if (becomes)
            for (let k = 0; k < n; k++) out.push(this.semi === sign > 0 ? Op.INSERT : Op.DELETE, o.slice());
        }
      } else {
        if (otherOuter && sign > 0 && m === 0)
          for (let k = 0; k < n; k++) out.push(Op.DELETE, this.pad(otherSide, o));
        for (let k = 0; k < n; k++) out.push(op, k === 0 ? joined : joined.slice());
        if (otherOuter && sign < 0 && m === 1)
          for (let k = 0; k < n; k++) out.push(Op.INSERT, this.pad(otherSide, o));
      }
      if (counted) other.put(key, oenc, pack(n, m + sign));
    }
    return matched;
  }

  /** Removes one copy of an encoded row from a list side; false when it is not there. */
  private removeFromList(side: 0 | 1, key: StateKey, encoded: string): boolean {
    const state = this.lists[side]!;
    const list = state.get(key);
    const at = list.indexOf(encoded);
    if (at < 0) return false;
    const next = list.slice();
    next.splice(at, 1);
    state.update(key, next);
    return true;
  }

  /** The row an encoded row holds; the same array for repeated probes (never emitted as is). */
  private rowOf(encoded: string): Row {
    let row = this.decoded.get(encoded);
    if (row === undefined) {
      if (this.decoded.size >= DECODED_CACHE_SIZE) this.decoded.clear();
      row = decodeRow(encoded);
      this.decoded.set(encoded, row);
    }
    return row;
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

registerOperator("join", (node, info) => new JoinOperator(node, info), { stateVersion: 2 });
