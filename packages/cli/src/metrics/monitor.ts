import { connectorCatalog } from "@weir/connectors";
import { type ConnectorCatalog, parseDuration } from "@weir/planner";
import type { Job, JobMetrics } from "@weir/runtime";

/** Every alarm line starts with this (grep for it; the rest of the line is for people). */
export const ALARM_PREFIX = "WEIR-ALARM";

/** The alarm thresholds, from the job's settings (`'weir.alarm.*'`; checked at SET time). */
export interface AlarmThresholds {
  /** `'weir.alarm.watermark-lag'`: consumer lag 0 but the watermark further behind now than this. */
  readonly watermarkLagMs: number;
  /** `'weir.alarm.late-ratio'`: late rows / rows in of an operator over the last minute above this. */
  readonly lateRatio: number;
  /** `'weir.alarm.checkpoint-failures'`: this many checkpoints in a row failed (aborted). */
  readonly checkpointFailures: number;
  /** `'weir.alarm.split-idle'`: a split without a row for longer than this. */
  readonly splitIdleMs: number;
}

export const DEFAULT_THRESHOLDS: AlarmThresholds = {
  watermarkLagMs: 5 * 60_000,
  lateRatio: 0.05,
  checkpointFailures: 3,
  splitIdleMs: 5 * 60_000,
};

/**
 * An operator's late rows, whatever became of them (dropped, routed to a side-output table, or a
 * correction within the allowed lateness): what the late ratio counts.
 */
export function lateRows(o: {
  readonly lateRecordsDropped: number;
  readonly lateRecordsRouted?: number;
  readonly lateRecordsUpdated?: number;
}): number {
  return o.lateRecordsDropped + (o.lateRecordsRouted ?? 0) + (o.lateRecordsUpdated ?? 0);
}

export function alarmThresholds(settings: Readonly<Record<string, string>>): AlarmThresholds {
  const dur = (key: string, d: number): number => {
    const v = settings[key];
    return v === undefined ? d : (parseDuration(v) ?? d);
  };
  const num = (key: string, d: number): number => {
    const v = settings[key];
    return v === undefined ? d : Number(v.trim());
  };
  return {
    watermarkLagMs: dur("weir.alarm.watermark-lag", DEFAULT_THRESHOLDS.watermarkLagMs),
    lateRatio: num("weir.alarm.late-ratio", DEFAULT_THRESHOLDS.lateRatio),
    checkpointFailures: num("weir.alarm.checkpoint-failures", DEFAULT_THRESHOLDS.checkpointFailures),
    splitIdleMs: dur("weir.alarm.split-idle", DEFAULT_THRESHOLDS.splitIdleMs),
  };
}

/** One split of a source: its watermark candidate, last activity and (Kafka) consumer lag. */
export interface SplitSnapshot {
  readonly split: string;
  /** Kafka splits (`<topic>-<partition>`) split in two; null for other connectors. */
  readonly topic: string | null;
  readonly partition: string | null;
  /** The split's watermark (its largest candidate), or null when it has none yet. */
  readonly watermark: number | null;
  /** Processing time of the split's last row, or null when the tracker does not know the split. */
  readonly lastActivity: number | null;
  readonly idle: boolean;
  readonly lag: number | null;
}

export interface SourceSnapshot {
  readonly task: string;
  readonly table: string;
  readonly connector: string;
  readonly ended: boolean;
  readonly splits: readonly SplitSnapshot[];
}

export interface OperatorSnapshot {
  readonly task: string;
  readonly kind: string;
  readonly watermark: number | null;
}

/**
 * Splits sort by name, numbers by value (`t-2` before `t-10`). One collator for every call:
 * `localeCompare` with a locale builds one per comparison, which cost the job's thread ~3% of a
 * Kafka run's CPU through the once-a-second alarm evaluation. Built at the first comparison (a
 * source of one split never compares), not when the module loads: building it loads ICU's
 * collation data, a process start-up cost.
 */
let splitCollator: Intl.Collator | undefined;
const compareSplits = (a: string, b: string): number =>
  (splitCollator ??= new Intl.Collator("en", { numeric: true })).compare(a, b);

/** A live view of one job for the exposition and the alarms. */
export class JobMonitor {
  readonly thresholds: AlarmThresholds;
  /** Checkpoints aborted since the last completed one. */
  consecutiveCheckpointFailures = 0;
  /** Firing alarms by key (`name` + labels), with their labels. */
  private readonly firing = new Map<string, ActiveAlarm>();
  /** Late/in samples per operator task over the last minute (for the late ratio). */
  private readonly lateSamples = new Map<string, { at: number; late: number; in: number }[]>();
  private readonly lateRatios = new Map<string, number>();

