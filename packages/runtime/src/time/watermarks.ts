import type { IdleMessage, WatermarkMessage } from "../changelog.js";
import { Message } from "../changelog.js";
import { decodeNumber, type EncodedNumber, encodeNumber } from "../state/codec.js";

/** What a watermark component tells downstream: a new watermark, or that it has gone idle. */
export type WatermarkEvent = WatermarkMessage | IdleMessage;

/** The watermark before any has been seen (Flink's `Long.MIN_VALUE`). */
export const NO_WATERMARK = Number.NEGATIVE_INFINITY;

/** A processing-time clock in epoch milliseconds; injectable for tests. */
export type Clock = () => number;

export interface WatermarkTrackerOptions {
  /** Processing-time ms without data after which a split is idle; 0 or absent: never idle. */
  readonly idleTimeoutMs?: number;
  /**
   * `'scan.watermark.idle-advance'`: once every split has been without data for this long, the
   * watermark advances with processing time (see {@link WatermarkTracker}); 0 or absent: never.
   */
  readonly idleAdvanceMs?: number;
  readonly clock?: Clock;
}

/**
 * A {@link WatermarkTracker}'s checkpointed state, as JSON: the watermark it emitted last and each
 * split's (±∞ tagged, see `encodeNumber`).
 */
export interface WatermarkTrackerSnapshot {
  readonly emitted: EncodedNumber;
  readonly splits: readonly (readonly [string | number, EncodedNumber])[];
}

/**
 * What a source's tracker and an operator's merger have in common: from the minimum over their
 * inputs that are not idle, what to tell downstream. The watermark emitted never goes back.
 */
abstract class WatermarkReporter {
  protected emitted = NO_WATERMARK;
  protected idleReported = false;

  /**
   * The event for `min`, the minimum over the `active` inputs that are not idle: `idle` once when
   * none is active, the watermark when it advanced, the last one again when the inputs are back
   * from idleness (downstream counts them active again); null when nothing changed.
   */
  protected report(min: number, active: number): WatermarkEvent | null {
    if (active === 0) {
      if (this.idleReported) return null;
      this.idleReported = true;
      return Message.idle();
    }
    if (min > this.emitted) {
      this.emitted = min;
      this.idleReported = false;
      return Message.watermark(min);
    }
    if (this.idleReported) {
      this.idleReported = false;
      return Message.watermark(this.emitted);
    }
    return null;
  }
}

export interface SplitState {
  watermark: number;
  lastActivity: number;
  idle: boolean;
}

/**
 * A source's watermark over its splits (partitions). The caller evaluates the table's
 * `WATERMARK FOR` expression per row and passes the result as the split's watermark candidate;
 * the tracker keeps each split's maximum and combines them:
 *
 * - the combined watermark is the minimum over the active splits;
 * - a split without data for `idleTimeoutMs` of processing time is idle and holds nothing back;
 *   it is active again from its next row;
 * - when every split is idle the tracker reports `idle` (once);
 * - emitted watermarks strictly increase: a watermark is reported only when it advances, so a
 *   split that comes back from idleness behind the others never moves the watermark backwards.
 *   Coming back from an all-idle state re-announces the current watermark (even if unchanged) so
 *   downstream counts this input as active again.
 * - quiet streams (`idleAdvanceMs` > 0): once no split has had a row for `idleAdvanceMs` (Q, the
 *   time since the last row of any split), the watermark is
 *   `max(current, M + (now − last row − idleAdvanceMs))`, where M is the largest watermark
 *   candidate of any split (the latest event time seen minus the declared delay): event time
 *   is assumed to go on at the pace of processing time from M, counted from the moment the
 *   source became quiet, so windows close without new rows. It never moves backwards; a row
 *   arriving later ends the quiet period (the source watermark waits until its rows pass the
 *   advanced watermark), and rows at or before the advanced watermark are late downstream. A
 *   quiet source that advances counts as active (it never reports `idle` from then on); a
 *   source that never had a row does not advance.
 */
export class WatermarkTracker extends WatermarkReporter {
  private readonly splits = new Map<string | number, SplitState>();
  /** `splits`' values, for `poll` (which runs after every row that advances a split). */
  private states: SplitState[] = [];
  private readonly idleTimeoutMs: number;
  private readonly idleAdvanceMs: number;
  private readonly clock: Clock;

  constructor(options: WatermarkTrackerOptions = {}) {
    super();
    this.idleTimeoutMs = options.idleTimeoutMs ?? 0;
    this.idleAdvanceMs = options.idleAdvanceMs ?? 0;
    this.clock = options.clock ?? Date.now;
  }

  /**
   * Every split's watermark candidate maximum, last activity (processing time of its last row)
   * and idleness, for metrics and alarms: a read-only view, not a snapshot.
   */
  splitStates(): IterableIterator<[string | number, Readonly<SplitState>]> {
    return this.splits.entries();
  }

  /** The last watermark reported (`-Infinity` before the first). */
  get currentWatermark(): number {
    return this.emitted;
  }

  /** Registers a split before its first row: until it gets data or goes idle it holds the watermark. */
  addSplit(split: string | number): void {
    if (!this.splits.has(split)) {
      this.splits.set(split, { watermark: NO_WATERMARK, lastActivity: this.clock(), idle: false });
      this.states = [...this.splits.values()];
    }
  }

