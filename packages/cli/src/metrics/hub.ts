import type { PhysicalDag } from "@weir/planner";
import { Job, type JobOptions, type JobResult } from "@weir/runtime";
import { checkpointBytes } from "../engine/checkpointing.js";
import { MetricsExposition, MetricsServer } from "./exposition.js";
import { JobMonitor } from "./monitor.js";

/**
 * The jobs of one engine (a `weir run`, a shell session) with their monitors: alarms are
 * evaluated about once a second (the job's progress) and at each scrape, and `/metrics` is
 * served on `'weir.metrics.port'` (`--metrics-port`) from the first job that sets it until
 * {@link stop}.
 */
export class MetricsHub {
  readonly exposition = new MetricsExposition();
  private server: MetricsServer | null = null;

  /**
   * Where alarm lines and the endpoint's address go (standard error; the shell prints them
   * above its prompt).
   */
  constructor(public log: (line: string) => void) {}

  /** The endpoint's URL, once it serves. */
  get url(): string | null {
    return this.server?.url ?? null;
  }

  /** Builds, runs and closes a job as `runJob` does, monitored (and served when a port is set). */
  async run(dag: PhysicalDag, options: JobOptions): Promise<JobResult> {
    let monitor: JobMonitor | null = null;
    const onProgress = options.onProgress;
    const cp = options.checkpoint;
    const job = new Job(dag, {
      ...options,
      onProgress: (m) => {
        onProgress?.(m);
        monitor?.evaluate();
      },
      ...(cp
        ? {
            checkpoint: {
              ...cp,
              onCheckpoint: async (c, savepoint) => {
                await cp.onCheckpoint?.(c, savepoint);
                monitor?.checkpointCompleted(checkpointBytes(c));
              },
              onAborted: (id, reason) => {
                cp.onAborted?.(id, reason);
                monitor?.checkpointAborted();
              },
            },
          }
        : {}),
    });
    monitor = new JobMonitor(job, (l) => this.log(l));
    await this.serve(job.settings);
    this.exposition.add(monitor);
    let result: JobResult;
    try {
      await job.open();
      monitor.opened();
      result = await job.run();
    } catch (e) {
      await job.close().catch(() => undefined);
      throw e;
    } finally {
      this.exposition.remove(monitor);
    }
    await job.close();
    return result;
  }

  private async serve(settings: Readonly<Record<string, string>>): Promise<void> {
    const text = settings["weir.metrics.port"];
    if (text === undefined) return;
    const port = Number(text.trim());
    if (this.server !== null) {
      if (port !== 0 && port !== this.server.port)
        this.log(
          `weir: metrics are already served at ${this.server.url}; 'weir.metrics.port' = '${text}' is not used`,
        );
      return;
    }
    const host = settings["weir.metrics.host"]?.trim() || "127.0.0.1";
    this.server = await MetricsServer.start(this.exposition, port, host);
    this.log(`weir: metrics at ${this.server.url}`);
  }

  async stop(): Promise<void> {
    const s = this.server;
    this.server = null;
    await s?.close();
  }
}
