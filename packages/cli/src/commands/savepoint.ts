import { existsSync, rmSync } from "node:fs";
import { resolve } from "node:path";
import { parseDuration } from "@weir/planner";
import type { CommandLine } from "../args.js";
import { UsageError } from "../args.js";
import {
  ask,
  type ControlAnswer,
  ControlTimeout,
  controlDir,
  controlPids,
  socketPath,
} from "../control/socket.js";
import type { Output } from "../output.js";

/** How long `weir savepoint` waits by default (the default checkpoint timeout aborts it sooner). */
const DEFAULT_TIMEOUT_MS = 10 * 60_000;
/** How long a `jobs` question to one process may take when looking a job id up. */
const LOOKUP_TIMEOUT_MS = 5_000;

/**
 * `weir savepoint PID | JOB_ID [--dir DIR] [--stop] [--timeout 10min]`: asks a running `weir run`
 * (through its control socket) for a savepoint, waits until it is written and its sinks
 * committed, and prints its `chk-N` path on standard output. `--dir` puts it there instead of
 * the job's `'execution.checkpointing.savepoint-dir'`; `--stop` stops the job right after it
 * (Flink's stop-with-savepoint: the job exits 0 and processes nothing after the savepoint).
 * Exit codes: 0 written; 1 bad arguments or no such job; 2 the savepoint failed or timed out.
 */
export async function savepointCommand(cmd: CommandLine, out: Output): Promise<number> {
  const target = cmd.positionals[0];
  if (target === undefined || cmd.positionals.length > 1)
    throw new UsageError(
      "weir savepoint needs one job: weir savepoint PID | JOB_ID [--dir DIR] [--stop] [--timeout 10min]",
    );
  const dirFlag = cmd.flags.get("dir");
  if (dirFlag === true) throw new UsageError("--dir needs a directory: --dir /path/to/savepoints");
  const timeoutFlag = cmd.flags.get("timeout");
  if (timeoutFlag === true) throw new UsageError("--timeout needs a duration such as 30s or 10min");
  let timeoutMs = DEFAULT_TIMEOUT_MS;
  if (typeof timeoutFlag === "string") {
    const ms = /[a-zµ]\s*$/i.test(timeoutFlag) ? parseDuration(timeoutFlag) : undefined;
    if (ms === undefined || ms <= 0)
      throw new UsageError(
        `--timeout expects a duration with a unit such as 30s or 10min, got '${timeoutFlag}'`,
      );
    timeoutMs = ms;
  }
  const fail = (code: number, message: string): number => {
    out.err(`weir savepoint: error: ${message}`);
    return code;
  };
  const found = await findJob(target);
  if ("error" in found) return fail(1, found.error);
  let answer: ControlAnswer;
  try {
    answer = await ask(
      found.socket,
      {
        op: "savepoint",
        ...(found.jobId !== undefined ? { jobId: found.jobId } : {}),
        ...(typeof dirFlag === "string" ? { dir: resolve(process.cwd(), dirFlag) } : {}),
        ...(cmd.flags.has("stop") ? { stop: true } : {}),
      },
      timeoutMs,
    );
  } catch (e) {
    if (e instanceof ControlTimeout)
      return fail(
        2,
        `no savepoint of process ${found.pid} within ${timeoutMs} ms (--timeout); the job may still take it (see its standard error)`,
      );
    return fail(2, `process ${found.pid}: ${(e as Error).message}`);
  }
  if (!answer.ok) return fail(2, `process ${found.pid}: ${answer.error}`);
  if (!("path" in answer)) return fail(2, `process ${found.pid} answered without a savepoint path`);
  out.out(answer.path);
  return 0;
}

type Found =
  | { readonly socket: string; readonly pid: number; readonly jobId?: string }
  | { readonly error: string };

/** The control socket of a pid, or of the `weir run` whose running job has that id. */
async function findJob(target: string): Promise<Found> {
  const dir = controlDir();
  if (/^\d+$/.test(target)) {
    const pid = Number(target);
    const socket = socketPath(pid, dir);
    if (existsSync(socket) && alive(pid)) return { socket, pid };
    return {
      error: alive(pid)
        ? `process ${pid} is not a running weir run (it has no control socket in ${dir}; a job started with another WEIR_CONTROL_DIR or TMPDIR has its socket elsewhere)`
        : `no process ${pid}`,
    };
  }
  if (!/^[0-9a-f]{32}$/.test(target))
    throw new UsageError(
      `weir savepoint takes a process id or a job id (32 hex digits, the directory under the checkpoint directory), got '${target}'`,
    );
  const running: string[] = [];
  for (const pid of controlPids(dir)) {
    const socket = socketPath(pid, dir);
    if (!alive(pid)) {
      // A killed job left its socket behind.
      rmSync(socket, { force: true });
      continue;
    }
    try {
      const a = await ask(socket, { op: "jobs" }, LOOKUP_TIMEOUT_MS);
      if (a.ok && "jobs" in a) {
        if (a.jobs.includes(target)) return { socket, pid, jobId: target };
        running.push(...a.jobs.map((j) => `${j} (pid ${pid})`));
      }
    } catch {
      // A process that does not answer is not the one.
    }
  }
  return {
    error: `no running weir run has job ${target}${running.length > 0 ? `; running: ${running.join(", ")}` : ` (no weir run is running with control sockets in ${dir})`}`,
  };
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}