  constructor(
    readonly job: Job,
    private readonly log: (line: string) => void,
    private readonly now: () => number = Date.now,
    /** The connectors' specs: which sources' splits are topic partitions. */
    private readonly connectors: ConnectorCatalog = connectorCatalog(),
  ) {
    this.thresholds = alarmThresholds(job.settings);
  }

  get jobId(): string {
    return this.job.jobId;
  }

  /** While frozen (one scrape, one page state): the job's metrics and sources, read once. */
  private frozen: { metrics?: JobMetrics; sources?: SourceSnapshot[] } | null = null;

  metrics(): JobMetrics {
    const f = this.frozen;
    if (f === null) return this.job.metrics();
    f.metrics ??= this.job.metrics();
    return f.metrics;
  }

  /**
   * Runs `f` with the job's metrics and source snapshots read at most once (a scrape reads them
   * for every metric family). Nothing else runs on the job's thread meanwhile, so they stay current.
   */
  frozenWhile<T>(f: () => T): T {
    if (this.frozen !== null) return f();
    this.frozen = {};
    try {
      return f();
    } finally {
      this.frozen = null;
    }
  }

  /** Job-level counters of the coordinator (`job.numberOfCompletedCheckpoints`, ...). */
  jobValues(): ReturnType<Job["metricValues"]> {
    return this.job.metricValues();
  }

  sources(): SourceSnapshot[] {
    const f = this.frozen;
    if (f === null) return this.readSources();
    f.sources ??= this.readSources();
    return f.sources;
  }

  private readSources(): SourceSnapshot[] {
    const out: SourceSnapshot[] = [];
    for (const s of this.job.graph.sources()) {
      const lag = s.task.reader.lag?.() ?? {};
      const topicPartition = this.connectors.spec(s.node.connector)?.source?.topicPartition;
      const splits = new Map<string, SplitSnapshot>();
      const split = (id: string, wm: number | null, last: number | null, idle: boolean): SplitSnapshot => {
        const m = topicPartition?.(id) ?? null;
        return {
          split: id,
          topic: m ? m.topic : null,
          partition: m ? m.partition : null,
          watermark: wm,
          lastActivity: last,
          idle,
          lag: lag[id] ?? null,
        };
      };
      for (const [id, st] of s.task.tracker.splitStates()) {
        const key = String(id);
        splits.set(
          key,
          split(key, Number.isFinite(st.watermark) ? st.watermark : null, st.lastActivity, st.idle),
        );
      }
      for (const id of Object.keys(lag)) if (!splits.has(id)) splits.set(id, split(id, null, null, false));
      out.push({
        task: s.driver.metricGroup.scope,
        table: s.node.table,
        connector: s.node.connector,
        ended: s.task.ended,
        splits: [...splits.values()].sort((a, b) => compareSplits(a.split, b.split)),
      });
    }
    return out;
  }

  operators(): OperatorSnapshot[] {
    return this.job.graph.operators().map((rt) => ({
      task: rt.driver.metricGroup.scope,
      kind: rt.node.kind,
      watermark: Number.isFinite(rt.driver.watermark) ? rt.driver.watermark : null,
    }));
  }

  /** The task name (`<kind>-<node id>`) of every node, by node id. */
  taskName(nodeId: string): string {
    return this.job.graph.nodes.get(Number(nodeId))?.driver.metricGroup.scope ?? `node-${nodeId}`;
  }

  /**
   * The job opened (restored counts loaded): the late ratio's first sample, so that a job
   * shorter than its first progress report is judged on what it did.
   */
  opened(): void {
    const now = this.now();
    for (const [id, o] of Object.entries(this.metrics().operators))
      this.lateSamples.set(this.taskName(id), [{ at: now, late: lateRows(o), in: o.recordsIn }]);
  }

  /** The size on disk of the last completed checkpoint, when it was stored in a directory. */
  lastCheckpointBytes: number | null = null;
  /** Bytes of each operator's state in the last completed checkpoint, by task name. */
  readonly stateBytes = new Map<string, number>();
  /** Bytes on disk of the completed checkpoints of this run, by id (the job page's history). */
  readonly checkpointSizes = new Map<number, number>();
  /** Recent alarm lines, aborted checkpoints and failures, oldest first (the job page's). */
  readonly events: JobEvent[] = [];
  /** About one sample a second over the last {@link HISTORY_MS} (the job page's charts). */
  readonly history: HistorySample[] = [];

