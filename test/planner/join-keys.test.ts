import { describe, expect, it } from "vitest";
import type { JoinNode } from "../../packages/planner/src/physical.js";
import { planScript } from "./plan-helpers.js";

const DDL = `
CREATE TABLE l (a BIGINT, b STRING) WITH ('connector' = 'filesystem', 'path' = 'l.jsonl', 'format' = 'json');
CREATE TABLE r (k BIGINT, v STRING) WITH ('connector' = 'filesystem', 'path' = 'r.jsonl', 'format' = 'json');
CREATE TABLE o (a BIGINT, v STRING) WITH ('connector' = 'blackhole');
`;

function join(on: string, type = "JOIN"): { join: JoinNode; sinkWidth: number } {
  const dag = planScript(`${DDL} INSERT INTO o SELECT l.a, r.v FROM l ${type} r ON ${on};`);
  const joins = dag.nodes.filter((n): n is JoinNode => n.kind === "join");
  expect(joins).toHaveLength(1);
  return { join: joins[0]!, sinkWidth: dag.nodes[dag.sinks[0]!]!.schema.length };
}

describe("computed equi-join keys", () => {
  it.each([
    ["MOD(l.a, 10) = r.k", "JOIN", 1, false],
    ["r.k = MOD(l.a, 10)", "JOIN", 1, false],
    ["MOD(l.a, 10) = r.k + 1 AND l.b = r.v", "JOIN", 2, false],
    ["MOD(l.a, 10) = r.k AND l.b <> r.v", "LEFT JOIN", 1, true],
    // Reads both sides in one expression: stays a residual condition.
    ["l.a + r.k = 3", "JOIN", 0, true],
  ] as const)("%s (%s): %i hash keys, residual %s", (on, type, keys, residual) => {
    const { join: j, sinkWidth } = join(on, type);
    expect(j.leftKeys).toHaveLength(keys);
    expect(j.rightKeys).toHaveLength(keys);
    expect(j.condition !== null).toBe(residual);
    expect(sinkWidth).toBe(2);
  });

  it("hashes on the projected key columns and drops them after the join", () => {
    const dag = planScript(`${DDL} INSERT INTO o SELECT l.a, r.v FROM l JOIN r ON MOD(l.a, 10) = r.k;`);
    const j = dag.nodes.find((n): n is JoinNode => n.kind === "join")!;
    const [left, right] = j.inputs.map((i) => dag.nodes[i]!);
    expect(left!.schema.map((f) => f.name)).toEqual(["a", "b", "$key0"]);
    expect(right!.schema.map((f) => f.name)).toEqual(["k", "v", "$key0"]);
    expect(j.leftKeys).toEqual([2]);
    expect(j.rightKeys).toEqual([2]);
    const above = dag.nodes.find((n) => n.inputs.includes(j.id))!;
    expect(above.schema.map((f) => f.name)).not.toContain("$key0");
  });
});
