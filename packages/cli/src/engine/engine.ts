import { checkReachable, createConnectorRegistry, deliveryProblems } from "@weir/connectors";
import { type Diagnostic, parse, renderDiagnostic, type Statement } from "@weir/parser";
import {
  type BoundStatement,
  bindStatement,
  Catalog,
  describeRows,
  explainDag,
  materializedViewTarget,
  optimize,
  type PhysicalDag,
  PlanError,
  type PlanTarget,
  Session,
  type SourceSpan,
  showCreate,
  type TableTarget,
} from "@weir/planner";
import {
  type ConnectorRegistry,
  checkRestorable,
  type JobCheckpoint,
  type JobOptions,
  type JobResult,
  runJob,
} from "@weir/runtime";
import type { Output } from "../output.js";
import { renderBox } from "./boxes.js";
import { checkpointJobOptions, planCheckpoints, type SavepointRequests } from "./checkpointing.js";
import { MaterializedViews, serveSetting } from "./materialized-views.js";
import { formatCheckpointSummary, formatSummary, ProgressLine } from "./summary.js";
import { TableauPrinter } from "./tableau.js";

export interface EngineOptions {
  /** Directory that relative connector paths resolve against. */
  readonly cwd: string;
  readonly out: Output;
  /** `--set key=value` overrides, applied before the script's own SET statements. */
  readonly settings?: readonly (readonly [string, string])[];
  readonly connectors?: ConnectorRegistry;
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
   * Savepoint requests (SIGUSR1 to `weir run`): the running job takes a savepoint into
   * `'execution.checkpointing.savepoint-dir'` and the path is printed on standard error.
   */
  readonly savepoints?: SavepointRequests;
}

/** Exit codes of DESIGN.md: 0 success, 1 SQL or validation errors, 2 runtime failures. */
export const EXIT_OK = 0;
export const EXIT_INVALID = 1;
export const EXIT_RUNTIME = 2;

/** A statement that failed validation: its diagnostics are already printed. */
class Invalid extends Error {}

/**
 * A session of Weir: a catalog, settings and the connectors, executing statements the way
 * Flink's SQL client does in script mode: DDL, SET and SHOW take effect in order; every INSERT
 * of the script (and EXECUTE STATEMENT SET, CREATE TABLE AS) joins one job that runs at the end;
 * a bare SELECT runs when it is reached and prints its changelog.
 */
export class Engine {
  readonly catalog = new Catalog();
  readonly session = new Session();
  private readonly connectors: ConnectorRegistry;
  /** `--restore` applies to the first job the script runs only. */
  private restoreUsed = false;
  /** CREATE MATERIALIZED VIEW: targets, catalog entries, the embedded Postgres. */
  readonly views: MaterializedViews;

  constructor(private readonly options: EngineOptions) {
    for (const [k, v] of options.settings ?? []) this.session.set(k, v);
    this.connectors = options.connectors ?? createConnectorRegistry();
    this.views = new MaterializedViews(this.catalog, this.session, options.out);
  }

  /** Stops what outlives a statement (the embedded Postgres of the materialised views). */
  close(): Promise<void> {
    return this.views.stop();
  }

  private get out(): Output {
    return this.options.out;
  }

  /**
   * Runs a script. Its materialised views are served (embedded Postgres) while its job runs and,
   * with `serve`, after it ends until `signal` aborts; then the server stops.
   */
  async runScript(source: string, opts: ScriptOptions): Promise<number> {
    try {
      const code = await this.runStatements(source, opts);
      if (code === EXIT_OK && !opts.dryRun && (opts.serve || serveSetting(this.session.all())))
        await this.views.serve(opts.signal);
      return code;
    } finally {
      await this.views.stop();
    }
  }

  private async runStatements(source: string, opts: ScriptOptions): Promise<number> {
    const parsed = parse(source);
    if (parsed.diagnostics.length > 0) {
      this.report(parsed.diagnostics, source, opts.file);
      return parsed.diagnostics.some((d) => d.severity === "error") ? EXIT_INVALID : EXIT_OK;
    }
    const targets: PlanTarget[] = [];
    try {
      for (const stmt of parsed.statements) {
        const bound = this.bind(stmt, source, opts.file);
        const code = await this.apply(bound, targets, source, opts);
        if (code !== EXIT_OK) return code;
      }
      if (targets.length === 0) return EXIT_OK;
      const dag = this.plan(targets, source, opts.file);
      if (opts.dryRun) {
        const missing = [...this.checkRunSettings(dag, opts), ...(await this.checkSources(dag))];
        if (missing.length > 0) {
          for (const m of missing) this.out.err(m);
          return EXIT_INVALID;
        }
        this.out.err(
          `${opts.file}: OK (${targets.length} INSERT target${targets.length === 1 ? "" : "s"} planned)`,
        );
        return EXIT_OK;
      }
      return await this.execute(dag, opts);
    } catch (e) {
      if (e instanceof Invalid) return EXIT_INVALID;
      throw e;
    }
  }

