// issue 15: `weir run --metrics-port`, the alarm settings, and the checkpoint-failures alarm on a
// real job (the other alarms: test/integration/metrics-endpoint.test.ts, on Kafka runs).
import { createServer } from "node:net";
import { checkSetting, KNOWN_SETTINGS } from "@weir/planner";
import { describe, expect, it } from "vitest";
import { Engine } from "../../packages/cli/src/engine/engine.js";
import { MetricsHub } from "../../packages/cli/src/metrics/hub.js";
import { ALARM_PREFIX, alarmThresholds, DEFAULT_THRESHOLDS } from "../../packages/cli/src/metrics/monitor.js";
import { JobManager } from "../../packages/cli/src/repl/jobs.js";
import { runWeir, tempFile } from "../../packages/cli/test/helpers.js";
import type { Json } from "../../packages/runtime/src/state/codec.js";
import { CollectWriter, clicks, dag, MemReader } from "../../packages/runtime/test/job-fixture.js";
import { planSql } from "../support/plan.js";

describe("the metrics and alarm settings", () => {
  it("are known and their values are checked at SET time", () => {
    for (const k of [
      "weir.metrics.port",
      "weir.metrics.host",
      "weir.alarm.watermark-lag",
      "weir.alarm.late-ratio",
      "weir.alarm.checkpoint-failures",
      "weir.alarm.split-idle",
    ])
      expect(KNOWN_SETTINGS).toContain(k);
    expect(checkSetting("weir.metrics.port", "0")).toBeUndefined();
    expect(checkSetting("weir.metrics.port", "65536")?.message).toContain("expects a port number");
    expect(checkSetting("weir.alarm.watermark-lag", "80 min")).toBeUndefined();
    expect(checkSetting("weir.alarm.watermark-lag", "soon")?.severity).toBe("error");
    expect(checkSetting("weir.alarm.late-ratio", "0.01")).toBeUndefined();
    for (const bad of ["0", "1.5", "5%", ""])
      expect(checkSetting("weir.alarm.late-ratio", bad)?.message).toContain("expects a fraction");
    expect(checkSetting("weir.alarm.checkpoint-failures", "0")?.message).toContain("positive integer");
    expect(checkSetting("weir.alarm.split-idle", "30 s")).toBeUndefined();
    expect(checkSetting("weir.metrics.host", "0.0.0.0")).toBeUndefined();
    expect(checkSetting("weir.metrics.host", "a b")?.severity).toBe("error");
  });

  it("thresholds come from the job's settings, with documented defaults", () => {
    expect(alarmThresholds({})).toEqual(DEFAULT_THRESHOLDS);
    expect(
      alarmThresholds({
        "weir.alarm.watermark-lag": "80 min",
        "weir.alarm.late-ratio": "0.2",
        "weir.alarm.checkpoint-failures": "2",
        "weir.alarm.split-idle": "30 s",
      }),
    ).toEqual({ watermarkLagMs: 80 * 60_000, lateRatio: 0.2, checkpointFailures: 2, splitIdleMs: 30_000 });
  });
});

const ORDERS = (path: string) => `
CREATE TABLE orders (customer STRING, amount INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts)
  WITH ('connector' = 'filesystem', 'path' = '${path}', 'format' = 'json');
CREATE TABLE totals (w TIMESTAMP(3), total INT) WITH ('connector' = 'blackhole');
INSERT INTO totals SELECT window_start, SUM(amount)
  FROM TABLE(TUMBLE(TABLE orders, DESCRIPTOR(ts), INTERVAL '1' SECOND)) GROUP BY window_start, window_end;
`;

/** 10 rows one second apart, then 5 rows an hour earlier: late, their windows have fired. */
function ordersFile(): string {
  const row = (ts: string, i: number) => JSON.stringify({ customer: `c${i % 3}`, amount: i, ts });
  const rows = [
    ...Array.from({ length: 10 }, (_, i) => row(`2026-06-24 10:00:0${i}`, i)),
    ...Array.from({ length: 5 }, (_, i) => row(`2026-06-24 09:00:0${i}`, i)),
  ];
  return tempFile("orders.jsonl", `${rows.join("\n")}\n`);
}

