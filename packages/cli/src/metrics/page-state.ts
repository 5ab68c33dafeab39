import type { HistogramJson, LagQuantiles } from "@weir/runtime";
import { type HistorySample, type JobEvent, type JobMonitor, lateRows } from "./monitor.js";

/**
 * What the job page (`weir run --ui`) polls from `/api/jobs`: for every job of the process, its
 * DAG with rates, the watermarks and consumer lag per source split, the charts' series over the
 * last minutes, the checkpoint history and recent events. Built from the monitors on request, in
 * O(tasks + splits + history), so serving it never holds the job loop for long.
 */
export interface PageState {
  readonly now: number;
  readonly jobs: readonly PageJob[];
}

export interface PageJob {
  readonly id: string;
  readonly status: "running" | "finished" | "failed";
  readonly error: string | null;
  readonly durationMs: number;
  readonly nodes: readonly PageNode[];
  readonly sources: readonly PageSource[];
  readonly sinks: readonly PageSink[];
  /** One point a second over the last minutes: epoch ms, and per task the charted values. */
  readonly series: {
    readonly at: readonly number[];
    /** Consumer lag (records) per source task, summed over its splits; null without one. */
    readonly consumerLag: { readonly [task: string]: readonly (number | null)[] };
    /** Watermark lag (seconds) per source task. */
    readonly watermarkLag: { readonly [task: string]: readonly (number | null)[] };
    /** Late ratio over the last minute per operator task. */
    readonly lateRatio: { readonly [task: string]: readonly number[] };
  };
  readonly checkpoints: readonly {
    readonly id: number;
    readonly triggeredAt: number;
    readonly status: "completed" | "aborted";
    readonly durationMs: number;
    readonly alignmentMs: number;
    readonly bytes: number | null;
    readonly savepoint: boolean;
    readonly reason: string | null;
  }[];
  readonly events: readonly JobEvent[];
  readonly alarms: readonly string[];
}

export interface PageNode {
  readonly id: number;
  readonly task: string;
  readonly kind: string;
  /** The table of a source or sink; the operator's kind otherwise. */
  readonly label: string;
  readonly inputs: readonly number[];
  /** Rows per second out of a source, into an operator or a sink, over the last 5 s. */
  readonly rate: number;
  readonly recordsIn: number;
  readonly recordsOut: number;
  readonly watermark: number | null;
  readonly lateRecords: number;
  readonly lateRatio: number;
  readonly stateKeys: number | null;
  readonly stateBytes: number | null;
}

export interface PageSource {
  readonly task: string;
  readonly table: string;
  readonly connector: string;
  readonly watermark: number | null;
  readonly splits: readonly {
    readonly split: string;
    readonly watermark: number | null;
    readonly lag: number | null;
    readonly idle: boolean;
    /** Processing time since the split's last row, ms (null when unknown). */
    readonly quietMs: number | null;
  }[];
}

export interface PageSink {
  readonly task: string;
  readonly table: string;
  readonly connector: string;
  readonly changesWritten: number;
  readonly counters: { readonly [name: string]: number };
  readonly tableRows: number | null;
  readonly eventTimeLag: LagQuantiles | null;
  readonly flushLatency: HistogramJson | null;
  readonly commitLatency: HistogramJson | null;
}

const RATE_WINDOW_MS = 5000;

/** A job the page lists, with how it ended. */
export interface PageEntry {
  readonly monitor: JobMonitor;
  readonly status: PageJob["status"];
  readonly error: string | null;
}

export function pageState(entries: readonly PageEntry[], now = Date.now()): PageState {
  return { now, jobs: entries.map((e) => pageJob(e, now)) };
}

function pageJob(entry: PageEntry, now: number): PageJob {
  return entry.monitor.frozenWhile(() => readJob(entry, now));
}

