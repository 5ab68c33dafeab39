import { parseCommandLine, UsageError } from "./args.js";
import { benchCommand } from "./commands/bench.js";
import { parseCommand } from "./commands/parse.js";
import { explainCommand, runCommand } from "./commands/run.js";
import type { Output } from "./output.js";
import { replCommand } from "./repl/repl.js";

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
      --max-runtime 30s     stop an unbounded job after this long
      --serve               keep serving the materialised views (embedded Postgres) after the
                            job ends, until Ctrl-C
      --restore PATH        start from a checkpoint: a chk-N directory, or the newest complete
                            one under 'execution.checkpointing.dir' (set the interval to take them)
      --from-savepoint PATH start from a savepoint (same format as a checkpoint); while a job runs,
                            SIGUSR1 (kill -USR1 <pid>) takes a savepoint into
                            'execution.checkpointing.savepoint-dir'
  explain FILE.sql          print the physical plan of the script's queries
      --changelog-mode      also print each operator's changelog mode
  parse FILE.sql [--json]   check a script's syntax; list its statements (or print the AST as JSON)
  bench nexmark             run Nexmark queries into a blackhole sink after a warm-up; print events/s,
                            events/s per CPU core (generator included) and peak memory
      --query q0,q5 | all   which queries (default all); q0 also runs a plain-JavaScript ceiling
      --events N            events per measured run (default 1000000; 500k, 10M accepted)
      --warmup=N            events of the warm-up run (default N/10)
      --sample-memory[=N]   record heap (after a full GC) and RSS every N events of the measured
                            run (default N = events/10); slows the run
      --rate=N              events per second of event time (default: the query's, 10M)
      --json                print the results as JSON
  help                      show this text

Exit codes: 0 success, 1 SQL or validation errors, 2 runtime failures.`;

/** The options each command takes (`--set` is handled by the parser and allowed everywhere). */
const COMMAND_FLAGS: Readonly<Record<string, readonly string[]>> = {
  parse: ["json"],
  run: ["dry-run", "json", "max-runtime", "serve", "restore", "from-savepoint"],
  explain: ["changelog-mode", "all"],
  bench: ["query", "events", "warmup", "sample-memory", "rate", "json"],
  repl: ["i", "f"],
  "": ["i", "f", "help", "h"],
  help: [],
};

/** Refuses an option the command does not know (a typo must not run a job with defaults). */
function checkFlags(command: string | undefined, flags: ReadonlyMap<string, string | true>): void {
  const known = COMMAND_FLAGS[command ?? ""];
  if (known === undefined) return;
  for (const name of flags.keys()) {
    if (!known.includes(name)) {
      const what = command === undefined ? "weir" : `weir ${command}`;
      const list = [...known.map((k) => `--${k}`), "--set key=value"].join(", ");
      throw new UsageError(`unknown option --${name} for '${what}' (it takes: ${list})`);
    }
  }
}

/** Runs one `weir` invocation and returns its exit code. */
export async function weir(argv: readonly string[], out: Output): Promise<number> {
  try {
    const cmd = parseCommandLine(argv);
    checkFlags(cmd.command, cmd.flags);
    switch (cmd.command) {
      case "parse":
        return parseCommand(cmd, out);
      case "run":
        return await runCommand(cmd, out);
      case "explain":
        return await explainCommand(cmd, out);
      case "bench":
        return await benchCommand(cmd, out);
      case undefined:
        if (cmd.flags.has("help") || cmd.flags.has("h")) {
          out.out(USAGE);
          return 0;
        }
        return await replCommand(cmd, out);
      case "repl":
        return await replCommand(cmd, out);
      case "help":
        out.out(USAGE);
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
    out.err(`weir: internal error: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
    return 2;
  }
}
