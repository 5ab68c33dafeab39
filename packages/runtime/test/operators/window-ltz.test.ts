import type { WindowRankNode } from "@weir/planner";
import { T as PT } from "@weir/planner";
import { describe, expect, it } from "vitest";
import { Op } from "../../src/changelog.js";
import "../../src/operators/index.js";
import { OperatorHarness } from "@weir/runtime/testing";

const HOUR = 3_600_000;
const MIN = 60_000;
/** 2026-06-24 11:48:00 as a wall clock (what window_start holds in Asia/Seoul). */
const WALL = Date.UTC(2026, 5, 24, 11, 48);
/** The same moment as an instant: 02:48 UTC. */
const INSTANT = WALL - 9 * HOUR;

function node(timeZoneAligned: boolean): WindowRankNode {
  const schema = [
    { name: "window_start", type: PT.timestamp(3, false) },
    { name: "window_end", type: PT.timestamp(3, false) },
    { name: "v", type: PT.int() },
    { name: "rn", type: PT.bigint(false) },
  ];
  return {
    id: 1,
    inputs: [0],
    kind: "window-rank",
    schema,
    changelogMode: { kind: "insert-only" },
    streamKey: null,
    watermarkColumn: null,
    window: { start: 0, end: 1, timeZoneAligned },
    rankFunction: "ROW_NUMBER",
    partitionKeys: [],
    orderBy: [{ column: 2, descending: true, nullsFirst: false }],
    rankStart: 1,
    rankEnd: 1,
    outputRank: true,
  };
}

describe("windows over TIMESTAMP_LTZ fire by the watermark in the session time zone", () => {
  it("a window top-N over KST wall-clock windows fires when the UTC watermark passes the window's end", () => {
    const h = new OperatorHarness(node(true), { settings: { "table.local-time-zone": "Asia/Seoul" } });
    h.push([
      [Op.INSERT, [WALL, WALL + MIN, 5]],
      [Op.INSERT, [WALL, WALL + MIN, 9]],
    ]);
    h.watermark(INSTANT + MIN - 2);
    expect(h.take()).toEqual([]);
    h.watermark(INSTANT + MIN - 1);
    expect(h.take()).toEqual([[Op.INSERT, [WALL, WALL + MIN, 9, 1]]]);
  });

  it("without the flag the same window would wait nine hours", () => {
    const h = new OperatorHarness(node(false), { settings: { "table.local-time-zone": "Asia/Seoul" } });
    h.push([[Op.INSERT, [WALL, WALL + MIN, 5]]]);
    h.watermark(INSTANT + MIN - 1);
    expect(h.take()).toEqual([]);
  });
});
