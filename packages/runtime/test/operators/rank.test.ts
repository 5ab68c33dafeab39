import type { ChangelogMode, RankNode } from "@weir/planner";
import { T } from "@weir/planner";
import { materialize, OperatorHarness } from "@weir/runtime/testing";
import { describe, expect, it } from "vitest";
import type { Row } from "../../src/changelog.js";
import { formatChange, Op } from "../../src/changelog.js";
import { rowComparator } from "../../src/operators/rank.js";
import { base, INSERT_ONLY, node, RETRACT } from "./nodes.js";

const STR = T.string();
const INT = T.int();

// input: p STRING, score INT, id STRING; ORDER BY score DESC
function rank(
  fn: RankNode["rankFunction"],
  rankEnd: number,
  outputRank: boolean,
  rankStart = 1,
  orderBy: RankNode["orderBy"] = [{ column: 1, descending: true, nullsFirst: false }],
): RankNode {
  return node<"rank">({
    kind: "rank",
    ...base(outputRank ? [STR, INT, STR, T.bigint(false)] : [STR, INT, STR]),
    rankFunction: fn,
    partitionKeys: [0],
    orderBy,
    rankStart,
    rankEnd,
    outputRank,
  });
}

describe("rank (Top-N)", () => {
  it.each([
    [
      "ROW_NUMBER with rank: a new top row moves the others down",
      rank("ROW_NUMBER", 2, true),
      ["+I a 5 u\n+I a 3 y", "+I a 9 z"],
      ["+I a 5 u 1\n+I a 3 y 2", "-U a 5 u 1\n+U a 9 z 1\n-U a 3 y 2\n+U a 5 u 2"],
    ],
    [
      "ROW_NUMBER without rank: the pushed-out row is deleted",
      rank("ROW_NUMBER", 2, false),
      ["+I a 5 u\n+I a 3 y", "+I a 9 z", "+I a 1 w"],
      ["+I a 5 u\n+I a 3 y", "-D a 3 y\n+I a 9 z", ""],
    ],
    [
      "a retraction pulls the next row in",
      rank("ROW_NUMBER", 2, false),
      ["+I a 5 u\n+I a 3 y\n+I a 1 w", "-D a 5 u"],
      ["+I a 5 u\n+I a 3 y", "-D a 5 u\n+I a 1 w"],
    ],
    [
      "partitions are independent",
      rank("ROW_NUMBER", 1, true),
      ["+I a 5 u\n+I b 3 y\n+I b 4 z"],
      ["+I a 5 u 1\n+I b 3 y 1\n-U b 3 y 1\n+U b 4 z 1"],
    ],
    [
      "RANK: ties share a rank and can exceed N rows",
      rank("RANK", 1, true),
      ["+I a 5 u\n+I a 5 y\n+I a 5 z", "+I a 7 w"],
      ["+I a 5 u 1\n+I a 5 y 1\n+I a 5 z 1", "-D a 5 u 1\n-D a 5 y 1\n-D a 5 z 1\n+I a 7 w 1"],
    ],
    [
      "DENSE_RANK",
      rank("DENSE_RANK", 2, true),
      ["+I a 5 u\n+I a 5 y\n+I a 3 z", "+I a 4 w"],
      ["+I a 5 u 1\n+I a 5 y 1\n+I a 3 z 2", "-D a 3 z 2\n+I a 4 w 2"],
    ],
    [
      "rankStart > 1 shows ranks 2..3 only",
      rank("ROW_NUMBER", 3, true, 2),
      ["+I a 5 u\n+I a 4 y", "+I a 9 z"],
      ["+I a 4 y 2", "-U a 4 y 2\n+U a 5 u 2\n+I a 4 y 3"],
    ],
    [
      "no ORDER BY keeps the first N arrivals",
      rank("ROW_NUMBER", 2, false, 1, []),
      ["+I a 1 u\n+I a 9 y\n+I a 5 z", "-D a 1 u"],
      ["+I a 1 u\n+I a 9 y", "-D a 1 u\n+I a 5 z"],
    ],
    ["retracting an unknown row is ignored", rank("ROW_NUMBER", 2, false), ["-D a 1 q"], [""]],
  ])("%s", (_name, n, inputs, outputs) => {
    const h = new OperatorHarness(n);
    inputs.forEach((input, i) => {
      h.push(input);
      expect(h.output()).toBe(outputs[i]);
    });
  });

  it.each([
    [1, 3],
    [2, 4],
    [1, 1],
  ])(
    "ROW_NUMBER %i..%i with the rank column over inserts emits the same changes, insert-only input or not",
    (start, end) => {
      // Insert-only input takes a path of its own (no Top-N before/after); a retract input the general one.
      const fast = new OperatorHarness(rank("ROW_NUMBER", end, true, start), { inputModes: [INSERT_ONLY] });
      const general = new OperatorHarness(rank("ROW_NUMBER", end, true, start), { inputModes: [RETRACT] });
      let seed = 7;
      const random = (k: number): number => {
        seed = (seed * 1103515245 + 12345) % 2 ** 31;
        return seed % k;
      };
      for (let step = 0; step < 200; step++) {
        const changes: [Op, Row][] = [];
        for (let j = 0; j < 1 + random(3); j++)
          changes.push([Op.INSERT, [random(2) ? "a" : "b", random(8), `r${step}_${j}`]]);
        fast.push(changes);
        general.push(changes);
        expect(fast.output(), `step ${step}`).toBe(general.output());
      }
    },
  );

  it("orders NULLS FIRST / LAST per key", () => {
    const rows: Row[] = [[3], [null], [1]];
    const sort = (nullsFirst: boolean, descending: boolean) =>
      [...rows].sort(rowComparator([{ column: 0, descending, nullsFirst }])).map((r) => r[0]);
    expect(sort(true, false)).toEqual([null, 1, 3]);
    expect(sort(false, false)).toEqual([1, 3, null]);
    expect(sort(true, true)).toEqual([null, 3, 1]);
    expect(sort(false, true)).toEqual([3, 1, null]);
  });

  // Differential: after every batch, the materialised output equals the Top-N of the rows present.
  const cases: [RankNode["rankFunction"], number, number, boolean, ChangelogMode][] = [];
  for (const fn of ["ROW_NUMBER", "RANK", "DENSE_RANK"] as const) {
    for (const outputRank of [true, false]) {
      cases.push(
        [fn, 1, 3, outputRank, RETRACT],
        [fn, 2, 4, outputRank, RETRACT],
        [fn, 1, 2, outputRank, INSERT_ONLY],
        [fn, 2, 4, outputRank, INSERT_ONLY],
      );
    }
  }
  it.each(cases)(
    "%s %i..%i (rank column: %s, input %o) matches the batch answer",
    (fn, start, end, outputRank, mode) => {
      const n = rank(fn, end, outputRank, start);
      const h = new OperatorHarness(n, { inputModes: [mode] });
      let seed = 42;
      const random = (k: number): number => {
        seed = (seed * 1103515245 + 12345) % 2 ** 31;
        return seed % k;
      };
      const present: Row[] = [];
      const emitted: [Op, Row][] = [];
      for (let step = 0; step < 300; step++) {
        const changes: [Op, Row][] = [];
        for (let j = 0; j < 1 + random(3); j++) {
          if (mode.kind === "retract" && present.length > 0 && random(3) === 0) {
            const [row] = present.splice(random(present.length), 1);
            changes.push([Op.DELETE, row]);
          } else {
            const row: Row = [random(2) ? "a" : "b", random(6), `r${step}_${j}`];
            present.push(row);
            changes.push([Op.INSERT, row]);
          }
        }
        h.push(changes);
        emitted.push(...h.take());
        if (step % 25 === 0) h.snapshotAndRestore();
        expect(materialize(emitted)).toEqual(batchTopN(present, fn, start, end, outputRank));
      }
    },
  );
});

/** The Top-N of `rows` as a batch query would compute it (ties in arrival order). */
function batchTopN(
  rows: Row[],
  fn: RankNode["rankFunction"],
  start: number,
  end: number,
  outputRank: boolean,
): string[] {
  const out: string[] = [];
  for (const p of ["a", "b"]) {
    const sorted = rows.filter((r) => r[0] === p).sort((x, y) => (y[1] as number) - (x[1] as number));
    let rank = 0;
    sorted.forEach((r, i) => {
      const tie = i > 0 && sorted[i - 1][1] === r[1];
      rank = fn === "ROW_NUMBER" ? i + 1 : fn === "RANK" ? (tie ? rank : i + 1) : tie ? rank : rank + 1;
      if (rank >= start && rank <= end)
        out.push(formatChange(Op.INSERT, outputRank ? [...r, rank] : r).slice(3));
    });
  }
  return out.sort();
}
