import { describe, expect, it } from "vitest";
import { encodeJson } from "../src/state/codec.js";
import {
  InputWatermarkMerger,
  type WatermarkEvent,
  WatermarkTracker,
  type WatermarkTrackerSnapshot,
} from "../src/time/watermarks.js";

const show = (e: WatermarkEvent | null) =>
  e === null ? "-" : e.kind === "idle" ? "idle" : `wm ${e.timestamp}`;

/**
 * Steps for a source tracker: `t=<ms>` sets the clock, `<split>:<wm>` records a row with that
 * watermark candidate, `+<split>` registers a split, `x<split>` removes it, `poll` polls and
 * records what was emitted.
 */
function runTracker(idleTimeoutMs: number, steps: string, idleAdvanceMs = 0): string[] {
  let now = 0;
  const tracker = new WatermarkTracker({ idleTimeoutMs, idleAdvanceMs, clock: () => now });
  const out: string[] = [];
  for (const step of steps.split(/\s+/).filter(Boolean)) {
    if (step.startsWith("t=")) now = Number(step.slice(2));
    else if (step === "poll") out.push(show(tracker.poll()));
    else if (step.startsWith("+")) tracker.addSplit(step.slice(1));
    else if (step.startsWith("x")) tracker.removeSplit(step.slice(1));
    else {
      const [split, wm] = step.split(":");
      tracker.onRecord(split, Number(wm));
    }
  }
  return out;
}

describe("WatermarkTracker", () => {
  it.each([
    ["nothing before any split", 0, "poll", ["-"]],
    ["one split advances", 0, "a:10 poll a:5 poll a:20 poll poll", ["wm 10", "-", "wm 20", "-"]],
    ["min over splits", 0, "a:10 b:3 poll b:15 poll a:30 poll", ["wm 3", "wm 10", "wm 15"]],
    ["a registered split without data holds the watermark", 0, "+b a:10 poll b:7 poll", ["-", "wm 7"]],
    [
      "an idle split stops holding the watermark back",
      100,
      "a:10 b:3 poll t=60 a:50 poll t=120 poll",
      ["wm 3", "-", "wm 50"],
    ],
    [
      "a split back from idleness does not move the watermark backwards",
      100,
      "a:10 b:3 poll t=60 a:50 t=120 poll b:20 poll a:70 b:60 poll",
      ["wm 3", "wm 50", "-", "wm 60"],
    ],
    [
      "all idle → idle once; data → watermark again",
      100,
      "a:10 poll t=100 poll poll a:5 poll a:11 poll",
      ["wm 10", "idle", "-", "wm 10", "wm 11"],
    ],
    ["no idleness with timeout 0", 0, "a:10 b:3 poll t=1000000 poll", ["wm 3", "-"]],
    ["a removed split no longer holds it back", 0, "a:10 b:3 poll xb poll", ["wm 3", "wm 10"]],
  ] as const)("%s", (_name, timeout, steps, expected) => {
    expect(runTracker(timeout, steps)).toEqual(expected);
  });

  describe("quiet streams ('scan.watermark.idle-advance')", () => {
    it.each([
      [
        "advances with processing time from the latest candidate once every split is quiet",
        "t=0 a:1000 poll t=999 poll t=1000 poll t=1250 poll t=1250 poll t=5000 poll",
        ["wm 1000", "-", "-", "wm 1250", "-", "wm 5000"],
      ],
      [
        "starts from the largest candidate of any split, not the minimum",
        "t=0 a:1000 b:400 poll t=1000 poll t=1100 poll",
        ["wm 400", "wm 1000", "wm 1100"],
      ],
      [
        "one split with data keeps the others from advancing",
        "t=0 a:1000 b:400 poll t=900 b:500 t=1500 poll t=1899 poll t=1900 poll t=2400 poll",
        ["wm 400", "wm 500", "-", "wm 1000", "wm 1500"],
      ],
      [
        "never backwards: a row after the advance waits until its split passes the watermark",
        "t=0 a:1000 poll t=3000 poll t=3100 a:1500 poll a:2900 poll a:3200 poll",
        ["wm 1000", "wm 3000", "-", "-", "wm 3200"],
      ],
      ["a source that never had a row does not advance", "+a t=5000 poll", ["-"]],
    ] as const)("%s", (_name, steps, expected) => {
      expect(runTracker(0, steps, 1000)).toEqual(expected);
    });

    it("an all-idle source (idle-timeout) becomes active again when it starts advancing", () => {
      expect(runTracker(100, "t=0 a:1000 poll t=100 poll t=1000 poll t=1200 poll", 1000)).toEqual([
        "wm 1000",
        "idle",
        "wm 1000",
        "wm 1200",
      ]);
    });

    it("is off by default: a quiet source keeps its watermark", () => {
      expect(runTracker(0, "t=0 a:1000 poll t=1000000 poll")).toEqual(["wm 1000", "-"]);
    });

    it("after a restore the quiet period counts from the restore", () => {
      let now = 0;
      const a = new WatermarkTracker({ idleAdvanceMs: 1000, clock: () => now });
      a.onRecord("p0", 1000);
      a.poll();
      now = 1500;
      expect(show(a.poll())).toBe("wm 1500");
      const snap = JSON.parse(JSON.stringify(a.snapshot()));
      now = 10_000;
      const b = new WatermarkTracker({ idleAdvanceMs: 1000, clock: () => now });
      b.restore(snap);
      expect(b.currentWatermark).toBe(1500);
      now = 10_999;
      expect(show(b.poll())).toBe("-");
      now = 11_600;
      expect(show(b.poll())).toBe("wm 1600");
    });
  });

  it("restores split watermarks from a snapshot", () => {
    const a = new WatermarkTracker();
    a.onRecord(0, 10);
    a.onRecord(1, 20);
    a.poll();
    const b = new WatermarkTracker();
    b.restore(JSON.parse(JSON.stringify(a.snapshot())));
    expect(b.currentWatermark).toBe(10);
    b.onRecord(0, 15);
    expect(show(b.poll())).toBe("wm 15");
  });

  it("restores the snapshots of older checkpoints, which encoded the watermarks twice", () => {
    // What a source's checkpoint held before its part was typed: the codec applied twice.
    const old = encodeJson(
      encodeJson({
        emitted: 10,
        splits: [
          ["p0", 10],
          ["p1", Number.POSITIVE_INFINITY],
        ],
      }),
    );
    expect(old).toEqual({
      emitted: 10,
      splits: [
        ["p0", 10],
        ["p1", { $o: { $n: "Infinity" } }],
      ],
    });
    const b = new WatermarkTracker();
    b.restore(old as unknown as WatermarkTrackerSnapshot);
    expect(b.currentWatermark).toBe(10);
    expect(b.snapshot()).toEqual({
      emitted: 10,
      splits: [
        ["p0", 10],
        ["p1", { $n: "Infinity" }],
      ],
    });
  });

  it("snapshots the initial watermark (-Infinity) through JSON", () => {
    const a = new WatermarkTracker();
    a.addSplit("p0");
    const b = new WatermarkTracker();
    b.restore(JSON.parse(JSON.stringify(a.snapshot())));
    expect(b.currentWatermark).toBe(Number.NEGATIVE_INFINITY);
    b.onRecord("p1", 5);
    expect(show(b.poll())).toBe("-");
  });
});

