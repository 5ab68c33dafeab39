import { checkSetting, parseDuration } from "@weir/planner";
import type { CommandLine } from "../args.js";
import { UsageError } from "../args.js";
import { Engine } from "../engine/engine.js";
import type { Output } from "../output.js";
import { readSource } from "./parse.js";

/**
 * `weir run FILE.sql [--set k=v]... [--dry-run] [--json] [--max-runtime 30s] [--serve]
 * [--restore PATH] [--metrics-port N]`: executes a script (from a checkpoint with `--restore`); `--serve` keeps its materialised views served after the job ends, until Ctrl-C.
 * Exit codes: 0 success, 1 SQL or validation errors, 2 runtime failures.
 */
export async function runCommand(cmd: CommandLine, out: Output): Promise<number> {
  const file = cmd.positionals[0];
  if (file === undefined)
    throw new UsageError("weir run needs a file: weir run FILE.sql [--set key=value]...");
  if (cmd.positionals.length > 1)
    throw new UsageError(
      `weir run takes one script, got ${cmd.positionals.length} (${cmd.positionals.join(", ")}): run them one after another, or put their statements in one file`,
    );
  checkSets(cmd, out);
  const source = readSource(file, out);
  if (source === undefined) return 1;
  let maxRuntimeMs: number | undefined;
  const max = cmd.flags.get("max-runtime");
  if (max === true) throw new UsageError("--max-runtime needs a duration such as 30s or 5min");
  if (typeof max === "string") {
    // A bare number has no agreed unit (Flink's durations read it as ms, a user means seconds).
    maxRuntimeMs = /[a-zµ]\s*$/i.test(max) ? parseDuration(max) : undefined;
    if (maxRuntimeMs === undefined)
      throw new UsageError(
        `--max-runtime expects a duration with a unit such as 500ms, 30s, 5min or 1h, got '${max}'`,
      );
  }
  const restore = cmd.flags.get("restore");
  if (restore === true) throw new UsageError("--restore needs a checkpoint directory: --restore PATH");
  const metricsPort = cmd.flags.get("metrics-port");
  if (metricsPort === true)
    throw new UsageError("--metrics-port needs a port: --metrics-port 9249 (0 for a free one)");
  const settings = [...cmd.sets];
  if (typeof metricsPort === "string") {
    const problem = checkSetting("weir.metrics.port", metricsPort);
    if (problem !== undefined) throw new UsageError(`--metrics-port ${metricsPort}: ${problem.message}`);
    settings.push(["weir.metrics.port", metricsPort]);
  }
  const engine = new Engine({
    cwd: process.cwd(),
    out,
    settings,
    ...(process.stderr.isTTY && !cmd.flags.has("json")
      ? { progress: (t: string) => process.stderr.write(t) }
      : {}),
  });
  const controller = new AbortController();
  const onSigint = () => controller.abort();
  process.once("SIGINT", onSigint);
  try {
    return await engine.runScript(source, {
      file,
      dryRun: cmd.flags.has("dry-run"),
      json: cmd.flags.has("json"),
      serve: cmd.flags.has("serve"),
      signal: controller.signal,
      ...(maxRuntimeMs !== undefined ? { maxRuntimeMs } : {}),
      ...(typeof restore === "string" ? { restore } : {}),
    });
  } finally {
    process.off("SIGINT", onSigint);
  }
}

/** `weir explain FILE.sql`: the plan of the script's INSERTs (and SELECTs), without running. */
export async function explainCommand(cmd: CommandLine, out: Output): Promise<number> {
  const file = cmd.positionals[0];
  if (file === undefined) throw new UsageError("weir explain needs a file: weir explain FILE.sql");
  checkSets(cmd, out);
  const source = readSource(file, out);
  if (source === undefined) return 1;
  const engine = new Engine({ cwd: process.cwd(), out, settings: cmd.sets });
  return engine.explainScript(source, file, cmd.flags.has("changelog-mode") || cmd.flags.has("all"));
}

/** `--set key=value` is checked as `SET` is: a bad value or an unsupported key is a usage error. */
function checkSets(cmd: CommandLine, out: Output): void {
  for (const [key, value] of cmd.sets) {
    const problem = checkSetting(key, value);
    if (problem === undefined) continue;
    const hint = problem.hint ? ` (${problem.hint})` : "";
    if (problem.severity === "error")
      throw new UsageError(`--set ${key}=${value}: ${problem.message}${hint}`);
    out.err(`weir: warning: --set ${key}=${value}: ${problem.message}${hint}`);
  }
}
