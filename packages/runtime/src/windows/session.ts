import type { ValueState } from "../state/api.js";
import type { StateKey } from "../state/keys.js";

/** A session window [start, end): `end` is the last row's time + gap. */
export interface SessionWindow {
  readonly start: number;
  readonly end: number;
}

export interface SessionAssignment {
  /** The session that now holds the row. */
  readonly window: SessionWindow;
  /**
   * The sessions of the key that the row's session absorbed (ascending). Their accumulated state
   * belongs to `window` from now on, and their timers are obsolete. Empty when the row opened a
   * new session; `[window]` when the row fell inside an existing session without changing it.
   */
  readonly merged: readonly SessionWindow[];
}

/**
 * Adds a row at `timestamp` to a key's sessions (ascending, disjoint, not touching). Following
 * Flink, the row's window [ts, ts + gap) merges with every session it intersects or touches
 * (`start ≤ other.end && end ≥ other.start`), so a row can bridge two sessions into one.
 */
export function assignSession(
  sessions: readonly SessionWindow[],
  timestamp: number,
  gapMs: number,
): { sessions: SessionWindow[]; assignment: SessionAssignment } {
  let start = timestamp;
  let end = timestamp + gapMs;
  const merged: SessionWindow[] = [];
  const kept: SessionWindow[] = [];
  let insertAt = -1;
  for (const s of sessions) {
    if (s.start <= end && s.end >= start) {
      merged.push(s);
      if (s.start < start) start = s.start;
      if (s.end > end) end = s.end;
    } else {
      if (insertAt < 0 && s.start > end) insertAt = kept.length;
      kept.push(s);
    }
  }
  const unchanged = merged.length === 1 && merged[0].start === start && merged[0].end === end;
  const window = unchanged ? merged[0] : { start, end };
  kept.splice(insertAt < 0 ? kept.length : insertAt, 0, window);
  return { sessions: kept, assignment: { window, merged } };
}

/**
 * Session windows per key, kept in a {@link ValueState} (so a checkpoint holds them). The
 * operator keeps each session's accumulator under (key, session), merges the accumulators of
 * `merged` into the new session, and fires a session when the watermark reaches `end − 1`.
 */
export class SessionWindows {
  constructor(
    readonly gapMs: number,
    private readonly state: ValueState<SessionWindow[]>,
  ) {
    if (!(gapMs > 0)) throw new Error(`SESSION gap must be positive, got ${gapMs} ms`);
  }

  add(key: StateKey, timestamp: number): SessionAssignment {
    const { sessions, assignment } = assignSession(this.state.get(key) ?? [], timestamp, this.gapMs);
    this.state.put(key, sessions);
    return assignment;
  }

  sessions(key: StateKey): readonly SessionWindow[] {
    return this.state.get(key) ?? [];
  }

  /** Sessions of `key` that have fired at `watermark`, ascending. */
  fired(key: StateKey, watermark: number): SessionWindow[] {
    return this.sessions(key).filter((s) => s.end - 1 <= watermark);
  }

  /** Drops a session (after it fired and its result was emitted). */
  remove(key: StateKey, window: SessionWindow): void {
    const rest = this.sessions(key).filter((s) => s.start !== window.start || s.end !== window.end);
    if (rest.length === 0) this.state.delete(key);
    else this.state.put(key, rest);
  }
}
