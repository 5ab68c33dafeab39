import { describe, expect, it } from "vitest";
import {
  cumulativeAssigner,
  floorMod,
  hoppingAssigner,
  isLate,
  isWindowFired,
  type SliceAssigner,
  tumblingAssigner,
} from "../src/windows/slices.js";

describe("floorMod", () => {
  it.each([
    [7, 5, 2],
    [-7, 5, 3],
    [-5, 5, 0],
    [0, 5, 0],
  ])("floorMod(%i, %i) = %i", (a, m, r) => expect(floorMod(a, m)).toBe(r));
});

describe("slice assignment", () => {
  it.each([
    // [name, assigner, timestamp, slice end, window ends of the slice]
    ["tumble", tumblingAssigner(10), 0, 10, [10]],
    ["tumble, end is exclusive", tumblingAssigner(10), 9, 10, [10]],
    ["tumble, before epoch", tumblingAssigner(10), -1, 0, [0]],
    ["tumble, before epoch on a boundary", tumblingAssigner(10), -10, 0, [0]],
    ["tumble, offset", tumblingAssigner(10, 3), 2, 3, [3]],
    ["tumble, negative offset", tumblingAssigner(10, -3), 7, 17, [17]],
    ["tumble, negative offset and time", tumblingAssigner(10, -3), -14, -13, [-13]],
    ["hop 10/5", hoppingAssigner(10, 5), 7, 10, [10, 15]],
    ["hop 10/5 before epoch", hoppingAssigner(10, 5), -1, 0, [0, 5]],
    ["hop 10/4: slices of 2", hoppingAssigner(10, 4), 7, 8, [10, 14]],
    ["hop 10/4: slice in three windows", hoppingAssigner(10, 4), 5, 6, [6, 10, 14]],
    ["hop 10/4 offset 1", hoppingAssigner(10, 4, 1), 5, 7, [7, 11, 15]],
    ["hop 10/4 before epoch", hoppingAssigner(10, 4), -3, -2, [-2, 2, 6]],
    ["hop 5/10: a row in the gap has no window", hoppingAssigner(5, 10), 7, 10, []],
    ["cumulate 10/2", cumulativeAssigner(10, 2), 3, 4, [4, 6, 8, 10]],
    ["cumulate 10/2, last slice", cumulativeAssigner(10, 2), 9, 10, [10]],
    ["cumulate 10/2 before epoch", cumulativeAssigner(10, 2), -9, -8, [-8, -6, -4, -2, 0]],
    ["cumulate 10/2 offset -3", cumulativeAssigner(10, 2, -3), 0, 1, [1, 3, 5, 7]],
  ] as const)("%s: ts %i → slice end %i, windows %j", (_n, a, ts, sliceEnd, windows) => {
    expect(a.sliceEnd(ts)).toBe(sliceEnd);
    expect(a.windowEndsOf(sliceEnd)).toEqual(windows);
  });

  it.each([
    ["tumble", tumblingAssigner(10), 20, 10, [20], [20]],
    ["hop 10/4", hoppingAssigner(10, 4), 14, 4, [6, 8, 10, 12, 14], [6, 8]],
    ["hop 10/5", hoppingAssigner(10, 5), 15, 5, [10, 15], [10]],
    ["hop 5/10", hoppingAssigner(5, 10), 15, 10, [15], [15]],
    ["cumulate 10/2 mid-period", cumulativeAssigner(10, 2), 16, 10, [12, 14, 16], []],
    [
      "cumulate 10/2 period end",
      cumulativeAssigner(10, 2),
      20,
      10,
      [12, 14, 16, 18, 20],
      [12, 14, 16, 18, 20],
    ],
    ["cumulate 10/5 offset 3 before epoch", cumulativeAssigner(10, 5, 3), -2, -7, [-2], []],
  ] as const)(
    "%s: window ending %i starts at %i, merges %j, expires %j",
    (_n, a, end, start, slices, expired) => {
      expect(a.windowStart(end)).toBe(start);
      expect(a.slicesOf(end)).toEqual(slices);
      expect(a.expiredSlices(end)).toEqual(expired);
    },
  );

  it("refuses bad sizes", () => {
    expect(() => tumblingAssigner(0)).toThrow(/positive/);
    expect(() => hoppingAssigner(10, -1)).toThrow(/positive/);
    expect(() => cumulativeAssigner(10, 3)).toThrow(/multiple of its step/);
  });
});