  checkpointCompleted(
    bytes?: number,
    stateBytes?: { readonly [uid: string]: number },
    checkpointId?: number,
  ): void {
    this.consecutiveCheckpointFailures = 0;
    if (bytes !== undefined) {
      this.lastCheckpointBytes = bytes;
      if (checkpointId !== undefined) {
        this.checkpointSizes.set(checkpointId, bytes);
        if (this.checkpointSizes.size > 100)
          this.checkpointSizes.delete(this.checkpointSizes.keys().next().value!);
      }
    }
    if (stateBytes !== undefined) {
      this.stateBytes.clear();
      for (const rt of this.job.graph.tasks) {
        const b = stateBytes[this.job.taskUid(rt.node.id) ?? ""];
        if (b !== undefined) this.stateBytes.set(rt.driver.metricGroup.scope, b);
      }
    }
  }

  checkpointAborted(id?: number, reason?: string): void {
    this.consecutiveCheckpointFailures++;
    if (id !== undefined)
      this.event("checkpoint", `checkpoint ${id} aborted: ${reason ?? "not acknowledged in time"}`);
  }

  /** Records an event for the job page (errors, aborted checkpoints, alarm lines). */
  event(kind: JobEvent["kind"], text: string): void {
    this.events.push({ at: this.now(), kind, text });
    if (this.events.length > MAX_EVENTS) this.events.shift();
  }

  /** Adds a history sample unless the last is under a second old; drops samples past {@link HISTORY_MS}. */
  private sample(now: number, m: JobMetrics): void {
    const last = this.history.at(-1);
    if (last !== undefined && now - last.at < 900) return;
    const sources: Record<string, HistorySample["sources"][string]> = {};
    for (const s of this.sources()) {
      let lag: number | null = null;
      for (const x of s.splits) if (x.lag !== null) lag = (lag ?? 0) + x.lag;
      const wm = m.sources[s.task.replace(/^source-/, "")]?.watermark ?? null;
      sources[s.task] = {
        read: m.sources[s.task.replace(/^source-/, "")]?.recordsRead ?? 0,
        lag,
        watermarkLagMs: wm !== null && Number.isFinite(wm) ? now - wm : null,
      };
    }
    const operators: Record<string, HistorySample["operators"][string]> = {};
    for (const [id, o] of Object.entries(m.operators)) {
      const task = this.taskName(id);
      operators[task] = { in: o.recordsIn, out: o.recordsOut, lateRatio: this.lateRatios.get(task) ?? 0 };
    }
    const sinks: Record<string, HistorySample["sinks"][string]> = {};
    for (const [id, k] of Object.entries(m.sinks)) sinks[this.taskName(id)] = { written: k.recordsWritten };
    this.history.push({ at: now, sources, operators, sinks });
    while (this.history.length > 2 && now - this.history[0]!.at > HISTORY_MS) this.history.shift();
  }

  /** An operator's late rows / rows in over the last minute (0 without input in it). */
  lateRatio(task: string): number {
    return this.lateRatios.get(task) ?? 0;
  }

  /** Firing alarms of one kind, with their labels. */
  active(name: AlarmName): ActiveAlarm[] {
    return [...this.firing.values()].filter((a) => a.name === name);
  }

  /**
   * Re-evaluates every alarm (about once a second from the job's progress, and at each scrape):
   * a newly firing alarm prints one `WEIR-ALARM raised` line, a cleared one `WEIR-ALARM cleared`.
   */
  evaluate(): void {
    this.frozenWhile(() => this.evaluateNow());
  }

