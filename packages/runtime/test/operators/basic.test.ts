import { E, T } from "@weir/planner";
import { OperatorHarness } from "@weir/runtime/testing";
import { describe, expect, it } from "vitest";
import { base, node } from "./nodes.js";

const INT = T.int();
const STR = T.string();

describe("values", () => {
  const values = node<"values">({
    kind: "values",
    ...base([INT, STR], []),
    rows: [
      [E.call("+", [E.literal(1, INT), E.literal(2, INT)], INT), E.literal("a", STR)],
      [E.literal(null, INT), E.literal("b c", STR)],
    ],
  });

  it("emits its rows once, when it ends", () => {
    const h = new OperatorHarness(values);
    expect(h.output()).toBe("");
    h.end();
    expect(h.output()).toBe("+I 3 a\n+I null 'b c'");
    expect(h.watermarks).toEqual([Number.POSITIVE_INFINITY]);
    expect(h.ended).toBe(true);
  });

  it("does not emit again after a restore", () => {
    const h = new OperatorHarness(values);
    h.end();
    h.output();
    h.snapshotAndRestore().end();
    expect(h.output()).toBe("");
    expect(h.ended).toBe(true);
  });
});

describe("union", () => {
  it("passes every input through and merges watermarks", () => {
    const h = new OperatorHarness(node<"union">({ kind: "union", ...base([INT], [0, 1]) }));
    h.push("+I 1", 0).push("-D 2", 1);
    h.watermark(10, 0);
    expect(h.watermarks).toEqual([]);
    h.watermark(5, 1);
    h.watermark(20, 1);
    expect(h.output()).toBe("+I 1\n-D 2");
    expect(h.watermarks).toEqual([5, 10]);
    h.idle(0);
    expect(h.watermarks).toEqual([5, 10, 20]);
    h.end();
    expect(h.watermarks.at(-1)).toBe(Number.POSITIVE_INFINITY);
  });

  it("aligns barriers across inputs", () => {
    const h = new OperatorHarness(node<"union">({ kind: "union", ...base([INT], [0, 1]) }));
    expect(h.barrier(1, 0)).toBeNull();
    h.push("+I 1", 0); // held back until the barrier arrives on input 1
    h.push("+I 2", 1);
    expect(h.output()).toBe("+I 2");
    expect(h.barrier(1, 1)).not.toBeNull();
    expect(h.barriers).toEqual([1]);
    expect(h.output()).toBe("+I 1");
  });
});

describe("expand", () => {
  // GROUPING SETS ((a, b), (a)): [a, b, 0] and [a, null, 1]
  const expand = node<"expand">({
    kind: "expand",
    ...base([STR, INT, INT]),
    projections: [
      [E.input(0, STR), E.input(1, INT), E.literal(0, INT)],
      [E.input(0, STR), E.literal(null, INT), E.literal(1, INT)],
    ],
  });
  it.each([
    ["one row per projection list", "+I a 1", "+I a 1 0\n+I a null 1"],
    ["keeps the op", "-D a 1", "-D a 1 0\n-D a null 1"],
    ["keeps update pairs adjacent", "-U a 1\n+U a 2", "-U a 1 0\n+U a 2 0\n-U a null 1\n+U a null 1"],
  ])("%s", (_name, input, expected) => {
    expect(new OperatorHarness(expand).push(input).output()).toBe(expected);
  });
});

describe("unnest", () => {
  const unnest = (array: ReturnType<typeof E.input>, outer: boolean, ord: boolean, extra: number) =>
    node<"unnest">({
      kind: "unnest",
      ...base([INT, array.type, ...new Array(extra + (ord ? 1 : 0)).fill(INT)]),
      array,
      withOrdinality: ord,
      leftOuter: outer,
    });
  const arr = E.input(1, T.array(STR));
  const map = E.input(1, T.map(STR, INT));
  const rows = E.input(
    1,
    T.array(
      T.row([
        { name: "x", type: INT },
        { name: "y", type: STR },
      ]),
    ),
  );
  const multiset = E.input(1, T.multiset(STR));
  it.each([
    ["array", unnest(arr, false, false, 1), "+I 1 [a, b]", "+I 1 [a, b] a\n+I 1 [a, b] b"],
    ["with ordinality", unnest(arr, false, true, 1), "+I 1 [a, b]", "+I 1 [a, b] a 1\n+I 1 [a, b] b 2"],
    ["empty array, inner", unnest(arr, false, false, 1), "+I 1 []", ""],
    ["null array, left outer", unnest(arr, true, true, 1), "+I 1 null", "+I 1 null null null"],
    ["map", unnest(map, false, false, 2), "+I 1 {k=1, j=2}", "+I 1 {k=1, j=2} k 1\n+I 1 {k=1, j=2} j 2"],
    ["array of rows", unnest(rows, false, false, 2), "+I 1 [[5, a]]", "+I 1 [[5, a]] 5 a"],
    [
      "multiset repeats by count",
      unnest(multiset, false, false, 1),
      "+I 1 {a=2}",
      "+I 1 {a=2} a\n+I 1 {a=2} a",
    ],
    [
      "update pair with fewer elements after",
      unnest(arr, false, false, 1),
      "-U 1 [a, b]\n+U 1 [c]",
      "-U 1 [a, b] a\n+U 1 [c] c\n-D 1 [a, b] b",
    ],
  ])("%s", (_name, n, input, expected) => {
    expect(new OperatorHarness(n).push(input).output()).toBe(expected);
  });
});

describe("changelog-normalize", () => {
  const normalize = node<"changelog-normalize">({
    kind: "changelog-normalize",
    ...base([STR, INT]),
    key: [0],
  });
  it.each([
    ["a new key is an insert", ["+U a 1"], ["+I a 1"]],
    ["an update of a known key", ["+I a 1", "+U a 2"], ["+I a 1", "-U a 1\n+U a 2"]],
    ["an unchanged row is dropped", ["+I a 1", "+U a 1"], ["+I a 1", ""]],
    ["a delete emits the stored row", ["+I a 1", "-D a null"], ["+I a 1", "-D a 1"]],
    ["a delete of an unknown key is dropped", ["-D z 1"], [""]],
    ["after a delete the key is new again", ["+I a 1\n-D a 1", "+U a 3"], ["+I a 1\n-D a 1", "+I a 3"]],
  ])("%s", (_name, inputs, outputs) => {
    const h = new OperatorHarness(normalize);
    inputs.forEach((input, i) => {
      h.push(input);
      expect(h.output()).toBe(outputs[i]);
      h.snapshotAndRestore();
    });
  });
});
