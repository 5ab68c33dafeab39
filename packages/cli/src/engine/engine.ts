import {
  type BackfillTarget,
  backfillMergedAt,
  type ConnectorDefinition,
  checkReachable,
  connectorCatalog,
  connectorDefinitions,
  createConnectorRegistry,
  deliveryProblems,
  mergeBackfill,
} from "@weir/connectors";
import { type Diagnostic, parse, renderDiagnostic, type Statement } from "@weir/parser";
import {
  Catalog,
  COLLECT_CONNECTOR,
  type CompiledStatement,
  compileScript,
  explainDag,
  type PhysicalDag,
  PlanError,
  type Planned,
  type PlanTarget,
  planErrorDiagnostic,
  ScriptCompiler,
  Session,
  StatementCompiler,
  secretValues,
} from "@weir/planner";
import {
  ConnectorError,
  type ConnectorRegistry,
  checkRestorable,
  type JobCheckpoint,
  type JobOptions,
  type JobResult,
} from "@weir/runtime";
import { MetricsHub } from "../metrics/hub.js";
import type { Output } from "../output.js";
import { BackfillError, type BackfillPlan, backfillConnectors, backfillDag } from "./backfill.js";
import { listingLines, renderBox } from "./boxes.js";
import {
  type CheckpointPlan,
  checkpointJobOptions,
  planCheckpoints,
  type SavepointRequests,
} from "./checkpointing.js";
import {
  internalErrorFrames,
  renderRuntimeError,
  type ScriptRedaction,
  scriptRedaction,
  scrubOutput,
} from "./errors.js";
import { EXIT_INTERRUPTED, EXIT_INVALID, EXIT_OK, EXIT_RUNTIME } from "./exit-codes.js";
import { Interrupted, MaterializedViews, serveSetting } from "./materialized-views.js";
import { formatCheckpointSummary, formatSummary, jsonMetrics, ProgressLine } from "./summary.js";
import { TableauPrinter } from "./tableau.js";

export interface EngineOptions {
  /** Directory that relative connector paths resolve against. */
  readonly cwd: string;
  readonly out: Output;
  /** `--set key=value` overrides, applied before the script's own SET statements. */
  readonly settings?: readonly (readonly [string, string])[];
  readonly connectors?: ConnectorRegistry;
  /**
   * Connectors besides `@weir/connectors`' list (a test's own): CREATE TABLE, the planner,
   * `weir check` and (unless `connectors` is given) the runtime know them too.
   */
  readonly definitions?: readonly ConnectorDefinition[];
  /** Where to draw the live progress line (a terminal's standard error); none when absent. */
  readonly progress?: (text: string) => void;
}

export interface ScriptOptions {
  readonly file: string;
  /** Parse, bind, plan and check sources without running anything. */
  readonly dryRun?: boolean;
  /** Print the run summary as JSON on standard output. */
  readonly json?: boolean;
  /** Stop an unbounded job after this long. */
  readonly maxRuntimeMs?: number;
  readonly signal?: AbortSignal;
  /**
   * After the job ends, keep serving the materialised views of the embedded Postgres until
   * `signal` aborts (also the setting `'weir.mv.serve' = 'true'`).
   */
  readonly serve?: boolean;
  /**
   * `--restore PATH`: a checkpoint directory (`chk-N`) or its base directory (its newest complete
   * checkpoint); the script's first job starts from it.
   */
  readonly restore?: string;
  /**
   * Savepoint requests (SIGUSR1 to `weir run`, `weir savepoint`): the running job attaches to it
   * and takes savepoints on request.
   */
  readonly savepoints?: SavepointRequests;
  /**
   * `--backfill REPLAY_ID`: run the script as a backfill (docs/data-contracts.md): replay inputs,
   * staging tables, then the merge into the targets.
   */
  readonly backfill?: string;
}

// The exit codes live in their own module so that main.js can read them without loading the engine.
export { EXIT_INTERRUPTED, EXIT_INVALID, EXIT_OK, EXIT_RUNTIME } from "./exit-codes.js";

