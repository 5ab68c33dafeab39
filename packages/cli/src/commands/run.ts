import { checkSetting, parseDuration } from "@weir/planner";
import type { CommandLine } from "../args.js";
import { UsageError } from "../args.js";
import { ControlServer } from "../control/socket.js";
import { SavepointRequests } from "../engine/checkpointing.js";
import { Engine } from "../engine/engine.js";
import type { Output } from "../output.js";
import { readSource } from "./parse.js";

/** `--ui` without a port: Flink's web UI port. */
const DEFAULT_UI_PORT = 8081;

/**
 * `weir run FILE.sql [--set k=v]... [--dry-run] [--json] [--max-runtime 30s] [--serve]
 * [--restore PATH | --from-savepoint PATH] [--metrics-port N] [--ui [PORT]]
 * [--backfill REPLAY_ID]`: executes a script (from a checkpoint with `--restore`,
 * a savepoint with `--from-savepoint`); `--serve` keeps its materialised views served after the job ends, until Ctrl-C.
 * SIGUSR1 takes a savepoint of the running job into 'execution.checkpointing.savepoint-dir';
 * `weir savepoint` asks for one through the control socket (`control/socket.ts`).
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
  let restore = cmd.flags.get("restore");
  if (restore === true) throw new UsageError("--restore needs a checkpoint directory: --restore PATH");
  const savepoint = cmd.flags.get("from-savepoint");
  if (savepoint === true)
    throw new UsageError("--from-savepoint needs a savepoint directory: --from-savepoint PATH");
  if (savepoint !== undefined && restore !== undefined)
    throw new UsageError("--restore and --from-savepoint both name where to start: give one of them");
  // A savepoint has the checkpoint format: the job continues it as it would a checkpoint.
  restore ??= savepoint;
  const backfill = cmd.flags.get("backfill");
  if (backfill === true)
    throw new UsageError(
      "--backfill needs a replay id: --backfill 2026-06-24-replay (a re-run with the same id changes nothing)",
    );
  if (backfill !== undefined && restore !== undefined)
    throw new UsageError(
      "--backfill runs a replay from its start: it takes no --restore or --from-savepoint",
    );
  const metricsPort = cmd.flags.get("metrics-port");
  if (metricsPort === true)
    throw new UsageError("--metrics-port needs a port: --metrics-port 9249 (0 for a free one)");
  const settings = [...cmd.sets];
  if (typeof metricsPort === "string") {
    const problem = checkSetting("weir.metrics.port", metricsPort);
    if (problem !== undefined) throw new UsageError(`--metrics-port ${metricsPort}: ${problem.message}`);
    settings.push(["weir.metrics.port", metricsPort]);
  }
  const ui = cmd.flags.get("ui");
  if (ui !== undefined) {
    // A bare --ui serves on Flink's web UI port.
    const p = ui === true ? String(DEFAULT_UI_PORT) : ui;
    const problem = checkSetting("weir.ui.port", p);
    if (problem !== undefined) throw new UsageError(`--ui ${p}: ${problem.message}`);
    settings.push(["weir.ui.port", p]);
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
  const savepoints = new SavepointRequests((path) => out.err(`${file}: savepoint written to ${path}`));
  const onSigusr1 = () => {
    savepoints.take().catch((e: Error) => out.err(`SIGUSR1: no savepoint taken: ${e.message}`));
  };
  process.on("SIGUSR1", onSigusr1);
  // `weir savepoint PID | JOB_ID` asks through the control socket (and gets the path back).
  const control = cmd.flags.has("dry-run") ? null : await startControl(savepoints, out);
  try {
    return await engine.runScript(source, {
      file,
      dryRun: cmd.flags.has("dry-run"),
      json: cmd.flags.has("json"),
      serve: cmd.flags.has("serve"),
      signal: controller.signal,
      savepoints,
      ...(maxRuntimeMs !== undefined ? { maxRuntimeMs } : {}),
      ...(typeof restore === "string" ? { restore } : {}),
      ...(typeof backfill === "string" ? { backfill } : {}),
    });
  } finally {
    process.off("SIGINT", onSigint);
    process.off("SIGUSR1", onSigusr1);
    await control?.close();
  }
}

/** The control socket of this `weir run`; without one (a warning says why) SIGUSR1 still works. */
async function startControl(savepoints: SavepointRequests, out: Output): Promise<ControlServer | null> {
  try {
    return await ControlServer.start(async (request) => {
      if (request.op === "jobs") {
        const id = savepoints.jobId;
        return { ok: true, pid: process.pid, jobs: id === null ? [] : [id] };
      }
      if (request.op === "savepoint") {
        const path = await savepoints.take({
          ...(request.jobId !== undefined ? { jobId: request.jobId } : {}),
          ...(request.dir !== undefined ? { dir: request.dir } : {}),
          ...(request.stop ? { stop: true } : {}),
        });
        return { ok: true, path };
      }
      return { ok: false, error: `unknown request '${(request as { op?: unknown }).op}'` };
    });
  } catch (e) {
    out.err(
      `weir: warning: no control socket (${e instanceof Error ? e.message : String(e)}): weir savepoint cannot reach this job; SIGUSR1 still takes a savepoint`,
    );
    return null;
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
