import type { DeduplicateNode } from "@weir/planner";
import { T } from "@weir/planner";
import { OperatorHarness } from "@weir/runtime/testing";
import { describe, expect, it } from "vitest";
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

  describe("rowtime keep first (Flink 2.1+: insert-only, on the watermark)", () => {
    it("keeps the earliest row per key (ties: the first) and emits it once the watermark passes it", () => {
      const h = new OperatorHarness(dedup(false, "rowtime"));
      h.push("+I a 5 1\n+I a 7 2\n+I b 6 3");
      expect(h.output()).toBe("");
      h.snapshotAndRestore();
      h.push("+I a 3 4\n+I a 3 5");
      h.watermark(2);
      expect(h.output()).toBe("");
      h.snapshotAndRestore();
      h.watermark(5);
      expect(h.output()).toBe("+I a 3 4");
      h.snapshotAndRestore();
      h.push("+I a 9 6\n+I b 7 7").watermark(6);
      expect(h.output()).toBe("+I b 6 3");
      h.end();
      expect(h.output()).toBe("");
      expect(h.metrics.lateRecordsDropped).toBe(0);
    });

    it("sends rows before the watermark to the late channel, counted (a row at the watermark is on time)", () => {
      const h = new OperatorHarness(dedup(false, "rowtime"));
      h.push("+I a 5 1").watermark(4);
      h.push("+I a 4 2\n+I b 3 3\n+I b 8 4");
      h.snapshotAndRestore();
      h.watermark(10).push("+I c 10 5\n+I a 2 6\n+I c 11 7\n+I a 12 8").end();
      expect(h.output()).toBe("+I a 4 2\n+I b 8 4\n+I c 10 5");
      // b 3 and a 2 are late; c 11 and a 12 are duplicates (not late).
      expect(h.metrics.lateRecordsDropped).toBe(2);
    });

    it("keeps a waiting row past 'table.exec.state.ttl' (only emitted keys expire)", () => {
      const h = new OperatorHarness(dedup(false, "rowtime"), {
        settings: { "table.exec.state.ttl": "1 min" },
      });
      h.push("+I a 5 1");
      h.setTime(200_000).push("+I a 7 2\n+I a 6 3").watermark(10);
      expect(h.output()).toBe("+I a 5 1");
      h.setTime(250_000).push("+I a 20 4");
      h.setTime(400_000).push("+I a 30 5").end();
      expect(h.output()).toBe("+I a 30 5");
    });

    it("emits the rows one watermark passes in rowtime order", () => {
      const h = new OperatorHarness(dedup(false, "rowtime"));
      h.push("+I a 9 1\n+I b 4 2\n+I c 6 3\n+I d 4 4").watermark(9);
      expect(h.output()).toBe("+I b 4 2\n+I d 4 4\n+I c 6 3\n+I a 9 1");
    });

    it("refuses a retraction", () => {
      const h = new OperatorHarness(dedup(false, "rowtime"));
      expect(() => h.push("-D a 1 1")).toThrow(/event time needs an insert-only input, got -D/);
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
