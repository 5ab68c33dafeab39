import { describe, expect, it } from "vitest";
import { MetricsExposition } from "../../packages/cli/src/metrics/exposition.js";
import type { JobMonitor } from "../../packages/cli/src/metrics/monitor.js";

/** A job's monitor as the exposition reads it: one source that counted quality violations. */
function monitor(counters: Record<string, number>): JobMonitor {
  const fake = {
    jobId: "job-1",
    metrics: () => ({
      durationMs: 1,
      sources: {
        "0": { table: "orders", connector: "filesystem", recordsRead: 5, watermark: null, counters },
      },
      operators: {},
      sinks: {},
    }),
    taskName: (id: string) => `source-${id}`,
    sources: () => [],
    operators: () => [],
    lateRatio: () => null,
    jobValues: () => ({}),
    lastCheckpointBytes: null,
    consecutiveCheckpointFailures: 0,
    active: () => [],
    evaluate: () => undefined,
    frozenWhile: <T>(f: () => T): T => f(),
    stateBytes: new Map<string, number>(),
    job: { checkpointHistory: [] },
  };
  return fake as unknown as JobMonitor;
}

describe("quality counts on the metrics endpoint (issue 14)", () => {
  it("weir_source_quality_violations_total counts per rule", async () => {
    const e = new MetricsExposition();
    e.add(monitor({ "quality.max-future-skew": 1, "quality.null-event-time": 2, skippedRecords: 0 }));
    const text = await e.text();
    expect(text).toContain(
      'weir_source_quality_violations_total{job="job-1",task="source-0",table="orders",rule="max-future-skew"} 1',
    );
    expect(text).toContain(
      'weir_source_quality_violations_total{job="job-1",task="source-0",table="orders",rule="null-event-time"} 2',
    );
  });
});
