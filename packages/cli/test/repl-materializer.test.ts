import { TableMaterializer } from "@weir/cli";
import { Op, parseOp } from "@weir/runtime";
import { describe, expect, it } from "vitest";

interface Case {
  readonly name: string;
  /** Changes as `op cell cell ...`. */
  readonly changes: readonly string[];
  /** The rows shown afterwards, in order, cells joined by a space. */
  readonly rows: readonly string[];
  readonly unmatched?: number;
  readonly maxRows?: number;
}

const cases: readonly Case[] = [
  { name: "inserts append", changes: ["+I a 1", "+I b 2"], rows: ["a 1", "b 2"] },
  {
    name: "an update pair replaces the row in place",
    changes: ["+I a 1", "+I b 1", "-U a 1", "+U a 2"],
    rows: ["a 2", "b 1"],
  },
  { name: "a delete removes the row", changes: ["+I a 1", "+I b 1", "-D a 1"], rows: ["b 1"] },
  {
    name: "duplicates are a multiset: a retraction removes one copy (the newest)",
    changes: ["+I x", "+I y", "+I x", "-D x"],
    rows: ["x", "y"],
  },
  {
    name: "a +U without a preceding -U appends (upsert streams)",
    changes: ["+I a 1", "+U b 2"],
    rows: ["a 1", "b 2"],
  },
  {
    name: "a hole is used only by the +U right after its -U",
    changes: ["+I a 1", "+I b 1", "-U a 1", "+I c 1", "+U a 2"],
    rows: ["b 1", "c 1", "a 2"],
  },
  {
    name: "a retraction of a missing row is counted and ignored",
    changes: ["+I a 1", "-D z 9"],
    rows: ["a 1"],
    unmatched: 1,
  },
  {
    name: "more rows than the limit drops the oldest",
    changes: ["+I a", "+I b", "+I c"],
    rows: ["b", "c"],
    maxRows: 2,
  },
  {
    name: "the update of a key many times keeps one row",
    changes: ["+I k 1", ...[1, 2, 3, 4].flatMap((n) => [`-U k ${n}`, `+U k ${n + 1}`])],
    rows: ["k 5"],
  },
];

function apply(m: TableMaterializer, change: string): void {
  const [op, ...cells] = change.split(" ");
  m.apply(parseOp(op!), cells);
}

describe("TableMaterializer", () => {
  for (const c of cases) {
    it(c.name, () => {
      const m = new TableMaterializer(c.maxRows);
      for (const ch of c.changes) apply(m, ch);
      expect(m.rows().map((r) => r.join(" "))).toEqual(c.rows);
      expect(m.size).toBe(c.rows.length);
      expect(m.unmatched).toBe(c.unmatched ?? 0);
    });
  }

  it("stays correct through compaction of many dead rows", () => {
    const m = new TableMaterializer();
    for (let i = 0; i < 500; i++) m.apply(Op.INSERT, [String(i)]);
    for (let i = 0; i < 490; i++) m.apply(Op.DELETE, [String(i)]);
    m.apply(Op.UPDATE_BEFORE, ["495"]);
    m.apply(Op.UPDATE_AFTER, ["x"]);
    expect(m.rows().map((r) => r[0])).toEqual([
      "490",
      "491",
      "492",
      "493",
      "494",
      "x",
      "496",
      "497",
      "498",
      "499",
    ]);
  });
});
