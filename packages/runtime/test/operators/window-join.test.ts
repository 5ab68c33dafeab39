import { E, type JoinType, type WindowJoinNode } from "@weir/planner";
import { describe, expect, it } from "vitest";
import { mulberry32 as rng } from "../../../../test/support/random.js";
import { formatChange, Op, type Row } from "../../src/changelog.js";
import { WindowJoinOperator } from "../../src/operators/window-join.js";
import { base, fields, inserts, run, runWithRestarts, type Step, sorted, T, wm } from "./time-driver.js";

const TYPES: JoinType[] = ["inner", "left", "right", "full", "semi", "anti"];

/** Left and right rows: window_start, window_end, k, v; the residual condition is `l.v <> r.v`. */
function node(joinType: JoinType): WindowJoinNode {
  const side = [T.ts, T.ts, T.int, T.int];
  const semiAnti = joinType === "semi" || joinType === "anti";
  return {
    ...base(fields(...side, ...(semiAnti ? [] : side)), [0, 1]),
    kind: "window-join",
    joinType,
    leftKeys: [2],
    rightKeys: [2],
    leftWindow: { start: 0, end: 1 },
    rightWindow: { start: 0, end: 1 },
    condition: E.call("<>", [E.input(3, T.int), E.input(7, T.int)], T.bool),
  };
}

function batchJoin(type: JoinType, left: Row[], right: Row[]): string[] {
  const ok = (l: Row, r: Row) => l[1] === r[1] && l[2] !== null && l[2] === r[2] && l[3] !== r[3];
  const out: Row[] = [];
  const matchedR = right.map(() => false);
  for (const l of left) {
    let any = false;
    right.forEach((r, j) => {
      if (!ok(l, r)) return;
      any = true;
      matchedR[j] = true;
      if (type !== "semi" && type !== "anti") out.push([...l, ...r]);
    });
    if ((type === "semi" && any) || (type === "anti" && !any)) out.push(l);
    if ((type === "left" || type === "full") && !any) out.push([...l, null, null, null, null]);
  }
  if (type === "right" || type === "full") {
    right.forEach((r, j) => {
      if (!matchedR[j]) out.push([null, null, null, null, ...r]);
    });
  }
  return out.map((r) => formatChange(Op.INSERT, r)).sort();
}

/** Rows in tumbling windows of 10 that have not fired; the watermark advances now and then. */
function randomInput(seed: number, count: number) {
  const rand = rng(seed);
  const left: Row[] = [];
  const right: Row[] = [];
  const steps: Step[] = [];
  let watermark = -1;
  for (let i = 0; i < count; i++) {
    const firstOpen = Math.floor((watermark + 1) / 10) * 10 + 10;
    const end = firstOpen + 10 * Math.floor(rand() * 3);
    const row: Row = [end - 10, end, rand() < 0.15 ? null : Math.floor(rand() * 3), Math.floor(rand() * 3)];
    const side = rand() < 0.5 ? 0 : 1;
    (side === 0 ? left : right).push(row);
    steps.push(inserts([row], side));
    if (rand() < 0.2) {
      watermark += 1 + Math.floor(rand() * 10);
      steps.push(wm(watermark));
    }
  }
  steps.push(wm(Number.POSITIVE_INFINITY));
  return { left, right, steps };
}

describe("window join", () => {
  it.each(TYPES)("%s: equals the batch join per window on random input", (type) => {
    const n = node(type);
    for (const seed of [1, 2, 3, 4]) {
      const { left, right, steps } = randomInput(seed * 101 + TYPES.indexOf(type), 60);
      const res = run(() => new WindowJoinOperator(n), n, steps);
      expect(sorted(res.lines)).toEqual(batchJoin(type, left, right));
      expect(res.metrics.lateRecordsDropped).toBe(0);
    }
  });

  it.each(TYPES)("%s: a snapshot and restore at any step gives the same output", (type) => {
    const n = node(type);
    runWithRestarts(() => new WindowJoinOperator(n), n, randomInput(7, 20).steps);
  });

  it("emits when the window fires, in window order, and drops late rows", () => {
    const n = node("full");
    const res = run(() => new WindowJoinOperator(n), n, [
      inserts(
        [
          [0, 10, 1, 1],
          [10, 20, 2, 1],
        ],
        0,
      ),
      inserts(
        [
          [0, 10, 1, 2],
          [10, 20, 2, 1],
        ],
        1,
      ),
      wm(8),
      wm(9),
      inserts([[0, 10, 1, 3]], 1),
      wm(19),
    ]);
    expect(res.lines).toEqual([
      "+I 0 10 1 1 0 10 1 2",
      "+I 10 20 2 1 null null null null",
      "+I null null null null 10 20 2 1",
    ]);
    expect(res.metrics.lateRecordsDropped).toBe(1);
  });
});