/**
 * A session of Weir: a catalog, settings and the connectors, executing statements the way
 * Flink's SQL client does in script mode: DDL, SET and SHOW take effect in order; every INSERT
 * of the script (and EXECUTE STATEMENT SET, CREATE TABLE AS) joins one job that runs at the end;
 * a bare SELECT runs when it is reached and prints its changelog. The planner's script compiler
 * (`ScriptCompiler`, `StatementCompiler`) binds, applies and plans; the engine presents what it
 * gives and runs the jobs (materialised views' embedded Postgres, checkpoints, metrics).
 */
export class Engine {
  readonly catalog: Catalog;
  readonly session = new Session();
  /** The connector definitions this engine's catalog and registry know. */
  readonly definitions: readonly ConnectorDefinition[];
  /** The shell's statements compile here (each job's views' tables made by `views`). */
  readonly compiler: StatementCompiler;
  private readonly connectors: ConnectorRegistry;
  /** `--restore` applies to the first job the script runs only. */
  private restoreUsed = false;
  /** CREATE MATERIALIZED VIEW: targets, catalog entries, the embedded Postgres. */
  readonly views: MaterializedViews;
  /** Where this engine prints; error lines are also kept for the `--json` error object. */
  private readonly output: Output;
  private errorLines: string[] = [];
  /** The text of the script being run: run-time errors are shown at its DDL. */
  private scriptSource = "";
  /** Whether the current `runScript` printed a job's JSON summary. */
  private jsonSummaryPrinted = false;
  /** Alarms and the `/metrics` endpoint (`'weir.metrics.port'`) of this engine's jobs. */
  readonly metrics: MetricsHub;

  constructor(private readonly options: EngineOptions) {
    for (const [k, v] of options.settings ?? []) this.session.set(k, v);
    this.definitions = connectorDefinitions(options.definitions);
    this.catalog = new Catalog(connectorCatalog(options.definitions));
    this.compiler = new StatementCompiler(this.catalog, this.session, { registerViewTables: false });
    this.connectors =
      options.connectors ??
      createConnectorRegistry(options.definitions ? { definitions: options.definitions } : {});
    this.output = {
      out: (l) => options.out.out(l),
      err: (raw) => {
        // An error message may quote an option or a server's answer: never a password.
        const l = this.scrub(raw);
        this.errorLines.push(l);
        options.out.err(l);
      },
    };
    // The views' lines are information ("starting embedded Postgres…"), not errors.
    this.views = new MaterializedViews(this.catalog, this.session, options.out);
    // Alarm lines and the endpoint's address are information on standard error, not errors.
    this.metrics = new MetricsHub((l) => options.out.err(l), this.catalog.connectors);
  }

  /** The directory relative paths (connectors, checkpoint and savepoint directories) resolve against. */
  get cwd(): string {
    return this.options.cwd;
  }

  /** Stops what outlives a statement (the embedded Postgres of the materialised views, the metrics endpoint). */
  async close(): Promise<void> {
    await this.metrics.stop();
    await this.views.stop();
  }

  /** The secrets written in the script's `WITH (...)`, `OPTIONS(...)` and SET, and where they are. */
  private script: ScriptRedaction | undefined;

  /**
   * The script (or the shell's statement) being executed: its secrets are hidden from output
   * even before its tables are in the catalog, its echoed lines by position, and its file name
   * is shown as it is.
   */
  useScript(source: string, statements: readonly Statement[], file: string): void {
    this.script = scriptRedaction(source, statements, file);
  }

  /** `text` as output may show it: no secret of the script or the catalog in it (see `scrubOutput`). */
  scrub(text: string): string {
    return scrubOutput(text, this.secrets(), this.script);
  }

  /** The secrets of the script and of the catalog's tables and views (see `secretValues`). */
  private secrets(): string[] {
    const out: string[] = [...(this.script?.secrets ?? [])];
    for (const kind of ["table", "materialized-view"] as const) {
      for (const name of this.catalog.names(kind)) {
        const o = this.catalog.get(name);
        if (o !== undefined && o.kind !== "view") out.push(...secretValues(o.options));
      }
    }
    return out;
  }

