import { resolve } from "node:path";
import { parse, renderDiagnostic } from "@weir/parser";
import {
  type BoundStatement,
  COLLECT_CONNECTOR,
  type CollectTarget,
  type CompiledStatement,
  type PhysicalDag,
  type TableTarget,
} from "@weir/planner";
import { listingLines, renderBox } from "../engine/boxes.js";
import type { Engine } from "../engine/engine.js";
import { JOB_HEADERS, type JobManager, jobRow } from "./jobs.js";
import { createResultView, parseResultMode, type QueryEnd } from "./result-view.js";
import type { Screen } from "./screen.js";
import { type BusyKeyHandler, isCtrlC, type Key, keyChar } from "./terminal.js";

/** What became of one piece of input: done, rejected (SQL error), failed while running, or QUIT. */
export type Outcome = "ok" | "invalid" | "failed" | "quit";

export const SUCCEEDED = "[INFO] Execute statement succeeded.";

/**
 * Runs work while the prompt is away; `onKey` hears the keys pressed meanwhile (Ctrl-C, a result
 * view's keys) and returns false for those it leaves for the next prompt.
 */
export type Busy = <T>(onKey: BusyKeyHandler, work: () => Promise<T>) => Promise<T>;

export const HELP = `The following commands are available:

CLEAR                  Clears the screen.
EXIT / QUIT            Quits the shell (stops the jobs it started).
HELP                   Prints this text.
SET 'key' = 'value'    Sets a session setting; SET alone lists them.
RESET ['key']          Restores one (or every) setting's default.
SHOW TABLES | VIEWS | FUNCTIONS | JOBS
SHOW MATERIALIZED VIEWS
DESCRIBE name          Prints a table's or view's columns (and a materialized view's key).
EXPLAIN statement      Prints the physical plan of a query or INSERT.
STOP JOB 'id' [WITH SAVEPOINT]
                       Stops a background job (SHOW JOBS lists them); WITH SAVEPOINT first takes
                       a savepoint into 'execution.checkpointing.savepoint-dir' and prints its
                       path (weir run --from-savepoint PATH continues from it).
CREATE [TEMPORARY] VIEW name AS query
                       A named query, expanded where it is used.
CREATE MATERIALIZED VIEW name [WITH ('url' = ...)] AS query
                       Starts a background job that keeps a Postgres table 'name' equal to the
                       query (in an embedded Postgres unless 'url' says where; the shell prints
                       the psql command); SELECT ... FROM name reads the table.
DROP TABLE | VIEW | MATERIALIZED VIEW name
                       DROP MATERIALIZED VIEW also stops its job and drops its table.

A statement ends with ';' and may span lines. SELECT shows its result live in the mode of
'sql-client.execution.result-mode' (table, changelog or tableau); Ctrl-C (or Q) stops it.
In table mode: N / P next / previous page, G / L first / last page, Left / Right scroll the
columns, Home / End first / last columns; a result larger than the screen stays open after
the query ends until Q. INSERT INTO runs as a background job; a job that fails is reported at
once. Keys typed while a statement runs wait for the next prompt. Up / Down recall whole
statements, Ctrl-R searches them.`;

/**
 * Executes statements the way Flink's SQL client does interactively: DDL and SET take effect at
 * once and say so, SHOW / DESCRIBE print boxed tables, INSERT INTO is submitted as a background
 * job, SELECT shows its result live until it ends or the user stops it. Diagnostics are rendered
 * against the text that was executed, so their line numbers count from its first line.
 */
export class StatementExecutor {
  constructor(
    private readonly engine: Engine,
    private readonly jobs: JobManager,
    private readonly screen: Screen,
    private readonly busy: Busy,
    private readonly err: (line: string) => void,
  ) {}

  /** Executes every statement of `source` in order, stopping at the first that fails. */
  async execute(source: string, file: string): Promise<Outcome> {
    const command = clientCommand(source);
    if (command !== undefined) return this.client(command);
    const parsed = parse(source);
    this.engine.useScript(source, parsed.statements, file);
    if (parsed.diagnostics.length > 0) {
      for (const d of parsed.diagnostics) this.err(renderDiagnostic(d, source, file));
      if (parsed.diagnostics.some((d) => d.severity === "error")) return "invalid";
    }
    for (const stmt of parsed.statements) {
      const compiled = this.engine.compile(stmt, source, file);
      if (compiled.kind === "invalid") return "invalid";
      const outcome = await this.apply(compiled, source, file);
      if (outcome !== "ok") return outcome;
    }
    return "ok";
  }

  private client(command: string): Outcome {
    switch (command) {
      case "QUIT":
      case "EXIT":
        return "quit";
      case "HELP":
        this.screen.line(HELP);
        return "ok";
      default:
        if (this.screen.tty) this.screen.write("\u001b[H\u001b[2J");
        return "ok";
    }
  }