/** Steps: `<input>:<wm>`, `<input>:idle`, `<input>:data`, `<input>:end`. */
function runMerger(inputs: number, steps: string): string[] {
  const m = new InputWatermarkMerger(inputs);
  return steps
    .split(/\s+/)
    .filter(Boolean)
    .map((step) => {
      const [i, what] = step.split(":");
      const input = Number(i);
      if (what === "idle") return show(m.onIdle(input));
      if (what === "data") return show(m.onData(input));
      if (what === "end") return show(m.onEnd(input));
      return show(m.onWatermark(input, Number(what)));
    });
}

describe("InputWatermarkMerger", () => {
  it.each([
    ["single input passes advances only", 1, "0:5 0:5 0:3 0:9", ["wm 5", "-", "-", "wm 9"]],
    ["min over inputs", 2, "0:5 1:3 1:8 0:10", ["-", "wm 3", "wm 5", "wm 8"]],
    ["an idle input is excluded", 2, "0:5 1:idle 0:7", ["-", "wm 5", "wm 7"]],
    [
      "an input back from idle holds again, never backwards",
      2,
      "0:5 1:idle 0:9 1:4 0:20 1:12",
      ["-", "wm 5", "wm 9", "-", "-", "wm 12"],
    ],
    ["data reactivates an idle input", 2, "0:5 1:2 1:idle 1:data 0:9", ["-", "wm 2", "wm 5", "-", "-"]],
    [
      "all idle → idle once, then re-announce",
      2,
      "0:5 1:5 0:idle 1:idle 1:idle 1:5",
      ["-", "wm 5", "-", "idle", "-", "wm 5"],
    ],
    ["an ended input counts as +∞", 2, "0:5 1:end 0:6 0:end", ["-", "wm 5", "wm 6", "wm Infinity"]],
  ] as const)("%s", (_name, inputs, steps, expected) => {
    expect(runMerger(inputs, steps)).toEqual(expected);
  });
});
