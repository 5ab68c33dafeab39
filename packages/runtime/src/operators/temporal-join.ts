import type { TemporalJoinNode } from "@weir/planner";
import { type ChangeBatch, ChangeBatchBuilder, Op, type Row } from "../changelog.js";
import type { Operator, OperatorContext } from "../operator.js";
import type { MapState, TimerService, ValueState } from "../state/api.js";
import type { StateKey } from "../state/keys.js";
import { parseDurationSetting } from "./common.js";
import { registerOperator } from "./registry.js";
import { compileResidual, concat, joinKey, padRow } from "./time-support.js";

/** A version of the right row: whether it is an accumulate (+I/+U: 1) or a delete (-D: 0), and the row. */
type Version = [accumulate: number, row: Row];

/**
 * One keyed half of the operator's state. The rows of the left side wait in `left` (by arrival
 * sequence) until the watermark passes their time; `timer` holds the key's one pending event-time
 * timer (the smallest time it waits for); `cleanup` the key's processing-time cleanup timer under
 * 'table.exec.state.ttl'. Left rows with a NULL join key (LEFT JOIN only: they can never match)
 * live in a half of their own, so that no encoded key can collide with them.
 */
interface Half {
  readonly left: MapState<number, Row>;
  readonly next: ValueState<number>;
  readonly timer: ValueState<number>;
  readonly cleanup: ValueState<number>;
  readonly timers: TimerService;
}

/**
 * Event-time temporal join (Flink's TemporalRowTimeJoinOperator), keyed by the join key:
 *
 * - a left row is buffered and an event-time timer registered at its time (one timer per key, the
 *   smallest pending time); a right change is stored as the key's version at its rowtime (a later
 *   change at the same rowtime replaces it; `-U` is dropped, as Flink's planner drops UPDATE_BEFORE
 *   for a temporal join's versioned side), and registers a timer too (for cleanup);
 * - when the watermark (the minimum over both inputs) reaches a key's timer, its left rows with
 *   time ≤ watermark are emitted in arrival order, each joined with the latest version whose time
 *   is ≤ the left row's time, if that version is not a delete and the residual condition holds;
 *   otherwise an inner join drops the row and a LEFT join pads it with NULLs. The output keeps the
 *   left row's change kind;
 * - then every version older than the latest one at or before the watermark is dropped (no left
 *   row still to come can need it, unless it is late);
 * - a left row that arrives with its time already at or before the watermark is not dropped (as in
 *   Flink): it is emitted at the next watermark, against the versions still kept;
 * - 'table.exec.state.ttl': a key with no row on either side for that long (up to 1.5 times that,
 *   Flink's retention timer) loses all its state, left rows included.
 *
 * The watermark is forwarded unchanged: every row is emitted before the watermark that passes it.
 */
export class TemporalJoinOperator implements Operator {
  private ctx!: OperatorContext;
  private keyed!: Half;
  private nullKeyed!: Half;
  private right!: MapState<number, Version>;
  private condition: ((row: Row) => boolean) | null = null;
  private readonly leftOuter: boolean;
  private readonly width: number;
  private minRetention = 0;
  private maxRetention = 0;

  constructor(private readonly node: TemporalJoinNode) {
    this.leftOuter = node.joinType === "left";
    this.width = node.schema.length;
  }

  open(ctx: OperatorContext): void {
    this.ctx = ctx;
    const half = (prefix: string): Half => ({
      left: ctx.state.map<number, Row>(`${prefix}left`),
      next: ctx.state.value<number>(`${prefix}next`),
      timer: ctx.state.value<number>(`${prefix}timer`),
      cleanup: ctx.state.value<number>(`${prefix}cleanup`),
      timers: ctx.timers(`${prefix}timers`),
    });
    this.keyed = half("");
    this.nullKeyed = half("null-key-");
    this.right = ctx.state.map<number, Version>("right");
    this.condition = compileResidual(this.node.condition, ctx.evalContext);
    const ttl = ctx.settings["table.exec.state.ttl"];
    if (ttl !== undefined) {
      this.minRetention = parseDurationSetting("table.exec.state.ttl", ttl);
      this.maxRetention = Math.floor((this.minRetention * 3) / 2);
    }
  }

  processBatch(input: number, batch: ChangeBatch): void {
    const { ops, rows, length } = batch;
    const n = this.node;
    if (input === 0) {
      for (let i = 0; i < length; i++) {
        const row = rows[i];
        const time = this.time(row, n.leftTimeColumn, "left");
        const key = joinKey(row, n.leftKeys);
        if (key === null) {
          if (!this.leftOuter) continue;
          this.buffer(this.nullKeyed, 0, ops[i], row, time);
        } else this.buffer(this.keyed, key, ops[i], row, time);
      }
      return;
    }
    for (let i = 0; i < length; i++) {
      const op = ops[i];
      if (op === Op.UPDATE_BEFORE) continue;
      const row = rows[i];
      const key = joinKey(row, n.rightKeys);
      if (key === null) continue;
      const time = this.time(row, n.rightTimeColumn, "right");
      this.right.put(key, time, [op === Op.DELETE ? 0 : 1, row]);
      this.registerSmallestTimer(this.keyed, key, time);
      this.registerCleanup(this.keyed, key);
    }
  }

