import type { KeyCodec, Row, StateKey } from "@weir/runtime";
import { Op } from "@weir/runtime";

/**
 * The changes buffered by an upsert sink between two flushes, reduced per primary key in arrival
 * order, so that a flush writes each key at most once per statement and the order between the
 * DELETE and the upsert statement cannot undo a newer change (the batch-ordering bug of Flink's
 * and Kafka Connect's JDBC sinks, where `+I k, -D k, +I k` in one batch lost the row).
 *
 * Without a version column the last change per key wins: `+I`/`+U` is an upsert of that row,
 * `-D`/`-U` a delete (a `-U` is followed by its `+U`, which then wins).
 *
 * With a version column an upsert applies to a stored row only when the stored version is older:
 * `stored IS NULL OR (incoming IS NOT NULL AND stored < incoming)` (NULL is older than every
 * version; an equal version is the same write again), and a delete only when the stored version
 * is not newer than the delete's (`<=`: a retraction carries the version of the row it removes);
 * an upsert of an absent key always inserts, and a delete leaves no tombstone.
 * Applied one by one, any sequence of such changes to a key equals at most one delete (with the
 * greatest delete version) followed by at most one upsert — the pending entry below — so a flush
 * runs the reduced DELETEs first, then the upserts, and gives exactly the result of applying the
 * changes one at a time, whatever the flush boundaries.
 */
export interface PendingKey {
  /** A row carrying the key of the pending delete (the key columns are what matter), or null. */
  deleteRow: Row | null;
  /** The greatest version among the folded deletes (null = older than every version). */
  deleteVersion: unknown;
  /** With a final column: whether a folded delete was final (it may delete a final row). */
  deleteFinal?: boolean;
  /** The row to upsert after the delete, or null. */
  upsert: Row | null;
}

/** What one flush of an upsert sink writes: deletes first, then upserts; each key once per list. */
export interface ReducedChanges {
  readonly deletes: readonly PendingKey[];
  readonly upserts: readonly Row[];
  /** Changes folded into this batch (before reduction). */
  readonly changes: number;
}

/**
 * `a` is older than `b`, NULL being older than everything — NULL itself included, as in the
 * upsert's `stored IS NULL OR …`: a row without a version is replaced by any upsert.
 */
export function versionOlder(a: unknown, b: unknown): boolean {
  if (a === null || a === undefined) return true;
  if (b === null || b === undefined) return false;
  return (a as number) < (b as number);
}

/** `a` is not newer than `b`, NULL being older than everything. */
export function versionNotNewer(a: unknown, b: unknown): boolean {
  if (a === null || a === undefined) return true;
  if (b === null || b === undefined) return false;
  return (a as number) <= (b as number);
}

export class UpsertReducer {
  /**
   * Per key: its pending entry, or — the common case, a key whose only pending change is an
   * upsert with no delete before it — the row itself (`deleteRow` null, `upsert` the row),
   * which spares an object per buffered key.
   */
  private pending = new Map<StateKey, PendingKey | Row>();
  private count = 0;

  constructor(
    private readonly key: KeyCodec,
    /** Position of the version column in the row, or null. */
    private readonly version: number | null,
    /**
     * Position of the final flag, or null: a row with TRUE is never replaced or deleted by a
     * change with FALSE (whatever the versions), on top of the version rule.
     */
    private readonly final: number | null = null,
  ) {}

  /** A change with final flag `incoming` may replace a row whose flag is `stored`. */
  private finalAllows(stored: Row, incoming: Row): boolean {
    const f = this.final;
    return f === null || stored[f] !== true || incoming[f] === true;
  }

  /** Changes added since the last `take`. */
  get changes(): number {
    return this.count;
  }

  add(op: Op, row: Row): void {
    this.count++;
    const k = this.key.encode(row);
    const pending = this.pending;
    const found = pending.get(k);
    const upsert = op === Op.INSERT || op === Op.UPDATE_AFTER;
    const v = this.version;
    if (found === undefined) {
      if (upsert) pending.set(k, row);
      else
        pending.set(k, {
          deleteRow: row,
          deleteVersion: v === null ? null : row[v],
          ...(this.final !== null ? { deleteFinal: row[this.final] === true } : {}),
          upsert: null,
        });
      return;
    }
    if (v === null && upsert) {
      // The last change wins.
      if (Array.isArray(found)) pending.set(k, row);
      else {
        found.deleteRow = null;
        found.upsert = row;
      }
      return;
    }
    let p: PendingKey;
    if (Array.isArray(found)) {
      p = { deleteRow: null, deleteVersion: null, upsert: found };
      pending.set(k, p);
    } else {
      p = found;
    }
    if (v === null) {
      p.deleteRow = row;
      p.upsert = null;
      return;
    }
    const incoming = row[v];
    if (upsert) {
      if (p.upsert === null || (versionOlder(p.upsert[v], incoming) && this.finalAllows(p.upsert, row)))
        p.upsert = row;
      return;
    }
    if (p.upsert !== null && (!versionNotNewer(p.upsert[v], incoming) || !this.finalAllows(p.upsert, row)))
      return;
    p.upsert = null;
    if (p.deleteRow === null || versionNotNewer(p.deleteVersion, incoming)) {
      p.deleteRow = row;
      p.deleteVersion = incoming;
      if (this.final !== null) p.deleteFinal = row[this.final] === true;
    }
  }

  /** The reduced changes so far; the reducer starts empty again. */
  take(): ReducedChanges {
    const deletes: PendingKey[] = [];
    const upserts: Row[] = [];
    for (const p of this.pending.values()) {
      if (Array.isArray(p)) {
        upserts.push(p);
        continue;
      }
      if (p.deleteRow !== null) deletes.push(p);
      if (p.upsert !== null) upserts.push(p.upsert);
    }
    const out = { deletes, upserts, changes: this.count };
    this.pending = new Map();
    this.count = 0;
    return out;
  }
}