  private get out(): Output {
    return this.output;
  }

  /**
   * Runs a script. Its materialised views are served (embedded Postgres) while its job runs and,
   * with `serve`, after it ends until `signal` aborts; then the server stops.
   */
  async runScript(source: string, opts: ScriptOptions): Promise<number> {
    this.errorLines = [];
    this.jsonSummaryPrinted = false;
    let code: number = EXIT_RUNTIME;
    try {
      code = await this.runStatements(source, opts);
      if (code === EXIT_OK && !opts.dryRun && (opts.serve || serveSetting(this.session.all())))
        await this.views.serve(opts.signal);
    } catch (e) {
      this.errorLines.push(`internal error: ${e instanceof Error ? e.message : String(e)}`);
      throw e;
    } finally {
      // Ctrl-C does not wait for a server that is still starting: it stops once it is up.
      await this.metrics.stop();
      const stopping = this.views.stop();
      if (code === EXIT_INTERRUPTED) stopping.catch(() => undefined);
      else await stopping;
      if (opts.json) this.printJsonEnd(code, opts);
    }
    return code;
  }

  /**
   * `--json` always ends with one object: the last job's summary, or (when the run failed, was
   * stopped before its job, or ran no job) `{"reason": ..., "exitCode": ..., "errors": [...]}`.
   */
  private printJsonEnd(code: number, opts: ScriptOptions): void {
    if (this.jsonSummaryPrinted && code === EXIT_OK) return;
    if (this.jsonSummaryPrinted && code === EXIT_INTERRUPTED && this.errorLines.length === 0) return;
    const reason =
      code === EXIT_OK ? (opts.dryRun ? "dry-run" : "end") : code === EXIT_INTERRUPTED ? "aborted" : "error";
    this.options.out.out(
      JSON.stringify({ reason, exitCode: code, metrics: null, errors: this.errorLines.slice() }),
    );
  }

  private async runStatements(source: string, opts: ScriptOptions): Promise<number> {
    this.scriptSource = source;
    const parsed = parse(source);
    this.useScript(source, parsed.statements, opts.file);
    if (parsed.diagnostics.length > 0) {
      this.report(parsed.diagnostics, source, opts.file);
      return parsed.diagnostics.some((d) => d.severity === "error") ? EXIT_INVALID : EXIT_OK;
    }
    // The views' tables are made here (embedded Postgres), and each SELECT runs when reached.
    const script = new ScriptCompiler(this.catalog, this.session, {
      registerViewTables: false,
      queries: "run",
    });
    for (const stmt of parsed.statements) {
      if (opts.signal?.aborted) return this.interrupted(opts);
      const compiled = script.statement(stmt);
      this.report(compiled.diagnostics, source, opts.file);
      if (compiled.kind === "invalid") return EXIT_INVALID;
      const code = await this.present(compiled, script, source, opts);
      if (code !== EXIT_OK) return code;
    }
    const targets = script.targets;
    if (targets.length === 0) return EXIT_OK;
    if (opts.signal?.aborted) return this.interrupted(opts);
    const dag = this.planned(script.plan(), source, opts.file);
    if (dag === undefined) return EXIT_INVALID;
    if (opts.backfill !== undefined) return await this.runBackfill(dag, opts, opts.backfill);
    if (opts.dryRun) {
      if (this.checkpointPlan(dag, opts) === undefined) return EXIT_INVALID;
      const missing = await this.checkSources(dag, opts.file);
      if (missing.length > 0) {
        for (const m of missing) this.out.err(m);
        return EXIT_INVALID;
      }
      this.options.out.err(
        `${opts.file}: OK (${targets.length} INSERT target${targets.length === 1 ? "" : "s"} planned)`,
      );
      return EXIT_OK;
    }
    return await this.execute(dag, opts);
  }