describe("weir run --metrics-port", () => {
  it("serves while the job runs and prints the address at start; a bad port is a usage error", async () => {
    const file = tempFile("job.sql", ORDERS(ordersFile()));
    const r = await runWeir(["run", file, "--metrics-port", "0"]);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/^weir: metrics at http:\/\/127\.0\.0\.1:\d+\/metrics$/m);
    const bad = await runWeir(["run", file, "--metrics-port", "http"]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain("--metrics-port http: 'weir.metrics.port' expects a port number");
    const missing = await runWeir(["run", file, "--metrics-port"]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("--metrics-port needs a value");
  });

  it("a port in use is a runtime error that names it", async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve));
    const port = (taken.address() as { port: number }).port;
    try {
      const file = tempFile("job.sql", ORDERS(ordersFile()));
      const r = await runWeir(["run", file, "--metrics-port", String(port)]);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(`metrics port ${port} on 127.0.0.1 is in use`);
    } finally {
      taken.close();
    }
  });
});

describe("alarms", () => {
  it("checkpoint failures: N aborted checkpoints in a row raise checkpoint_failures", async () => {
    /** A sink whose pre-commit never settles: every checkpoint times out. */
    class HangingWriter extends CollectWriter {
      override preCommit(): Promise<Json> {
        return new Promise(() => undefined);
      }
    }
    const lines: string[] = [];
    // The job runs (its source never ends) until the alarm is raised.
    const stop = new AbortController();
    const hub = new MetricsHub((l) => {
      lines.push(l);
      if (l.startsWith(`${ALARM_PREFIX} raised`)) stop.abort();
    });
    const aborted: number[] = [];
    let clock = 0;
    const result = await hub.run(dag, {
      connectors: {
        source: () => new MemReader({ ...clicks(), perPoll: 1, unbounded: true }),
        sink: () => new HangingWriter([]),
      },
      cwd: ".",
      now: () => clock++,
      signal: stop.signal,
      settings: {
        "execution.checkpointing.interval": "5 ms",
        "execution.checkpointing.timeout": "20 ms",
        "weir.alarm.checkpoint-failures": "2",
      },
      checkpoint: { onAborted: (id) => aborted.push(id) },
    });
    expect(result.reason).toBe("aborted");
    expect(result.abortedCheckpoints).toBeGreaterThanOrEqual(2);
    expect(result.checkpoints).toBe(0);
    // The job's own onAborted still runs (the hub wraps it).
    expect(aborted.length).toBe(result.abortedCheckpoints);
    const raised = lines.filter((l) => l.startsWith(`${ALARM_PREFIX} raised checkpoint_failures`));
    expect(raised).toHaveLength(1);
    expect(raised[0]).toMatch(/ \d+ checkpoints in a row failed \(threshold 2\)/);
    expect(hub.exposition.jobs).toBe(0);
  });

  it("the job page lists aborted checkpoints and a failed job's error under recent errors", async () => {
    /** Pre-commits that never settle (checkpoints time out), then a write that fails. */
    class FailingWriter extends CollectWriter {
      writes = 0;
      override preCommit(): Promise<Json> {
        return new Promise(() => undefined);
      }
      override write(batch: Parameters<CollectWriter["write"]>[0]): void {
        if (++this.writes > 40) throw new Error("the sink's disk is full");
        super.write(batch);
      }
    }
    const hub = new MetricsHub(() => undefined);
    let clock = 0;
    await expect(
      hub.run(dag, {
        connectors: {
          source: () => new MemReader({ ...clicks(), perPoll: 1, unbounded: true }),
          sink: () => new FailingWriter([]),
        },
        cwd: ".",
        now: () => clock++,
        settings: {
          "execution.checkpointing.interval": "5 ms",
          "execution.checkpointing.timeout": "20 ms",
          "weir.ui.port": "0",
        },
      }),
    ).rejects.toThrow("the sink's disk is full");
    try {
      type State = {
        jobs: {
          status: string;
          error: string;
          events: { kind: string; text: string }[];
          checkpoints: { status: string }[];
        }[];
      };
      const state = (await (await fetch(`${hub.uiUrl}api/jobs`)).json()) as State;
      expect(state.jobs).toHaveLength(1);
      const job = state.jobs[0]!;
      expect(job.status).toBe("failed");
      expect(job.error).toContain("the sink's disk is full");
      expect(job.events.at(-1)).toEqual({ at: expect.any(Number), kind: "error", text: job.error });
      expect(
        job.events.some((e) => e.kind === "checkpoint" && /^checkpoint \d+ aborted: /.test(e.text)),
      ).toBe(true);
      expect(job.checkpoints.some((c) => c.status === "aborted")).toBe(true);
    } finally {
      await hub.stop();
    }
  });
});

