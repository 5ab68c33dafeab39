import { parseCommandLine, UsageError } from "./args.js";
import type { Output } from "./output.js";
import { VERSION } from "./version.js";

// Each command's module is imported when the command runs: `weir run` does not load the shell,
// the benchmark or the checklist (process start-up is part of every job's CPU cost).

export const USAGE = `Usage: weir [command] [options]

Commands:
  repl (or no command)      the interactive shell; statements end with ';', HELP; lists commands
      -i init.sql           run a file in the session before the prompt
      -f script.sql         run a file and exit, as weir run does (same exit codes)
      --set key=value       a setting, e.g. --set sql-client.execution.result-mode=tableau
  run FILE.sql [options]    execute a script: DDL and SET in order, every INSERT as one job,
                            each SELECT printed as a changelog; a run summary at the end
      --set key=value       override a setting (repeatable), e.g. --set table.local-time-zone=UTC
      --dry-run             parse, plan and check sources without running
      --json                print the run summary as JSON on standard output
      --max-runtime 30s     stop an unbounded job after this long (a unit is required:
                            500ms, 30s, 5min, 1h)
      --serve               keep serving the materialised views (embedded Postgres) after the
                            job ends, until Ctrl-C
      --restore PATH        start from a checkpoint: a chk-N directory, or the newest complete
                            one under 'execution.checkpointing.dir' (set the interval to take them)
      --from-savepoint PATH start from a savepoint (same format as a checkpoint); while a job runs,
                            weir savepoint (or SIGUSR1: kill -USR1 <pid>) takes a savepoint into
                            'execution.checkpointing.savepoint-dir'
      --metrics-port N      serve Prometheus metrics at http://127.0.0.1:N/metrics while the job
                            runs (0: a free port, printed at start); see docs/observability.md
      --ui [PORT]           serve the live job page at http://127.0.0.1:PORT/ while the job runs
                            (default 8081; 0: a free port, printed at start)
      --backfill REPLAY_ID  replay each source's 'backfill.topic' / 'backfill.path' into staging
                            tables, then merge into the Postgres targets under their version
                            column, once per replay id; see docs/data-contracts.md
  savepoint PID | JOB_ID    take a savepoint of a running weir run (its process id, or its job id:
                            the directory under the checkpoint directory), wait until it is
                            written and committed, print its path; exit 2 when it fails
      --dir DIR             write it under DIR instead of 'execution.checkpointing.savepoint-dir'
      --stop                stop the job right after the savepoint (it exits 0)
      --timeout 10min       give up waiting after this long (default 10min)
  explain FILE.sql          print the physical plan of the script's queries
      --changelog-mode      also print each operator's changelog mode
  check FILE.sql            the pre-deployment checklist (Source, Time, State, Sink, Operations)
                            over the planned job, without running it; see docs/check.md
      --strict              exit 1 when there is an error or a warning (for CI)
      --json                print the findings as JSON
  parse FILE.sql [--json]   check a script's syntax; list its statements (or print the AST as JSON)
  bench nexmark             run Nexmark queries into a blackhole sink after a warm-up; print events/s,
                            events/s per CPU core (generator included) and peak memory
      --query q0,q5 | all   which queries (default all); q0 also runs a plain-JavaScript ceiling
      --events N            events per measured run (default 1000000; 500k, 10M accepted)
      --warmup=N            events of the warm-up run (default N/10)
      --sample-memory[=N]   record heap (after a full GC) and RSS every N events of the measured
                            run (default N = events/10); slows the run
      --rate=N              events per second of event time (default: the query's, 10M)
      --set key=value       a setting; execution.checkpointing.interval=1s takes checkpoints and
                            reports their count, duration and size
      --metrics             serve /metrics and the job page and fetch both every second while
                            the queries run (what observability costs)
      --json                print the results as JSON
      --write-file PATH     write --events generated events to PATH as JSON lines and exit
      --from-file PATH      read the events from such a file (filesystem connector, json format);
                            the warm-up is one run over the file (--warmup 0: none); the query
                            read (every column into a blackhole) also runs a JSON.parse loop;
                            q10's filesystem sink writes into a temporary directory
      --steady-file PATH    with --from-file: then a run over this larger file, and the cost per
                            event between the two (steady state: (cpu2 - cpu1) / (n2 - n1))
  help, --help, -h          show this text (also after a command: weir run --help)
  --version                 print the version

Exit codes: 0 success, 1 SQL or validation errors, 2 runtime failures, 130 stopped by Ctrl-C.`;