  private evaluateNow(): void {
    const now = this.now();
    const t = this.thresholds;
    const m = this.metrics();
    const found = new Map<string, ActiveAlarm>();
    const raise = (name: AlarmName, labels: Record<string, string>, message: string): void => {
      const key = `${name} ${Object.entries(labels)
        .map(([k, v]) => `${k}=${v}`)
        .join(" ")}`;
      found.set(key, { name, labels, message, key });
    };
    for (const s of this.sources()) {
      if (s.ended) continue;
      const lags = s.splits.filter((x) => x.lag !== null);
      const caughtUp = lags.length > 0 && lags.every((x) => x.lag === 0);
      const wm = m.sources[s.task.replace(/^source-/, "")]?.watermark ?? null;
      if (caughtUp && wm !== null && Number.isFinite(wm) && now - wm > t.watermarkLagMs) {
        const held = s.splits
          .filter((x) => x.watermark !== null && !x.idle)
          .sort((a, b) => a.watermark! - b.watermark!)[0];
        const by = held ? `, held back by split ${held.split} at ${iso(held.watermark!)}` : "";
        raise(
          "watermark_lag",
          { table: s.table, task: s.task },
          `source ${s.table}: consumer lag 0 but the watermark ${iso(wm)} is ${formatDurationMs(now - wm)} behind (threshold ${formatDurationMs(t.watermarkLagMs)})${by}; an idle or stuck partition holds it: write to it, or set 'scan.watermark.idle-timeout'`,
        );
      }
      for (const x of s.splits) {
        if (x.lastActivity === null || now - x.lastActivity <= t.splitIdleMs) continue;
        raise(
          "split_idle",
          { table: s.table, task: s.task, split: x.split },
          `source ${s.table}: split ${x.split} has had no row for ${formatDurationMs(now - x.lastActivity)} (threshold ${formatDurationMs(t.splitIdleMs)})${x.idle ? "; it is idle and holds no watermark back" : "; it holds the watermark back"}`,
        );
      }
    }
    for (const [id, o] of Object.entries(m.operators)) {
      const task = this.taskName(id);
      const samples = this.lateSamples.get(task) ?? [];
      samples.push({ at: now, late: lateRows(o), in: o.recordsIn });
      while (samples.length > 2 && now - samples[1]!.at >= LATE_WINDOW_MS) samples.shift();
      this.lateSamples.set(task, samples);
      const first = samples[0]!;
      const dIn = o.recordsIn - first.in;
      const dLate = lateRows(o) - first.late;
      const ratio = dIn > 0 ? dLate / dIn : 0;
      this.lateRatios.set(task, ratio);
      if (dLate > 0 && ratio > t.lateRatio)
        raise(
          "late_ratio",
          { task, kind: o.kind },
          `${o.kind} ${task}: ${dLate} of ${dIn} rows in the last minute were late (${(ratio * 100).toFixed(1)} %, threshold ${(t.lateRatio * 100).toFixed(1)} %); raise the watermark delay or allow lateness`,
        );
    }
    if (this.consecutiveCheckpointFailures >= t.checkpointFailures)
      raise(
        "checkpoint_failures",
        {},
        `${this.consecutiveCheckpointFailures} checkpoints in a row failed (threshold ${t.checkpointFailures}); see the checkpoint lines above for why`,
      );
    for (const [key, a] of found) {
      if (this.firing.has(key)) continue;
      const line = `${ALARM_PREFIX} raised ${a.name} job=${this.jobId} ${a.message}`;
      this.log(line);
      this.event("alarm", line);
    }
    for (const [key, a] of this.firing) {
      if (found.has(key)) continue;
      const line = `${ALARM_PREFIX} cleared ${a.name} job=${this.jobId} ${labelText(a.labels)}`.trimEnd();
      this.log(line);
      this.event("alarm", line);
    }
    this.firing.clear();
    for (const [k, a] of found) this.firing.set(k, a);
    this.sample(now, m);
  }
}

export type AlarmName = "watermark_lag" | "split_idle" | "late_ratio" | "checkpoint_failures";

export interface ActiveAlarm {
  readonly name: AlarmName;
  readonly key: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly message: string;
}

const LATE_WINDOW_MS = 60_000;
/** The job page's charts cover this much. */
export const HISTORY_MS = 10 * 60_000;
const MAX_EVENTS = 50;

/** Something the job page lists under recent errors and events. */
export interface JobEvent {
  readonly at: number;
  readonly kind: "alarm" | "checkpoint" | "error";
  readonly text: string;
}

/** Cumulative counts and gauges at one moment, by task name (rates are differences of two). */
export interface HistorySample {
  readonly at: number;
  readonly sources: {
    readonly [task: string]: {
      readonly read: number;
      /** Consumer lag over all splits (Kafka), or null. */
      readonly lag: number | null;
      readonly watermarkLagMs: number | null;
    };
  };
  readonly operators: {
    readonly [task: string]: { readonly in: number; readonly out: number; readonly lateRatio: number };
  };
  readonly sinks: { readonly [task: string]: { readonly written: number } };
}

function labelText(labels: Readonly<Record<string, string>>): string {
  return Object.entries(labels)
    .map(([k, v]) => `${k}=${v}`)
    .join(" ");
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

/** `1h 20min`, `3 min 5 s`, `850 ms`: a lag for people. */
export function formatDurationMs(ms: number): string {
  if (ms < 0) return "0 s";
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const s = Math.floor(ms / 1000);
  const d = Math.floor(s / 86400);
  const h = Math.floor((s % 86400) / 3600);
  const min = Math.floor((s % 3600) / 60);
  const sec = s % 60;
  if (d > 0) return h === 0 ? `${d} d` : `${d} d ${h} h`;
  if (h > 0) return min === 0 ? `${h} h` : `${h} h ${min} min`;
  if (min > 0) return sec === 0 ? `${min} min` : `${min} min ${sec} s`;
  return `${sec} s`;
}
