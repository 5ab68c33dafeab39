import { E, type TemporalJoinNode } from "@weir/planner";
import { describe, expect, it } from "vitest";
import { mulberry32 as rng } from "../../../../test/support/random.js";
import { formatChange, Op, type Row } from "../../src/changelog.js";
import { TemporalJoinOperator } from "../../src/operators/temporal-join.js";
import {
  base,
  data,
  fields,
  inserts,
  procTime,
  run,
  runWithRestarts,
  type Step,
  sorted,
  T,
  wm,
} from "./time-driver.js";

/** Left rows [k, lt, v], right (versioned) rows [k, rt, w]; output [k, lt, v, k, rt, w]. */
function node(joinType: "inner" | "left", residual = false): TemporalJoinNode {
  return {
    ...base(fields(T.int, T.rowtime, T.int, T.int, T.rowtime, T.int), [0, 1]),
    kind: "temporal-join",
    joinType,
    leftKeys: [0],
    rightKeys: [0],
    leftTimeColumn: 1,
    rightTimeColumn: 1,
    condition: residual ? E.call("<>", [E.input(2, T.int), E.input(5, T.int)], T.bool) : null,
  };
}

/** Per key of the versioned side's state (a map table), the times of its versions. */
function versionTimes(table: unknown): number[][] {
  const entries = (table as { entries: [unknown, { $m: [number, unknown][] }][] }).entries;
  return entries.map(([, m]) => m.$m.map(([t]) => t));
}

const make = (n: TemporalJoinNode) => () => new TemporalJoinOperator(n);

/** The batch answer: each left row with the latest right change at or before its time. */
function batchJoin(n: TemporalJoinNode, left: Row[], right: [Op, Row][]): string[] {
  const out: string[] = [];
  for (const l of left) {
    let version: [Op, Row] | undefined;
    for (const [op, r] of right) {
      if (op === Op.UPDATE_BEFORE || r[0] !== l[0] || l[0] === null) continue;
      if ((r[1] as number) > (l[1] as number)) continue;
      if (version === undefined || (r[1] as number) >= (version[1][1] as number)) version = [op, r];
    }
    const ok =
      version !== undefined && version[0] !== Op.DELETE && (n.condition === null || l[2] !== version[1][2]);
    if (ok) out.push(formatChange(Op.INSERT, [...l, ...version![1]]));
    else if (n.joinType === "left") out.push(formatChange(Op.INSERT, [...l, null, null, null]));
  }
  return out.sort();
}

/** On-time rows on both sides (time > the watermark); the right side inserts, updates and deletes. */
function randomInput(seed: number, count: number) {
  const rand = rng(seed);
  const left: Row[] = [];
  const right: [Op, Row][] = [];
  const steps: Step[] = [];
  let watermark = 0;
  let maxTime = 0;
  for (let i = 0; i < count; i++) {
    const time = watermark + 1 + Math.floor(rand() * 12);
    const key = rand() < 0.08 ? null : Math.floor(rand() * 3);
    if (rand() < 0.5) {
      const row: Row = [key, time, Math.floor(rand() * 3)];
      left.push(row);
      steps.push(inserts([row], 0));
    } else {
      const p = rand();
      const op = p < 0.15 ? Op.DELETE : p < 0.3 ? Op.UPDATE_BEFORE : p < 0.6 ? Op.UPDATE_AFTER : Op.INSERT;
      const row: Row = [key, time, Math.floor(rand() * 3)];
      right.push([op, row]);
      steps.push(data([[op, row]], 1));
    }
    maxTime = Math.max(maxTime, time);
    if (rand() < 0.3 && maxTime - 8 > watermark) {
      watermark = maxTime - Math.floor(rand() * 8);
      steps.push(wm(watermark));
    }
  }
  steps.push(wm(Number.POSITIVE_INFINITY));
  return { left, right, steps };
}

