import type { AggregateCall, DataType } from "@weir/planner";
import { T } from "@weir/planner";
import { OperatorHarness } from "@weir/runtime/testing";
import { describe, expect, it } from "vitest";
import { base, node } from "./nodes.js";

const INT = T.int();
const BIGINT = T.bigint(false);
const STR = T.string();

function agg(fn: string, args: number[], type: DataType, extra: Partial<AggregateCall> = {}): AggregateCall {
  return {
    fn,
    args,
    argTypes: args.map(() => INT),
    distinct: false,
    filterColumn: null,
    type,
    name: fn,
    ...extra,
  };
}

// SELECT k, COUNT(*), SUM(v), MAX(v), COUNT(DISTINCT v), COUNT(*) FILTER (WHERE f) FROM t GROUP BY k
// input: k STRING, v INT, f BOOLEAN
const groupAgg = (insertOnly: boolean, mode: "retract" | "upsert" = "retract") =>
  node<"group-aggregate">({
    kind: "group-aggregate",
    ...base([STR, BIGINT, INT, INT, BIGINT, BIGINT]),
    changelogMode: mode === "retract" ? { kind: "retract" } : { kind: "upsert", key: [0] },
    groupKeys: [0],
    aggregates: [
      agg("COUNT", [], BIGINT),
      agg("SUM", [1], INT),
      agg("MAX", [1], INT),
      agg("COUNT", [1], BIGINT, { distinct: true }),
      agg("COUNT", [], BIGINT, { filterColumn: 2 }),
    ],
    inputInsertOnly: insertOnly,
  });

describe("group-aggregate", () => {
  it.each([
    ["first row of a group emits +I", ["+I a 1 true"], ["+I a 1 1 1 1 1"]],
    [
      "a change emits -U/+U",
      ["+I a 1 true", "+I a 2 false"],
      ["+I a 1 1 1 1 1", "-U a 1 1 1 1 1\n+U a 2 3 2 2 1"],
    ],
    ["groups are independent", ["+I a 1 true\n+I b 5 true"], ["+I a 1 1 1 1 1\n+I b 1 5 5 1 1"]],
    [
      "retraction of the last row emits -D of the last result",
      ["+I a 1 true", "-D a 1 true"],
      ["+I a 1 1 1 1 1", "-D a 1 1 1 1 1"],
    ],
    [
      "retraction updates MAX and DISTINCT",
      ["+I a 1 true\n+I a 3 true\n+I a 3 false", "-D a 3 true"],
      [
        "+I a 1 1 1 1 1\n-U a 1 1 1 1 1\n+U a 2 4 3 2 2\n-U a 2 4 3 2 2\n+U a 3 7 3 2 2",
        "-U a 3 7 3 2 2\n+U a 2 4 3 2 1",
      ],
    ],
    ["retraction of an unknown group is ignored", ["-D z 1 true"], [""]],
    [
      "an update pair of the input",
      ["+I a 1 true", "-U a 1 true\n+U a 2 true"],
      ["+I a 1 1 1 1 1", "-D a 1 1 1 1 1\n+I a 1 2 2 1 1"],
    ],
  ])("%s", (_name, inputs, outputs) => {
    const h = new OperatorHarness(groupAgg(false));
    inputs.forEach((input, i) => {
      h.push(input);
      expect(h.output()).toBe(outputs[i]);
    });
  });

  it("emits nothing when the result does not change", () => {
    // SELECT k, MAX(v) ... : a smaller value leaves MAX unchanged
    const n = node<"group-aggregate">({
      kind: "group-aggregate",
      ...base([STR, INT]),
      groupKeys: [0],
      aggregates: [agg("MAX", [1], INT)],
      inputInsertOnly: true,
    });
    const h = new OperatorHarness(n);
    h.push("+I a 5\n+I a 3\n+I a 5\n+I a 7");
    expect(h.output()).toBe("+I a 5\n-U a 5\n+U a 7");
  });

  it("upsert mode emits +U without -U", () => {
    const h = new OperatorHarness(groupAgg(true, "upsert"));
    h.push("+I a 1 true\n+I a 2 true");
    expect(h.output()).toBe("+I a 1 1 1 1 1\n+U a 2 3 2 2 2");
  });

  it("a global aggregate (no keys)", () => {
    const n = node<"group-aggregate">({
      kind: "group-aggregate",
      ...base([BIGINT, INT]),
      groupKeys: [],
      aggregates: [agg("COUNT", [], BIGINT), agg("SUM", [0], INT)],
      inputInsertOnly: false,
    });
    const h = new OperatorHarness(n);
    h.push("+I 4\n+I 6\n-D 4");
    expect(h.output()).toBe("+I 1 4\n-U 1 4\n+U 2 10\n-U 2 10\n+U 1 6");
  });

  it("keeps its state across snapshotAndRestore", () => {
    const h = new OperatorHarness(groupAgg(false));
    h.push("+I a 1 true\n+I a 3 true");
    h.output();
    h.snapshotAndRestore();
    h.push("+I a 3 true\n-D a 1 true");
    expect(h.output()).toBe("-U a 2 4 3 2 2\n+U a 3 7 3 2 3\n-U a 3 7 3 2 3\n+U a 2 6 3 1 2");
  });

  it("expires idle groups after table.exec.state.ttl", () => {
    const h = new OperatorHarness(groupAgg(true), { settings: { "table.exec.state.ttl": "10 s" } });
    h.push("+I a 1 true");
    h.setTime(5_000).push("+I a 1 true");
    h.setTime(14_000).push("+I a 1 true"); // written at 5 s: still live at 14 s
    h.setTime(30_000);
    h.push("+I a 1 true"); // expired: a new group
    expect(h.output()).toBe(
      "+I a 1 1 1 1 1\n-U a 1 1 1 1 1\n+U a 2 2 1 1 2\n-U a 2 2 1 1 2\n+U a 3 3 1 1 3\n+I a 1 1 1 1 1",
    );
  });
});