  /** Ctrl-C before a job ran: nothing more runs. */
  private interrupted(opts: ScriptOptions): number {
    this.out.err(`${opts.file}: stopped (Ctrl-C); the remaining statements did not run`);
    return EXIT_INTERRUPTED;
  }

  /** `weir explain`: compiles the whole script and prints the plan of its INSERTs and SELECTs. */
  explainScript(source: string, file: string, changelogMode: boolean): number {
    const compiled = compileScript(source, this.catalog, this.session);
    this.report(compiled.diagnostics, source, file);
    if (!compiled.ok) return EXIT_INVALID;
    if (compiled.dag === null) {
      this.out.err(`${file}: nothing to explain (no INSERT or SELECT)`);
      return EXIT_OK;
    }
    this.out.out(explainDag(compiled.dag, { changelogMode }));
    return EXIT_OK;
  }

  /**
   * REPL hook: compiles one statement (its effect applied to the catalog and session) and prints
   * its diagnostics against `source` and `file`.
   */
  compile(stmt: Statement, source: string, file: string): CompiledStatement {
    const compiled = this.compiler.compile(stmt);
    this.report(compiled.diagnostics, source, file);
    return compiled;
  }

  /** REPL hook: plans targets into one DAG, or prints why they do not plan and gives undefined. */
  tryPlan(targets: readonly PlanTarget[], source: string, file: string): PhysicalDag | undefined {
    return this.planned(this.compiler.plan(targets), source, file);
  }

  /** REPL hook: runs a planned job with this engine's connectors and working directory. */
  runDag(
    dag: PhysicalDag,
    hooks: Pick<
      JobOptions,
      "signal" | "onProgress" | "collect" | "maxRuntimeMs" | "jobId" | "checkpoint" | "restoreFrom"
    >,
  ): Promise<JobResult> {
    return this.metrics.run(dag, { connectors: this.connectors, cwd: this.options.cwd, ...hooks });
  }

  /** Prints diagnostics rendered against `source` and `file` (errors are kept for `--json`). */
  report(diagnostics: readonly Diagnostic[], source: string, file: string): void {
    for (const d of diagnostics)
      if (d.severity === "error") this.out.err(renderDiagnostic(d, source, file));
      else this.options.out.err(this.scrub(renderDiagnostic(d, source, file)));
  }

  /** The planned DAG, or undefined when the targets did not plan (the diagnostics printed). */
  private planned(planned: Planned, source: string, file: string): PhysicalDag | undefined {
    if (planned.ok) return planned.dag;
    this.report(planned.diagnostics, source, file);
    return undefined;
  }

