import type { WindowAggregateNode, WindowSpec } from "@weir/planner";
import type { GroupAcc, GroupAggregates } from "../aggregates/group.js";
import { type ChangeBatch, ChangeBatchBuilder, Op, opSign, type Row } from "../changelog.js";
import type { Operator, OperatorContext } from "../operator.js";
import type { MapState, TimeIndexedState, ValueState } from "../state/api.js";
import { type KeyCodec, keyCodec, type StateKey } from "../state/keys.js";
import {
  cumulativeAssigner,
  hoppingAssigner,
  isWindowFired,
  type SliceAssigner,
  tumblingAssigner,
} from "../windows/slices.js";
import { parseDurationSetting, rowsEqual } from "./common.js";
import { registerOperator } from "./registry.js";
import { SessionStore } from "./session-store.js";
import { bindAggregates, inputTypesFromOutput, type WindowClock, windowClock } from "./time-support.js";
import { WindowAttachedAggregateOperator } from "./window-attached-aggregate.js";

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

/** No window ends (shared, never mutated). */
const NONE: readonly number[] = [];

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
  /** `'late.policy'` 'update' (upserts) or 'retract' (-U/+U): fired windows are corrected. */
  private corrections: "update" | "retract" | null = null;
  /** How long after a window fired its state is kept for corrections (0 without a policy). */
  private allowedLateness = 0;
  /** Corrections of fired windows made by the current batch, emitted at its end. */
  private corrected: ChangeBatchBuilder | null = null;
  /** The output's changelog: insert-only, or upsert / retract (late corrections, early firing). */
  private mode: "insert-only" | "upsert" | "retract" = "insert-only";
  /** WINDOW_IS_FINAL(), WINDOW_VERSION(), WINDOW_WATERMARK(): output column and what it holds. */
  private meta: { readonly column: number; readonly kind: "final" | "version" | "watermark" }[] = [];
  /**
   * The last result emitted per (key, window end — or session start): its version and row, while
   * it may still change (state `emitted`; only with corrections, early firing or metadata).
   */
  private emitted: MapState<number, [number, Row]> | null = null;
  /** `'table.exec.emit.early-fire.delay'` (0: after every row), or null without early firing. */
  private earlyDelay: number | null = null;
  /** Processing time of the last early firing (state `early-fired-at`). */
  private earlyAt: ValueState<number> | null = null;

  constructor(
    private readonly node: WindowAggregateNode,
    /** Whether the input may retract: picks the retractable accumulators (MIN/MAX, FIRST/LAST_VALUE). */
    private readonly retractable = true,
  ) {}

  open(ctx: OperatorContext): void {
    this.ctx = ctx;
    const n = this.node;
    this.proctime = n.timeKind === "proctime";
    const policy = n.late?.policy;
    if (!this.proctime && (policy === "update" || policy === "retract")) {
      this.corrections = policy;
      this.allowedLateness = n.late!.allowedLatenessMs;
    }
    this.aggs = bindAggregates(n.aggregates, this.retractable);
    this.mode = n.changelogMode.kind;
    n.aggregates.forEach((a, i) => {
      const fn = a.fn.toUpperCase();
      const kind =
        fn === "WINDOW_IS_FINAL"
          ? "final"
          : fn === "WINDOW_VERSION"
            ? "version"
            : fn === "WINDOW_WATERMARK"
              ? "watermark"
              : null;
      if (kind !== null) this.meta.push({ column: n.groupKeys.length + i, kind });
    });
    if (!this.proctime && ctx.settings["table.exec.emit.early-fire.enabled"]?.trim() === "true") {
      const key = "table.exec.emit.early-fire.delay";
      this.earlyDelay = parseDurationSetting(key, ctx.settings[key] ?? "");
      this.earlyAt = ctx.state.value<number>("early-fired-at");
    }
    if (this.mode !== "insert-only" || this.meta.length > 0)
      this.emitted = ctx.state.map<number, [number, Row]>("emitted");
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
        this.allowedLateness,
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
      if (this.slices !== null) {
        this.accumulateSlice(row, wall, sign, wm, ts as number);
        if (this.earlyDelay === 0) this.fireEarly(this.assigner!.sliceEnd(wall), this.codec.encode(row), wm);
      } else this.accumulateSession(row, wall, sign, wm, ts as number);
    }
    if (this.corrected !== null && this.corrected.length > 0) this.ctx.emit(this.corrected.finish());
  }

  private accumulateSlice(row: Row, ts: number, sign: 1 | -1, wm: number, time: number): void {
    const a = this.assigner!;
    const sliceEnd = a.sliceEnd(ts);
    const L = this.allowedLateness;
    const end = a.lastWindowEnd(sliceEnd);
    // No window holds the slice when its first window end is past its last (a HOP gap).
    if (isWindowFired(end + L, wm) || a.firstWindowEnd(sliceEnd) > end) {
      this.ctx.late(row, "window-fired", { time, window: { start: a.windowStart(end), end } });
      return;
    }
    const key = this.codec.encode(row);
    const slices = this.slices!;
    // Windows of this slice that have fired but are within the allowed lateness: corrected.
    const fired =
      L > 0
        ? a.windowEndsOf(sliceEnd).filter((e) => isWindowFired(e, wm) && !isWindowFired(e + L, wm))
        : NONE;
    const acc = slices.get(sliceEnd, key) ?? this.aggs.create();
    this.aggs.apply(acc, row, sign);
    slices.put(sliceEnd, key, acc);
    if (fired.length > 0) {
      this.emitWm = this.watermarkAt();
      this.ctx.lateUpdated?.();
    }
    for (const e of fired) {
      this.corrected ??= new ChangeBatchBuilder();
      this.emitResult(this.corrected, key, this.windowAcc(e, key), a.windowStart(e), e, e, false, false);
    }
  }

  /** Early firing: provisional results of the windows of slice `sliceEnd` for `key` not fired yet. */
  private fireEarly(sliceEnd: number, key: StateKey, wm: number): void {
    const a = this.assigner!;
    this.emitWm = this.watermarkAt();
    for (const e of a.windowEndsOf(sliceEnd)) {
      if (isWindowFired(e, wm)) continue;
      this.corrected ??= new ChangeBatchBuilder();
      this.emitResult(this.corrected, key, this.windowAcc(e, key), a.windowStart(e), e, e, false, false);
    }
  }

  /**
   * Emits the result of window [start, end) for `key`, given the last one emitted (state
   * `emitted`, under `at`): `+I` the first time; then in a retract stream `-U` of the last and
   * `+U`, in an upsert stream `+U`; `-D` of the last when the window has no rows left. A result
   * equal to the last (metadata aside) is not emitted again unless `force` (the window fires or
   * becomes final: its finality and version change). Versions count 1, 2, ... per key and window.
   */
  private emitResult(
    out: ChangeBatchBuilder,
    key: StateKey,
    acc: GroupAcc,
    start: number,
    end: number,
    at: number,
    final: boolean,
    force: boolean,
  ): void {
    const emitted = this.emitted;
    const prev = emitted?.get(key, at);
    if (this.aggs.rowCount(acc) <= 0) {
      if (prev !== undefined) {
        out.push(Op.DELETE, prev[1]);
        emitted!.delete(key, at);
      }
      return;
    }
    const version = (prev?.[0] ?? 0) + 1;
    const row = this.resultRow(key, acc, start, end, final, version);
    if (prev !== undefined && (!force || this.meta.length === 0) && this.sameResult(prev[1], row)) {
      if (final) emitted!.delete(key, at);
      return;
    }
    if (prev === undefined) out.push(Op.INSERT, row);
    else if (this.mode === "retract") {
      out.push(Op.UPDATE_BEFORE, prev[1]);
      out.push(Op.UPDATE_AFTER, row);
    } else out.push(Op.UPDATE_AFTER, row);
    if (emitted === null) return;
    if (final) emitted.delete(key, at);
    else emitted.put(key, at, [version, row]);
  }

  /** Whether two result rows are equal, the metadata columns aside. */
  private sameResult(a: Row, b: Row): boolean {
    if (this.meta.length === 0) return rowsEqual(a, b);
    const strip = (r: Row) => r.filter((_, i) => !this.meta.some((m) => m.column === i));
    return rowsEqual(strip(a), strip(b));
  }

  /** The accumulator of window `end` for `key`, merged from its slices (a fresh object). */
  private windowAcc(end: number, key: StateKey): GroupAcc {
    const a = this.assigner!;
    const m = this.aggs.create();
    for (const s of a.slicesOf(end)) {
      const acc = this.slices!.get(s, key);
      if (acc !== undefined) this.aggs.merge(m, acc);
    }
    return m;
  }

  private accumulateSession(row: Row, ts: number, sign: 1 | -1, wm: number, time: number): void {
    const key = this.codec.encode(row);
    const store = this.sessions!;
    // Fired sessions (within the allowed lateness) that the row joins or merges.
    const retired: { start: number; end: number }[] = [];
    const onRetire =
      this.corrections === null ? undefined : (w: { start: number; end: number }) => void retired.push(w);
    if (sign < 0 && onRetire !== undefined) {
      const w = store.find(key, ts);
      if (w !== undefined && w.end - 1 <= wm) onRetire(w);
    }
    const window =
      sign > 0 ? store.assign(key, ts, wm, () => this.aggs.create(), onRetire) : store.find(key, ts);
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
    if (this.corrections !== null) {
      if (retired.length > 0 || window.end - 1 <= wm) this.ctx.lateUpdated?.();
      this.correctSession(key, retired, window, acc, wm);
    }
  }

  /**
   * A late row changed fired sessions: the results of `retired` sessions that did not keep their
   * bounds are withdrawn (`-D`); when the session now holding the row has fired too, its new
   * result is emitted (`-U`/`+U` or `+U` when it kept its bounds, else `+I`).
   */
  private correctSession(
    key: StateKey,
    retired: readonly { start: number; end: number }[],
    window: { start: number; end: number },
    acc: GroupAcc,
    wm: number,
  ): void {
    const emitted = this.emitted!;
    this.corrected ??= new ChangeBatchBuilder();
    const out = this.corrected;
    this.emitWm = this.watermarkAt();
    for (const r of retired) {
      const prev = emitted.get(key, r.start);
      if (prev === undefined) continue;
      if (r.start === window.start && r.end === window.end) continue;
      out.push(Op.DELETE, prev[1]);
      emitted.delete(key, r.start);
    }
    if (window.end - 1 > wm) return;
    const prev = emitted.get(key, window.start);
    if (
      prev !== undefined &&
      prev[1][this.node.groupKeys.length + this.node.aggregates.length + 1] !== window.end
    ) {
      out.push(Op.DELETE, prev[1]);
      emitted.delete(key, window.start);
    }
    this.emitResult(out, key, acc, window.start, window.end, window.start, false, false);
  }

  /** The operator's watermark as WINDOW_WATERMARK() reports it (NULL before the first). */
  private watermarkAt(): number | null {
    const w = this.ctx.watermark;
    return Number.isFinite(w) ? w : null;
  }

  onWatermark(watermark: number): number {
    if (!this.proctime || watermark === Number.POSITIVE_INFINITY) this.fireUpTo(watermark);
    return watermark;
  }

  onProcessingTime(now: number): void {
    if (this.proctime && now > this.progress()) this.fireUpTo(now);
    const delay = this.earlyDelay;
    if (delay === null || delay === 0 || this.slices === null) return;
    const last = this.earlyAt!.get(0);
    if (last !== undefined && now - last < delay) return;
    this.earlyAt!.put(0, now);
    if (last === undefined) return;
    // Every window not fired yet: its provisional result, when it changed since the last one.
    const a = this.assigner!;
    const wm = this.clock.toWall(this.ctx.watermark);
    const keysByEnd = new Map<number, Set<StateKey>>();
    for (const sl of this.slices.timestamps()) {
      for (const e of a.windowEndsOf(sl)) {
        if (isWindowFired(e, wm)) continue;
        let keys = keysByEnd.get(e);
        if (keys === undefined) keysByEnd.set(e, (keys = new Set()));
        for (const [key] of this.slices.entriesAt(sl)) keys.add(key);
      }
    }
    const out = new ChangeBatchBuilder();
    this.emitWm = this.watermarkAt();
    for (const e of [...keysByEnd.keys()].sort((x, y) => x - y)) {
      for (const key of keysByEnd.get(e)!)
        this.emitResult(out, key, this.windowAcc(e, key), a.windowStart(e), e, e, false, false);
    }
    if (out.length > 0) this.ctx.emit(out.finish());
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
    // At the end of input (the +∞ watermark) the results carry the last watermark seen.
    this.emitWm = Number.isFinite(time) ? time : this.watermarkAt();
    const L = this.allowedLateness;
    if (this.slices !== null) this.fireSlices(wall, this.clock.toWall(this.progress()), out);
    else if (this.emitted === null) {
      this.sessions!.fire(wall, (key, w, acc) => this.emit(out, key, acc, w.start, w.end));
    } else {
      this.sessions!.fire(
        wall,
        (key, w, acc) => this.emitResult(out, key, acc, w.start, w.end, w.start, w.end - 1 + L <= wall, true),
        (key, w, acc) => {
          if (this.meta.length > 0 && this.emitted!.get(key, w.start) !== undefined)
            this.emitResult(out, key, acc, w.start, w.end, w.start, true, true);
          this.emitted!.delete(key, w.start);
        },
      );
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
    const L = this.allowedLateness;
    const ends = new Set<number>();
    // Windows fired before whose allowed lateness ends now: their final result.
    const finals = new Set<number>();
    for (const s of slices.timestamps()) {
      if (a.firstWindowEnd(s) - 1 > watermark) break;
      for (const e of a.windowEndsOf(s)) {
        if (e - 1 > previous && e - 1 <= watermark) ends.add(e);
        else if (L > 0 && e - 1 <= previous && e - 1 + L > previous && e - 1 + L <= watermark) finals.add(e);
      }
    }
    const sorted = [...ends, ...finals].sort((x, y) => x - y);
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
      if (this.emitted === null) {
        for (const [key, acc] of merged) this.emit(out, key, acc, start, end);
        continue;
      }
      const final = end - 1 + L <= watermark;
      if (finals.has(end)) {
        // Final after the allowed lateness: emitted only when the metadata shows it.
        for (const [key, acc] of merged) {
          if (this.meta.length > 0 && this.emitted.get(key, end) !== undefined)
            this.emitResult(out, key, acc, start, end, end, true, true);
          this.emitted.delete(key, end);
        }
      } else for (const [key, acc] of merged) this.emitResult(out, key, acc, start, end, end, final, true);
    }
    // Drop the slices whose last window has fired, and the allowed lateness has passed
    // (lastWindowEnd grows with the slice end).
    let upTo: number | undefined;
    for (const s of slices.timestamps()) {
      if (!isWindowFired(a.lastWindowEnd(s) + this.allowedLateness, watermark)) break;
      upTo = s;
    }
    if (upTo !== undefined) slices.expireUpTo(upTo);
  }

  private emit(out: ChangeBatchBuilder, key: StateKey, acc: GroupAcc, start: number, end: number): void {
    if (this.aggs.rowCount(acc) <= 0) return;
    out.push(Op.INSERT, this.resultRow(key, acc, start, end));
  }

  /** WINDOW_WATERMARK() of the rows being emitted: the watermark that fired them, or the current one. */
  private emitWm: number | null = null;

  private resultRow(
    key: StateKey,
    acc: GroupAcc,
    start: number,
    end: number,
    final = true,
    version = 1,
  ): Row {
    const row: Row = this.codec.decode(key);
    const values = this.aggs.values(acc);
    for (let i = 0; i < values.length; i++) row.push(values[i]);
    row.push(start, end, this.clock.toInstant(end) - 1);
    for (const m of this.meta)
      row[m.column] = m.kind === "final" ? final : m.kind === "version" ? version : this.emitWm;
    return row;
  }
}

// Version 2: DISTINCT aggregates over one column share one map of distinct values in the accumulators.
// Version 3: over an insert-only input that map keeps a bit set of members per value, not counts.
registerOperator(
  "window-aggregate",
  (node, info) => {
    const retractable = (info.inputModes[0]?.kind ?? "retract") !== "insert-only";
    return node.attachedWindow === undefined
      ? new WindowAggregateOperator(node, retractable)
      : new WindowAttachedAggregateOperator(node, retractable);
  },
  { stateVersion: 3 },
);
