import { ConnectorError } from "@weir/runtime";

/** A partition's position in a checkpoint: the next offset to read, and where a bounded read stops. */
export interface SavedPartition {
  readonly topic: string;
  readonly partition: number;
  readonly next: number;
  /** Exclusive end offset of a bounded source, or null. */
  readonly end: number | null;
}

/**
 * What a restore cannot read as the checkpoint expects, per topic-partition: `gap` — offsets
 * `[from, to]` (inclusive) are gone (past retention or deleted); `unknown` — the partition's
 * earliest offset could not be looked up, so a gap can be neither ruled out nor measured.
 */
export type RestoreGap =
  | {
      readonly kind: "gap";
      readonly topic: string;
      readonly partition: number;
      readonly from: number;
      readonly to: number;
      /** The earliest offset still available: where a skipping restore continues. */
      readonly earliest: number;
    }
  | { readonly kind: "unknown"; readonly topic: string; readonly partition: number; readonly reason: string };

/** Per topic, per partition, the earliest available offset (Kafka's log start offset, `low`). */
export type EarliestOffsets = ReadonlyMap<string, ReadonlyMap<number, number> | { readonly error: string }>;

/**
 * Compares each saved next offset with its own partition's earliest available offset, and with
 * nothing else: saved < earliest is a gap `[saved, earliest − 1]` whatever the other partitions
 * say (a maximum or minimum over partitions hides a gap); a partition absent from `earliest` is
 * `unknown`, never "no gap". A bounded partition's gap stops at its end offset, and one already
 * read to its end has none. Results are ordered by topic, then partition.
 */
export function findRestoreGaps(saved: readonly SavedPartition[], earliest: EarliestOffsets): RestoreGap[] {
  const out: RestoreGap[] = [];
  for (const s of saved) {
    if (s.end !== null && s.next >= s.end) continue;
    const topic = earliest.get(s.topic);
    if (topic === undefined || "error" in topic) {
      const reason = topic === undefined ? "the topic's offsets were not looked up" : (topic.error as string);
      out.push({ kind: "unknown", topic: s.topic, partition: s.partition, reason });
      continue;
    }
    const low = (topic as ReadonlyMap<number, number>).get(s.partition);
    if (low === undefined || !Number.isFinite(low) || low < 0) {
      out.push({
        kind: "unknown",
        topic: s.topic,
        partition: s.partition,
        reason: "the broker reported no offsets for this partition",
      });
      continue;
    }
    if (s.next >= low) continue;
    const stop = s.end === null ? low : Math.min(low, s.end);
    out.push({
      kind: "gap",
      topic: s.topic,
      partition: s.partition,
      from: s.next,
      to: stop - 1,
      earliest: low,
    });
  }
  return out.sort((a, b) => (a.topic < b.topic ? -1 : a.topic > b.topic ? 1 : a.partition - b.partition));
}

/** Records lost in a gap. */
export function gapSize(g: Extract<RestoreGap, { kind: "gap" }>): number {
  return g.to - g.from + 1;
}

/** `topic t partition 2: offsets 100..149 (50 records) are gone` — one line per gap. */
export function describeGap(g: RestoreGap): string {
  if (g.kind === "unknown")
    return `topic ${g.topic} partition ${g.partition}: unknown (${g.reason}); a gap cannot be ruled out`;
  const n = gapSize(g);
  return `topic ${g.topic} partition ${g.partition}: offsets ${g.from}..${g.to} (${n} record${n === 1 ? "" : "s"}) are no longer available`;
}

/**
 * The error that refuses a restore over gaps: every (topic, partition, range | unknown), and what
 * the user can do about it.
 */
export function restoreGapError(
  table: string,
  gaps: readonly RestoreGap[],
  skipAllowed: boolean,
): ConnectorError {
  const lines = gaps.map((g) => `  ${describeGap(g)}`).join("\n");
  const hint = [
    "Data past Kafka's retention cannot be brought back, and recreating the checkpoint would re-read data (duplicates).",
  ];
  if (!skipAllowed && gaps.some((g) => g.kind === "gap"))
    hint.push(
      "To continue and accept the loss, set 'scan.restore.gap-policy' = 'skip' on the table (the restore then continues each gapped partition from its earliest available offset and counts the lost records).",
    );
  if (gaps.some((g) => g.kind === "unknown"))
    hint.push(
      "A partition whose offsets cannot be looked up is never skipped: check the broker and the topic, then retry.",
    );
  hint.push("Or restart without --restore, reading from 'scan.startup.mode'.");
  return new ConnectorError(
    `cannot restore: the checkpoint's Kafka offsets point at records that are gone, or that cannot be checked:\n${lines}\n${hint.join(" ")}`,
    "user",
    `table ${table}`,
  );
}
