import { Op } from "@weir/runtime";

interface Slot {
  cells: readonly string[];
  live: boolean;
}

/**
 * The `table` result mode: a changelog applied to a multiset of rows, kept in arrival order.
 *
 * Rows are compared by their displayed cells (two rows that print the same are the same to the
 * reader). `+I` appends; `-U` / `-D` remove the newest equal row; a `+U` right after a `-U` takes
 * the place of the row it replaces, so an updated row stays where the reader saw it; any other
 * `+U` appends. A retraction of a row that is not there is counted in {@link unmatched} and
 * otherwise ignored. When more than `maxRows` rows are live, the oldest are dropped (Flink's
 * `sql-client.execution.max-table-result.rows`).
 */
export class TableMaterializer {
  private slots: Slot[] = [];
  private readonly index = new Map<string, Slot[]>();
  private live = 0;
  private hole: Slot | null = null;
  /** Retractions that matched no row. */
  unmatched = 0;
  /** Changes applied so far. */
  changes = 0;

  constructor(private readonly maxRows = Number.POSITIVE_INFINITY) {}

  get size(): number {
    return this.live;
  }

  apply(op: Op, cells: readonly string[]): void {
    this.changes++;
    const key = cells.join("\u0000");
    if (op === Op.UPDATE_BEFORE || op === Op.DELETE) {
      this.hole = null;
      const same = this.index.get(key);
      const slot = same?.pop();
      if (!slot) {
        this.unmatched++;
        return;
      }
      if (same!.length === 0) this.index.delete(key);
      slot.live = false;
      this.live--;
      if (op === Op.UPDATE_BEFORE) this.hole = slot;
      this.compact();
      return;
    }
    let slot: Slot;
    if (op === Op.UPDATE_AFTER && this.hole !== null && !this.hole.live) {
      slot = this.hole;
      slot.cells = cells;
      slot.live = true;
    } else {
      slot = { cells, live: true };
      this.slots.push(slot);
    }
    this.hole = null;
    const same = this.index.get(key);
    if (same) same.push(slot);
    else this.index.set(key, [slot]);
    this.live++;
    if (this.live > this.maxRows) this.evictOldest();
  }

  /** The live rows, in display order. */
  rows(): (readonly string[])[] {
    const out: (readonly string[])[] = [];
    for (const s of this.slots) if (s.live) out.push(s.cells);
    return out;
  }

  private evictOldest(): void {
    const oldest = this.slots.find((s) => s.live);
    if (!oldest) return;
    const key = oldest.cells.join("\u0000");
    const same = this.index.get(key)!;
    same.splice(same.indexOf(oldest), 1);
    if (same.length === 0) this.index.delete(key);
    oldest.live = false;
    this.live--;
    this.compact();
  }

  /** Drops dead slots once they outnumber the live ones (the pending hole is kept). */
  private compact(): void {
    if (this.slots.length - this.live <= Math.max(64, this.live)) return;
    this.slots = this.slots.filter((s) => s.live || s === this.hole);
  }
}