  private async apply(
    compiled: Exclude<CompiledStatement, { kind: "invalid" }>,
    source: string,
    file: string,
  ): Promise<Outcome> {
    const say = (l: string) => this.screen.line(l);
    switch (compiled.kind) {
      case "effect":
        if (compiled.bound.kind === "drop") return this.drop(compiled.bound);
        say(SUCCEEDED);
        return "ok";
      case "listing":
        for (const l of listingLines(compiled.listing)) say(l);
        return "ok";
      case "job": {
        const bound = compiled.bound;
        if (bound.kind !== "create-materialized-view") return this.submit(compiled.targets, source, file);
        // CREATE MATERIALIZED VIEW IF NOT EXISTS of a view this shell keeps already.
        if (compiled.targets.length === 0) {
          say(SUCCEEDED);
          return "ok";
        }
        return this.createView(bound, source, file);
      }
      case "query":
        return this.query(compiled.target, source, file);
      case "job-control":
        if (compiled.bound.kind === "stop-job") return this.stopJob(compiled.bound);
        for (const l of renderBox(
          JOB_HEADERS,
          this.jobs.list().map((j) => jobRow(j)),
        ))
          say(l);
        return "ok";
      default: {
        const _exhaustive: never = compiled;
        return _exhaustive;
      }
    }
  }

  /**
   * CREATE MATERIALIZED VIEW: the view's job runs in the background like an INSERT; its table is
   * served by the embedded Postgres (or lives in the view's 'url') for as long as the shell runs.
   * The statement returns once the table exists (prepare creates it), so a SELECT right after
   * reads it. Ctrl-C meanwhile (the embedded server takes seconds to start) gives up.
   */
  private async createView(
    bound: Extract<BoundStatement, { kind: "create-materialized-view" }>,
    source: string,
    file: string,
  ): Promise<Outcome> {
    let target: TableTarget;
    const prepared = this.engine.views.prepare(bound);
    try {
      target = await this.cancellable(prepared);
    } catch (e) {
      const forget = () => this.engine.catalog.drop(bound.view.name, "materialized-view", false);
      forget();
      // Given up on with Ctrl-C: the server may still come up; the view must not.
      prepared.then(forget, () => undefined);
      this.screen.line("[ERROR] Could not execute SQL statement. Reason:");
      this.screen.line(e instanceof Error ? e.message : String(e));
      return "failed";
    }
    const dag = this.engine.tryPlan([target], source, file);
    const checkpoints = dag === undefined ? undefined : this.engine.jobCheckpoints(dag, file);
    if (dag === undefined || checkpoints === undefined) {
      this.engine.catalog.drop(bound.view.name, "materialized-view", false);
      return "invalid";
    }
    const job = this.jobs.submit(dag, viewJobName(bound.view.name), checkpoints);
    this.screen.line(`[INFO] Materialized view '${bound.view.name}' is being maintained by job ${job.id}.`);
    return "ok";
  }

  /** STOP JOB 'id' [WITH SAVEPOINT]: a background job of this shell. */
  private async stopJob(bound: Extract<BoundStatement, { kind: "stop-job" }>): Promise<Outcome> {
    const say = (l: string) => this.screen.line(l);
    const job = this.jobs.get(bound.jobId);
    if (job === undefined) {
      say(`[ERROR] Could not execute SQL statement. Reason:`);
      say(`No job with id '${bound.jobId}'; SHOW JOBS lists the jobs of this session.`);
      return "failed";
    }
    if (bound.savepointDir === null) {
      await this.jobs.stop(bound.jobId);
      say(SUCCEEDED);
      return "ok";
    }
    // As Flink's client: the savepoint goes to the directory the session names now.
    const dir = resolve(this.engine.cwd, bound.savepointDir);
    let path: string;
    try {
      path = await this.jobs.stopWithSavepoint(bound.jobId, dir);
    } catch (e) {
      say(`[ERROR] Could not execute SQL statement. Reason:`);
      say(
        `no savepoint of job ${bound.jobId} (it keeps running): ${e instanceof Error ? e.message : String(e)}`,
      );
      return "failed";
    }
    // Flink's client prints the path as a one-row table.
    for (const l of renderBox(["savepoint path"], [[path]])) say(l);
    return "ok";
  }

  /** INSERT INTO (and statement sets, CREATE TABLE AS): one background job in this process. */
  private submit(targets: readonly TableTarget[], source: string, file: string): Outcome {
    const dag = this.engine.tryPlan(targets, source, file);
    if (dag === undefined) return "invalid";
    const checkpoints = this.engine.jobCheckpoints(dag, file);
    if (checkpoints === undefined) return "invalid";
    const name = `insert-into_${targets.map((t) => t.table.name).join(",")}`;
    const job = this.jobs.submit(dag, name, checkpoints);
    this.screen.line(
      "[INFO] SQL update statement is running as a background job of this shell (SHOW JOBS lists it, STOP JOB stops it):",
    );
    this.screen.line(`Job ID: ${job.id}`);
    return "ok";
  }

