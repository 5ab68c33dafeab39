import type { CommandLine } from "../args.js";
import { readSource } from "../commands/parse.js";
import { Engine, EXIT_INVALID, EXIT_OK, EXIT_RUNTIME } from "../engine/engine.js";
import type { Output } from "../output.js";
import { catalogNames, complete } from "./completion.js";
import { StatementExecutor } from "./executor.js";
import { historyPath, loadHistory } from "./history.js";
import { JobManager } from "./jobs.js";
import { processScreen, type Screen } from "./screen.js";
import { StatementSplitter } from "./splitter.js";
import { LineInput } from "./terminal.js";

export const PROMPT = "weir> ";
export const CONTINUATION = "    -> ";
/** The file name diagnostics of typed statements carry. */
export const STDIN = "<stdin>";

const WELCOME = `Weir SQL shell. End a statement with ';'. Type 'HELP;' for help, 'QUIT;' or Ctrl-D to leave.`;
const CTRL_C_HINT = "Use 'QUIT;' or 'EXIT;' (or Ctrl-D) to leave the shell; Ctrl-C stops a running query.";

/**
 * `weir [repl] [-i init.sql] [-f script.sql] [--set k=v]...`: the interactive shell. With `-f`
 * the script runs as `weir run` runs it (same output and exit codes) and the shell does not
 * start; `-i` runs a file in the session first (DDL and SET; it stops at its first error).
 */
export async function replCommand(cmd: CommandLine, out: Output): Promise<number> {
  const engine = new Engine({ cwd: process.cwd(), out, settings: cmd.sets });
  try {
    return await shell(cmd, out, engine);
  } finally {
    // The embedded Postgres of the materialised views: its socket server, client sockets and
    // database, so that the process ends as soon as the shell returns.
    await engine.close();
  }
}

async function shell(cmd: CommandLine, out: Output, engine: Engine): Promise<number> {
  const screen = processScreen();
  const userSetMode = cmd.sets.some(([k]) => k === "sql-client.execution.result-mode");
  // Flink's default is `table`; a result piped elsewhere gets plain lines.
  if (!userSetMode && !screen.tty) engine.session.set("sql-client.execution.result-mode", "tableau");
  const jobs = new JobManager((dag, hooks) => engine.runDag(dag, hooks));
  const terminal = process.stdin.isTTY === true && process.stdout.isTTY === true;
  const historyFile = historyPath();
  let input: LineInput | null = null;
  const executor = new StatementExecutor(
    engine,
    jobs,
    screen,
    (onKey, work) => (input ? input.busy(onKey, work) : work()),
    // Diagnostics echo the typed statement, job errors may quote options: never a password.
    (l) => out.err(engine.scrub(l)),
  );

  const init = flagValue(cmd, "i");
  if (init !== undefined) {
    const source = readSource(init, out);
    if (source === undefined) return EXIT_INVALID;
    const outcome = await executor.execute(source, init);
    if (outcome !== "ok" && outcome !== "quit") {
      await jobs.stopAll();
      return EXIT_INVALID;
    }
    if (!flagValue(cmd, "f")) screen.line(`[INFO] Initialized the session from ${init}.`);
  }
  const script = flagValue(cmd, "f");
  if (script !== undefined) {
    const source = readSource(script, out);
    if (source === undefined) return EXIT_INVALID;
    const controller = new AbortController();
    const onSigint = () => controller.abort();
    process.once("SIGINT", onSigint);
    try {
      return await engine.runScript(source, { file: script, signal: controller.signal });
    } finally {
      process.off("SIGINT", onSigint);
      await jobs.stopAll();
    }
  }

  input = new LineInput({
    input: process.stdin,
    output: process.stdout,
    terminal,
    history: terminal ? loadHistory(historyFile) : [],
    ...(terminal ? { historyFile } : {}),
    completer: (line) => complete(line, catalogNames(engine.catalog)),
  });
  if (terminal) screen.line(WELCOME);
  const shellInput = input;
  // A background job's failure is printed when it happens (above the prompt, if it is up).
  jobs.onNotice = (line) => shellInput.notify([line]);
  // So are alarm lines of the background jobs (docs/observability.md).
  const log = engine.metrics.log;
  engine.metrics.log = (line) => shellInput.notify([line]);
  try {
    return await loop(input, executor, jobs, screen, terminal);
  } finally {
    jobs.onNotice = null;
    engine.metrics.log = log;
    input.close();
    const stopped = await jobs.stopAll();
    if (stopped > 0) screen.line(`[INFO] Stopped ${stopped} running job${stopped === 1 ? "" : "s"}.`);
  }
}

async function loop(
  input: LineInput,
  executor: StatementExecutor,
  jobs: JobManager,
  screen: Screen,
  terminal: boolean,
): Promise<number> {
  const splitter = new StatementSplitter();
  let status = EXIT_OK;
  for (;;) {
    for (const n of jobs.takeNotices()) screen.line(n);
    const event = await input.next(splitter.pending ? CONTINUATION : PROMPT);
    switch (event.kind) {
      case "eof":
        if (screen.tty) screen.line("");
        screen.line("Goodbye!");
        return status;
      case "interrupt":
        if (!splitter.pending && event.lineWasEmpty) screen.line(CTRL_C_HINT);
        splitter.clear();
        break;
      case "line":
        for (const stmt of splitter.push(event.text)) {
          input.remember(stmt.text);
          const outcome = await executor.execute(stmt.text, STDIN);
          if (outcome === "quit") {
            screen.line("Goodbye!");
            return status;
          }
          // Without a terminal the shell runs piped input: its exit code says whether all went well.
          if (outcome !== "ok" && !terminal) status = outcome === "invalid" ? EXIT_INVALID : EXIT_RUNTIME;
          screen.line("");
        }
        break;
      default: {
        const _exhaustive: never = event;
        return _exhaustive;
      }
    }
  }
}

function flagValue(cmd: CommandLine, name: string): string | undefined {
  const v = cmd.flags.get(name);
  return typeof v === "string" ? v : undefined;
}
