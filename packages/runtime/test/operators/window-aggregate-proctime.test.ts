import type { AggregateCall, DataType, WindowAggregateNode, WindowSpec } from "@weir/planner";
import { describe, expect, it } from "vitest";
import { WindowAggregateOperator } from "../../src/operators/window-aggregate.js";
import { base, fields, inserts, procTime, runWithRestarts, type Step, T, wm } from "./time-driver.js";

/** PROCTIME(): a TIMESTAMP_LTZ processing-time attribute (windows aligned in UTC here). */
const PROCTIME: DataType = {
  kind: "TIMESTAMP_LTZ",
  precision: 3,
  nullable: false,
  timeAttribute: "proctime",
};

const COUNT_STAR: AggregateCall = {
  fn: "COUNT",
  args: [],
  argTypes: [],
  distinct: false,
  filterColumn: null,
  type: T.bigint,
  name: "cnt",
};

/** Input rows: [p_time, key]; output: key, COUNT(*), window_start, window_end, window_time. */
function node(window: WindowSpec): WindowAggregateNode {
  return {
    ...base(fields(T.str, T.bigint, T.ts, T.ts, PROCTIME)),
    kind: "window-aggregate",
    window,
    timeColumn: 0,
    timeKind: "proctime",
    groupKeys: [1],
    aggregates: [COUNT_STAR],
  };
}

const TUMBLE_10: WindowSpec = { kind: "tumble", size: 10, offset: 0 };

function runSteps(window: WindowSpec, steps: Step[]) {
  const n = node(window);
  return runWithRestarts(() => new WindowAggregateOperator(n, false), n, steps);
}

describe("window aggregate on processing time", () => {
  it.each<[string, WindowSpec, Step[], string[]]>([
    [
      "TUMBLE fires when processing time reaches end − 1, not on watermarks",
      TUMBLE_10,
      [
        inserts([
          [1, "a"],
          [3, "b"],
          [4, "a"],
        ]),
        wm(100),
        procTime(8),
        inserts([[12, "a"]]),
        procTime(9),
        procTime(19),
      ],
      ["+I a 2 0 10 9", "+I b 1 0 10 9", "+I a 1 10 20 19"],
    ],
    [
      "a row whose time is at or before the fired time joins the earliest open window (none is late)",
      TUMBLE_10,
      [
        inserts([[2, "a"]]),
        procTime(9),
        inserts([
          [5, "a"],
          [9, "b"],
        ]),
        procTime(25),
      ],
      ["+I a 1 0 10 9", "+I a 1 10 20 19", "+I b 1 10 20 19"],
    ],
    [
      "the end of input (+∞ watermark) fires every open window",
      TUMBLE_10,
      [
        inserts([
          [1, "a"],
          [15, "a"],
          [31, "b"],
        ]),
        procTime(3),
        wm(Number.POSITIVE_INFINITY),
      ],
      ["+I a 1 0 10 9", "+I a 1 10 20 19", "+I b 1 30 40 39"],
    ],
    [
      "HOP size 10 slide 5: a row counts in both its windows",
      { kind: "hop", size: 10, slide: 5, offset: 0 },
      [
        inserts([
          [6, "a"],
          [11, "a"],
        ]),
        procTime(9),
        procTime(14),
        procTime(19),
      ],
      ["+I a 1 0 10 9", "+I a 2 5 15 14", "+I a 1 10 20 19"],
    ],
    [
      "CUMULATE step 5 size 10",
      { kind: "cumulate", maxSize: 10, step: 5, offset: 0 },
      [inserts([[1, "a"]]), procTime(4), inserts([[6, "a"]]), procTime(100)],
      ["+I a 1 0 5 4", "+I a 2 0 10 9"],
    ],
    [
      "SESSION gap 5 fires when processing time passes the session end",
      { kind: "session", gap: 5, partitionKeys: [1] },
      [
        inserts([
          [1, "a"],
          [3, "a"],
          [20, "b"],
        ]),
        procTime(7),
        procTime(8),
        wm(Number.POSITIVE_INFINITY),
      ],
      ["+I a 2 1 8 7", "+I b 1 20 25 24"],
    ],
  ])("%s", (_name, window, steps, expected) => {
    const res = runSteps(window, steps);
    expect(res.lines).toEqual(expected);
    expect(res.metrics.lateRecordsDropped).toBe(0);
  });

  it("forwards input watermarks unchanged", () => {
    const res = runSteps(TUMBLE_10, [inserts([[1, "a"]]), wm(50), wm(60), procTime(9)]);
    expect(res.forwarded).toEqual([50, 60]);
    expect(res.lines).toEqual(["+I a 1 0 10 9"]);
  });
});