  /** A split that has finished no longer holds the watermark back. */
  removeSplit(split: string | number): void {
    if (this.splits.delete(split)) this.states = [...this.splits.values()];
  }

  /** Records a row (or rows) of `split` and its watermark candidate, at processing time `now`. */
  onRecord(split: string | number, candidate: number, now: number = this.clock()): void {
    const s = this.splits.get(split);
    if (s === undefined) {
      this.splits.set(split, { watermark: candidate, lastActivity: now, idle: false });
      this.states = [...this.splits.values()];
      return;
    }
    if (candidate > s.watermark) s.watermark = candidate;
    s.lastActivity = now;
    s.idle = false;
  }

  /**
   * Re-evaluates idleness against the clock and returns what to emit, or `null` when nothing
   * changed. Called periodically (Flink's auto-watermark interval) and after batches; `now` is
   * the processing time (the clock's, unless the caller read it already).
   */
  poll(now: number = this.clock()): WatermarkEvent | null {
    if (this.idleAdvanceMs > 0) {
      const quiet = this.quietWatermark(now);
      if (quiet !== null) return this.report(quiet, 1);
    }
    let min = Number.POSITIVE_INFINITY;
    let active = 0;
    const states = this.states;
    for (let i = 0; i < states.length; i++) {
      const s = states[i];
      if (!s.idle && this.idleTimeoutMs > 0 && now - s.lastActivity >= this.idleTimeoutMs) s.idle = true;
      if (s.idle) continue;
      active++;
      if (s.watermark < min) min = s.watermark;
    }
    if (active === 0 && this.splits.size === 0) return null;
    return this.report(min, active);
  }

  /**
   * The watermark of a quiet source (every split without data for `idleAdvanceMs`), or null when
   * some split had a row more recently, or no split ever had one.
   */
  private quietWatermark(now: number): number | null {
    if (this.splits.size === 0) return null;
    let lastRow = Number.NEGATIVE_INFINITY;
    let latest = NO_WATERMARK;
    for (const s of this.splits.values()) {
      if (s.lastActivity > lastRow) lastRow = s.lastActivity;
      if (s.watermark > latest) latest = s.watermark;
    }
    const quietFor = now - lastRow - this.idleAdvanceMs;
    if (quietFor < 0 || latest === NO_WATERMARK) return null;
    return latest + quietFor;
  }

  /**
   * Per-split watermarks, for a checkpoint, as JSON (±∞ encoded). Idleness is processing-time
   * state and is not kept: after a restore every split is active until it times out again.
   */
  snapshot(): WatermarkTrackerSnapshot {
    return {
      emitted: encodeNumber(this.emitted),
      splits: [...this.splits].map(([id, s]) => [id, encodeNumber(s.watermark)] as const),
    };
  }

  restore(snapshot: WatermarkTrackerSnapshot): void {
    this.splits.clear();
    const now = this.clock();
    for (const [id, wm] of snapshot.splits)
      this.splits.set(id, { watermark: checkpointedNumber(wm), lastActivity: now, idle: false });
    this.states = [...this.splits.values()];
    this.emitted = checkpointedNumber(snapshot.emitted);
    this.idleReported = false;
  }
}

/**
 * A number of a tracker snapshot. Checkpoints written before the snapshot was typed encoded a
 * source's watermarks twice, which tags an infinite watermark once more: `{"$o": {"$n": "Infinity"}}`.
 */
function checkpointedNumber(j: EncodedNumber): number {
  if (typeof j === "object" && j !== null && "$o" in j)
    return decodeNumber((j as unknown as { $o: EncodedNumber }).$o);
  return decodeNumber(j);
}

/**
 * The watermark of an operator with several inputs: the minimum over the inputs that are not
 * idle; an input that ended counts as +∞. Only advances are reported; when every input is idle
 * the merger reports `idle` once, and the first watermark after that is reported even when it does
 * not advance (so downstream learns the operator is active again).
 */
export class InputWatermarkMerger extends WatermarkReporter {
  private readonly watermarks: number[];
  private readonly idle: boolean[];

  constructor(readonly inputCount: number) {
    super();
    if (inputCount < 1) throw new Error("InputWatermarkMerger needs at least one input");
    this.watermarks = new Array(inputCount).fill(NO_WATERMARK);
    this.idle = new Array(inputCount).fill(false);
  }

  get currentWatermark(): number {
    return this.emitted;
  }

  /** A watermark on `input`; it also marks the input active. A lower watermark than before is ignored. */
  onWatermark(input: number, timestamp: number): WatermarkEvent | null {
    if (timestamp > this.watermarks[input]) this.watermarks[input] = timestamp;
    this.idle[input] = false;
    return this.update();
  }

  onIdle(input: number): WatermarkEvent | null {
    this.idle[input] = true;
    return this.update();
  }

  /** Data on an idle input makes it active again (it then holds the watermark at its last value). */
  onData(input: number): WatermarkEvent | null {
    if (!this.idle[input]) return null;
    this.idle[input] = false;
    return this.update();
  }

  onEnd(input: number): WatermarkEvent | null {
    return this.onWatermark(input, Number.POSITIVE_INFINITY);
  }

  private update(): WatermarkEvent | null {
    let min = Number.POSITIVE_INFINITY;
    let active = 0;
    for (let i = 0; i < this.inputCount; i++) {
      if (this.idle[i]) continue;
      active++;
      if (this.watermarks[i] < min) min = this.watermarks[i];
    }
    return this.report(min, active);
  }
}