  /**
   * DROP: the binder has taken the object out of the catalog. A materialised view's job is
   * stopped (its sink flushes and closes) and then its table dropped: the view owned both.
   */
  private async drop(bound: Extract<BoundStatement, { kind: "drop" }>): Promise<Outcome> {
    const view = bound.object;
    if (view?.kind === "materialized-view") {
      const job = this.jobs.running(viewJobName(view.name));
      try {
        if (job !== undefined) await this.jobs.stop(job.id);
        await this.engine.views.drop(view);
      } catch (e) {
        this.screen.line("[ERROR] Could not execute SQL statement. Reason:");
        this.screen.line(
          `the view is dropped${job ? ` and its job ${job.id} stopped` : ""}, but its table could not be: ${e instanceof Error ? e.message : String(e)}`,
        );
        return "failed";
      }
      if (job !== undefined)
        this.screen.line(`[INFO] Stopped job ${job.id} of the view and dropped its table.`);
      else if (view.table !== undefined) this.screen.line("[INFO] Dropped the view's table.");
    }
    this.screen.line(SUCCEEDED);
    return "ok";
  }

  /** Awaits `work` with the prompt away; Ctrl-C rejects at once (the work may finish unseen). */
  private cancellable<T>(work: Promise<T>): Promise<T> {
    let cancel: (e: Error) => void = () => undefined;
    const cancelled = new Promise<never>((_, reject) => {
      cancel = reject;
    });
    return this.busy(
      (key) => {
        if (!isCtrlC(key)) return false;
        cancel(new Error("cancelled (Ctrl-C)"));
        return true;
      },
      () => Promise.race([work, cancelled]),
    );
  }

  /** SELECT: runs until its input ends or the user presses Ctrl-C / Q; the result shows live. */
  private async query(target: CollectTarget, source: string, file: string): Promise<Outcome> {
    const dag = this.engine.tryPlan([target], source, file);
    if (dag === undefined) return "invalid";
    const session = this.engine.session;
    const setting = session.get("sql-client.execution.result-mode");
    const mode = parseResultMode(setting);
    if (mode === undefined) {
      this.screen.line("[ERROR] Could not execute SQL statement. Reason:");
      this.screen.line(
        `'sql-client.execution.result-mode' is '${setting}'; use 'table', 'changelog' or 'tableau'`,
      );
      return "failed";
    }
    const view = createResultView(mode, collectSchema(dag), this.screen, session.localTimeZone);
    const controller = new AbortController();
    view.start();
    try {
      const result = await this.busy(
        (key) => {
          if (isCtrlC(key) || (mode !== "tableau" && isQuit(key))) {
            controller.abort();
            return true;
          }
          return view.key(key);
        },
        () => this.engine.runDag(dag, { signal: controller.signal, collect: (batch) => view.batch(batch) }),
      );
      const end: QueryEnd = result.reason === "end" ? "end" : "terminated";
      if (end === "end" && view.browsable()) {
        // A result larger than the screen stays open for paging until Q (as in Flink's client).
        let leave: () => void = () => undefined;
        const left = new Promise<void>((resolve) => {
          leave = resolve;
        });
        view.ended();
        await this.busy(
          (key) => {
            if (isCtrlC(key) || isQuit(key) || key.name === "escape") {
              leave();
              return true;
            }
            return view.key(key);
          },
          () => left,
        );
      }
      view.finish(end);
      return "ok";
    } catch (e) {
      view.finish("terminated");
      this.screen.line("[ERROR] Could not execute SQL statement. Reason:");
      this.screen.line(e instanceof Error ? e.message : String(e));
      return "failed";
    }
  }
}

function collectSchema(dag: PhysicalDag) {
  for (const id of dag.sinks) {
    const n = dag.nodes[id]!;
    if (n.kind === "sink" && n.connector === COLLECT_CONNECTOR) return n.schema;
  }
  throw new Error("a query plan has no collect sink");
}

/** The job that keeps a materialised view: one per view, named after it. */
function viewJobName(view: string): string {
  return `materialized-view_${view}`;
}

function isQuit(key: Key): boolean {
  const c = keyChar(key);
  return c === "q" || c === "Q";
}

/** The shell's own commands (`QUIT;`, `EXIT;`, `HELP;`, `CLEAR;`), upper-cased, else undefined. */
export function clientCommand(text: string): string | undefined {
  const word = text.trim().replace(/;\s*$/, "").trim().toUpperCase();
  return ["QUIT", "EXIT", "HELP", "CLEAR"].includes(word) ? word : undefined;
}