  private time(row: Row, column: number, side: string): number {
    const t = row[column];
    if (typeof t !== "number") {
      throw new Error(
        `temporal join (node ${this.node.id}): a ${side} row has a NULL time attribute (column ${column + 1} of the ${side} input)`,
      );
    }
    return t;
  }

  private buffer(half: Half, key: StateKey, op: number, row: Row, time: number): void {
    const seq = half.next.get(key) ?? 0;
    half.next.put(key, seq + 1);
    // The change kind rides along as the row's last field, dropped again on output.
    const stored = row.slice();
    stored.push(op);
    half.left.put(key, seq, stored);
    this.registerSmallestTimer(half, key, time);
    this.registerCleanup(half, key);
  }

  private registerSmallestTimer(half: Half, key: StateKey, time: number): void {
    const current = half.timer.get(key);
    if (current !== undefined && current <= time) return;
    if (current !== undefined) half.timers.deleteEventTimeTimer(key, current);
    half.timers.registerEventTimeTimer(key, time);
    half.timer.put(key, time);
  }

  private registerCleanup(half: Half, key: StateKey): void {
    if (this.minRetention <= 0) return;
    const now = this.ctx.now();
    const current = half.cleanup.get(key);
    if (current !== undefined && now + this.minRetention <= current) return;
    if (current !== undefined) half.timers.deleteProcessingTimeTimer(key, current);
    const at = now + this.maxRetention;
    half.timers.registerProcessingTimeTimer(key, at);
    half.cleanup.put(key, at);
  }

  onWatermark(watermark: number): number {
    const out = new ChangeBatchBuilder();
    for (const half of [this.keyed, this.nullKeyed]) {
      half.timers.advanceWatermark(watermark, (key) => {
        half.timer.delete(key);
        const pending = this.emit(half, key, watermark, out);
        if (pending < Number.POSITIVE_INFINITY) this.registerSmallestTimer(half, key, pending);
        if (this.minRetention > 0) {
          if (pending < Number.POSITIVE_INFINITY || (half === this.keyed && this.hasVersions(key)))
            this.registerCleanup(half, key);
          else this.dropCleanup(half, key);
        }
      });
    }
    if (out.length > 0) this.ctx.emit(out.finish());
    return watermark;
  }

  private hasVersions(key: StateKey): boolean {
    return !this.right.entries(key).next().done;
  }

  private dropCleanup(half: Half, key: StateKey): void {
    const current = half.cleanup.get(key);
    if (current === undefined) return;
    half.timers.deleteProcessingTimeTimer(key, current);
    half.cleanup.delete(key);
    half.next.delete(key);
  }

  /**
   * Emits the key's left rows with time ≤ `watermark` (in arrival order), then drops the versions
   * no longer needed. Returns the smallest time of the left rows still waiting (∞ if none).
   */
  private emit(half: Half, key: StateKey, watermark: number, out: ChangeBatchBuilder): number {
    const n = this.node;
    const versions = half === this.keyed ? this.sortedVersions(key) : [];
    let pending = Number.POSITIVE_INFINITY;
    const due: number[] = [];
    for (const [seq, stored] of half.left.entries(key)) {
      const t = stored[n.leftTimeColumn] as number;
      if (t <= watermark) due.push(seq);
      else if (t < pending) pending = t;
    }
    due.sort((a, b) => a - b);
    for (const seq of due) {
      const stored = half.left.get(key, seq)!;
      half.left.delete(key, seq);
      const op = stored[stored.length - 1] as Op;
      const row = stored.slice(0, stored.length - 1);
      const version = latestAtOrBefore(versions, row[n.leftTimeColumn] as number);
      if (version !== undefined && version[1][0] === 1) {
        const joined = concat(row, version[1][1]);
        if (this.condition === null || this.condition(joined)) {
          out.push(op, joined);
          continue;
        }
      }
      if (this.leftOuter) out.push(op, padRow(0, row, this.width));
    }
    if (half === this.keyed) {
      // Keep the latest version at or before the watermark and every later one.
      let keep = versions.findIndex(([t]) => t > watermark);
      keep = keep < 0 ? versions.length - 1 : keep - 1;
      for (let i = 0; i < keep; i++) this.right.delete(key, versions[i]![0]);
    }
    return pending;
  }

  private sortedVersions(key: StateKey): [number, Version][] {
    const list = [...this.right.entries(key)];
    list.sort((a, b) => a[0] - b[0]);
    return list;
  }

  onProcessingTime(now: number): void {
    if (this.minRetention <= 0) return;
    for (const half of [this.keyed, this.nullKeyed]) {
      half.timers.advanceProcessingTime(now, (key, ts) => {
        if (half.cleanup.get(key) !== ts) return;
        half.left.clear(key);
        half.next.delete(key);
        half.timer.delete(key);
        half.cleanup.delete(key);
        if (half === this.keyed) this.right.clear(key);
      });
    }
  }
}

/** The last of `versions` (ascending by time) with time ≤ `time`, by binary search. */
function latestAtOrBefore(
  versions: readonly [number, Version][],
  time: number,
): [number, Version] | undefined {
  let lo = 0;
  let hi = versions.length - 1;
  let found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (versions[mid]![0] <= time) {
      found = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return found < 0 ? undefined : versions[found];
}

registerOperator("temporal-join", (node) => new TemporalJoinOperator(node));
