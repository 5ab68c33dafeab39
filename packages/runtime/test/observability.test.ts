import type { PhysicalNode } from "@weir/planner";
import { T } from "@weir/planner";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { ChangeBatch } from "../src/changelog.js";
import { Message } from "../src/changelog.js";
import { TaskDriver } from "../src/job/driver.js";
import {
  EventTimeLagSketch,
  LAG_WINDOW_MS,
  LATENCY_BUCKETS_MS,
  LatencyHistogram,
} from "../src/job/latency.js";
import type { Operator, OperatorContext } from "../src/operator.js";
import { MemoryStateBackend } from "../src/state/memory.js";

// The numbers behind the observability metrics: latency histograms, the event-time lag sketch,
// state sizes and barrier alignment time.

describe("LatencyHistogram", () => {
  it("counts into cumulative buckets and continues a restored histogram", () => {
    const h = new LatencyHistogram();
    for (const ms of [0.5, 3, 3, 700, 90_000]) h.observe(ms);
    const j = h.toJson();
    const at = (le: number) => j.buckets[LATENCY_BUCKETS_MS.indexOf(le)];
    expect(at(1)).toBe(1);
    expect(at(2)).toBe(1);
    expect(at(5)).toBe(3);
    expect(at(500)).toBe(3);
    expect(at(1000)).toBe(4);
    expect(at(60_000)).toBe(4);
    expect(j.buckets.at(-1)).toBe(5);
    expect(j.count).toBe(5);
    expect(j.sum).toBeCloseTo(90_706.5, 6);
    const restored = new LatencyHistogram();
    restored.observe(3);
    restored.add(j);
    expect(restored.toJson().count).toBe(6);
    expect(restored.toJson().buckets[LATENCY_BUCKETS_MS.indexOf(5)]).toBe(4);
  });
});

const batch = (rows: [number, number][]): ChangeBatch => ({
  ops: rows.map(([op]) => op),
  rows: rows.map(([, t]) => [t]),
  length: rows.length,
});

describe("EventTimeLagSketch", () => {
  it("gives P50/P95/P99 of now − event time within 6 %, over inserts and update-afters only", () => {
    const now = 1_000_000_000;
    const s = new EventTimeLagSketch(0, now);
    // Lags of 1 s .. 100 s as +I; the same again as -U/-D (ignored); one +U of 100 s.
    const rows: [number, number][] = [];
    for (let i = 1; i <= 100; i++) rows.push([0, now - i * 1000]);
    for (let i = 1; i <= 100; i++) rows.push([i % 2 === 0 ? 1 : 3, now - 1]);
    rows.push([2, now - 100_000]);
    s.addBatch(batch(rows), now);
    const q = s.quantiles(now)!;
    expect(q.count).toBe(101);
    expect(Math.abs(q.p50 / 51_000 - 1)).toBeLessThan(0.062);
    expect(Math.abs(q.p95 / 96_000 - 1)).toBeLessThan(0.062);
    expect(Math.abs(q.p99 / 100_000 - 1)).toBeLessThan(0.062);
  });

  it("buckets every lag from 1 ms to decades within 6 % (integer arithmetic, no log per row)", () => {
    for (const lag of [1, 2, 3, 7, 8, 9, 999, 1000, 65_537, 2 ** 31 - 1, 2 ** 31, 6 * 365 * 86_400_000]) {
      const s = new EventTimeLagSketch(0, lag);
      s.addBatch(batch([[0, 0]]), lag);
      expect(Math.abs(s.quantiles(lag)!.p50 / lag - 1), `lag ${lag}`).toBeLessThan(0.062);
    }
  });

  it("covers the last 30 to 60 s: older rows leave it", () => {
    const t0 = 5_000_000;
    const s = new EventTimeLagSketch(0, t0);
    s.addBatch(batch([[0, t0 - 10]]), t0);
    s.addBatch(batch([[0, t0 + LAG_WINDOW_MS - 1000]]), t0 + LAG_WINDOW_MS);
    expect(s.quantiles(t0 + LAG_WINDOW_MS)!.count).toBe(2);
    // One window later the first row is gone, the second is still counted.
    expect(s.quantiles(t0 + 2 * LAG_WINDOW_MS)!.count).toBe(1);
    expect(s.quantiles(t0 + 4 * LAG_WINDOW_MS)).toBeNull();
    // Rows in the future or without a time count as no lag or not at all.
    s.addBatch({ ops: [0, 0], rows: [[t0 + 9e9], [null]], length: 2 }, t0 + 4 * LAG_WINDOW_MS);
    expect(s.quantiles(t0 + 4 * LAG_WINDOW_MS)).toEqual({ p50: 0, p95: 0, p99: 0, count: 1 });
  });
});

describe("state stats", () => {
  it("count keys of keyed tables and entries of time-indexed tables and timers", () => {
    const b = new MemoryStateBackend({ clock: () => 0 });
    const v = b.value<number>("v");
    const m = b.map<string, number>("m");
    const t = b.timeIndexed<number>("t");
    const timers = b.timers("timers");
    v.put("a", 1);
    v.put("b", 2);
    m.put("a", "x", 1);
    m.put("a", "y", 2);
    t.put(10, "a", 1);
    t.put(20, "a", 1);
    t.put(20, "b", 1);
    timers.registerEventTimeTimer("a", 10);
    expect(b.stats()).toEqual({ keys: 3, timeEntries: 4 });
    v.delete("a");
    t.expireUpTo(10);
    expect(b.stats()).toEqual({ keys: 2, timeEntries: 3 });
  });
});

describe("barrier alignment time", () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  const node: PhysicalNode = {
    kind: "calc",
    id: 4,
    inputs: [0, 1],
    changelogMode: { kind: "insert-only" },
    streamKey: null,
    watermarkColumn: null,
    schema: [{ name: "v", type: T.int() }],
    projections: [],
    condition: null,
  };
  class Pass implements Operator {
    open(_ctx: OperatorContext): void {}
    processBatch(): void {}
    onWatermark(w: number): number {
      return w;
    }
  }

  it("is the time from a task's first barrier to its last, per checkpoint", () => {
    let clock = 100;
    vi.spyOn(performance, "now").mockImplementation(() => clock);
    const d = new TaskDriver(node, new Pass(), { settings: {}, now: () => 0, output: () => undefined });
    d.open();
    d.receive(0, Message.barrier(1));
    clock = 112.5;
    d.receive(1, Message.data({ ops: [0], rows: [[1]], length: 1 }));
    d.receive(1, Message.barrier(1));
    expect(d.lastAlignment).toEqual({ id: 1, ms: 12.5 });
    // The other input first this time; both at once is no wait.
    d.receive(1, Message.barrier(2));
    d.receive(0, Message.barrier(2));
    expect(d.lastAlignment).toEqual({ id: 2, ms: 0 });
  });
});
