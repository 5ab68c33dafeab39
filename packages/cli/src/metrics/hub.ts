import { connectorCatalog } from "@weir/connectors";
import { type ConnectorCatalog, dagSecrets, type PhysicalDag, scrubSecrets } from "@weir/planner";
import { Job, type JobOptions, type JobResult } from "@weir/runtime";
import { checkpointBytes, checkpointStateBytes } from "../engine/checkpointing.js";
import { MetricsExposition, MetricsServer } from "./exposition.js";
import { JobMonitor } from "./monitor.js";
import { type PageEntry, pageState } from "./page-state.js";
import { UiServer } from "./ui-server.js";

/** Ended jobs the job page keeps listing (with their error, if they failed). */
const ENDED_JOBS_KEPT = 5;

/**
 * The jobs of one engine (a `weir run`, a shell session) with their monitors: alarms are
 * evaluated about once a second (the job's progress) and at each scrape, and `/metrics` is
 * served on `'weir.metrics.port'` (`--metrics-port`) from the first job that sets it until
 * {@link stop}.
 */
export class MetricsHub {
  readonly exposition = new MetricsExposition();
  private server: MetricsServer | null = null;
  private ui: UiServer | null = null;
  /** The job page's jobs: running ones, then the last few that ended. */
  private readonly running = new Set<JobMonitor>();
  private readonly ended: PageEntry[] = [];

  /**
   * Where alarm lines and the endpoint's address go (standard error; the shell prints them
   * above its prompt).
   */
  constructor(
    public log: (line: string) => void,
    /** The connectors' specs (the engine's catalog's). */
    private readonly connectors: ConnectorCatalog = connectorCatalog(),
  ) {}

  /** The endpoint's URL, once it serves. */
  get url(): string | null {
    return this.server?.url ?? null;
  }

  /** The job page's URL, once it serves. */
  get uiUrl(): string | null {
    return this.ui?.url ?? null;
  }

  /** Builds, runs and closes a job as `runJob` does, monitored (and served when a port is set). */
  async run(dag: PhysicalDag, options: JobOptions): Promise<JobResult> {
    let monitor: JobMonitor | null = null;
    const onProgress = options.onProgress;
    const cp = options.checkpoint;
    const settings = { ...dag.settings, ...options.settings };
    // The job page shows errors and abort reasons, which may quote an option or a client's
    // answer (a connection string): never a password.
    const secrets = dagSecrets(dag);
    const scrub = (text: string) => scrubSecrets(text, secrets);
    // The per-row event-time lag at the sinks is tracked only when someone can look at it.
    const served = settings["weir.metrics.port"] !== undefined || settings["weir.ui.port"] !== undefined;
    const job = new Job(dag, {
      ...options,
      ...(served ? { trackEventTimeLag: true } : {}),
      onProgress: (m) => {
        onProgress?.(m);
        monitor?.evaluate();
      },
      // The job checkpoints as its settings say, with or without hooks of the caller's.
      checkpoint: {
        ...cp,
        onCheckpoint: async (c, savepoint) => {
          await cp?.onCheckpoint?.(c, savepoint);
          monitor?.checkpointCompleted(checkpointBytes(c), checkpointStateBytes(c), c.checkpointId);
        },
        onAborted: (id, reason) => {
          cp?.onAborted?.(id, reason);
          monitor?.checkpointAborted(id, reason === undefined ? undefined : scrub(reason));
        },
      },
    });
    monitor = new JobMonitor(job, (l) => this.log(l), Date.now, this.connectors);
    await this.serve(job.settings);
    await this.serveUi(job.settings);
    this.exposition.add(monitor);
    this.running.add(monitor);
    let result: JobResult;
    try {
      await job.open();
      monitor.opened();
      result = await job.run();
    } catch (e) {
      const message = scrub(e instanceof Error ? e.message : String(e));
      monitor.event("error", message);
      this.finish({ monitor, status: "failed", error: message });
      await job.close().catch(() => undefined);
      throw e;
    } finally {
      this.exposition.remove(monitor);
    }
    this.finish({ monitor, status: "finished", error: null });
    await job.close();
    return result;
  }

  private finish(entry: PageEntry): void {
    this.running.delete(entry.monitor);
    this.ended.push(entry);
    if (this.ended.length > ENDED_JOBS_KEPT) this.ended.shift();
  }

  private async serveUi(settings: Readonly<Record<string, string>>): Promise<void> {
    const text = settings["weir.ui.port"];
    if (text === undefined) return;
    const port = Number(text.trim());
    if (this.ui !== null) {
      if (port !== 0 && port !== this.ui.port)
        this.log(
          `weir: the job page is already served at ${this.ui.url}; 'weir.ui.port' = '${text}' is not used`,
        );
      return;
    }
    const host = settings["weir.ui.host"]?.trim() || "127.0.0.1";
    const state = () =>
      pageState([
        ...[...this.running].map((monitor) => ({ monitor, status: "running" as const, error: null })),
        ...[...this.ended].reverse(),
      ]);
    this.ui = await UiServer.start(state, this.exposition, port, host);
    this.log(`weir: job page at ${this.ui.url}`);
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
    const u = this.ui;
    this.server = null;
    this.ui = null;
    await s?.close();
    await u?.close();
  }
}