  /** `weir explain`: binds the whole script and prints the plan of its INSERTs and SELECTs. */
  explainScript(source: string, file: string, changelogMode: boolean): number {
    const parsed = parse(source);
    if (parsed.diagnostics.length > 0) {
      this.report(parsed.diagnostics, source, file);
      return EXIT_INVALID;
    }
    const targets: PlanTarget[] = [];
    try {
      for (const stmt of parsed.statements) {
        const bound = this.bind(stmt, source, file);
        if (bound.kind === "insert" || bound.kind === "create-table-as") {
          targets.push({
            kind: "table",
            table: bound.insert.sink,
            plan: bound.insert.plan,
            span: bound.insert.span,
          });
        } else if (bound.kind === "statement-set") {
          for (const i of bound.inserts)
            targets.push({ kind: "table", table: i.sink, plan: i.plan, span: i.span });
        } else if (bound.kind === "query") targets.push({ kind: "collect", plan: bound.plan });
        else if (bound.kind === "create-materialized-view") {
          const target = this.planning(
            () => materializedViewTarget(bound.view, bound.plan, this.session.all(), undefined),
            source,
            file,
          );
          // Later queries of the view read its table, as they would in `weir run`.
          this.catalog.put({ ...bound.view, table: target.table }, false);
          targets.push(target);
        }
      }
      if (targets.length === 0) {
        this.out.err(`${file}: nothing to explain (no INSERT or SELECT)`);
        return EXIT_OK;
      }
      this.out.out(explainDag(this.plan(targets, source, file), { changelogMode }));
      return EXIT_OK;
    } catch (e) {
      if (e instanceof Invalid) return EXIT_INVALID;
      throw e;
    }
  }

  /**
   * REPL hook: binds one statement and applies its effect on the catalog and session; undefined
   * when it is invalid (its diagnostics are already printed against `source` and `file`).
   */
  bindOne(stmt: Statement, source: string, file: string): BoundStatement | undefined {
    try {
      return this.bind(stmt, source, file);
    } catch (e) {
      if (e instanceof Invalid) return undefined;
      throw e;
    }
  }

  /** REPL hook: {@link plan}, or undefined when the planner rejects the targets (printed). */
  tryPlan(targets: readonly PlanTarget[], source: string, file: string): PhysicalDag | undefined {
    try {
      return this.plan(targets, source, file);
    } catch (e) {
      if (e instanceof Invalid) return undefined;
      throw e;
    }
  }

  /** REPL hook: runs a planned job with this engine's connectors and working directory. */
  runDag(
    dag: PhysicalDag,
    hooks: Pick<JobOptions, "signal" | "onProgress" | "collect" | "maxRuntimeMs">,
  ): Promise<JobResult> {
    return runJob(dag, { connectors: this.connectors, cwd: this.options.cwd, ...hooks });
  }

  private report(diagnostics: readonly Diagnostic[], source: string, file: string): void {
    for (const d of diagnostics) this.out.err(renderDiagnostic(d, source, file));
  }

  private bind(stmt: Statement, source: string, file: string): BoundStatement {
    const r = bindStatement(stmt, this.catalog, this.session);
    if (r.diagnostics.length > 0) this.report(r.diagnostics, source, file);
    if (!r.value) throw new Invalid();
    return r.value;
  }

  /** Plans targets into one DAG, or prints the plan error as a diagnostic and fails. */
  plan(targets: readonly PlanTarget[], source: string, file: string): PhysicalDag {
    return this.planning(() => optimize(targets, this.session.all()), source, file, targets[0]?.span);
  }

  /** Runs a planner step; a `PlanError` is printed as a diagnostic (at `span` without its own) and fails. */
  private planning<T>(step: () => T, source: string, file: string, fallback?: SourceSpan): T {
    try {
      return step();
    } catch (e) {
      if (!(e instanceof PlanError)) throw e;
      const span = e.span ?? fallback ?? { offset: 0, end: 0, line: 1, column: 1 };
      const d: Diagnostic = {
        code: e.code,
        message: e.message,
        span,
        severity: "error",
        ...(e.hint ? { hint: e.hint } : {}),
      };
      this.report([d], source, file);
      throw new Invalid();
    }
  }

