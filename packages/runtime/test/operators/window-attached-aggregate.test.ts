import type { AggregateCall, WindowAggregateNode } from "@weir/planner";
import { describe, expect, it } from "vitest";
import { Op, type Row } from "../../src/changelog.js";
import { WindowAttachedAggregateOperator } from "../../src/operators/window-attached-aggregate.js";
import { base, data, fields, inserts, run, runWithRestarts, T, wm } from "./time-driver.js";

/**
 * Input rows as a window aggregate emits them after a calc: [auction, count, window_start,
 * window_end]; the operator groups by window (columns 2, 3) and computes MAX(count), as the
 * second aggregate of Nexmark q5.
 */
const S = 1000;
const MAX_COUNT: AggregateCall = {
  fn: "MAX",
  args: [1],
  argTypes: [T.bigint],
  distinct: false,
  filterColumn: null,
  type: T.bigint,
  name: "maxn",
};

function node(groupKeys: number[] = []): WindowAggregateNode {
  return {
    ...base(fields(...groupKeys.map(() => T.bigint), T.bigint, T.ts, T.ts, T.rowtime)),
    kind: "window-aggregate",
    window: { kind: "hop", size: 10 * S, slide: 2 * S, offset: 0 },
    timeColumn: 3,
    timeKind: "rowtime",
    groupKeys,
    aggregates: [MAX_COUNT],
    attachedWindow: { start: 2, end: 3 },
  };
}

const make = (n: WindowAggregateNode) => () => new WindowAttachedAggregateOperator(n, false);

describe("window-attached window aggregate", () => {
  it("emits one row per window when the watermark passes its end, and frees its state", () => {
    const n = node();
    const steps = [
      inserts([
        [1, 3, 0, 10 * S],
        [2, 5, 0, 10 * S],
        [1, 4, 2 * S, 12 * S],
      ]),
      inserts([[3, 2, 2 * S, 12 * S]]),
      wm(10 * S - 2),
      wm(10 * S - 1),
      inserts([[2, 9, 2 * S, 12 * S]]),
      wm(Number.POSITIVE_INFINITY),
    ];
    const res = runWithRestarts(make(n), n, steps);
    expect(res.lines).toEqual([`+I 5 0 ${10 * S} ${10 * S - 1}`, `+I 9 ${2 * S} ${12 * S} ${12 * S - 1}`]);
    // Nothing at 10 s − 2; the first window fires at 10 s − 1 (after one forwarded watermark), the
    // second at the end (after two).
    expect(res.emittedAfterWatermark).toEqual([0, 1]);
    expect(res.state.snapshot().tables.windows).toEqual({ kind: "time", buckets: [] });
  });

  it("keys by window and group keys; rows of a fired window are late", () => {
    const n = node([0]);
    const res = run(make(n), n, [
      inserts([
        [1, 3, 0, 10 * S],
        [2, 5, 0, 10 * S],
        [1, 7, 0, 10 * S],
      ]),
      wm(10 * S - 1),
      inserts([[1, 99, 0, 10 * S]]),
      wm(Number.POSITIVE_INFINITY),
    ]);
    expect(res.lines).toEqual([`+I 1 7 0 ${10 * S} ${10 * S - 1}`, `+I 2 5 0 ${10 * S} ${10 * S - 1}`]);
    expect(res.metrics.lateRecordsDropped).toBe(1);
  });

  it("two windows with the same end and different starts stay apart (sessions)", () => {
    const n = node();
    const res = run(make(n), n, [
      inserts([
        [1, 3, 0, 10 * S],
        [2, 5, 4 * S, 10 * S],
      ]),
      wm(Number.POSITIVE_INFINITY),
    ]);
    expect(res.lines).toEqual([`+I 3 0 ${10 * S} ${10 * S - 1}`, `+I 5 ${4 * S} ${10 * S} ${10 * S - 1}`]);
  });

  it("applies retractions; a window whose rows all retract emits nothing", () => {
    const n = node();
    const res = run(() => new WindowAttachedAggregateOperator(n, true), n, [
      data([
        [Op.INSERT, [1, 3, 0, 10 * S]],
        [Op.INSERT, [2, 5, 2 * S, 12 * S]],
        [Op.DELETE, [2, 5, 2 * S, 12 * S]],
      ] as [Op, Row][]),
      wm(Number.POSITIVE_INFINITY),
    ]);
    expect(res.lines).toEqual([`+I 3 0 ${10 * S} ${10 * S - 1}`]);
  });
});
