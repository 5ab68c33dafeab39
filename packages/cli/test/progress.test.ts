import { describe, expect, it } from "vitest";
import { formatSummary, ProgressLine } from "../src/engine/summary.js";

const metrics = (ms: number, read: number, written: number, watermark: number | null) => ({
  durationMs: ms,
  sources: { "0": { table: "orders", connector: "kafka", recordsRead: read, watermark, counters: {} } },
  operators: {
    "2": { kind: "window-aggregate", recordsIn: read, recordsOut: written, lateRecordsDropped: 2 },
  },
  sinks: { "3": { table: "revenue", connector: "postgres", recordsWritten: written, counters: {} } },
});

describe("the live progress line", () => {
  it("shows per-source counts, rates over the last interval and the watermark, in place", () => {
    const lines: string[] = [];
    const p = new ProgressLine((t) => lines.push(t));
    p.update(metrics(1000, 500, 10, null));
    p.update(metrics(3000, 2500, 30, Date.UTC(2026, 5, 24, 2, 48)));
    expect(lines[0]).toBe("\r\x1b[2K1 s | orders 500 in (500/s), watermark none yet | 10 out (10/s)");
    expect(lines[1]).toBe(
      "\r\x1b[2K3 s | orders 2500 in (1000/s), watermark 2026-06-24 02:48:00.000 | 30 out (10/s)",
    );
    p.clear();
    expect(lines[2]).toBe("\r\x1b[2K");
  });

  it("the summary names read, written and late counts separately", () => {
    expect(formatSummary(metrics(2500, 100, 7, Number.POSITIVE_INFINITY))).toEqual([
      "Job finished in 2.50 s",
      "  source orders (kafka): 100 records read, watermark end of input",
      "  sink revenue (postgres): 7 changes written",
      "  window-aggregate #2: 2 late records dropped",
    ]);
  });
});