  private async apply(
    bound: BoundStatement,
    targets: PlanTarget[],
    source: string,
    opts: ScriptOptions,
  ): Promise<number> {
    switch (bound.kind) {
      case "create-table":
      case "create-view":
      case "reset":
      case "stop-job":
        return EXIT_OK;
      case "drop": {
        // A dropped materialised view's job has not run yet (it would at the end): it no longer
        // does, and the table its CREATE made is dropped (the view owned it).
        const dropped = bound.object;
        if (dropped?.kind === "materialized-view" && dropped.table !== undefined) {
          const at = targets.findIndex((t) => t.kind === "table" && t.table === dropped.table);
          if (at >= 0) targets.splice(at, 1);
          if (!opts.dryRun) await this.views.drop(dropped);
        }
        return EXIT_OK;
      }
      case "set":
        if (bound.key === undefined) {
          for (const [k, v] of Object.entries(bound.settings)) this.out.out(`'${k}' = '${v}'`);
        }
        return EXIT_OK;
      case "create-table-as":
      case "insert":
        targets.push({
          kind: "table",
          table: bound.insert.sink,
          plan: bound.insert.plan,
          span: bound.insert.span,
        });
        return EXIT_OK;
      case "statement-set":
        for (const i of bound.inserts)
          targets.push({ kind: "table", table: i.sink, plan: i.plan, span: i.span });
        return EXIT_OK;
      case "create-materialized-view": {
        // The view's job joins the script's INSERTs; its table is readable once that job runs.
        // IF NOT EXISTS of a view already planned: nothing to do (one job, one table).
        if (bound.view.table !== undefined) return EXIT_OK;
        let target: TableTarget;
        try {
          target = await this.views.prepare(bound, opts.dryRun ?? false);
        } catch (e) {
          if (e instanceof PlanError)
            this.planning(
              () => {
                throw e;
              },
              source,
              opts.file,
            );
          // Starting the embedded server or reaching the view's Postgres failed.
          this.out.err(
            `${opts.file}: error: materialized view '${bound.view.name}': ${e instanceof Error ? e.message : String(e)}`,
          );
          return EXIT_RUNTIME;
        }
        targets.push(target);
        return EXIT_OK;
      }
      case "show":
        for (const l of renderBox(
          [showHeader(bound.object)],
          bound.names.map((n) => [n]),
        ))
          this.out.out(l);
        return EXIT_OK;
      case "show-create":
        this.out.out(showCreate(bound.object));
        return EXIT_OK;
      case "describe": {
        const rows = describeRows(bound.object).map((r) => [
          r.name,
          r.type,
          r.nullable ? "TRUE" : "FALSE",
          r.key ?? "",
          r.extras ?? "",
          r.watermark ?? "",
        ]);
        for (const l of renderBox(["name", "type", "null", "key", "extras", "watermark"], rows))
          this.out.out(l);
        return EXIT_OK;
      }
      case "explain": {
        const t = bound.target;
        const explainTargets: PlanTarget[] =
          t.kind === "query"
            ? [{ kind: "collect", plan: t.plan }]
            : t.kind === "insert"
              ? [{ kind: "table", table: t.insert.sink, plan: t.insert.plan, span: t.insert.span }]
              : t.inserts.map((i) => ({ kind: "table" as const, table: i.sink, plan: i.plan, span: i.span }));
        const dag = this.plan(explainTargets, source, opts.file);
        if (bound.details.includes("JSON_EXECUTION_PLAN")) this.out.out(JSON.stringify(dag, null, 2));
        else this.out.out(explainDag(dag, { changelogMode: bound.details.includes("CHANGELOG_MODE") }));
        return EXIT_OK;
      }
      case "query": {
        if (targets.length > 0 && !opts.dryRun && this.views.reads(bound.plan)) {
          // A query of a materialised view reads its table: the job that fills it runs first.
          const code = await this.execute(this.plan(targets.splice(0), source, opts.file), opts);
          if (code !== EXIT_OK) return code;
        }
        const dag = this.plan([{ kind: "collect", plan: bound.plan }], source, opts.file);
        if (opts.dryRun) {
          const problems = [...this.checkRunSettings(dag, opts), ...(await this.checkSources(dag))];
          for (const p of problems) this.out.err(p);
          if (problems.length > 0) return EXIT_INVALID;
          this.out.err(`${opts.file}: OK (SELECT planned)`);
          return EXIT_OK;
        }
        return await this.execute(dag, opts);
      }
      default: {
        const _exhaustive: never = bound;
        return _exhaustive;
      }
    }
  }

