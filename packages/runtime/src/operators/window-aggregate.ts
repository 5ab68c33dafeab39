import type { WindowAggregateNode, WindowSpec } from "@weir/planner";
import type { GroupAcc, GroupAggregates } from "../aggregates/group.js";
import { type ChangeBatch, ChangeBatchBuilder, Op, opSign, type Row } from "../changelog.js";
import type { Operator, OperatorContext } from "../operator.js";
import type { TimeIndexedState, ValueState } from "../state/api.js";
import { type KeyCodec, keyCodec, type StateKey } from "../state/keys.js";
import {
  cumulativeAssigner,
  hoppingAssigner,
  isWindowFired,
  type SliceAssigner,
  tumblingAssigner,
} from "../windows/slices.js";
import { registerOperator } from "./registry.js";
import { SessionStore } from "./session-store.js";
import { bindAggregates, inputTypesFromOutput, type WindowClock, windowClock } from "./time-support.js";

/** The slice assigner of an aligned window (TUMBLE, HOP, CUMULATE); null for SESSION. */
export function sliceAssignerOf(window: WindowSpec): SliceAssigner | null {
  switch (window.kind) {
    case "tumble":
      return tumblingAssigner(window.size, window.offset);
    case "hop":
      return hoppingAssigner(window.size, window.slide, window.offset);
    case "cumulate":
      return cumulativeAssigner(window.maxSize, window.step, window.offset);
    case "session":
      return null;
    default: {
      const _exhaustive: never = window;
      return _exhaustive;
    }
  }
}

/**
 * Window aggregation. Aligned windows (TUMBLE, HOP, CUMULATE) share work through slices: a row is
 * accumulated once, into its slice's accumulator for its group key (state `slices`, indexed by
 * slice end); when a window fires, the accumulators of its slices are merged per key and the
 * result is emitted; a slice is dropped once the last window that needs it has fired. SESSION
 * windows are merged per key (see {@link SessionStore}), one accumulator per session.
 *
 * Output: group keys, aggregate values, window_start, window_end, window_time (= end − 1), all
 * `+I`, once per window and key, in order of window end then of the keys' first appearance.
 * Retractions are applied to the accumulators (a group whose row count nets to 0 emits nothing).
 * A row whose every window has fired is late: dropped and counted; a HOP/CUMULATE row whose
 * slice still belongs to an unfired window counts only in the windows that have not fired.
 *
 * Processing-time windows (`timeKind: "proctime"`) fire from {@link onProcessingTime} when the
 * clock reaches window_end − 1, and all at once at the end of input (the +∞ watermark); other
 * watermarks pass through. State `fired-up-to` then holds the processing time windows have fired
 * up to, and a row whose PROCTIME() is at or before it counts as of just after it (the earliest
 * open window), so no row is late.
 */
export class WindowAggregateOperator implements Operator {
  private ctx!: OperatorContext;
  private aggs!: GroupAggregates;
  private codec!: KeyCodec;
  private assigner: SliceAssigner | null = null;
  private slices: TimeIndexedState<GroupAcc> | null = null;
  private sessions: SessionStore<GroupAcc> | null = null;
  /** Processing-time windows: the processing time windows have fired up to (state `fired-up-to`). */
  private firedUpTo: ValueState<number> | null = null;
  private clock!: WindowClock;
  private proctime = false;

  constructor(
    private readonly node: WindowAggregateNode,
    /** Whether the input may retract: picks the retractable accumulators (MIN/MAX, FIRST/LAST_VALUE). */
    private readonly retractable = true,
  ) {}

  open(ctx: OperatorContext): void {
    this.ctx = ctx;
    const n = this.node;
    this.proctime = n.timeKind === "proctime";
    this.aggs = bindAggregates(n.aggregates, this.retractable);
    this.codec = keyCodec(n.groupKeys, inputTypesFromOutput(n.groupKeys, n.schema));
    if (this.proctime) this.firedUpTo = ctx.state.value<number>("fired-up-to");
    const timeType = n.schema[n.schema.length - 1]!.type;
    this.clock = windowClock(timeType.kind === "TIMESTAMP_LTZ", ctx.evalContext.localTimeZone);
    this.assigner = sliceAssignerOf(n.window);
    if (this.assigner !== null) {
      this.slices = ctx.state.timeIndexed<GroupAcc>("slices");
    } else {
      const aggs = this.aggs;
      this.sessions = new SessionStore<GroupAcc>(
        ctx.state,
        "",
        (n.window as { gap: number }).gap,
        (into, from) => {
          aggs.merge(into, from);
          return into;
        },
      );
    }
  }

  processBatch(_input: number, batch: ChangeBatch): void {
    const { ops, rows, length } = batch;
    const tc = this.node.timeColumn;
    const toWall = this.clock.toWall;
    const wm = toWall(this.progress());
    // Processing time: the earliest time still open (so that no row is late).
    const earliest = this.proctime ? wm + 1 : Number.NEGATIVE_INFINITY;
    for (let i = 0; i < length; i++) {
      const row = rows[i];
      const ts = row[tc];
      if (ts === null || ts === undefined) continue;
      const sign = opSign(ops[i] as Op);
      let wall = toWall(ts as number);
      if (wall < earliest) wall = earliest;
      if (this.slices !== null) this.accumulateSlice(row, wall, sign, wm, ts as number);
      else this.accumulateSession(row, wall, sign, wm, ts as number);
    }
  }

