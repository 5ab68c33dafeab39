import { createServer, type Server } from "node:http";
import { createRequire } from "node:module";
import type { AddressInfo } from "node:net";
import type { CheckpointRecord } from "@weir/runtime";
import { type HistogramJson, LATENCY_BUCKETS_MS } from "@weir/runtime";
import type * as PromClient from "prom-client";
import type { Registry } from "prom-client";
import type { AlarmName, JobMonitor } from "./monitor.js";

/**
 * The Prometheus exposition of the running jobs (prom-client renders the text format). Every
 * value is read from the jobs at scrape time: counters are the jobs' cumulative counts (carried
 * across restores by the checkpoints), gauges the current watermarks, lags and alarms.
 */
export class MetricsExposition {
  private readonly monitors = new Set<JobMonitor>();
  private promRegistry: Registry | null = null;

  /**
   * prom-client's registry of Weir's metric families, built at the first scrape: a `weir run`
   * that serves no metrics never loads prom-client.
   */
  get registry(): Registry {
    if (this.promRegistry === null) {
      const prom = createRequire(import.meta.url)("prom-client") as typeof PromClient;
      const registry = new prom.Registry();
      this.register(registry, prom);
      this.promRegistry = registry;
    }
    return this.promRegistry;
  }

  private register(registry: Registry, prom: typeof PromClient): void {
    const monitors = this.monitors;
    const counter = (name: string, help: string, labelNames: string[], read: (set: Setter) => void): void => {
      new prom.Counter({
        name,
        help,
        labelNames,
        registers: [registry],
        collect() {
          this.reset();
          read((labels, v) => {
            if (Number.isFinite(v) && v >= 0) this.inc(labels, v);
          });
        },
      });
    };
    const gauge = (name: string, help: string, labelNames: string[], read: (set: Setter) => void): void => {
      new prom.Gauge({
        name,
        help,
        labelNames,
        registers: [registry],
        collect() {
          this.reset();
          read((labels, v) => {
            if (!Number.isNaN(v)) this.set(labels, v);
          });
        },
      });
    };
    const each = (f: (m: JobMonitor, job: string) => void) => () => {
      for (const m of monitors) f(m, m.jobId);
    };
    const sourceL = ["job", "task", "table"];
    const splitL = ["job", "task", "table", "split", "topic", "partition"];
    const opL = ["job", "task", "kind"];
    const sinkL = ["job", "task", "table"];
    const now = () => Date.now();

    const sourceCounter = (name: string, help: string, pick: (s: SourceM) => number | undefined) =>
      counter(name, help, sourceL, (set) =>
        each((m, job) => {
          for (const [id, s] of Object.entries(m.metrics().sources)) {
            const v = pick(s);
            if (v !== undefined) set({ job, task: m.taskName(id), table: s.table }, v);
          }
        })(),
      );
    sourceCounter(
      "weir_source_records_read_total",
      "Records read by the source (cumulative across restores).",
      (s) => s.recordsRead,
    );
    sourceCounter(
      "weir_source_records_skipped_total",
      "Bad records skipped by the source ('*.ignore-parse-errors').",
      (s) => s.counters.skippedRecords ?? 0,
    );
    counter(
      "weir_source_quality_violations_total",
      "Rows that broke a quality rule of the source ('quality.*'), by rule: quarantined, dropped, or the one that failed the job.",
      [...sourceL, "rule"],
      (set) =>
        each((m, job) => {
          for (const [id, s] of Object.entries(m.metrics().sources))
            for (const [k, v] of Object.entries(s.counters))
              if (k.startsWith("quality."))
                set({ job, task: m.taskName(id), table: s.table, rule: k.slice("quality.".length) }, v);
        })(),
    );
    gauge(
      "weir_source_watermark_seconds",
      "The source's current watermark (epoch seconds); absent before the first.",
      sourceL,
      (set) =>
        each((m, job) => {
          for (const [id, s] of Object.entries(m.metrics().sources))
            if (s.watermark !== null && Number.isFinite(s.watermark))
              set({ job, task: m.taskName(id), table: s.table }, s.watermark / 1000);
        })(),
    );
    gauge(
      "weir_source_watermark_lag_seconds",
      "Now minus the source's current watermark, in seconds.",
      sourceL,
      (set) =>
        each((m, job) => {
          const t = now();
          for (const [id, s] of Object.entries(m.metrics().sources))
            if (s.watermark !== null && Number.isFinite(s.watermark))
              set({ job, task: m.taskName(id), table: s.table }, (t - s.watermark) / 1000);
        })(),
    );
    const splitGauge = (name: string, help: string, pick: (x: SplitS, t: number) => number | null) =>
      gauge(name, help, splitL, (set) =>
        each((m, job) => {
          const t = now();
          for (const s of m.sources())
            for (const x of s.splits) {
              const v = pick(x, t);
              if (v !== null)
                set(
                  {
                    job,
                    task: s.task,
                    table: s.table,
                    split: x.split,
                    topic: x.topic ?? "",
                    partition: x.partition ?? "",
                  },
                  v,
                );
            }
        })(),
      );
    splitGauge(
      "weir_split_watermark_seconds",
      "A source split's watermark (its largest WATERMARK FOR value), epoch seconds.",
      (x) => (x.watermark === null ? null : x.watermark / 1000),
    );
    splitGauge("weir_split_watermark_lag_seconds", "Now minus the split's watermark, in seconds.", (x, t) =>
      x.watermark === null ? null : (t - x.watermark) / 1000,
    );
    splitGauge("weir_split_idle_seconds", "Seconds since the split's last row.", (x, t) =>
      x.lastActivity === null ? null : (t - x.lastActivity) / 1000,
    );
    splitGauge(
      "weir_split_idle",
      "1 when the split is marked idle (no row within 'scan.watermark.idle-timeout') and holds no watermark back.",
      (x) => (x.lastActivity === null ? null : x.idle ? 1 : 0),
    );
    splitGauge(
      "weir_kafka_consumer_lag_records",
      "Records on the broker after the source's position, per topic-partition.",
      (x) => x.lag,
    );

    const opCounter = (name: string, help: string, pick: (o: OpM) => number) =>
      counter(name, help, opL, (set) =>
        each((m, job) => {
          for (const [id, o] of Object.entries(m.metrics().operators))
            set({ job, task: m.taskName(id), kind: o.kind }, pick(o));
        })(),
      );
    opCounter(
      "weir_operator_records_in_total",
      "Rows into the operator (cumulative across restores).",
      (o) => o.recordsIn,
    );
    opCounter(
      "weir_operator_records_out_total",
      "Rows out of the operator (cumulative across restores).",
      (o) => o.recordsOut,
    );
    opCounter(
      "weir_operator_late_records_dropped_total",
      "Late rows the operator dropped (cumulative across restores).",
      (o) => o.lateRecordsDropped,
    );
    counter(
      "weir_operator_late_records_total",
      "Late rows of the operator by what became of them (cumulative across restores): 'dropped', 'side-output' (routed to the 'late.side-output' table) or 'updated' (a correction within 'late.allowed-lateness').",
      [...opL, "policy"],
      (set) =>
        each((m, job) => {
          for (const [id, o] of Object.entries(m.metrics().operators)) {
            const labels = { job, task: m.taskName(id), kind: o.kind };
            set({ ...labels, policy: "dropped" }, o.lateRecordsDropped);
            set({ ...labels, policy: "side-output" }, o.lateRecordsRouted ?? 0);
            set({ ...labels, policy: "updated" }, o.lateRecordsUpdated ?? 0);
          }
        })(),
    );
    const stateGauge = (
      name: string,
      help: string,
      pick: (o: OpM, task: string, m: JobMonitor) => number | undefined,
    ) =>
      gauge(name, help, opL, (set) =>
        each((m, job) => {
          for (const [id, o] of Object.entries(m.metrics().operators)) {
            const task = m.taskName(id);
            const v = pick(o, task, m);
            if (v !== undefined) set({ job, task, kind: o.kind }, v);
          }
        })(),
      );
    stateGauge(
      "weir_operator_state_keys",
      "Keys in the operator's keyed state tables (value, map, list) now.",
      (o) => o.state?.keys,
    );
    stateGauge(
      "weir_operator_state_time_entries",
      "Entries of the operator's time-indexed state (window slices, buffered rows) and timers now.",
      (o) => o.state?.timeEntries,
    );
    stateGauge(
      "weir_operator_state_bytes",
      "Size of the operator's state in the last completed checkpoint (its state file, plus the on-disk backend's base and delta files), bytes.",
      (_o, task, m) => m.stateBytes.get(task),
    );
    gauge(
      "weir_operator_late_ratio",
      "Late rows / rows in of the operator over the last minute.",
      opL,
      (set) =>
        each((m, job) => {
          for (const o of m.operators()) set({ job, task: o.task, kind: o.kind }, m.lateRatio(o.task));
        })(),
    );
    gauge(
      "weir_operator_watermark_seconds",
      "The last watermark the operator processed (epoch seconds).",
      opL,
      (set) =>
        each((m, job) => {
          for (const o of m.operators())
            if (o.watermark !== null) set({ job, task: o.task, kind: o.kind }, o.watermark / 1000);
        })(),
    );
    gauge(
      "weir_operator_watermark_lag_seconds",
      "Now minus the operator's watermark, in seconds.",
      opL,
      (set) =>
        each((m, job) => {
          const t = now();
          for (const o of m.operators())
            if (o.watermark !== null) set({ job, task: o.task, kind: o.kind }, (t - o.watermark) / 1000);
        })(),
    );

    const sinkCounter = (name: string, help: string, pick: (s: SinkM) => number | undefined) =>
      counter(name, help, sinkL, (set) =>
        each((m, job) => {
          for (const [id, s] of Object.entries(m.metrics().sinks)) {
            const v = pick(s);
            if (v !== undefined) set({ job, task: m.taskName(id), table: s.table }, v);
          }
        })(),
      );
    sinkCounter(
      "weir_sink_changes_written_total",
      "Changes (+I, -U, +U, -D) the sink received (cumulative across restores).",
      (s) => s.recordsWritten,
    );
    sinkCounter(
      "weir_sink_rows_upserted_total",
      "Rows an upsert sink (jdbc with a primary key) upserted.",
      (s) => s.counters.rowsUpserted,
    );
    sinkCounter(
      "weir_sink_rows_deleted_total",
      "Rows an upsert sink deleted.",
      (s) => s.counters.rowsDeleted,
    );
    sinkCounter(
      "weir_sink_rows_inserted_total",
      "Rows an append sink (jdbc without a primary key) inserted.",
      (s) => s.counters.rowsInserted,
    );
    sinkCounter(
      "weir_sink_flushes_total",
      "Flushes of the sink's buffer that wrote rows.",
      (s) => s.counters.flushes,
    );
    sinkCounter(
      "weir_sink_retries_total",
      "Writes the sink retried after a transient error.",
      (s) => s.counters.retries,
    );
    gauge(
      "weir_sink_table_rows",
      "Rows now in the sink's target table, as the sink last counted them (Postgres: SELECT count(*) at checkpoints).",
      sinkL,
      (set) =>
        each((m, job) => {
          for (const [id, s] of Object.entries(m.metrics().sinks))
            if (s.tableRows !== undefined) set({ job, task: m.taskName(id), table: s.table }, s.tableRows);
        })(),
    );
    gauge(
      "weir_sink_event_time_lag_seconds",
      "Processing time minus event time of the rows reaching the sink over the last 30-60 s, by quantile (0.5, 0.95, 0.99).",
      [...sinkL, "quantile"],
      (set) =>
        each((m, job) => {
          for (const [id, s] of Object.entries(m.metrics().sinks)) {
            const q = s.eventTimeLag;
            if (q === undefined) continue;
            const l = { job, task: m.taskName(id), table: s.table };
            set({ ...l, quantile: "0.5" }, q.p50 / 1000);
            set({ ...l, quantile: "0.95" }, q.p95 / 1000);
            set({ ...l, quantile: "0.99" }, q.p99 / 1000);
          }
        })(),
    );
    const sinkHistogram = (name: string, help: string, pick: (s: SinkM) => HistogramJson | undefined) =>
      registry.registerMetric(
        new CustomHistogram(name, help, () => {
          const out: { labels: Record<string, string>; h: HistogramJson }[] = [];
          for (const m of monitors)
            for (const [id, s] of Object.entries(m.metrics().sinks)) {
              const h = pick(s);
              if (h !== undefined && h.count > 0)
                out.push({ labels: { job: m.jobId, task: m.taskName(id), table: s.table }, h });
            }
          return out;
        }) as never,
      );
    sinkHistogram(
      "weir_sink_flush_latency_seconds",
      "Duration of the sink's flushes that wrote rows (a Postgres transaction; a file write; a Kafka send), cumulative across restores.",
      (s) => s.flushLatency,
    );
    sinkHistogram(
      "weir_sink_commit_latency_seconds",
      "Duration of the sink's commits of completed checkpoints (exactly-once sinks), cumulative across restores.",
      (s) => s.commitLatency,
    );

    const jobCounter = (name: string, help: string, key: string, scale = 1) =>
      counter(name, help, ["job"], (set) =>
        each((m, job) => {
          const v = m.jobValues()[key];
          const n = typeof v === "number" ? v : v !== null && typeof v === "object" ? v.sum : 0;
          set({ job }, n * scale);
        })(),
      );
    jobCounter(
      "weir_checkpoints_completed_total",
      "Checkpoints this run completed.",
      "job.numberOfCompletedCheckpoints",
    );
    jobCounter(
      "weir_checkpoints_failed_total",
      "Checkpoints this run aborted (not acknowledged in time).",
      "job.numberOfFailedCheckpoints",
    );
    jobCounter(
      "weir_checkpoint_duration_seconds_total",
      "Sum of the completed checkpoints' durations (trigger to commit), seconds.",
      "job.checkpointDurationMs",
      1 / 1000,
    );
    gauge(
      "weir_checkpoint_duration_max_seconds",
      "The longest completed checkpoint of this run, seconds.",
      ["job"],
      (set) =>
        each((m, job) => {
          const v = m.jobValues()["job.checkpointDurationMs"];
          if (v !== null && typeof v === "object" && v.count > 0) set({ job }, v.max / 1000);
        })(),
    );
    jobCounter(
      "weir_checkpoint_alignment_seconds_total",
      "Sum over the completed checkpoints of their longest barrier alignment (first to last barrier at a task with several inputs), seconds.",
      "job.checkpointAlignmentMs",
      1 / 1000,
    );
    const lastCheckpoint = (name: string, help: string, pick: (r: CheckpointRecord) => number) =>
      gauge(name, help, ["job"], (set) =>
        each((m, job) => {
          const r = m.job.checkpointHistory.findLast((x) => x.status === "completed");
          if (r !== undefined) set({ job }, pick(r));
        })(),
      );
    lastCheckpoint(
      "weir_checkpoint_last_duration_seconds",
      "The last completed checkpoint's duration (trigger to commit), seconds.",
      (r) => r.durationMs / 1000,
    );
    lastCheckpoint(
      "weir_checkpoint_last_alignment_seconds",
      "The last completed checkpoint's longest barrier alignment, seconds.",
      (r) => r.alignmentMs / 1000,
    );
    gauge(
      "weir_checkpoint_size_bytes",
      "Size on disk of the last completed checkpoint (manifest and state files).",
      ["job"],
      (set) =>
        each((m, job) => {
          if (m.lastCheckpointBytes !== null) set({ job }, m.lastCheckpointBytes);
        })(),
    );
    gauge(
      "weir_checkpoint_consecutive_failures",
      "Checkpoints aborted since the last completed one.",
      ["job"],
      (set) => each((m, job) => set({ job }, m.consecutiveCheckpointFailures))(),
    );

    const alarm = (name: AlarmName, help: string, labelNames: string[]) =>
      gauge(`weir_alarm_${name}`, help, ["job", ...labelNames], (set) =>
        each((m, job) => {
          for (const a of m.active(name)) set({ job, ...a.labels }, 1);
        })(),
      );
    alarm(
      "watermark_lag",
      "1 while a source's consumer lag is 0 but its watermark lags now by more than 'weir.alarm.watermark-lag'.",
      ["table", "task"],
    );
    alarm("split_idle", "1 while a split has had no row for longer than 'weir.alarm.split-idle'.", [
      "table",
      "task",
      "split",
    ]);
    alarm(
      "late_ratio",
      "1 while an operator's late ratio over the last minute is above 'weir.alarm.late-ratio'.",
      ["task", "kind"],
    );
    alarm(
      "checkpoint_failures",
      "1 while 'weir.alarm.checkpoint-failures' or more checkpoints in a row failed.",
      [],
    );
    gauge("weir_job_up", "1 for every job this process runs.", ["job"], (set) =>
      each((_m, job) => set({ job }, 1))(),
    );
  }