  /**
   * What would stop `weir run` before the job starts, for --dry-run: the checkpoint and state
   * backend settings, and whether the --restore checkpoint fits the job. As error lines.
   */
  private checkRunSettings(dag: PhysicalDag, opts: ScriptOptions): string[] {
    const restore = this.restoreUsed ? undefined : opts.restore;
    const r = planCheckpoints(this.session.all(), restore, this.options.cwd, fitsJob(dag));
    if (!r.ok) return [`${opts.file}: error: ${r.message}`];
    const delivery = deliveryProblems(dag, r.plan.intervalMs);
    if (delivery.length > 0) return delivery.map((p) => `${opts.file}: error: ${p}`);
    const restored = r.plan.restore;
    if (restored) {
      try {
        checkRestorable(restored.checkpoint, dag);
      } catch (e) {
        return [`${opts.file}: error: ${(e as Error).message} (${restored.path})`];
      }
    }
    return [];
  }

  /** Problems reaching the job's sources and sinks (files, Kafka, Postgres), as error lines. */
  private async checkSources(dag: PhysicalDag): Promise<string[]> {
    const problems: string[] = [];
    for (const n of dag.nodes) {
      if (n.kind !== "source" && n.kind !== "sink") continue;
      const problem = await checkReachable(n, this.options.cwd);
      if (problem !== null) problems.push(`error: ${problem}`);
    }
    return problems;
  }

  /** Runs a planned job; a bare SELECT's changes print as a tableau on standard output. */
  async execute(dag: PhysicalDag, opts: ScriptOptions): Promise<number> {
    const zone = this.session.localTimeZone;
    const printers = new Map<readonly unknown[], TableauPrinter>();
    const restorePath = this.restoreUsed ? undefined : opts.restore;
    this.restoreUsed = true;
    const checkpoints = planCheckpoints(this.session.all(), restorePath, this.options.cwd, fitsJob(dag));
    if (!checkpoints.ok) {
      this.out.err(`${opts.file}: error: ${checkpoints.message}`);
      return EXIT_INVALID;
    }
    const delivery = deliveryProblems(dag, checkpoints.plan.intervalMs);
    if (delivery.length > 0) {
      for (const p of delivery) this.out.err(`${opts.file}: error: ${p}`);
      return EXIT_INVALID;
    }
    const restored = checkpoints.plan.restore;
    if (restored) {
      try {
        checkRestorable(restored.checkpoint, dag);
      } catch (e) {
        this.out.err(`${opts.file}: error: ${(e as Error).message} (${restored.path})`);
        return EXIT_INVALID;
      }
    }
    const progress = this.options.progress ? new ProgressLine(this.options.progress) : null;
    let result: JobResult;
    try {
      result = await runJob(dag, {
        ...checkpointJobOptions(
          checkpoints.plan,
          opts.savepoints
            ? {
                requests: opts.savepoints,
                onSavepoint: (path) => this.out.err(`${opts.file}: savepoint written to ${path}`),
              }
            : undefined,
        ),
        ...(progress ? { onProgress: (m) => progress.update(m) } : {}),
        connectors: this.connectors,
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
      this.out.err(`${opts.file}: runtime error: ${e instanceof Error ? e.message : String(e)}`);
      return EXIT_RUNTIME;
    }
    progress?.clear();
    const collects = dag.sinks.filter(
      (id) =>
        dag.nodes[id]!.kind === "sink" && (dag.nodes[id] as { connector: string }).connector === "collect",
    );
    if (collects.length > 0 && printers.size === 0) {
      new TableauPrinter(dag.nodes[collects[0]!]!.schema, (l) => this.out.out(l), zone).end();
    }
    for (const p of printers.values()) p.end();
    const checkpointing = checkpoints.plan.store || restored;
    const summary = {
      restoredFrom: restored ? { checkpointId: restored.checkpoint.checkpointId, path: restored.path } : null,
      completed: result.checkpoints,
      lastCheckpointId: result.lastCheckpoint?.checkpointId ?? null,
    };
    if (opts.json)
      this.out.out(
        JSON.stringify(
          {
            reason: result.reason,
            metrics: result.metrics,
            ...(checkpointing ? { checkpoints: summary } : {}),
          },
          jsonNumbers,
        ),
      );
    else {
      for (const l of formatSummary(result.metrics)) this.out.err(l);
      if (checkpointing) for (const l of formatCheckpointSummary(summary)) this.out.err(l);
    }
    return EXIT_OK;
  }
}

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

function showHeader(object: string): string {
  switch (object) {
    case "TABLES":
      return "table name";
    case "VIEWS":
      return "view name";
    case "MATERIALIZED VIEWS":
      return "materialized view name";
    case "FUNCTIONS":
      return "function name";
    default:
      return "job id";
  }
}

/** JSON has no infinities: a watermark at the end of input is written as null with a flag. */
function jsonNumbers(_key: string, value: unknown): unknown {
  if (value === Number.POSITIVE_INFINITY) return "+Infinity";
  if (value === Number.NEGATIVE_INFINITY) return "-Infinity";
  return value;
}