  private accumulateSlice(row: Row, ts: number, sign: 1 | -1, wm: number, time: number): void {
    const a = this.assigner!;
    const sliceEnd = a.sliceEnd(ts);
    if (isWindowFired(a.lastWindowEnd(sliceEnd), wm) || a.windowEndsOf(sliceEnd).length === 0) {
      const end = a.lastWindowEnd(sliceEnd);
      this.ctx.late(row, "window-fired", { time, window: { start: a.windowStart(end), end } });
      return;
    }
    const key = this.codec.encode(row);
    const slices = this.slices!;
    const acc = slices.get(sliceEnd, key) ?? this.aggs.create();
    this.aggs.apply(acc, row, sign);
    slices.put(sliceEnd, key, acc);
  }

  private accumulateSession(row: Row, ts: number, sign: 1 | -1, wm: number, time: number): void {
    const key = this.codec.encode(row);
    const store = this.sessions!;
    const window = sign > 0 ? store.assign(key, ts, wm, () => this.aggs.create()) : store.find(key, ts);
    if (window === null || window === undefined) {
      this.ctx.late(row, window === null ? "window-fired" : "session-fired", {
        time,
        ...(window === null ? { window: { start: ts, end: ts + store.gapMs } } : {}),
      });
      return;
    }
    const acc = store.get(key, window)!;
    this.aggs.apply(acc, row, sign);
    store.set(key, window, acc);
  }

  onWatermark(watermark: number): number {
    if (!this.proctime || watermark === Number.POSITIVE_INFINITY) this.fireUpTo(watermark);
    return watermark;
  }

  onProcessingTime(now: number): void {
    if (this.proctime && now > this.progress()) this.fireUpTo(now);
  }

  /** The time windows fired up to: the watermark, or for processing-time windows the clock. */
  private progress(): number {
    if (this.firedUpTo === null) return this.ctx.watermark;
    return this.firedUpTo.get(0) ?? Number.NEGATIVE_INFINITY;
  }

  /** Fires every window whose end − 1 is at most `time` (a watermark, or processing time). */
  private fireUpTo(time: number): void {
    const out = new ChangeBatchBuilder();
    const wall = this.clock.toWall(time);
    if (this.slices !== null) this.fireSlices(wall, this.clock.toWall(this.progress()), out);
    else {
      this.sessions!.fire(wall, (key, w, acc) => this.emit(out, key, acc, w.start, w.end));
    }
    this.firedUpTo?.put(0, time);
    if (out.length > 0) {
      this.ctx.emit(out.finish());
    }
  }

  private fireSlices(watermark: number, previous: number, out: ChangeBatchBuilder): void {
    const a = this.assigner!;
    const slices = this.slices!;
    if (slices.minTimestamp() === undefined) return;
    // Window ends that fire now: (previous + 1, watermark + 1], among windows holding a slice.
    const ends = new Set<number>();
    for (const s of slices.timestamps()) {
      if (a.firstWindowEnd(s) - 1 > watermark) break;
      for (const e of a.windowEndsOf(s)) {
        if (e - 1 > previous && e - 1 <= watermark) ends.add(e);
      }
    }
    const sorted = [...ends].sort((x, y) => x - y);
    for (const end of sorted) {
      const merged = new Map<StateKey, GroupAcc>();
      for (const s of a.slicesOf(end)) {
        for (const [key, acc] of slices.entriesAt(s)) {
          let m = merged.get(key);
          if (m === undefined) {
            m = this.aggs.create();
            merged.set(key, m);
          }
          this.aggs.merge(m, acc);
        }
      }
      const start = a.windowStart(end);
      for (const [key, acc] of merged) this.emit(out, key, acc, start, end);
    }
    // Drop the slices whose last window has fired (lastWindowEnd grows with the slice end).
    let upTo: number | undefined;
    for (const s of slices.timestamps()) {
      if (!isWindowFired(a.lastWindowEnd(s), watermark)) break;
      upTo = s;
    }
    if (upTo !== undefined) slices.expireUpTo(upTo);
  }

  private emit(out: ChangeBatchBuilder, key: StateKey, acc: GroupAcc, start: number, end: number): void {
    if (this.aggs.rowCount(acc) <= 0) return;
    const row: Row = this.codec.decode(key);
    const values = this.aggs.values(acc);
    for (let i = 0; i < values.length; i++) row.push(values[i]);
    row.push(start, end, this.clock.toInstant(end) - 1);
    out.push(Op.INSERT, row);
  }
}

registerOperator(
  "window-aggregate",
  (node, info) =>
    new WindowAggregateOperator(node, (info.inputModes[0]?.kind ?? "retract") !== "insert-only"),
);