/** The options each command takes (`--set` is handled by the parser and allowed everywhere). */
const COMMAND_FLAGS: Readonly<Record<string, readonly string[]>> = {
  parse: ["json"],
  run: ["dry-run", "json", "max-runtime", "serve", "restore", "from-savepoint", "metrics-port", "ui"],
  explain: ["changelog-mode", "all"],
  check: ["strict", "json"],
  savepoint: ["dir", "stop", "timeout"],
  bench: [
    "query",
    "events",
    "warmup",
    "sample-memory",
    "rate",
    "metrics",
    "json",
    "write-file",
    "from-file",
    "steady-file",
  ],
  repl: ["i", "f"],
  "": ["i", "f", "version"],
  help: [],
};

/** Options every command takes: `--help` / `-h` print the usage instead of running. */
const HELP_FLAGS = ["help", "h"];

/** `--x` for a long option, `-x` for a one-letter one, as the user types them. */
function flagName(name: string): string {
  return name.length === 1 ? `-${name}` : `--${name}`;
}

/** Refuses an option the command does not know (a typo must not run a job with defaults). */
function checkFlags(command: string | undefined, flags: ReadonlyMap<string, string | true>): void {
  const known = COMMAND_FLAGS[command ?? ""];
  if (known === undefined) return;
  for (const name of flags.keys()) {
    if (!known.includes(name) && !HELP_FLAGS.includes(name)) {
      const what = command === undefined ? "weir" : `weir ${command}`;
      const list = [...known.map(flagName), "--set key=value", "--help"].join(", ");
      throw new UsageError(`unknown option ${flagName(name)} for '${what}' (it takes: ${list})`);
    }
  }
}

/**
 * Runs one `weir` invocation and returns its exit code. `weir run --json` always ends standard
 * output with one JSON object: a failure before the engine runs (a usage error, an unreadable
 * script) prints the error object the engine prints for its own failures.
 */
export async function weir(argv: readonly string[], out: Output): Promise<number> {
  if (!(argv[0] === "run" && argv.includes("--json"))) return weirCommand(argv, out);
  const errors: string[] = [];
  let ended = false;
  const watched: Output = {
    out: (l) => {
      ended = l.startsWith('{"reason":');
      out.out(l);
    },
    err: (l) => {
      errors.push(l);
      out.err(l);
    },
  };
  const code = await weirCommand(argv, watched);
  if (code !== 0 && !ended)
    out.out(JSON.stringify({ reason: "error", exitCode: code, metrics: null, errors }));
  return code;
}

async function weirCommand(argv: readonly string[], out: Output): Promise<number> {
  try {
    const cmd = parseCommandLine(argv);
    checkFlags(cmd.command, cmd.flags);
    if (cmd.flags.has("help") || cmd.flags.has("h")) {
      out.out(USAGE);
      return 0;
    }
    if (cmd.command === undefined && cmd.flags.has("version")) {
      out.out(`weir ${VERSION}`);
      return 0;
    }
    // A test hook: the path of an internal error (a bug: no user input should reach it), so that
    // test/cli/internal-error-stack.test.ts can check how its stack is printed.
    if (process.env.WEIR_TEST_INTERNAL_ERROR === "1") internalErrorForTests();
    switch (cmd.command) {
      case "parse":
        return (await import("./commands/parse.js")).parseCommand(cmd, out);
      case "run":
        return await (await import("./commands/run.js")).runCommand(cmd, out);
      case "explain":
        return await (await import("./commands/run.js")).explainCommand(cmd, out);
      case "check":
        return (await import("./commands/check.js")).checkCommand(cmd, out);
      case "bench":
        return await (await import("./commands/bench.js")).benchCommand(cmd, out);
      case "savepoint":
        return await (await import("./commands/savepoint.js")).savepointCommand(cmd, out);
      case undefined:
        return await (await import("./repl/repl.js")).replCommand(cmd, out);
      case "repl":
        return await (await import("./repl/repl.js")).replCommand(cmd, out);
      case "help":
        out.out(USAGE);
        return 0;
      case "version":
        out.out(`weir ${VERSION}`);
        return 0;
      default:
        out.err(`weir: unknown command '${cmd.command}'\n\n${USAGE}`);
        return 1;
    }
  } catch (e) {
    if (e instanceof UsageError) {
      out.err(`weir: ${e.message}`);
      return 1;
    }
    out.err(`weir: internal error: ${e instanceof Error ? await sourceStackOf(e) : String(e)}`);
    return 2;
  }
}

function internalErrorForTests(): never {
  throw new Error("WEIR_TEST_INTERNAL_ERROR is set");
}

/** The error's stack at the TypeScript sources (the source maps are read only now: source-stack.ts). */
async function sourceStackOf(e: Error): Promise<string> {
  try {
    return (await import("./source-stack.js")).sourceStack(e);
  } catch {
    return e.stack ?? e.message; // an error while mapping must not hide the error itself
  }
}
