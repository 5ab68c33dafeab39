import { E, type IntervalJoinNode } from "@weir/planner";
import { describe, expect, it } from "vitest";
import { mulberry32 as rng } from "../../../../test/support/random.js";
import { formatChange, Op, type Row } from "../../src/changelog.js";
import { IntervalJoinOperator } from "../../src/operators/interval-join.js";
import { base, fields, inserts, run, runWithRestarts, type Step, sorted, T, wm } from "./time-driver.js";

type Kind = IntervalJoinNode["joinType"];

/** Left rows [k, lt, v], right rows [k, rt, w]; output [k, lt, v, k, rt, w]. */
function node(joinType: Kind, lowerBound: number, upperBound: number, residual = false): IntervalJoinNode {
  return {
    ...base(fields(T.int, T.rowtime, T.int, T.int, T.rowtime, T.int), [0, 1]),
    kind: "interval-join",
    joinType,
    leftKeys: [0],
    rightKeys: [0],
    leftTimeColumn: 1,
    rightTimeColumn: 1,
    lowerBound,
    upperBound,
    condition: residual ? E.call("<>", [E.input(2, T.int), E.input(5, T.int)], T.bool) : null,
  };
}

const make = (n: IntervalJoinNode) => () => new IntervalJoinOperator(n);

function batchJoin(n: IntervalJoinNode, left: Row[], right: Row[]): string[] {
  const out: Row[] = [];
  const ok = (l: Row, r: Row) =>
    l[0] !== null &&
    l[0] === r[0] &&
    (l[1] as number) >= (r[1] as number) + n.lowerBound &&
    (l[1] as number) <= (r[1] as number) + n.upperBound &&
    (n.condition === null || l[2] !== r[2]);
  const rightMatched = right.map(() => false);
  for (const l of left) {
    let any = false;
    right.forEach((r, j) => {
      if (ok(l, r)) {
        any = true;
        rightMatched[j] = true;
        out.push([...l, ...r]);
      }
    });
    if (!any && (n.joinType === "left" || n.joinType === "full")) out.push([...l, null, null, null]);
  }
  if (n.joinType === "right" || n.joinType === "full") {
    right.forEach((r, j) => {
      if (!rightMatched[j]) out.push([null, null, null, ...r]);
    });
  }
  return out.map((r) => formatChange(Op.INSERT, r)).sort();
}

/** On-time rows (time > the watermark) with a watermark trailing the max time by up to 8 ms. */
function randomInput(seed: number, count: number) {
  const rand = rng(seed);
  const left: Row[] = [];
  const right: Row[] = [];
  const steps: Step[] = [];
  let watermark = 0;
  let maxTime = 0;
  for (let i = 0; i < count; i++) {
    const side = rand() < 0.5 ? 0 : 1;
    const time = watermark + 1 + Math.floor(rand() * 12);
    const row: Row = [rand() < 0.1 ? null : Math.floor(rand() * 3), time, Math.floor(rand() * 3)];
    (side === 0 ? left : right).push(row);
    steps.push(inserts([row], side));
    maxTime = Math.max(maxTime, time);
    if (rand() < 0.3 && maxTime - 8 > watermark) {
      watermark = maxTime - Math.floor(rand() * 8);
      steps.push(wm(watermark));
    }
  }
  steps.push(wm(Number.POSITIVE_INFINITY));
  return { left, right, steps };
}

const BOUNDS: [number, number][] = [
  [-5, 5],
  [0, 10],
  [-10, -3],
  [2, 4],
];

describe("interval join: differential against the batch join", () => {
  for (const kind of ["inner", "left", "right", "full"] as const) {
    for (const [lo, hi] of BOUNDS) {
      it(`${kind} join, l.t between r.t + ${lo} and r.t + ${hi}`, () => {
        for (const seed of [1, 2, 3]) {
          for (const residual of [false, true]) {
            const n = node(kind, lo, hi, residual);
            const { left, right, steps } = randomInput(seed * 31 + lo * 7 + hi, 80);
            const res = run(make(n), n, steps);
            expect(sorted(res.lines)).toEqual(batchJoin(n, left, right));
            // Every emitted row is after the watermark forwarded before it, by both its times.
            res.changes.forEach(([, row], i) => {
              const w = res.emittedAfterWatermark[i];
              if (w < 0) return;
              for (const t of [row[1], row[4]])
                if (t !== null) expect(t as number).toBeGreaterThan(res.forwarded[w]);
            });
            expect(res.state.snapshot().tables.left).toEqual({ kind: "time", buckets: [] });
          }
        }
      });
    }
  }

  it("a snapshot and restore at any step gives the same output", () => {
    const n = node("full", -4, 6, true);
    runWithRestarts(make(n), n, randomInput(99, 30).steps);
  });
});

describe("interval join: state cleanup and outer rows", () => {
  it("pads an unmatched left row when the watermark makes it unreachable, and drops its state", () => {
    const n = node("left", -5, 5);
    const res = run(make(n), n, [inserts([[1, 100, 0]], 0), wm(103), wm(104), wm(105), wm(106)]);
    // The left row at 100 can match right rows up to 105; after watermark 105 nothing can reach it.
    expect(res.lines).toEqual(["+I 1 100 0 null null null"]);
    expect(res.emittedAfterWatermark).toEqual([1]);
    expect(res.forwarded).toEqual([98, 99, 100, 101]);
    expect(res.state.snapshot().tables.left).toEqual({ kind: "time", buckets: [] });
  });

  it("keeps right rows until the watermark passes r.t + upper, and joins them with later left rows", () => {
    const n = node("inner", 0, 10);
    const res = run(make(n), n, [
      inserts([[1, 100, 0]], 1),
      wm(109),
      inserts([[1, 110, 1]], 0),
      wm(110),
      inserts([[1, 111, 2]], 0),
    ]);
    expect(res.lines).toEqual(["+I 1 110 1 1 100 0"]);
    expect(res.state.snapshot().tables.right).toEqual({ kind: "time", buckets: [] });
  });

  it("a late row still joins buffered rows and, unmatched on an outer side, is padded at once", () => {
    const n = node("full", -2, 2);
    const res = run(make(n), n, [
      inserts([[1, 50, 0]], 1),
      wm(49),
      inserts(
        [
          [1, 48, 1],
          [2, 10, 2],
        ],
        0,
      ),
    ]);
    expect(res.lines).toEqual(["+I 1 48 1 1 50 0", "+I 2 10 2 null null null"]);
  });
});
