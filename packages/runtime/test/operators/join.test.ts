import { E, type Expr, type JoinNode, type JoinType } from "@weir/planner";
import { describe, expect, it } from "vitest";
import { mulberry32 as rng } from "../../../../test/support/random.js";
import { formatChange, Op, type Row } from "../../src/changelog.js";
import { JoinOperator } from "../../src/operators/join.js";
import { base, data, fields, inserts, procTime, run, runWithRestarts, type Step, T } from "./time-driver.js";

/** Left rows [k, v], right rows [k, w]; the residual condition (when used) is `v <= w`. */
const RESIDUAL: Expr = E.call("<=", [E.input(1, T.int), E.input(3, T.int)], T.bool);

function node(joinType: JoinType, condition: Expr | null = null): JoinNode {
  const semiAnti = joinType === "semi" || joinType === "anti";
  return {
    ...base(semiAnti ? fields(T.int, T.int) : fields(T.int, T.int, T.int, T.int), [0, 1]),
    kind: "join",
    joinType,
    leftKeys: [0],
    rightKeys: [0],
    condition,
  };
}

const make = (n: JoinNode) => () => new JoinOperator(n);
/** The operator as the job builds it for two insert-only inputs (sides without match counts are lists). */
const INSERT_ONLY = { inputModes: [{ kind: "insert-only" }, { kind: "insert-only" }] } as const;
const makeInsertOnly = (n: JoinNode) => () => new JoinOperator(n, INSERT_ONLY);

/** The batch join of two multisets of rows, as sorted changelog lines of `+I` rows. */
function batchJoin(type: JoinType, left: Row[], right: Row[], cond: boolean): string[] {
  const ok = (l: Row, r: Row) =>
    l[0] !== null && l[0] === r[0] && (!cond || (l[1] as number) <= (r[1] as number));
  const out: Row[] = [];
  const rightMatched = right.map(() => false);
  for (const l of left) {
    let any = false;
    right.forEach((r, j) => {
      if (!ok(l, r)) return;
      any = true;
      rightMatched[j] = true;
      if (type !== "semi" && type !== "anti") out.push([...l, ...r]);
    });
    if (type === "semi" && any) out.push(l);
    if (type === "anti" && !any) out.push(l);
    if ((type === "left" || type === "full") && !any) out.push([...l, null, null]);
  }
  if (type === "right" || type === "full") {
    right.forEach((r, j) => {
      if (!rightMatched[j]) out.push([null, null, ...r]);
    });
  }
  return out.map((r) => formatChange(Op.INSERT, r)).sort();
}

/** Applies a changelog to a multiset; throws when a row is retracted that is not there. */
function materialise(changes: [Op, Row][]): string[] {
  const counts = new Map<string, number>();
  for (const [op, row] of changes) {
    const k = formatChange(Op.INSERT, row);
    const n = (counts.get(k) ?? 0) + (op === Op.INSERT || op === Op.UPDATE_AFTER ? 1 : -1);
    if (n < 0) throw new Error(`retraction of a row not in the result: ${k}`);
    counts.set(k, n);
  }
  const out: string[] = [];
  for (const [k, n] of counts) for (let i = 0; i < n; i++) out.push(k);
  return out.sort();
}

/** Random inserts and retractions (of live rows only, with duplicates and NULL keys) on both sides. */
function randomSteps(seed: number, count: number): { steps: Step[]; live: [Row[], Row[]][] } {
  const rand = rng(seed);
  const live: [Row[], Row[]] = [[], []];
  const steps: Step[] = [];
  const snapshots: [Row[], Row[]][] = [];
  for (let i = 0; i < count; i++) {
    const side = rand() < 0.5 ? 0 : 1;
    const rows = live[side];
    const changes: [Op, Row][] = [];
    const n = 1 + Math.floor(rand() * 3);
    for (let j = 0; j < n; j++) {
      if (rows.length > 0 && rand() < 0.35) {
        const idx = Math.floor(rand() * rows.length);
        const [r] = rows.splice(idx, 1);
        if (rand() < 0.5) {
          const after: Row = [r[0], Math.floor(rand() * 4)];
          changes.push([Op.UPDATE_BEFORE, r], [Op.UPDATE_AFTER, after]);
          rows.push(after);
        } else {
          changes.push([Op.DELETE, r]);
        }
      } else {
        const k = rand() < 0.1 ? null : Math.floor(rand() * 3);
        const r: Row = [k, Math.floor(rand() * 4)];
        changes.push([Op.INSERT, r]);
        rows.push(r);
      }
    }
    steps.push(data(changes, side));
    snapshots.push([[...live[0]], [...live[1]]]);
  }
  return { steps, live: snapshots };
}

const TYPES: JoinType[] = ["inner", "left", "right", "full", "semi", "anti"];

