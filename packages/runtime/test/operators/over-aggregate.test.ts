import type { AggregateCall, OverAggregateNode, OverFrame } from "@weir/planner";
import { describe, expect, it } from "vitest";
import { mulberry32 as rng } from "../../../../test/support/random.js";
import { formatChange, Op, type Row } from "../../src/changelog.js";
import { OverAggregateOperator } from "../../src/operators/over-aggregate.js";
import { base, fields, inserts, run, runWithRestarts, type Step, sorted, T, wm } from "./time-driver.js";

/** Rows: partition, rowtime, v. Aggregates: SUM(v), COUNT(*), MAX(v). */
const AGGS: AggregateCall[] = [
  { fn: "SUM", args: [2], argTypes: [T.int], distinct: false, filterColumn: null, type: T.int, name: "s" },
  { fn: "COUNT", args: [], argTypes: [], distinct: false, filterColumn: null, type: T.bigint, name: "c" },
  { fn: "MAX", args: [2], argTypes: [T.int], distinct: false, filterColumn: null, type: T.int, name: "m" },
];

function node(frame: OverFrame): OverAggregateNode {
  return {
    ...base(fields(T.str, T.rowtime, T.int, T.int, T.bigint, T.int)),
    kind: "over-aggregate",
    partitionKeys: [0],
    timeColumn: 1,
    frame,
    aggregates: AGGS,
  };
}

/** The OVER result of every row, computed from the whole input. */
function brute(frame: OverFrame, rows: Row[]): string[] {
  const out: string[] = [];
  rows.forEach((row, idx) => {
    const peers = rows
      .map((r, i) => [r, i] as const)
      .filter(([r]) => r[0] === row[0])
      .sort(([a, i], [b, j]) => (a[1] as number) - (b[1] as number) || i - j);
    const pos = peers.findIndex(([, i]) => i === idx);
    const ts = row[1] as number;
    let frameRows: Row[];
    if (frame.kind === "rows") {
      const from = frame.preceding === null ? 0 : Math.max(0, pos - frame.preceding);
      frameRows = peers.slice(from, pos + 1).map(([r]) => r);
    } else {
      frameRows = peers
        .map(([r]) => r)
        .filter(
          (r) =>
            (r[1] as number) <= ts && (frame.preceding === null || (r[1] as number) >= ts - frame.preceding),
        );
    }
    const vs = frameRows.map((r) => r[2] as number);
    out.push(formatChange(Op.INSERT, [...row, vs.reduce((a, b) => a + b, 0), vs.length, Math.max(...vs)]));
  });
  return out.sort();
}

function randomInput(seed: number, count: number): { rows: Row[]; steps: Step[] } {
  const rand = rng(seed);
  const rows: Row[] = [];
  const steps: Step[] = [];
  let watermark = 0;
  for (let i = 0; i < count; i++) {
    const row: Row = [
      rand() < 0.5 ? "a" : "b",
      watermark + 1 + Math.floor(rand() * 6),
      Math.floor(rand() * 10),
    ];
    rows.push(row);
    steps.push(inserts([row]));
    if (rand() < 0.3) {
      watermark += Math.floor(rand() * 4);
      steps.push(wm(watermark));
    }
  }
  steps.push(wm(Number.POSITIVE_INFINITY));
  return { rows, steps };
}

const FRAMES: [string, OverFrame][] = [
  ["ROWS UNBOUNDED PRECEDING", { kind: "rows", preceding: null }],
  ["ROWS 2 PRECEDING", { kind: "rows", preceding: 2 }],
  ["RANGE UNBOUNDED PRECEDING", { kind: "range", preceding: null }],
  ["RANGE 3 ms PRECEDING", { kind: "range", preceding: 3 }],
];

describe("OVER aggregation", () => {
  it.each(FRAMES)("%s equals the brute-force result on random input", (_name, frame) => {
    const n = node(frame);
    for (const seed of [1, 2, 3, 4, 5]) {
      const { rows, steps } = randomInput(seed, 50);
      const res = run(() => new OverAggregateOperator(n), n, steps);
      expect(sorted(res.lines)).toEqual(brute(frame, rows));
    }
  });

  it.each(FRAMES)("%s: a snapshot and restore at any step gives the same output", (_name, frame) => {
    const n = node(frame);
    runWithRestarts(() => new OverAggregateOperator(n), n, randomInput(11, 25).steps);
  });

  it("emits rows when the watermark passes them, in timestamp order; RANGE peers share a result; late rows dropped", () => {
    const n = node({ kind: "range", preceding: null });
    const res = run(() => new OverAggregateOperator(n), n, [
      inserts([
        ["a", 5, 1],
        ["a", 3, 2],
        ["a", 5, 4],
      ]),
      wm(4),
      wm(5),
      inserts([["a", 5, 100]]),
      wm(10),
    ]);
    expect(res.lines).toEqual(["+I a 3 2 2 1 2", "+I a 5 1 7 3 4", "+I a 5 4 7 3 4"]);
    expect(res.metrics.lateRecordsDropped).toBe(1);
  });

  it("bounded frames: a row behind the watermark is late only if its partition got that far (Flink's rule)", () => {
    for (const frame of [
      { kind: "rows", preceding: 2 },
      { kind: "range", preceding: 10 },
    ] as const) {
      const n = node(frame);
      const res = run(() => new OverAggregateOperator(n), n, [
        inserts([
          ["a", 20, 1],
          ["b", 5, 1],
        ]),
        wm(30),
        // Partition b has processed only time 5: its row at 8 is taken (at the next watermark);
        // partition a has processed 20: its row at 15 is late.
        inserts([
          ["b", 8, 2],
          ["a", 15, 7],
        ]),
        wm(31),
      ]);
      expect(sorted(res.lines)).toEqual(sorted(["+I a 20 1 1 1 1", "+I b 5 1 1 1 1", "+I b 8 2 3 2 2"]));
      expect(res.metrics.lateRecordsDropped).toBe(1);
    }
  });

  it("unbounded frames: a row behind the watermark is late", () => {
    const n = node({ kind: "rows", preceding: null });
    const res = run(() => new OverAggregateOperator(n), n, [
      inserts([["b", 5, 1]]),
      wm(30),
      inserts([["b", 8, 2]]),
      wm(31),
    ]);
    expect(res.lines).toEqual(["+I b 5 1 1 1 1"]);
    expect(res.metrics.lateRecordsDropped).toBe(1);
  });
});