describe("temporal join: differential against the batch join", () => {
  for (const kind of ["inner", "left"] as const) {
    for (const residual of [false, true]) {
      it(`${kind} join${residual ? " with a residual condition" : ""}`, () => {
        for (const seed of [1, 2, 3, 4]) {
          const n = node(kind, residual);
          const { left, right, steps } = randomInput(seed * 17 + (residual ? 5 : 0), 90);
          const res = run(make(n), n, steps);
          expect(sorted(res.lines)).toEqual(batchJoin(n, left, right));
          // Nothing waits after the final watermark; one version per key is left.
          const snap = res.state.snapshot().tables;
          expect(snap.left).toEqual({ kind: "map", entries: [] });
          for (const times of versionTimes(snap.right)) expect(times).toHaveLength(1);
        }
      });
    }
  }

  it("a snapshot and restore at any step gives the same output", () => {
    const n = node("left", true);
    runWithRestarts(make(n), n, randomInput(77, 40).steps);
  });
});

describe("temporal join: semantics", () => {
  it("emits a left row only when the watermark passes its time, with the version valid then", () => {
    const n = node("inner");
    const res = run(make(n), n, [
      inserts([[1, 10, 0]], 1),
      inserts([[1, 15, 7]], 0),
      wm(14),
      data([[Op.UPDATE_AFTER, [1, 14, 1]]], 1),
      wm(15),
    ]);
    expect(res.emittedAfterWatermark).toEqual([0]);
    expect(res.lines).toEqual(["+I 1 15 7 1 14 1"]);
  });

  it("a delete ends the version from its time on; -U is ignored", () => {
    const n = node("left");
    const res = run(make(n), n, [
      inserts([[1, 10, 0]], 1),
      data(
        [
          [Op.UPDATE_BEFORE, [1, 10, 0]],
          [Op.DELETE, [1, 20, 0]],
        ],
        1,
      ),
      inserts(
        [
          [1, 15, 5],
          [1, 20, 6],
          [1, 9, 7],
        ],
        0,
      ),
      wm(Number.POSITIVE_INFINITY),
    ]);
    expect(res.lines).toEqual(["+I 1 15 5 1 10 0", "+I 1 20 6 null null null", "+I 1 9 7 null null null"]);
  });

  it("drops the versions older than the latest one at or before the watermark", () => {
    const n = node("inner");
    const res = run(make(n), n, [
      inserts(
        [
          [1, 10, 0],
          [1, 20, 1],
          [1, 30, 2],
          [1, 40, 3],
        ],
        1,
      ),
      wm(35),
    ]);
    expect(versionTimes(res.state.snapshot().tables.right)).toEqual([[30, 40]]);
  });

  it("a left row behind the watermark is not dropped (as in Flink): it joins at the next watermark", () => {
    const n = node("left");
    const res = run(make(n), n, [
      inserts([[1, 10, 0]], 1),
      inserts([[1, 30, 1]], 1),
      wm(35),
      // Late: the version at 10 is gone (the one at 30 is the latest at or before 35).
      inserts(
        [
          [1, 12, 5],
          [1, 31, 6],
        ],
        0,
      ),
      wm(36),
    ]);
    expect(res.lines).toEqual(["+I 1 12 5 null null null", "+I 1 31 6 1 30 1"]);
    expect(res.metrics.lateRecordsDropped).toBe(0);
  });

  it("keeps the left row's change kind", () => {
    const n = node("inner");
    const res = run(make(n), n, [
      inserts([[1, 1, 0]], 1),
      data(
        [
          [Op.INSERT, [1, 5, 1]],
          [Op.UPDATE_BEFORE, [1, 5, 1]],
          [Op.UPDATE_AFTER, [1, 5, 2]],
          [Op.DELETE, [1, 5, 2]],
        ],
        0,
      ),
      wm(5),
    ]);
    expect(res.lines).toEqual(["+I 1 5 1 1 1 0", "-U 1 5 1 1 1 0", "+U 1 5 2 1 1 0", "-D 1 5 2 1 1 0"]);
  });

  it("'table.exec.state.ttl' clears a key idle for 1.5 times the TTL, waiting left rows included", () => {
    const n = node("left");
    const settings = { "table.exec.state.ttl": "10 ms" };
    const res = run(
      make(n),
      n,
      [
        inserts([[1, 10, 0]], 1),
        inserts([[2, 50, 0]], 0),
        procTime(14),
        procTime(16),
        wm(20),
        inserts([[1, 21, 1]], 0),
        wm(30),
        wm(60),
      ],
      settings,
    );
    // Key 1's version (written at time 0) and key 2's left row are gone at 15.
    expect(res.lines).toEqual(["+I 1 21 1 null null null"]);
  });
});
