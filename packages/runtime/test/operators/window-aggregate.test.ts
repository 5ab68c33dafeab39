import type { AggregateCall, DataType, WindowAggregateNode, WindowSpec } from "@weir/planner";
import { describe, expect, it } from "vitest";
import { Op, type Row } from "../../src/changelog.js";
import { WindowAggregateOperator } from "../../src/operators/window-aggregate.js";
import { base, data, fields, inserts, runWithRestarts, type Step, T, wm } from "./time-driver.js";

const t = (hhmm: string): number => Date.parse(`2020-04-15T${hhmm}:00Z`);
const MIN = 60_000;

/** Flink's Bid table (window-agg docs): bidtime, price DECIMAL(10, 2), item, supplier_id. */
const BID: Row[] = [
  [t("08:05"), 400n, "C", "supplier1"],
  [t("08:07"), 200n, "A", "supplier1"],
  [t("08:09"), 500n, "D", "supplier2"],
  [t("08:11"), 300n, "B", "supplier2"],
  [t("08:13"), 100n, "E", "supplier1"],
  [t("08:17"), 600n, "F", "supplier2"],
];
const BID_TYPES: DataType[] = [T.rowtime, T.decimal(10, 2), T.str, T.str];

function call(fn: string, args: number[], type: DataType, extra: Partial<AggregateCall> = {}): AggregateCall {
  return {
    fn,
    args,
    argTypes: args.map((a) => BID_TYPES[a] ?? T.int),
    distinct: false,
    filterColumn: null,
    type,
    name: fn,
    ...extra,
  };
}

const SUM_PRICE = call("SUM", [1], T.decimal(38, 2));

function node(
  window: WindowSpec,
  groupKeys: number[],
  aggregates: AggregateCall[],
  keyTypes: DataType[] = [],
) {
  const n: WindowAggregateNode = {
    ...base(fields(...keyTypes, ...aggregates.map((a) => a.type), T.ts, T.ts, T.rowtime)),
    kind: "window-aggregate",
    window,
    timeColumn: 0,
    groupKeys,
    aggregates,
  };
  return n;
}

/** Each Bid row followed by the watermark `bidtime − 1 s`, then the end of input. */
function bidSteps(rows: Row[] = BID): Step[] {
  const steps: Step[] = [];
  for (const r of rows) steps.push(inserts([r]), wm((r[0] as number) - 1000));
  steps.push(wm(Number.POSITIVE_INFINITY));
  return steps;
}

function runNode(n: WindowAggregateNode, steps: Step[]) {
  return runWithRestarts(() => new WindowAggregateOperator(n), n, steps);
}

describe("window aggregate: Flink's documented Bid examples", () => {
  it.each([
    [
      "TUMBLE 10 min",
      { kind: "tumble", size: 10 * MIN, offset: 0 },
      [
        ["08:00", "08:10", 1100n],
        ["08:10", "08:20", 1000n],
      ],
    ],
    [
      "HOP slide 5 min, size 10 min",
      { kind: "hop", size: 10 * MIN, slide: 5 * MIN, offset: 0 },
      [
        ["08:00", "08:10", 1100n],
        ["08:05", "08:15", 1500n],
        ["08:10", "08:20", 1000n],
        ["08:15", "08:25", 600n],
      ],
    ],
    [
      "CUMULATE step 2 min, size 10 min",
      { kind: "cumulate", maxSize: 10 * MIN, step: 2 * MIN, offset: 0 },
      [
        ["08:00", "08:06", 400n],
        ["08:00", "08:08", 600n],
        ["08:00", "08:10", 1100n],
        ["08:10", "08:12", 300n],
        ["08:10", "08:14", 400n],
        ["08:10", "08:16", 400n],
        ["08:10", "08:18", 1000n],
        ["08:10", "08:20", 1000n],
      ],
    ],
  ] as const)("%s", (_name, window, expected) => {
    const n = node(window as WindowSpec, [], [SUM_PRICE]);
    const res = runNode(n, bidSteps());
    expect(res.changes).toEqual(expected.map(([s, e, v]) => [Op.INSERT, [v, t(s), t(e), t(e) - 1]]));
    expect(res.metrics.lateRecordsDropped).toBe(0);
  });

  it("SESSION gap 2 min partitioned by supplier_id", () => {
    const n = node({ kind: "session", gap: 2 * MIN, partitionKeys: [3] }, [3], [SUM_PRICE], [T.str]);
    const res = runNode(n, bidSteps());
    expect(res.changes).toEqual([
      [Op.INSERT, ["supplier1", 600n, t("08:05"), t("08:09"), t("08:09") - 1]],
      [Op.INSERT, ["supplier2", 800n, t("08:09"), t("08:13"), t("08:13") - 1]],
      [Op.INSERT, ["supplier1", 100n, t("08:13"), t("08:15"), t("08:15") - 1]],
      [Op.INSERT, ["supplier2", 600n, t("08:17"), t("08:19"), t("08:19") - 1]],
    ]);
  });
});

const COUNT_STAR = call("COUNT", [], T.bigint);
const SUM_INT = (col: number, extra: Partial<AggregateCall> = {}) =>
  ({ ...call("SUM", [col], T.int, extra), argTypes: [T.int] }) as AggregateCall;

