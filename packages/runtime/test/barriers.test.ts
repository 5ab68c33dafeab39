import { describe, expect, it } from "vitest";
import { ChangeBatch, type Message } from "../src/changelog.js";
import { BarrierAligner } from "../src/time/barriers.js";

/**
 * Steps: `<input>:d<n>` data tagged n, `<input>:b<id>` barrier, `<input>:end`, `<input>:w<ts>`.
 * The trace lists what the operator saw: `<input>:d<n>`, `<input>:end`, `<input>:w<ts>`,
 * `cp<id>` (snapshot), `abort<id>`.
 */
function run(inputs: number, steps: string): string[] {
  const trace: string[] = [];
  const aligner = new BarrierAligner(inputs, {
    onMessage: (input, m) => {
      if (m.kind === "data") trace.push(`${input}:d${m.batch.rows[0][0]}`);
      else if (m.kind === "watermark") trace.push(`${input}:w${m.timestamp}`);
      else trace.push(`${input}:${m.kind}`);
    },
    onCheckpoint: (id) => trace.push(`cp${id}`),
    onCheckpointAborted: (id) => trace.push(`abort${id}`),
  });
  for (const step of steps.split(/\s+/).filter(Boolean)) {
    const [i, what] = step.split(":");
    let m: Message;
    if (what === "end") m = { kind: "end" };
    else if (what.startsWith("b")) m = { kind: "barrier", checkpointId: Number(what.slice(1)) };
    else if (what.startsWith("w")) m = { kind: "watermark", timestamp: Number(what.slice(1)) };
    else m = { kind: "data", batch: ChangeBatch.inserts([[Number(what.slice(1))]]) };
    aligner.receive(Number(i), m);
  }
  return trace;
}

describe("BarrierAligner", () => {
  it.each([
    ["one input snapshots at once", 1, "0:d1 0:b1 0:d2", "0:d1 cp1 0:d2"],
    ["buffers the input that has its barrier", 2, "0:d1 0:b1 0:d2 1:d3 1:b1 1:d4", "0:d1 1:d3 cp1 0:d2 1:d4"],
    [
      "releases in arrival order across inputs",
      3,
      "0:b1 0:d1 1:b1 1:d2 0:d3 2:d4 2:b1",
      "2:d4 cp1 0:d1 1:d2 0:d3",
    ],
    ["watermarks are held back like data", 2, "0:b1 0:w5 1:w3 1:b1", "1:w3 cp1 0:w5"],
    [
      "a buffered barrier starts the next alignment on release",
      2,
      "0:b1 0:d1 0:b2 0:d2 1:d3 1:b1 1:d4 1:b2",
      "1:d3 cp1 0:d1 1:d4 cp2 0:d2",
    ],
    ["an ended input counts as having passed the barrier", 2, "1:end 0:d1 0:b1 0:d2", "1:end 0:d1 cp1 0:d2"],
    ["an end during alignment completes it", 2, "0:b1 0:d1 1:d2 1:end", "1:d2 1:end cp1 0:d1"],
    ["stale barriers are ignored", 2, "0:b2 1:b2 0:b1 1:b1 0:d1", "cp2 0:d1"],
    ["ids compare as numbers", 2, "0:b9 1:b9 0:b10 1:d1 1:b10", "cp9 1:d1 cp10"],
    [
      "a newer barrier aborts the pending alignment",
      2,
      "0:b1 0:d1 1:d2 1:b2 0:d3 0:b2 0:d4",
      "1:d2 abort1 0:d1 0:d3 cp2 0:d4",
    ],
  ])("%s", (_name, inputs, steps, expected) => {
    expect(run(inputs, steps).join(" ")).toBe(expected);
  });

  it("reports what it holds back", () => {
    const a = new BarrierAligner(2, { onMessage: () => {}, onCheckpoint: () => {} });
    a.receive(0, { kind: "barrier", checkpointId: 1 });
    a.receive(0, { kind: "end" });
    expect(a.aligning).toBe(1);
    expect(a.buffered).toBe(1);
    expect(a.finished).toBe(false);
    a.receive(1, { kind: "end" });
    expect(a.aligning).toBe(null);
    expect(a.finished).toBe(true);
  });
});
