import { ConnectorError } from "@weir/runtime";
import { describe, expect, it } from "vitest";
import {
  type EarliestOffsets,
  findRestoreGaps,
  type RestoreGap,
  restoreGapError,
  type SavedPartition,
} from "../src/kafka/restore-gaps.js";

const saved = (
  topic: string,
  partition: number,
  next: number,
  end: number | null = null,
): SavedPartition => ({
  topic,
  partition,
  next,
  end,
});
const lows = (entries: Record<string, Record<number, number> | string>): EarliestOffsets =>
  new Map(
    Object.entries(entries).map(([t, v]) => [
      t,
      typeof v === "string" ? { error: v } : new Map(Object.entries(v).map(([p, o]) => [Number(p), o])),
    ]),
  );

describe("findRestoreGaps", () => {
  const cases: { name: string; saved: SavedPartition[]; earliest: EarliestOffsets; gaps: RestoreGap[] }[] = [
    {
      name: "no gap: every saved offset is at or past its earliest",
      saved: [saved("t", 0, 10), saved("t", 1, 5)],
      earliest: lows({ t: { 0: 10, 1: 0 } }),
      gaps: [],
    },
    {
      name: "mixed partitions: only the partition behind its own earliest has a gap",
      saved: [saved("t", 0, 100), saved("t", 1, 5), saved("t", 2, 7)],
      earliest: lows({ t: { 0: 0, 1: 50, 2: 7 } }),
      gaps: [{ kind: "gap", topic: "t", partition: 1, from: 5, to: 49, earliest: 50 }],
    },
    {
      // max(saved) = 1000 ≥ max(earliest) = 60 and min(saved) = 5 ≥ min(earliest) = 0: comparing
      // across partitions finds nothing, but partition 2 lost offsets 5..59.
      name: "max-of-offsets trap: per-partition comparison, never aggregated",
      saved: [saved("t", 0, 1000), saved("t", 1, 30), saved("t", 2, 5)],
      earliest: lows({ t: { 0: 0, 1: 0, 2: 60 } }),
      gaps: [{ kind: "gap", topic: "t", partition: 2, from: 5, to: 59, earliest: 60 }],
    },
    {
      name: "a partition the broker did not report is unknown, not gap-free",
      saved: [saved("t", 0, 10), saved("t", 3, 10)],
      earliest: lows({ t: { 0: 0 } }),
      gaps: [
        {
          kind: "unknown",
          topic: "t",
          partition: 3,
          reason: "the broker reported no offsets for this partition",
        },
      ],
    },
    {
      name: "a topic whose lookup failed makes each of its partitions unknown",
      saved: [saved("b", 1, 3), saved("a", 0, 1), saved("b", 0, 3)],
      earliest: lows({ a: { 0: 4 }, b: "cannot fetch its offsets: timeout" }),
      gaps: [
        { kind: "gap", topic: "a", partition: 0, from: 1, to: 3, earliest: 4 },
        { kind: "unknown", topic: "b", partition: 0, reason: "cannot fetch its offsets: timeout" },
        { kind: "unknown", topic: "b", partition: 1, reason: "cannot fetch its offsets: timeout" },
      ],
    },
    {
      name: "a topic not looked up at all is unknown",
      saved: [saved("x", 0, 0)],
      earliest: lows({}),
      gaps: [{ kind: "unknown", topic: "x", partition: 0, reason: "the topic's offsets were not looked up" }],
    },
    {
      name: "bounded: the gap stops at the end offset; a partition read to its end has none",
      saved: [saved("t", 0, 10, 20), saved("t", 1, 20, 20), saved("t", 2, 0, 5)],
      earliest: lows({ t: { 0: 30, 1: 40, 2: 3 } }),
      gaps: [
        { kind: "gap", topic: "t", partition: 0, from: 10, to: 19, earliest: 30 },
        { kind: "gap", topic: "t", partition: 2, from: 0, to: 2, earliest: 3 },
      ],
    },
    {
      name: "a gap of exactly one record",
      saved: [saved("t", 0, 41)],
      earliest: lows({ t: { 0: 42 } }),
      gaps: [{ kind: "gap", topic: "t", partition: 0, from: 41, to: 41, earliest: 42 }],
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      expect(findRestoreGaps(c.saved, c.earliest)).toEqual(c.gaps);
    });
  }
});

describe("restoreGapError", () => {
  it("lists every partition with its range or unknown, and says what to do", () => {
    const gaps = findRestoreGaps(
      [saved("t", 0, 5), saved("t", 1, 0), saved("u", 0, 0)],
      lows({ t: { 0: 10, 1: 0 }, u: "cannot fetch its offsets: broker down" }),
    );
    const e = restoreGapError("orders", gaps, false);
    expect(e).toBeInstanceOf(ConnectorError);
    expect(e.domain).toBe("user");
    expect(e.message).toContain("topic t partition 0: offsets 5..9 (5 records) are no longer available");
    expect(e.message).toContain("topic u partition 0: unknown (cannot fetch its offsets: broker down)");
    expect(e.message).not.toContain("partition 1");
    expect(e.message).toContain("cannot be brought back");
    expect(e.message).toContain("'scan.startup.mode'");
  });

  it("with skip allowed, an unknown partition still explains that it is never skipped", () => {
    const gaps = findRestoreGaps([saved("u", 0, 0)], lows({}));
    expect(restoreGapError("orders", gaps, true).message).toContain("never skipped");
    const gap = findRestoreGaps([saved("t", 0, 0)], lows({ t: { 0: 1 } }));
    expect(restoreGapError("orders", gap, false).message).toContain("'scan.restore.gap-policy' = 'skip'");
  });
});
