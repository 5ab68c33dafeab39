import type { WindowDeduplicateNode, WindowRankNode } from "@weir/planner";
import { describe, expect, it } from "vitest";
import { Op, type Row } from "../../src/changelog.js";
import { WindowDeduplicateOperator } from "../../src/operators/window-deduplicate.js";
import { WindowRankOperator } from "../../src/operators/window-rank.js";
import { base, data, fields, inserts, runWithRestarts, T, wm } from "./time-driver.js";

/** Rows: window_start, window_end, partition, score, id. */
const IN = fields(T.ts, T.ts, T.str, T.int, T.str);

function rankNode(
  rankFunction: WindowRankNode["rankFunction"],
  rankStart: number,
  rankEnd: number,
  outputRank: boolean,
): WindowRankNode {
  return {
    ...base(outputRank ? [...IN, { name: "rn", type: T.bigint }] : IN),
    kind: "window-rank",
    window: { start: 0, end: 1 },
    rankFunction,
    partitionKeys: [2],
    orderBy: [{ column: 3, descending: true, nullsFirst: false }],
    rankStart,
    rankEnd,
    outputRank,
  };
}

const ROWS: Row[] = [
  [0, 10, "a", 5, "r1"],
  [0, 10, "a", 9, "r2"],
  [0, 10, "b", 1, "r3"],
  [0, 10, "a", 5, "r4"],
  [0, 10, "a", null, "r5"],
  [0, 10, "a", 7, "r6"],
  [10, 20, "a", 1, "r7"],
  [0, 10, "a", 3, "r8"],
];

describe("window top-N", () => {
  it.each([
    [
      "ROW_NUMBER top 3",
      rankNode("ROW_NUMBER", 1, 3, true),
      ["+I 0 10 a 9 r2 1", "+I 0 10 a 7 r6 2", "+I 0 10 a 5 r1 3"],
    ],
    [
      "RANK top 3 keeps ties",
      rankNode("RANK", 1, 3, true),
      ["+I 0 10 a 9 r2 1", "+I 0 10 a 7 r6 2", "+I 0 10 a 5 r1 3", "+I 0 10 a 5 r4 3"],
    ],
    [
      "DENSE_RANK top 3",
      rankNode("DENSE_RANK", 1, 3, true),
      ["+I 0 10 a 9 r2 1", "+I 0 10 a 7 r6 2", "+I 0 10 a 5 r1 3", "+I 0 10 a 5 r4 3"],
    ],
    [
      "ROW_NUMBER ranks 2..3 without the rank column",
      rankNode("ROW_NUMBER", 2, 3, false),
      ["+I 0 10 a 7 r6", "+I 0 10 a 5 r1"],
    ],
  ] as const)("%s", (_name, node, expectedA) => {
    for (const insertOnly of [true, false]) {
      const res = runWithRestarts(() => new WindowRankOperator(node, insertOnly), node, [
        inserts(ROWS.slice(0, 4)),
        wm(5),
        inserts(ROWS.slice(4)),
        wm(9),
        inserts([[0, 10, "a", 100, "late"]]),
        wm(30),
      ]);
      const b = node.outputRank ? ["+I 0 10 b 1 r3 1"] : node.rankStart > 1 ? [] : ["+I 0 10 b 1 r3"];
      const w2 = node.rankStart > 1 ? [] : [node.outputRank ? "+I 10 20 a 1 r7 1" : "+I 10 20 a 1 r7"];
      expect(res.lines).toEqual([...expectedA, ...b, ...w2]);
      expect(res.metrics.lateRecordsDropped).toBe(1);
    }
  });

  it("a retraction of a top row lets the next one in (input that may retract)", () => {
    const node = rankNode("ROW_NUMBER", 1, 2, true);
    const res = runWithRestarts(() => new WindowRankOperator(node, false), node, [
      inserts(ROWS.slice(0, 6)),
      data([[Op.DELETE, [0, 10, "a", 9, "r2"]]]),
      wm(9),
    ]);
    expect(res.lines).toEqual(["+I 0 10 a 7 r6 1", "+I 0 10 a 5 r1 2", "+I 0 10 b 1 r3 1"]);
  });
});

describe("window deduplication", () => {
  /** Rows: window_start, window_end, key, time, id. */
  const node = (keepLast: boolean): WindowDeduplicateNode => ({
    ...base(fields(T.ts, T.ts, T.str, T.rowtime, T.str)),
    kind: "window-deduplicate",
    window: { start: 0, end: 1 },
    keys: [2],
    keepLast,
    timeColumn: 3,
  });
  const rows: Row[] = [
    [0, 10, "a", 5, "r1"],
    [0, 10, "b", 4, "r2"],
    [0, 10, "a", 3, "r3"],
    [0, 10, "a", 3, "r4"],
    [0, 10, "a", 8, "r5"],
    [0, 10, "a", 8, "r6"],
    [10, 20, "a", 12, "r7"],
  ];
  it.each([
    ["first row", false, ["+I 0 10 a 3 r3", "+I 0 10 b 4 r2", "+I 10 20 a 12 r7"]],
    ["last row", true, ["+I 0 10 a 8 r6", "+I 0 10 b 4 r2", "+I 10 20 a 12 r7"]],
  ] as const)("keeps the %s per key and window, emitted when the window fires", (_n, keepLast, expected) => {
    const n = node(keepLast);
    const res = runWithRestarts(() => new WindowDeduplicateOperator(n), n, [
      inserts(rows.slice(0, 3)),
      wm(8),
      inserts(rows.slice(3)),
      wm(9),
      inserts([[0, 10, "c", 1, "late"]]),
      wm(19),
    ]);
    expect(res.lines).toEqual(expected);
    expect(res.metrics.lateRecordsDropped).toBe(1);
  });
});