  add(m: JobMonitor): void {
    this.monitors.add(m);
  }

  remove(m: JobMonitor): void {
    this.monitors.delete(m);
  }

  get jobs(): number {
    return this.monitors.size;
  }

  /** The exposition text; every job's alarms and late ratios are evaluated first. */
  text(): Promise<string> {
    // prom-client calls every metric's collect synchronously within metrics(): each job's
    // metrics are read once per scrape, not once per metric family.
    const all = [...this.monitors];
    for (const m of all) m.evaluate();
    const collect = (i: number): Promise<string> =>
      i === all.length ? this.registry.metrics() : all[i]!.frozenWhile(() => collect(i + 1));
    return collect(0);
  }
}

type Setter = (labels: Record<string, string>, value: number) => void;

/**
 * A Prometheus histogram whose buckets are read at scrape time from the jobs' cumulative
 * {@link HistogramJson}s (prom-client's Histogram can only observe, not be set). Registered with
 * the registry as any metric: prom-client renders what `get` returns.
 */
class CustomHistogram {
  readonly type = "histogram";
  readonly aggregator = "sum";
  constructor(
    readonly name: string,
    readonly help: string,
    private readonly read: () => { labels: Record<string, string>; h: HistogramJson }[],
  ) {}

  get(): { name: string; help: string; type: string; aggregator: string; values: unknown[] } {
    const values: unknown[] = [];
    for (const { labels, h } of this.read()) {
      for (let i = 0; i < LATENCY_BUCKETS_MS.length; i++)
        values.push({
          metricName: `${this.name}_bucket`,
          labels: { ...labels, le: String(LATENCY_BUCKETS_MS[i]! / 1000) },
          value: h.buckets[i],
        });
      values.push({ metricName: `${this.name}_bucket`, labels: { ...labels, le: "+Inf" }, value: h.count });
      values.push({ metricName: `${this.name}_sum`, labels, value: h.sum / 1000 });
      values.push({ metricName: `${this.name}_count`, labels, value: h.count });
    }
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values };
  }
}
type SourceM = ReturnType<JobMonitor["metrics"]>["sources"][string];
type OpM = ReturnType<JobMonitor["metrics"]>["operators"][string];
type SinkM = ReturnType<JobMonitor["metrics"]>["sinks"][string];
type SplitS = ReturnType<JobMonitor["sources"]>[number]["splits"][number];

