import { randomBytes } from "node:crypto";
import { dagSecrets, type PhysicalDag, scrubSecrets } from "@weir/planner";
import type { JobMetrics, JobOptions, JobResult, SourceMetrics } from "@weir/runtime";
import { type CheckpointPlan, checkpointJobOptions, SavepointRequests } from "../engine/checkpointing.js";
import { formatWatermark, totalLag, watermarkLag } from "../engine/summary.js";

/** Flink's job states, as SHOW JOBS prints them. */
export type JobState = "RUNNING" | "FINISHED" | "FAILED" | "CANCELED";

/** One INSERT job submitted from the shell. */
export interface JobInfo {
  /** 32 hex digits, like a Flink job id. */
  readonly id: string;
  readonly name: string;
  readonly startedAt: number;
  state: JobState;
  /** The latest metrics: from progress reports while running, the final ones after. */
  metrics: JobMetrics | null;
  error?: string;
}

export type RunDag = (
  dag: PhysicalDag,
  hooks: Pick<JobOptions, "signal" | "onProgress" | "collect" | "jobId" | "checkpoint" | "restoreFrom">,
) => Promise<JobResult>;

interface Running {
  readonly info: JobInfo;
  readonly controller: AbortController;
  readonly done: Promise<void>;
  /** STOP JOB ... WITH SAVEPOINT asks the job through this. */
  readonly savepoints: SavepointRequests;
}

/**
 * The shell's background jobs. A job runs in this process until its input ends (FINISHED), it
 * fails (FAILED), it is stopped (CANCELED: the abort signal makes it flush its sinks and
 * close) or stopped with a savepoint (FINISHED, as in Flink). It takes checkpoints as the
 * session's settings said when it was submitted. States only move away from RUNNING. A failure is a notice: handed to
 * {@link onNotice} when it happens (the shell prints it above its prompt), else queued for
 * {@link takeNotices}.
 */
export class JobManager {
  private readonly jobs = new Map<string, Running>();
  private readonly notices: string[] = [];
  /** Where notices go as they happen; while unset they are queued. */
  onNotice: ((line: string) => void) | null = null;

  constructor(private readonly run: RunDag) {}

  /** Starts a job; `checkpoints`: its checkpoint settings (none: no checkpoints). */
  submit(dag: PhysicalDag, name: string, checkpoints?: CheckpointPlan): JobInfo {
    const info: JobInfo = {
      id: randomBytes(16).toString("hex"),
      name,
      startedAt: Date.now(),
      state: "RUNNING",
      metrics: null,
    };
    const controller = new AbortController();
    const savepoints = new SavepointRequests();
    const done = this.run(dag, {
      ...(checkpoints ? checkpointJobOptions(checkpoints, savepoints) : {}),
      // The job's own id is SHOW JOBS's: the metrics endpoint labels it so (`job`), and its
      // checkpoints and savepoints are kept under it.
      jobId: info.id,
      signal: controller.signal,
      onProgress: (m) => {
        info.metrics = m;
      },
    }).then(
      (r) => {
        info.metrics = r.metrics;
        // Stopped with a savepoint is FINISHED, as in Flink.
        info.state = r.reason === "aborted" ? "CANCELED" : "FINISHED";
      },
      (e: unknown) => {
        info.state = "FAILED";
        // SHOW JOBS and the notice show the error, which may quote an option: never a password.
        info.error = scrubSecrets(e instanceof Error ? e.message : String(e), dagSecrets(dag));
        const notice = `[ERROR] Job ${info.id} (${info.name}) failed: ${info.error}`;
        if (this.onNotice) this.onNotice(notice);
        else this.notices.push(notice);
      },
    );
    this.jobs.set(info.id, { info, controller, done, savepoints });
    return info;
  }

  /** Every job, oldest first. */
  list(): readonly JobInfo[] {
    return [...this.jobs.values()].map((j) => j.info);
  }

  get(id: string): JobInfo | undefined {
    return this.jobs.get(id)?.info;
  }

  /** The running job of that name, if any (a materialised view's job is named after it). */
  running(name: string): JobInfo | undefined {
    for (const j of this.jobs.values()) if (j.info.name === name && j.info.state === "RUNNING") return j.info;
    return undefined;
  }

  /** Stops a running job and waits until it has closed; a job that is not running is left as is. */
  async stop(id: string): Promise<JobInfo | undefined> {
    const job = this.jobs.get(id);
    if (!job) return undefined;
    job.controller.abort();
    await job.done;
    return job.info;
  }

  /**
   * STOP JOB ... WITH SAVEPOINT: the job takes a savepoint into `dir` (its sinks commit it),
   * stops without processing anything after it, and closes; resolves with the savepoint's path.
   * Rejects (the job goes on) when the job is not running or the savepoint fails.
   */
  async stopWithSavepoint(id: string, dir: string): Promise<string> {
    const job = this.jobs.get(id);
    if (!job) throw new Error(`no job with id '${id}'`);
    if (job.info.state !== "RUNNING") throw new Error(`job ${id} is ${job.info.state}, not RUNNING`);
    const path = await job.savepoints.take({ dir, stop: true });
    await job.done;
    return path;
  }

  /** Stops every running job (the shell is leaving). */
  async stopAll(): Promise<number> {
    const running = [...this.jobs.values()].filter((j) => j.info.state === "RUNNING");
    for (const j of running) j.controller.abort();
    await Promise.all(running.map((j) => j.done));
    return running.length;
  }

  /** Notices gathered since the last call. */
  takeNotices(): string[] {
    return this.notices.splice(0);
  }
}

/** SHOW JOBS columns. */
export const JOB_HEADERS = [
  "job id",
  "job name",
  "status",
  "records in",
  "records out",
  "watermark",
  "watermark lag",
  "consumer lag",
  "start time",
];

/** The consumer lag of the job's sources that can tell (Kafka), in all; `-` when none can. */
function lagColumn(sources: readonly SourceMetrics[]): string {
  const lags = sources.flatMap((s) => (s.lag ? [s.lag] : []));
  return lags.length === 0 ? "-" : String(lags.reduce((n, l) => n + totalLag(l), 0));
}

/** One SHOW JOBS row: records read by all sources, written by all sinks, the lowest source watermark. */
export function jobRow(job: JobInfo, now: number = Date.now()): string[] {
  const m = job.metrics;
  const sources = m ? Object.values(m.sources) : [];
  const sinks = m ? Object.values(m.sinks) : [];
  const recordsIn = sources.reduce((n, s) => n + s.recordsRead, 0);
  const recordsOut = sinks.reduce((n, s) => n + s.recordsWritten, 0);
  let wm: number | null = null;
  for (const s of sources) {
    if (s.watermark === null) {
      wm = null;
      break;
    }
    wm = wm === null ? s.watermark : Math.min(wm, s.watermark);
  }
  return [
    job.id,
    job.name,
    job.state,
    String(recordsIn),
    String(recordsOut),
    formatWatermark(wm),
    watermarkLag(wm, now) ?? "-",
    lagColumn(sources),
    new Date(job.startedAt).toISOString().replace("T", " ").replace("Z", ""),
  ];
}