  /**
   * What a statement of `weir run` leaves to do once compiled: print a listing, make a
   * materialised view's table, run a SELECT when it is reached (after the job that fills a view
   * it reads), refuse STOP JOB. Its targets have joined the script's job.
   */
  private async present(
    compiled: Exclude<CompiledStatement, { kind: "invalid" }>,
    script: ScriptCompiler,
    source: string,
    opts: ScriptOptions,
  ): Promise<number> {
    switch (compiled.kind) {
      case "effect": {
        const bound = compiled.bound;
        // A dropped materialised view's job has not run yet (it would at the end): it no longer
        // does, and the table its CREATE made is dropped (the view owned it).
        if (bound.kind === "drop" && bound.object?.kind === "materialized-view" && !opts.dryRun)
          await this.views.drop(bound.object);
        return EXIT_OK;
      }
      case "listing":
        if (compiled.bound.kind === "set" && compiled.listing.kind === "rows")
          for (const [k, v] of compiled.listing.rows) this.out.out(`'${k}' = '${v}'`);
        else for (const l of listingLines(compiled.listing)) this.out.out(l);
        return EXIT_OK;
      case "job-control":
        if (compiled.bound.kind === "stop-job") {
          this.out.err(
            `${opts.file}: error: STOP JOB '${compiled.bound.jobId}': no job is running: a script's INSERTs run as one job once the whole script has been read (stop it with Ctrl-C or --max-runtime; STOP JOB is for the shell)`,
          );
          return EXIT_INVALID;
        }
        // SHOW JOBS: a script's job runs once the script has been read, so none runs yet.
        for (const l of renderBox(["job id"], [])) this.out.out(l);
        return EXIT_OK;
      case "job": {
        const bound = compiled.bound;
        if (bound.kind !== "create-materialized-view" || compiled.targets.length === 0 || opts.dryRun)
          return EXIT_OK;
        // The view's job joins the script's INSERTs; its table is readable once that job runs.
        try {
          script.placeView(bound.view.name, await this.views.prepare(bound, opts.signal));
        } catch (e) {
          if (e instanceof Interrupted) return this.interrupted(opts);
          if (e instanceof PlanError) {
            this.report([planErrorDiagnostic(e, bound.view.span)], source, opts.file);
            return EXIT_INVALID;
          }
          // Starting the embedded server or reaching the view's Postgres failed.
          this.out.err(
            `${opts.file}: error: materialized view '${bound.view.name}': ${e instanceof Error ? e.message : String(e)}`,
          );
          return EXIT_RUNTIME;
        }
        return EXIT_OK;
      }
      case "query": {
        if (script.targets.length > 0 && !opts.dryRun && this.views.reads(compiled.bound.plan)) {
          // A query of a materialised view reads its table: the job that fills it runs first.
          const job = this.planned(script.plan(script.take()), source, opts.file);
          if (job === undefined) return EXIT_INVALID;
          const code = await this.execute(job, opts);
          if (code !== EXIT_OK) return code;
        }
        const dag = this.planned(script.plan([compiled.target]), source, opts.file);
        if (dag === undefined) return EXIT_INVALID;
        if (opts.dryRun) {
          if (this.checkpointPlan(dag, opts) === undefined) return EXIT_INVALID;
          const problems = await this.checkSources(dag, opts.file);
          for (const p of problems) this.out.err(p);
          if (problems.length > 0) return EXIT_INVALID;
          this.options.out.err(`${opts.file}: OK (SELECT planned)`);
          return EXIT_OK;
        }
        return await this.execute(dag, opts);
      }
      default: {
        const _exhaustive: never = compiled;
        return _exhaustive;
      }
    }
  }

  /**
   * What `weir run` checks before reading data, without running: each source and sink is
   * created as the job creates it (its options are read), and reached as it opens (files,
   * Kafka, Postgres and its table). The problems are rendered as the run would print them.
   */
  private async checkSources(dag: PhysicalDag, file: string): Promise<string[]> {
    const problems: string[] = [];
    for (const n of dag.nodes) {
      if (n.kind !== "source" && n.kind !== "sink" && n.kind !== "lookup-join") continue;
      let problem: unknown = null;
      try {
        // A lookup table is opened when the job starts: only reached (e.g. its files must be there).
        if (n.kind === "source") this.connectors.source(n);
        else if (n.kind === "sink") this.connectors.sink(n);
        problem = await checkReachable(n, this.options.cwd, this.definitions);
      } catch (e) {
        problem = e instanceof ConnectorError ? e.ofTable(n.table) : e;
      }
      if (problem !== null)
        problems.push(renderRuntimeError(problem, dag, this.catalog, this.scriptSource, file));
    }
    return problems;
  }

  private reportRuntimeError(e: unknown, dag: PhysicalDag, file: string): void {
    this.out.err(renderRuntimeError(e, dag, this.catalog, this.scriptSource, file));
    const bug = internalErrorFrames(e);
    if (bug !== undefined) this.out.err(bug);
  }

  /**
   * The job's checkpoint settings and `--restore` (the first job only), checked as the run does
   * before reading data (also under `--dry-run`); undefined when they are wrong (printed).
   */
  private checkpointPlan(dag: PhysicalDag, opts: ScriptOptions): CheckpointPlan | undefined {
    const restorePath = this.restoreUsed ? undefined : opts.restore;
    this.restoreUsed = true;
    return this.jobCheckpoints(dag, opts.file, restorePath);
  }