function readJob({ monitor: m, status, error }: PageEntry, now: number): PageJob {
  const metrics = m.metrics();
  const history = m.history;
  const last = history.at(-1);
  const base = last === undefined ? undefined : findBase(history, last.at - RATE_WINDOW_MS);
  const rate = (pick: (h: HistorySample) => number | undefined): number => {
    if (last === undefined || base === undefined || last === base) return 0;
    const a = pick(base);
    const b = pick(last);
    if (a === undefined || b === undefined) return 0;
    return ((b - a) * 1000) / (last.at - base.at);
  };
  const opWatermarks = new Map(m.operators().map((o) => [o.task, o.watermark]));
  const nodes: PageNode[] = m.job.dag.nodes.map((n) => {
    const task = m.taskName(String(n.id));
    const src = metrics.sources[n.id];
    const op = metrics.operators[n.id];
    const sink = metrics.sinks[n.id];
    const wm = src ? src.watermark : (opWatermarks.get(task) ?? null);
    return {
      id: n.id,
      task,
      kind: n.kind,
      label: src?.table ?? sink?.table ?? n.kind,
      inputs: n.inputs,
      rate: src
        ? rate((h) => h.sources[task]?.read)
        : sink
          ? rate((h) => h.sinks[task]?.written)
          : rate((h) => h.operators[task]?.in),
      recordsIn: op?.recordsIn ?? sink?.recordsWritten ?? 0,
      recordsOut: op?.recordsOut ?? src?.recordsRead ?? 0,
      watermark: wm !== null && Number.isFinite(wm) ? wm : null,
      lateRecords: op ? lateRows(op) : 0,
      lateRatio: op ? m.lateRatio(task) : 0,
      stateKeys: op?.state ? op.state.keys + op.state.timeEntries : null,
      stateBytes: m.stateBytes.get(task) ?? null,
    };
  });
  const sources: PageSource[] = m.sources().map((s) => {
    const wm = metrics.sources[s.task.replace(/^source-/, "")]?.watermark ?? null;
    return {
      task: s.task,
      table: s.table,
      connector: s.connector,
      watermark: wm !== null && Number.isFinite(wm) ? wm : null,
      splits: s.splits.map((x) => ({
        split: x.split,
        watermark: x.watermark,
        lag: x.lag,
        idle: x.idle,
        quietMs: x.lastActivity === null ? null : now - x.lastActivity,
      })),
    };
  });
  const sinks: PageSink[] = Object.entries(metrics.sinks).map(([id, s]) => ({
    task: m.taskName(id),
    table: s.table,
    connector: s.connector,
    changesWritten: s.recordsWritten,
    counters: s.counters,
    tableRows: s.tableRows ?? null,
    eventTimeLag: s.eventTimeLag ?? null,
    flushLatency: s.flushLatency && s.flushLatency.count > 0 ? s.flushLatency : null,
    commitLatency: s.commitLatency && s.commitLatency.count > 0 ? s.commitLatency : null,
  }));
  const consumerLag: Record<string, (number | null)[]> = {};
  const watermarkLag: Record<string, (number | null)[]> = {};
  for (const s of sources) {
    consumerLag[s.task] = history.map((h) => h.sources[s.task]?.lag ?? null);
    watermarkLag[s.task] = history.map((h) => {
      const w = h.sources[s.task]?.watermarkLagMs;
      return w === undefined || w === null ? null : w / 1000;
    });
  }
  const lateRatio: Record<string, number[]> = {};
  for (const n of nodes)
    if (metrics.operators[n.id] !== undefined)
      lateRatio[n.task] = history.map((h) => h.operators[n.task]?.lateRatio ?? 0);
  return {
    id: m.jobId,
    status,
    error,
    durationMs: metrics.durationMs,
    nodes,
    sources,
    sinks,
    series: { at: history.map((h) => h.at), consumerLag, watermarkLag, lateRatio },
    checkpoints: m.job.checkpointHistory.map((c) => ({
      id: c.id,
      triggeredAt: c.triggeredAt,
      status: c.status,
      durationMs: c.durationMs,
      alignmentMs: c.alignmentMs,
      bytes: m.checkpointSizes.get(c.id) ?? null,
      savepoint: c.savepoint,
      reason: c.reason ?? null,
    })),
    events: m.events,
    alarms: [
      ...m.active("watermark_lag"),
      ...m.active("split_idle"),
      ...m.active("late_ratio"),
      ...m.active("checkpoint_failures"),
    ].map((a) => `${a.name}: ${a.message}`),
  };
}

/** The newest sample at or before `at` (the oldest when none is). */
function findBase(history: readonly HistorySample[], at: number): HistorySample | undefined {
  let base = history[0];
  for (const h of history) {
    if (h.at > at) break;
    base = h;
  }
  return base;
}
