import type { StateBackend } from "../state/api.js";
import type { StateKey } from "../state/keys.js";
import { assignSession, type SessionWindow } from "../windows/session.js";

/**
 * Session windows per key with one value per session (an accumulator, or buffered rows), all in
 * state: the sessions of each key (ascending, disjoint), the value of each session under (key,
 * session start), and an index of session ends so that a watermark finds the sessions that fire.
 *
 * Invariants: a key's sessions never touch or overlap (merging keeps it so); every live session
 * that has not fired has exactly one entry in `ends` at (end, key) holding its start; a session
 * fires once, when the watermark reaches `end − 1`, and is dropped with its value right after —
 * or, with an allowed lateness `L` > 0, kept (one entry in `session-expiry` at (end + L, key))
 * until the watermark reaches `end − 1 + L`: late rows until then still join or merge it.
 */
export class SessionStore<V> {
  private readonly sessions;
  private readonly values;
  private readonly ends;
  private readonly expiry;

  constructor(
    state: StateBackend,
    prefix: string,
    readonly gapMs: number,
    private readonly mergeValues: (into: V, from: V) => V,
    /** How long a fired session is kept for late rows (0: dropped when it fires). */
    readonly allowedLatenessMs = 0,
  ) {
    if (!(gapMs > 0)) throw new Error(`SESSION gap must be positive, got ${gapMs} ms`);
    this.sessions = state.value<SessionWindow[]>(`${prefix}sessions`);
    this.values = state.map<number, V>(`${prefix}session-values`);
    this.ends = state.timeIndexed<number>(`${prefix}session-ends`);
    this.expiry = allowedLatenessMs > 0 ? state.timeIndexed<number>(`${prefix}session-expiry`) : null;
  }

  /**
   * Adds a row at `timestamp` to `key`'s sessions, merging the sessions it bridges (and their
   * values). Returns the session that holds the row, or null when that session has already
   * fired at `watermark` and the allowed lateness has passed (the row is late) — state is
   * unchanged then. `onRetire` sees each fired session the row joins or merges, with its value
   * before the row (to retract its result); a returned session with `end − 1 ≤ watermark` has
   * fired already (its result is to be corrected now).
   */
  assign(
    key: StateKey,
    timestamp: number,
    watermark: number,
    create: () => V,
    onRetire?: (window: SessionWindow, value: V) => void,
  ): SessionWindow | null {
    const L = this.allowedLatenessMs;
    const current = this.sessions.get(key) ?? [];
    const { sessions, assignment } = assignSession(current, timestamp, this.gapMs);
    const w = assignment.window;
    if (w.end - 1 + L <= watermark) return null;
    const merged = assignment.merged;
    if (L > 0 && onRetire !== undefined) {
      for (const m of merged) {
        const v = m.end - 1 <= watermark ? this.values.get(key, m.start) : undefined;
        if (v !== undefined) onRetire(m, v);
      }
    }
    if (merged.length === 1 && merged[0] === w) return w;
    if (merged.length === 1 && merged[0].start === w.start) {
      // The row only moved the session's end: its value stays under the same start.
      const m = merged[0];
      this.ends.delete(m.end, key);
      this.expiry?.delete(m.end + L, key);
      if (this.values.get(key, w.start) === undefined) this.values.put(key, w.start, create());
      this.indexEnd(key, w, watermark);
      this.sessions.put(key, sessions);
      return w;
    }
    let value: V | undefined;
    for (const m of merged) {
      const v = this.values.get(key, m.start);
      this.values.delete(key, m.start);
      this.ends.delete(m.end, key);
      this.expiry?.delete(m.end + L, key);
      if (v !== undefined) value = value === undefined ? v : this.mergeValues(value, v);
    }
    this.values.put(key, w.start, value ?? create());
    this.indexEnd(key, w, watermark);
    this.sessions.put(key, sessions);
    return w;
  }

  /** Indexes session `w` of `key` by its end (or, fired already, by the end of its lateness). */
  private indexEnd(key: StateKey, w: SessionWindow, watermark: number): void {
    const L = this.allowedLatenessMs;
    if (this.expiry !== null && w.end - 1 <= watermark) this.expiry.put(w.end + L, key, w.start);
    else this.ends.put(w.end, key, w.start);
  }

  /** The live session of `key` that contains `timestamp`, if any. */
  find(key: StateKey, timestamp: number): SessionWindow | undefined {
    const list = this.sessions.get(key);
    if (list === undefined) return undefined;
    for (const s of list) if (s.start <= timestamp && timestamp < s.end) return s;
    return undefined;
  }

  get(key: StateKey, window: SessionWindow): V | undefined {
    return this.values.get(key, window.start);
  }

  set(key: StateKey, window: SessionWindow, value: V): void {
    this.values.put(key, window.start, value);
  }

  /**
   * Fires every session with `end − 1 ≤ watermark`, by end then by the order the keys' sessions
   * reached that end, and drops it with its value.
   */
  fire(
    watermark: number,
    onFire: (key: StateKey, window: SessionWindow, value: V) => void,
    /** A fired session whose allowed lateness has passed, before it is dropped. */
    onExpire?: (key: StateKey, window: SessionWindow, value: V) => void,
  ): void {
    const expiry = this.expiry;
    const L = this.allowedLatenessMs;
    this.ends.expireUpTo(watermark + 1, (end, entries) => {
      for (const [key, start] of entries) {
        const window = { start, end };
        const value = this.values.get(key, start);
        if (expiry !== null) expiry.put(end + L, key, start);
        else this.drop(key, start);
        if (value !== undefined) onFire(key, window, value);
      }
    });
    expiry?.expireUpTo(watermark + 1, (at, entries) => {
      for (const [key, start] of entries) {
        const value = this.values.get(key, start);
        if (onExpire !== undefined && value !== undefined) onExpire(key, { start, end: at - L }, value);
        this.drop(key, start);
      }
    });
  }

  private drop(key: StateKey, start: number): void {
    this.values.delete(key, start);
    const rest = (this.sessions.get(key) ?? []).filter((s) => s.start !== start);
    if (rest.length === 0) this.sessions.delete(key);
    else this.sessions.put(key, rest);
  }
}