  /**
   * The checkpoint settings of a job (checked, with the sinks' delivery guarantees) and the
   * checkpoint to restore; undefined when they are wrong (printed against `file`). The shell's
   * background jobs take checkpoints and savepoints by this too.
   */
  jobCheckpoints(dag: PhysicalDag, file: string, restorePath?: string): CheckpointPlan | undefined {
    const opts = { file };
    const settings = this.session.all();
    // Flink's `SET 'execution.state-recovery.path'` (1.x: 'execution.savepoint.path'): every job
    // submitted while it is set starts from that checkpoint or savepoint, until RESET.
    const recoveryKey = RECOVERY_PATH_KEYS.find((k) => settings[k] !== undefined);
    if (recoveryKey !== undefined) {
      if (restorePath !== undefined) {
        this.out.err(
          `${opts.file}: error: '${recoveryKey}' and --restore/--from-savepoint both name where to start: give one of them`,
        );
        return undefined;
      }
      restorePath = settings[recoveryKey]!.trim();
    }
    const checkpoints = planCheckpoints(settings, restorePath, this.options.cwd, fitsJob(dag));
    if (!checkpoints.ok) {
      this.out.err(`${opts.file}: error: ${checkpoints.message}`);
      return undefined;
    }
    const delivery = deliveryProblems(dag, checkpoints.plan.config.intervalMs, this.catalog.connectors);
    if (delivery.length > 0) {
      for (const p of delivery) this.out.err(`${opts.file}: error: ${p}`);
      return undefined;
    }
    const restored = checkpoints.plan.restore;
    if (restored) {
      try {
        checkRestorable(restored.checkpoint, dag);
      } catch (e) {
        this.out.err(`${opts.file}: error: ${(e as Error).message} (${restored.path})`);
        return undefined;
      }
    }
    return checkpoints.plan;
  }

  /** Runs a planned job; a bare SELECT's changes print as a tableau on standard output. */
  /**
   * `weir run --backfill REPLAY_ID`: the job over the replay inputs into staging tables, then the
   * merge into each target; a replay id already merged changes nothing.
   */
  private async runBackfill(dag: PhysicalDag, opts: ScriptOptions, replayId: string): Promise<number> {
    const file = opts.file;
    let plan: BackfillPlan;
    try {
      plan = backfillDag(dag, replayId, Date.now(), this.catalog.connectors);
    } catch (e) {
      if (!(e instanceof BackfillError)) throw e;
      this.out.err(`${file}: error: backfill: ${e.message}`);
      return EXIT_INVALID;
    }
    const pending: BackfillTarget[] = [];
    try {
      for (const t of plan.targets) {
        const at = await backfillMergedAt(t, replayId);
        if (at === null) pending.push(t);
        else
          this.options.out.err(
            `${file}: backfill '${replayId}' was merged into ${t.table} at ${at}; nothing to do (replay again under a new --backfill id)`,
          );
      }
    } catch (e) {
      this.reportRuntimeError(e, plan.dag, file);
      return EXIT_RUNTIME;
    }
    if (pending.length === 0) return EXIT_OK;
    if (opts.dryRun) {
      this.options.out.err(
        `${file}: OK (backfill '${replayId}' planned: ${pending.map((t) => `${t.table} via ${t.staging}`).join(", ")})`,
      );
      return EXIT_OK;
    }
    // The replay never touches the realtime job's checkpoints: it runs without checkpointing (a
    // failed replay is run again from its start; the staging upserts converge).
    for (const key of ["execution.checkpointing.interval", "execution.checkpointing.dir"])
      this.session.reset(key);
    const code = await this.execute(plan.dag, opts, backfillConnectors(this.connectors));
    if (code !== EXIT_OK) return code;
    for (const t of pending) {
      try {
        const r = await mergeBackfill(t, replayId);
        if (r.alreadyMergedAt !== null) {
          this.options.out.err(
            `${file}: backfill '${replayId}' was merged into ${t.table} at ${r.alreadyMergedAt} by another run`,
          );
          continue;
        }
        const after =
          r.afterCutover > 0 ? `, ${r.afterCutover} at or after the cut-over left to realtime` : "";
        this.options.out.err(
          `${file}: backfill '${replayId}' merged into ${t.table}: ${r.merged} rows written, ${r.kept} kept (the target's version was as new or newer)${after}; staging table ${t.staging}`,
        );
      } catch (e) {
        this.reportRuntimeError(e, plan.dag, file);
        return EXIT_RUNTIME;
      }
    }
    return EXIT_OK;
  }