describe("window aggregate: semantics", () => {
  it("fires a window when the watermark reaches end − 1, not before; emits by end then key order", () => {
    const n = node({ kind: "tumble", size: 10, offset: 0 }, [1], [COUNT_STAR], [T.str]);
    const res = runNode(n, [
      inserts([
        [3, "b"],
        [1, "a"],
        [12, "a"],
        [4, "b"],
      ]),
      wm(8),
      wm(9),
      wm(19),
    ]);
    expect(res.lines).toEqual(["+I b 2 0 10 9", "+I a 1 0 10 9", "+I a 1 10 20 19"]);
    expect(res.forwarded).toEqual([8, 9, 19]);
  });

  it("drops and counts late rows", () => {
    const n = node({ kind: "tumble", size: 10, offset: 0 }, [], [COUNT_STAR]);
    const res = runNode(n, [inserts([[5], [15]]), wm(9), inserts([[9], [0], [10]]), wm(30)]);
    expect(res.lines).toEqual(["+I 1 0 10 9", "+I 2 10 20 19"]);
    expect(res.metrics.lateRecordsDropped).toBe(2);
  });

  it("TUMBLE with an offset", () => {
    const n = node({ kind: "tumble", size: 10, offset: 3 }, [], [COUNT_STAR]);
    const res = runNode(n, [inserts([[2], [3], [12], [13]]), wm(100)]);
    expect(res.lines).toEqual(["+I 1 -7 3 2", "+I 2 3 13 12", "+I 1 13 23 22"]);
  });

  it("HOP whose size is not a multiple of the slide (size 10, slide 4: slices of 2)", () => {
    const n = node({ kind: "hop", size: 10, slide: 4, offset: 0 }, [], [SUM_INT(0)]);
    const rows = [[1], [5], [7], [9], [13]];
    const res = runNode(n, [inserts(rows), wm(5), wm(100)]);
    // Brute force: a window [e − 10, e) for every end e ≡ 10 (mod 4) i.e. e ≡ 2 (mod 4).
    const expected: string[] = [];
    for (let e = 2; e <= 30; e += 4) {
      const inside = rows.map((r) => r[0]).filter((v) => v >= e - 10 && v < e);
      if (inside.length > 0) expected.push(`+I ${inside.reduce((a, b) => a + b, 0)} ${e - 10} ${e} ${e - 1}`);
    }
    expect(res.lines).toEqual(expected);
  });

  it("HOP: a row late for its first windows still counts in the ones not fired", () => {
    const n = node({ kind: "hop", size: 10, slide: 5, offset: 0 }, [], [COUNT_STAR]);
    const res = runNode(n, [inserts([[6]]), wm(9), inserts([[7]]), wm(100)]);
    expect(res.lines).toEqual(["+I 1 0 10 9", "+I 2 5 15 14"]);
    expect(res.metrics.lateRecordsDropped).toBe(0);
  });

  it("applies retractions; a group that nets to no rows emits nothing", () => {
    const n = node(
      { kind: "tumble", size: 10, offset: 0 },
      [1],
      [SUM_INT(2), call("MAX", [2], T.int)],
      [T.str],
    );
    const res = runNode(n, [
      inserts([
        [1, "a", 5],
        [2, "a", 7],
        [3, "b", 1],
      ]),
      data([
        [Op.UPDATE_BEFORE, [2, "a", 7]],
        [Op.UPDATE_AFTER, [2, "a", 3]],
        [Op.DELETE, [3, "b", 1]],
      ]),
      wm(20),
    ]);
    expect(res.lines).toEqual(["+I a 8 5 0 10 9"]);
  });

  it("DISTINCT aggregates and FILTER columns", () => {
    const n = node(
      { kind: "tumble", size: 10, offset: 0 },
      [],
      [call("COUNT", [1], T.bigint, { distinct: true, argTypes: [T.int] }), SUM_INT(1, { filterColumn: 2 })],
    );
    const res = runNode(n, [
      inserts([
        [1, 4, true],
        [2, 4, false],
        [3, 5, true],
        [4, 5, null],
      ]),
      wm(100),
    ]);
    expect(res.lines).toEqual(["+I 2 9 0 10 9"]);
  });

  it("CUMULATE with DISTINCT merges slices without double counting", () => {
    const n = node(
      { kind: "cumulate", maxSize: 6, step: 2, offset: 0 },
      [],
      [call("COUNT", [1], T.bigint, { distinct: true, argTypes: [T.int] })],
    );
    const res = runNode(n, [
      inserts([
        [0, 1],
        [1, 1],
        [2, 1],
        [3, 2],
        [5, 2],
      ]),
      wm(100),
    ]);
    expect(res.lines).toEqual(["+I 1 0 2 1", "+I 2 0 4 3", "+I 2 0 6 5"]);
  });

  it("SESSION: a row bridging two sessions merges them", () => {
    const n = node({ kind: "session", gap: 5, partitionKeys: [1] }, [1], [COUNT_STAR, SUM_INT(2)], [T.str]);
    const res = runNode(n, [
      inserts([
        [0, "k", 1],
        [10, "k", 2],
        [20, "j", 9],
      ]),
      wm(3),
      inserts([[5, "k", 4]]),
      wm(16),
      inserts([[1, "k", 100]]),
      wm(100),
    ]);
    // [0,5) and [10,15) are bridged by 5 ([5,10) touches both) into [0,15); the row at 1 comes
    // after that session fired.
    expect(res.lines).toEqual(["+I k 3 7 0 15 14", "+I j 1 9 20 25 24"]);
    expect(res.metrics.lateRecordsDropped).toBe(1);
  });
});