describe("regular join: differential against the batch join", () => {
  for (const type of TYPES) {
    for (const cond of [false, true]) {
      it(`${type} join${cond ? " with a residual condition" : ""}: every prefix materialises to the batch join`, () => {
        for (const seed of [1, 2, 3, 4, 5]) {
          const { steps, live } = randomSteps(seed * 7919 + TYPES.indexOf(type), 60);
          const n = node(type, cond ? RESIDUAL : null);
          for (let k = 1; k <= steps.length; k += 7) {
            const res = run(make(n), n, steps.slice(0, k));
            expect(materialise(res.changes), `seed ${seed}, after step ${k}`).toEqual(
              batchJoin(type, live[k - 1][0], live[k - 1][1], cond),
            );
          }
          const all = run(make(n), n, steps);
          expect(materialise(all.changes)).toEqual(batchJoin(type, live.at(-1)![0], live.at(-1)![1], cond));
        }
      });
    }
  }

  it.each(TYPES)("%s join: a snapshot and restore at any step gives the same changelog", (type) => {
    const { steps } = randomSteps(42, 25);
    const n = node(type, RESIDUAL);
    runWithRestarts(make(n), n, steps);
  });
});

describe("regular join over insert-only inputs (rows kept as lists of encoded rows)", () => {
  /** Random inserts only (duplicates and NULL keys included) on both sides. */
  function insertSteps(seed: number, count: number): { steps: Step[]; live: [Row[], Row[]] } {
    const rand = rng(seed);
    const live: [Row[], Row[]] = [[], []];
    const steps: Step[] = [];
    for (let i = 0; i < count; i++) {
      const side = rand() < 0.5 ? 0 : 1;
      const rows: Row[] = [];
      for (let j = 1 + Math.floor(rand() * 3); j > 0; j--) {
        rows.push([rand() < 0.1 ? null : Math.floor(rand() * 3), Math.floor(rand() * 4)]);
      }
      live[side].push(...rows);
      steps.push(inserts(rows, side));
    }
    return { steps, live };
  }

  for (const type of TYPES) {
    it(`${type} join: the changelog materialises to the batch join, and a restore at any step changes nothing`, () => {
      for (const seed of [11, 12, 13]) {
        const { steps, live } = insertSteps(seed, 40);
        const n = node(type, RESIDUAL);
        const res = runWithRestarts(makeInsertOnly(n), n, steps);
        expect(materialise(res.changes), `seed ${seed}`).toEqual(batchJoin(type, live[0], live[1], true));
        // The same changes as the operator that keeps every side as a map of counts (copies of
        // an equal row come in arrival order here, grouped there).
        expect([...res.lines].sort()).toEqual(run(make(n), n, steps).lines.sort());
      }
    });
  }

  it("a retraction that reaches a list side anyway removes one copy of the row", () => {
    const n = node("inner");
    const res = run(makeInsertOnly(n), n, [
      inserts(
        [
          [1, 10],
          [1, 10],
        ],
        0,
      ),
      data([[Op.DELETE, [1, 10]]], 0),
      data([[Op.DELETE, [1, 99]]], 0),
      inserts([[1, 20]], 1),
    ]);
    expect(res.lines).toEqual(["+I 1 10 1 20"]);
  });
});

describe("regular join: exact changes", () => {
  it.each([
    ["left", ["+I 1 10 null null", "-D 1 10 null null", "+I 1 10 1 20", "-D 1 10 1 20", "+I 1 10 null null"]],
    [
      "right",
      ["+I null null 1 20", "-D null null 1 20", "+I 1 10 1 20", "-D 1 10 1 20", "+I null null 1 20"],
    ],
    ["semi", ["+I 1 10", "-D 1 10"]],
    ["anti", ["+I 1 10", "-D 1 10", "+I 1 10"]],
  ] as const)(
    "%s: the padded row is replaced when the first match arrives and restored when it leaves",
    (type, expected) => {
      const n = node(type);
      const steps: Step[] =
        type === "right"
          ? [inserts([[1, 20]], 1), inserts([[1, 10]], 0), data([[Op.DELETE, [1, 10]]], 0)]
          : [inserts([[1, 10]], 0), inserts([[1, 20]], 1), data([[Op.DELETE, [1, 20]]], 1)];
      expect(runWithRestarts(make(n), n, steps).lines).toEqual(expected);
    },
  );

  it("state TTL: rows not written for the TTL are gone", () => {
    const n = node("inner");
    const res = run(
      make(n),
      n,
      [
        inserts([[1, 10]], 0),
        procTime(5_000),
        inserts([[1, 20]], 1),
        procTime(20_000),
        inserts([[1, 30]], 1),
      ],
      { "table.exec.state.ttl": "10 s" },
    );
    expect(res.lines).toEqual(["+I 1 10 1 20"]);
  });
});
