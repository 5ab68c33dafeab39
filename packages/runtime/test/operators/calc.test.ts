import { E, T } from "@weir/planner";
import { OperatorHarness } from "@weir/runtime/testing";
import { describe, expect, it } from "vitest";
import { base, node } from "./nodes.js";

const INT = T.int();
const STR = T.string();
const BOOL = T.boolean();

// SELECT a * 10, b FROM t WHERE a > 1
const calc = node<"calc">({
  kind: "calc",
  ...base([INT, STR]),
  projections: [E.call("*", [E.input(0, INT), E.literal(10, INT)], INT), E.input(1, STR)],
  condition: E.call(">", [E.input(0, INT), E.literal(1, INT)], BOOL),
});

describe("calc", () => {
  it.each([
    ["insert passes", "+I 2 a", "+I 20 a"],
    ["insert filtered", "+I 1 a", ""],
    ["null fails the filter", "+I null a", ""],
    ["delete passes", "-D 5 y", "-D 50 y"],
    ["update pair, both pass", "-U 2 a\n+U 3 a", "-U 20 a\n+U 30 a"],
    ["update pair, before passes only", "-U 2 a\n+U 1 a", "-D 20 a"],
    ["update pair, after passes only", "-U 1 a\n+U 2 a", "+I 20 a"],
    ["update pair, neither passes", "-U 0 a\n+U 1 a", ""],
    ["upsert +U alone", "+U 4 z", "+U 40 z"],
    ["mixed batch", "+I 1 a\n+I 2 b\n-U 2 b\n+U 0 b\n+I 3 c", "+I 20 b\n-D 20 b\n+I 30 c"],
  ])("%s", (_name, input, expected) => {
    const h = new OperatorHarness(calc);
    h.push(input);
    expect(h.output()).toBe(expected);
  });

  it("forwards watermarks and ends with +Infinity", () => {
    const h = new OperatorHarness(calc);
    h.watermark(5).watermark(3).watermark(9).end();
    expect(h.watermarks).toEqual([5, 9, Number.POSITIVE_INFINITY]);
    expect(h.ended).toBe(true);
  });

  it("counts records in and out", () => {
    const h = new OperatorHarness(calc);
    h.push("+I 1 a\n+I 2 b\n+I 3 c");
    expect(h.metrics).toMatchObject({ recordsIn: 3, recordsOut: 2 });
  });

  it("fails with the node kind on an expression error", () => {
    const div = node<"calc">({
      kind: "calc",
      ...base([INT]),
      span: { line: 3, column: 8, offset: 20, end: 25 },
      projections: [E.cast(E.literal("x", STR), INT)],
      condition: null,
    });
    const h = new OperatorHarness(div);
    expect(() => h.push("+I 1")).toThrow(/calc \(node 1, line 3, column 8\) failed/);
  });
});
