import type { WindowSpec, WindowTableFunctionNode } from "@weir/planner";
import { describe, expect, it } from "vitest";
import { Op } from "../../src/changelog.js";
import { WindowTableFunctionOperator } from "../../src/operators/window-table-function.js";
import { base, data, fields, inserts, runWithRestarts, T, wm } from "./time-driver.js";

/** Rows: rowtime, k, v. */
function node(window: WindowSpec): WindowTableFunctionNode {
  return {
    ...base(fields(T.rowtime, T.str, T.int, T.ts, T.ts, T.rowtime)),
    kind: "window-table-function",
    window,
    timeColumn: 0,
  };
}

const run = (n: WindowTableFunctionNode, steps: Parameters<typeof runWithRestarts>[2]) =>
  runWithRestarts(() => new WindowTableFunctionOperator(n), n, steps);

describe("window table function", () => {
  it.each([
    ["TUMBLE 10", { kind: "tumble", size: 10, offset: 0 }, ["+I 7 a 1 0 10 9"]],
    ["HOP 10 / 5", { kind: "hop", size: 10, slide: 5, offset: 0 }, ["+I 7 a 1 0 10 9", "+I 7 a 1 5 15 14"]],
    ["CUMULATE 10, step 5", { kind: "cumulate", maxSize: 10, step: 5, offset: 0 }, ["+I 7 a 1 0 10 9"]],
    ["CUMULATE early row", { kind: "cumulate", maxSize: 10, step: 5, offset: 0 }, null],
  ] as const)("%s assigns every window of a row", (name, window, expected) => {
    const n = node(window as WindowSpec);
    if (expected === null) {
      expect(run(n, [inserts([[2, "a", 1]])]).lines).toEqual(["+I 2 a 1 0 5 4", "+I 2 a 1 0 10 9"]);
      return;
    }
    expect(run(n, [inserts([[7, "a", 1]])]).lines, name).toEqual(expected);
  });

  it("emits every window of a row even behind the watermark (lateness is judged downstream); retractions keep their sign", () => {
    const n = node({ kind: "hop", size: 10, slide: 5, offset: 0 });
    const res = run(n, [
      wm(9),
      inserts([[7, "a", 1]]),
      inserts([[3, "a", 2]]),
      data([
        [Op.UPDATE_BEFORE, [12, "a", 3]],
        [Op.UPDATE_AFTER, [12, "a", 4]],
      ]),
    ]);
    // Flink's AlignedWindowTableFunctionOperator assigns windows without a lateness check.
    expect(res.lines).toEqual([
      "+I 7 a 1 0 10 9",
      "+I 7 a 1 5 15 14",
      "+I 3 a 2 -5 5 4",
      "+I 3 a 2 0 10 9",
      "-D 12 a 3 5 15 14",
      "-D 12 a 3 10 20 19",
      "+I 12 a 4 5 15 14",
      "+I 12 a 4 10 20 19",
    ]);
    expect(res.metrics.lateRecordsDropped).toBe(0);
  });

  it("SESSION buffers rows per partition until the session closes, then emits them with its bounds", () => {
    const n = node({ kind: "session", gap: 5, partitionKeys: [1] });
    const res = run(n, [
      inserts([
        [0, "a", 1],
        [3, "b", 2],
        [10, "a", 3],
      ]),
      wm(3),
      inserts([[5, "a", 4]]),
      wm(8),
      data([[Op.DELETE, [10, "a", 3]]]),
      inserts([[9, "a", 5]]),
      wm(100),
    ]);
    // b: [3, 8) fires at 7. a: 0 and 10 are bridged by 5 into [0, 15); 10 is retracted; 9 joins.
    expect(res.lines).toEqual(["+I 3 b 2 3 8 7", "+I 0 a 1 0 15 14", "+I 5 a 4 0 15 14", "+I 9 a 5 0 15 14"]);
  });
});
