import { describe, expect, it } from "vitest";
import { formatSummary, ProgressLine } from "../src/engine/summary.js";
import { JOB_HEADERS, type JobInfo, jobRow } from "../src/repl/jobs.js";

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
    const now = Date.UTC(2026, 5, 24, 4, 8, 30);
    const p = new ProgressLine(
      (t) => lines.push(t),
      () => now,
    );
    p.update(metrics(1000, 500, 10, null));
    p.update(metrics(3000, 2500, 30, Date.UTC(2026, 5, 24, 2, 48)));
    expect(lines[0]).toBe("\r\x1b[2K1 s | orders 500 in (500/s), watermark none yet | 10 out (10/s)");
    // The watermark lag (now − watermark) is shown next to the watermark.
    expect(lines[1]).toBe(
      "\r\x1b[2K3 s | orders 2500 in (1000/s), watermark 2026-06-24 02:48:00.000 (1 h 20 min behind) | 30 out (10/s)",
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

describe("consumer lag", () => {
  const withLag = (lag: Record<string, number>) => {
    const m = metrics(1000, 100, 7, null);
    return { ...m, sources: { "0": { ...m.sources["0"], lag } } };
  };

  it("the summary and the progress line show the total and each partition that lags", () => {
    expect(formatSummary(withLag({ "orders-0": 0, "orders-1": 1200, "orders-2": 5 }))[1]).toBe(
      "  source orders (kafka): 100 records read, watermark none yet, consumer lag 1205 (orders-1: 1200, orders-2: 5)",
    );
    expect(formatSummary(withLag({ "orders-0": 0 }))[1]).toBe(
      "  source orders (kafka): 100 records read, watermark none yet, consumer lag 0",
    );
    const lines: string[] = [];
    new ProgressLine((t) => lines.push(t)).update(withLag({ "orders-0": 3, "orders-1": 4 }));
    expect(lines[0]).toContain("orders 100 in (100/s), watermark none yet, lag 7 |");
  });

  it("SHOW JOBS has a consumer lag column: the sum over the job's Kafka sources, '-' without one", () => {
    const job = (m: ReturnType<typeof metrics>) =>
      ({ id: "j", name: "n", state: "RUNNING", startedAt: 0, metrics: m }) as unknown as JobInfo;
    const col = JOB_HEADERS.indexOf("consumer lag");
    expect(col).toBeGreaterThan(JOB_HEADERS.indexOf("watermark"));
    expect(jobRow(job(withLag({ "orders-0": 3, "orders-1": 4 })))[col]).toBe("7");
    expect(jobRow(job(metrics(1000, 1, 1, null)))[col]).toBe("-");
  });

  it("SHOW JOBS has a watermark lag column: now − the lowest source watermark, '-' without one", () => {
    const job = (m: ReturnType<typeof metrics>) =>
      ({ id: "j", name: "n", state: "RUNNING", startedAt: 0, metrics: m }) as unknown as JobInfo;
    const col = JOB_HEADERS.indexOf("watermark lag");
    expect(col).toBe(JOB_HEADERS.indexOf("watermark") + 1);
    const wm = Date.UTC(2026, 5, 24, 2, 48);
    expect(jobRow(job(metrics(1000, 1, 1, wm)), wm + 80 * 60_000)[col]).toBe("1 h 20 min");
    expect(jobRow(job(metrics(1000, 1, 1, wm)), wm + 2500)[col]).toBe("2 s");
    expect(jobRow(job(metrics(1000, 1, 1, null)))[col]).toBe("-");
    expect(jobRow(job(metrics(1000, 1, 1, Number.POSITIVE_INFINITY)))[col]).toBe("-");
  });
});