  async execute(
    dag: PhysicalDag,
    opts: ScriptOptions,
    connectors: ConnectorRegistry = this.connectors,
  ): Promise<number> {
    const zone = this.session.localTimeZone;
    const printers = new Map<readonly unknown[], TableauPrinter>();
    const checkpoints = this.checkpointPlan(dag, opts);
    if (checkpoints === undefined) return EXIT_INVALID;
    const restored = checkpoints.restore;
    const progress = this.options.progress ? new ProgressLine(this.options.progress) : null;
    let result: JobResult;
    try {
      result = await this.metrics.run(dag, {
        ...checkpointJobOptions(checkpoints, opts.savepoints),
        ...(progress ? { onProgress: (m) => progress.update(m) } : {}),
        connectors,
        cwd: this.options.cwd,
        collect: (batch, schema) => {
          let p = printers.get(schema);
          if (!p) {
            p = new TableauPrinter(schema, (l) => this.out.out(l), zone);
            printers.set(schema, p);
          }
          p.batch(batch);
        },
        ...(opts.maxRuntimeMs !== undefined ? { maxRuntimeMs: opts.maxRuntimeMs } : {}),
        ...(opts.signal ? { signal: opts.signal } : {}),
      });
    } catch (e) {
      progress?.clear();
      this.reportRuntimeError(e, dag, opts.file);
      return EXIT_RUNTIME;
    }
    progress?.clear();
    const collects = dag.sinks.filter(
      (id) =>
        dag.nodes[id]!.kind === "sink" &&
        (dag.nodes[id] as { connector: string }).connector === COLLECT_CONNECTOR,
    );
    if (collects.length > 0 && printers.size === 0) {
      new TableauPrinter(dag.nodes[collects[0]!]!.schema, (l) => this.out.out(l), zone).end();
    }
    for (const p of printers.values()) p.end();
    const checkpointing = checkpoints.store || restored;
    const summary = {
      restoredFrom: restored ? { checkpointId: restored.checkpoint.checkpointId, path: restored.path } : null,
      completed: result.checkpoints,
      lastCheckpointId: result.lastCheckpoint?.checkpointId ?? null,
    };
    // Stopped with a savepoint (weir savepoint --stop) is a clean end, as Flink's FINISHED.
    const code = result.reason === "aborted" ? EXIT_INTERRUPTED : EXIT_OK;
    if (opts.json) {
      this.out.out(
        JSON.stringify({
          reason: result.reason,
          exitCode: code,
          metrics: jsonMetrics(result.metrics),
          ...(checkpointing ? { checkpoints: summary } : {}),
        }),
      );
      this.jsonSummaryPrinted = true;
    } else {
      for (const l of formatSummary(result.metrics, result.reason)) this.options.out.err(l);
      if (checkpointing) for (const l of formatCheckpointSummary(summary)) this.options.out.err(l);
    }
    return code;
  }
}

/** The settings that name a checkpoint or savepoint to start from (Flink 2's name first). */
const RECOVERY_PATH_KEYS = ["execution.state-recovery.path", "execution.savepoint.path"] as const;

/** Whether a checkpoint fits `dag` (for choosing among the jobs of a shared checkpoint directory). */
function fitsJob(dag: PhysicalDag): (cp: JobCheckpoint) => string | null {
  return (cp) => {
    try {
      checkRestorable(cp, dag);
      return null;
    } catch (e) {
      return (e as Error).message;
    }
  };
}