/** The `/metrics` HTTP endpoint. */
export class MetricsServer {
  private constructor(
    private readonly server: Server,
    readonly url: string,
    readonly port: number,
  ) {}

  static start(exposition: MetricsExposition, port: number, host: string): Promise<MetricsServer> {
    const server = createServer((req, res) => {
      const path = (req.url ?? "/").split("?")[0];
      if (req.method !== "GET" || path !== "/metrics") {
        res.writeHead(404, { "content-type": "text/plain" }).end("weir serves only GET /metrics\n");
        return;
      }
      exposition.text().then(
        (body) => res.writeHead(200, { "content-type": exposition.registry.contentType }).end(body),
        (e: unknown) =>
          res
            .writeHead(500, { "content-type": "text/plain" })
            .end(`${e instanceof Error ? e.message : String(e)}\n`),
      );
    });
    return new Promise((resolve, reject) => {
      server.once("error", (e: NodeJS.ErrnoException) =>
        reject(
          new Error(
            e.code === "EADDRINUSE"
              ? `metrics port ${port} on ${host} is in use: choose another with --metrics-port (or 'weir.metrics.port'), or 0 for a free one`
              : `cannot serve metrics on ${host}:${port}: ${e.message}`,
          ),
        ),
      );
      server.listen(port, host, () => {
        const addr = server.address() as AddressInfo;
        const shown = host.includes(":") ? `[${host}]` : host;
        resolve(new MetricsServer(server, `http://${shown}:${addr.port}/metrics`, addr.port));
      });
    });
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
  }
}