describe("the shell's jobs on the endpoint", () => {
  it("SET 'weir.metrics.port' serves the background jobs, labelled with SHOW JOBS's id", async () => {
    const engine = new Engine({
      cwd: process.cwd(),
      out: { out: () => undefined, err: (l) => err.push(l) },
    });
    const err: string[] = [];
    const sql = `SET 'weir.metrics.port' = '0';
      CREATE TABLE ticks (n BIGINT) WITH ('connector' = 'datagen', 'rows-per-second' = '50');
      CREATE TABLE sink (n BIGINT) WITH ('connector' = 'blackhole');
      INSERT INTO sink SELECT n FROM ticks;`;
    const jobs = new JobManager((d, hooks) => engine.runDag(d, hooks));
    const info = jobs.submit(planSql(sql, { file: "shell" }), "insert-into_sink");
    try {
      let text = "";
      for (;;) {
        const line = err.find((l) => l.startsWith("weir: metrics at "));
        if (line !== undefined) {
          text = await (await fetch(line.slice("weir: metrics at ".length))).text();
          if (
            new RegExp(
              `weir_source_records_read_total\\{job="${info.id}",task="source-0",table="ticks"\\} [1-9]`,
            ).test(text)
          )
            break;
        }
        if (info.state !== "RUNNING") throw new Error(`the job ended: ${info.state} ${info.error ?? ""}`);
        await new Promise((r) => setTimeout(r, 50));
      }
      expect(text).toContain(`weir_job_up{job="${info.id}"} 1`);
    } finally {
      await jobs.stopAll();
      await engine.close();
    }
  });

  it("SET 'weir.ui.port' serves the job page of the background jobs, listed by SHOW JOBS's id", async () => {
    const err: string[] = [];
    const engine = new Engine({
      cwd: process.cwd(),
      out: { out: () => undefined, err: (l) => err.push(l) },
    });
    const sql = `SET 'weir.ui.port' = '0';
      CREATE TABLE ticks (n BIGINT) WITH ('connector' = 'datagen', 'rows-per-second' = '50');
      CREATE TABLE sink (n BIGINT) WITH ('connector' = 'blackhole');
      INSERT INTO sink SELECT n FROM ticks;`;
    const jobs = new JobManager((d, hooks) => engine.runDag(d, hooks));
    const info = jobs.submit(planSql(sql, { file: "shell" }), "insert-into_sink");
    try {
      type State = { jobs: { id: string; status: string; nodes: { kind: string; recordsOut: number }[] }[] };
      let state: State | null = null;
      for (;;) {
        const line = err.find((l) => l.startsWith("weir: job page at "));
        if (line !== undefined) {
          const url = line.slice("weir: job page at ".length);
          state = (await (await fetch(`${url}api/jobs`)).json()) as State;
          if ((state.jobs[0]?.nodes[0]?.recordsOut ?? 0) > 0) {
            const html = await (await fetch(url)).text();
            expect(html).toContain("<title>Weir jobs</title>");
            break;
          }
        }
        if (info.state !== "RUNNING") throw new Error(`the job ended: ${info.state} ${info.error ?? ""}`);
        await new Promise((r) => setTimeout(r, 50));
      }
      expect(state.jobs.map((j) => [j.id, j.status])).toEqual([[info.id, "running"]]);
      expect(state.jobs[0]!.nodes.map((n) => n.kind)).toEqual(["source", "sink"]);
    } finally {
      await jobs.stopAll();
      await engine.close();
    }
  });
});