describe("firing and lateness", () => {
  it.each([
    [10, 8, false],
    [10, 9, true],
    [10, 10, true],
  ])("window ending %i fired at watermark %i: %s", (end, wm, fired) => {
    expect(isWindowFired(end, wm)).toBe(fired);
  });

  it.each([
    // a hop slice is late only once its last window fired
    [hoppingAssigner(10, 5), 10, 9, false],
    [hoppingAssigner(10, 5), 10, 14, true],
    [tumblingAssigner(10), 10, 9, true],
    [cumulativeAssigner(10, 2), 4, 8, false],
    [cumulativeAssigner(10, 2), 4, 9, true],
  ] as const)("%#: slice %i late at watermark %i: %s", (a, sliceEnd, wm, late) => {
    expect(isLate(a, sliceEnd, wm)).toBe(late);
  });
});

/** Windows containing `ts`, by the definition of each window TVF. */
function windowsByDefinition(kind: string, p: number[], ts: number): [number, number][] {
  const out: [number, number][] = [];
  if (kind === "tumble") {
    const [size, off] = p;
    const start = Math.floor((ts - off) / size) * size + off;
    out.push([start, start + size]);
  } else if (kind === "hop") {
    const [size, slide, off] = p;
    for (let k = Math.ceil((ts - size + 1 - off) / slide); k * slide + off <= ts; k++) {
      out.push([k * slide + off, k * slide + off + size]);
    }
  } else {
    const [max, step, off] = p;
    const start = Math.floor((ts - off) / max) * max + off;
    for (let end = start + step; end <= start + max; end += step) if (end > ts) out.push([start, end]);
  }
  return out;
}

describe("slices agree with the window definitions (exhaustive over a range)", () => {
  const configs: [string, number[], SliceAssigner][] = [
    ["tumble", [7, -2], tumblingAssigner(7, -2)],
    ["hop", [10, 4, 3], hoppingAssigner(10, 4, 3)],
    ["hop", [9, 6, -5], hoppingAssigner(9, 6, -5)],
    ["hop", [10, 5, 0], hoppingAssigner(10, 5)],
    ["hop", [4, 6, 1], hoppingAssigner(4, 6, 1)],
    ["cumulate", [12, 3, -1], cumulativeAssigner(12, 3, -1)],
  ];
  it.each(configs)("%s %j", (kind, params, a) => {
    const expiredCount = new Map<number, number>();
    for (let ts = -60; ts < 60; ts++) {
      const sliceEnd = a.sliceEnd(ts);
      expect(sliceEnd - a.sliceSize <= ts && ts < sliceEnd).toBe(true);
      const windows = windowsByDefinition(kind, params, ts);
      expect(a.windowEndsOf(sliceEnd)).toEqual(windows.map((w) => w[1]));
      for (const [start, end] of windows) {
        expect(a.windowStart(end)).toBe(start);
        const slices = a.slicesOf(end);
        expect(slices).toContain(sliceEnd);
        expect(slices[0] - a.sliceSize).toBe(start);
        expect(slices.at(-1)).toBe(end);
      }
    }
    // Every slice that belongs to some window is expired by exactly one window: its last.
    for (let end = a.firstWindowEnd(a.sliceEnd(-60)); end < 60; end += a.windowEndInterval) {
      for (const s of a.expiredSlices(end)) {
        expiredCount.set(s, (expiredCount.get(s) ?? 0) + 1);
        expect(a.lastWindowEnd(s)).toBe(end);
      }
    }
    for (const [, n] of expiredCount) expect(n).toBe(1);
    expect(expiredCount.size).toBeGreaterThan(10);
  });
});
