/** A parsed command line: the command, its positional arguments, and its flags. */
export interface CommandLine {
  readonly command: string | undefined;
  readonly positionals: readonly string[];
  /** `--flag` → true, `--key value` / `--key=value` → value; repeated `--set` kept in order. */
  readonly flags: ReadonlyMap<string, string | true>;
  readonly sets: readonly (readonly [string, string])[];
}

export class UsageError extends Error {}

/** Flags that take a value; every other `--flag` is a switch. */
const VALUE_FLAGS = new Set([
  "set",
  "max-runtime",
  "restore",
  "from-savepoint",
  "backfill",
  "metrics-port",
  "query",
  "events",
  "warmup",
  "rate",
  "write-file",
  "from-file",
  "steady-file",
  "dir",
  "timeout",
  "i",
  "f",
]);

/** Flags whose value is optional: taken when the next argument is a number (`--ui`, `--ui 8081`). */
const OPTIONAL_NUMBER_FLAGS = new Set(["ui"]);

export function parseCommandLine(argv: readonly string[]): CommandLine {
  const positionals: string[] = [];
  const flags = new Map<string, string | true>();
  const sets: [string, string][] = [];
  let command: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === "--") {
      positionals.push(...argv.slice(i + 1));
      break;
    }
    if (arg.startsWith("-") && arg.length > 1) {
      const body = arg.replace(/^--?/, "");
      const eq = body.indexOf("=");
      const name = eq >= 0 ? body.slice(0, eq) : body;
      let value: string | true = true;
      if (eq >= 0) value = body.slice(eq + 1);
      else if (OPTIONAL_NUMBER_FLAGS.has(name)) {
        const next = argv[i + 1];
        if (next !== undefined && /^\d+$/.test(next)) {
          value = next;
          i++;
        }
      } else if (VALUE_FLAGS.has(name)) {
        const next = argv[i + 1];
        if (next === undefined) throw new UsageError(`option --${name} needs a value`);
        value = next;
        i++;
      }
      if (name === "set") {
        if (value === true) throw new UsageError("--set needs key=value");
        const k = value.indexOf("=");
        if (k <= 0) throw new UsageError(`--set expects key=value, got '${value}'`);
        sets.push([value.slice(0, k), value.slice(k + 1)]);
      } else flags.set(name, value);
      continue;
    }
    if (command === undefined) command = arg;
    else positionals.push(arg);
  }
  return { command, positionals, flags, sets };
}
