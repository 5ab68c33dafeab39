import type { DeduplicateNode } from "@weir/planner";
import { T } from "@weir/planner";
import { describe, expect, it } from "vitest";
import { OperatorHarness } from "../../src/testing/harness.js";
import { base, node } from "./nodes.js";

// input: k STRING, ts TIMESTAMP(3), v INT
function dedup(keepLast: boolean, timeKind: "rowtime" | "proctime", upsert = false): DeduplicateNode {
  return node<"deduplicate">({
    kind: "deduplicate",
    ...base([T.string(), T.timestamp(3), T.int()]),
    ...(upsert ? { changelogMode: { kind: "upsert", key: [0] } } : {}),
    keys: [0],
    keepLast,
    timeColumn: 1,
    timeKind,
  });
}

describe("deduplicate", () => {
  it.each([
    [
      "proctime keep first: insert-only",
      dedup(false, "proctime"),
      ["+I a 5 1\n+I a 1 2\n+I b 9 3", "+I a 0 4"],
      ["+I a 5 1\n+I b 9 3", ""],
    ],
    [
      "proctime keep last: every later row updates",
      dedup(true, "proctime"),
      ["+I a 5 1\n+I a 1 2", "+I a 9 3"],
      ["+I a 5 1\n-U a 5 1\n+U a 1 2", "-U a 1 2\n+U a 9 3"],
    ],
    [
      "rowtime keep first: an earlier row replaces the kept one",
      dedup(false, "rowtime"),
      ["+I a 5 1\n+I a 7 2", "+I a 3 3", "+I a 3 4"],
      ["+I a 5 1", "-U a 5 1\n+U a 3 3", ""],
    ],
    [
      "rowtime keep last: a row not earlier replaces the kept one",
      dedup(true, "rowtime"),
      ["+I a 5 1\n+I a 3 2", "+I a 5 3", "+I a 9 4"],
      ["+I a 5 1", "-U a 5 1\n+U a 5 3", "-U a 5 3\n+U a 9 4"],
    ],
    ["upsert mode: no -U", dedup(true, "proctime", true), ["+I a 5 1\n+I a 1 2"], ["+I a 5 1\n+U a 1 2"]],
    [
      "keep last: retracting the kept row deletes it, other retractions are ignored",
      dedup(true, "proctime"),
      ["+I a 5 1\n+I a 6 2", "-D a 5 1", "-D a 6 2", "+I a 7 3"],
      ["+I a 5 1\n-U a 5 1\n+U a 6 2", "", "-D a 6 2", "+I a 7 3"],
    ],
  ])("%s", (_name, n, inputs, outputs) => {
    const h = new OperatorHarness(n);
    inputs.forEach((input, i) => {
      h.push(input);
      expect(h.output()).toBe(outputs[i]);
      h.snapshotAndRestore();
    });
  });

  it("proctime keep first refuses a retraction", () => {
    const h = new OperatorHarness(dedup(false, "proctime"));
    expect(() => h.push("-D a 1 1")).toThrow(/insert-only input, got -D/);
  });

  it("forgets keys after table.exec.state.ttl", () => {
    const h = new OperatorHarness(dedup(false, "proctime"), {
      settings: { "table.exec.state.ttl": "1 min" },
    });
    h.push("+I a 1 1");
    h.setTime(59_999).push("+I a 2 2");
    h.setTime(200_000).push("+I a 3 3");
    expect(h.output()).toBe("+I a 1 1\n+I a 3 3");
  });
});
