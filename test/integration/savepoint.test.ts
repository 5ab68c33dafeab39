// Savepoints of a running `weir run`: SIGUSR1 writes one into 'execution.checkpointing.savepoint-dir'
// (without periodic checkpoints), the process is then killed with SIGKILL, and
// `weir run --from-savepoint PATH` continues from it: the output file holds every row once.
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { eventually } from "./pg-helpers.js";

const ROOT = resolve(import.meta.dirname, "../..");
const WEIR = join(ROOT, "packages/cli/dist/main.js");
const ROWS = 4000;
/** The job of the weir savepoint test runs about 15 s: long enough for the commands to reach it. */
const CMD_ROWS = 15_000;

function exited(child: ChildProcess): Promise<{ code: number | null; signal: string | null }> {
  return new Promise((res) => child.on("exit", (code, signal) => res({ code, signal })));
}

describe("savepoints (weir run, SIGUSR1, --from-savepoint)", () => {
  it("a savepoint taken from a running job restores into the same result", async () => {
    const dir = mkdtempSync(join(tmpdir(), "weir-savepoint-"));
    const file = join(dir, "job.sql");
    writeFileSync(
      file,
      `SET 'execution.checkpointing.savepoint-dir' = 'savepoints';
CREATE TABLE seq (id BIGINT) WITH (
  'connector' = 'datagen', 'rows-per-second' = '500',
  'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '${ROWS}'
);
CREATE TABLE out (id BIGINT) WITH ('connector' = 'filesystem', 'path' = 'out.jsonl', 'format' = 'json');
INSERT INTO out SELECT id FROM seq;
`,
    );
    const child = spawn("node", [WEIR, "run", file], { cwd: dir, stdio: ["ignore", "ignore", "pipe"] });
    const stderr: string[] = [];
    child.stderr!.on("data", (d) => stderr.push(String(d)));
    const done = exited(child);
    const written = () => /savepoint written to (\S+)/.exec(stderr.join(""))?.[1];
    // The sink's file exists once the job runs (and `weir run` handles SIGUSR1; before that,
    // Node would take the signal as a request to start its inspector).
    await eventually(
      async () => existsSync(join(dir, "out.jsonl")),
      () => `the job did not start; stderr:\n${stderr.join("")}`,
      60_000,
    );
    await eventually(
      async () => {
        if (written() === undefined) child.kill("SIGUSR1");
        return written() !== undefined;
      },
      () => `no savepoint; stderr:\n${stderr.join("")}`,
      60_000,
    );
    child.kill("SIGKILL");
    expect((await done).signal).toBe("SIGKILL");
    const path = written()!;
    expect(path).toMatch(/savepoints\/[0-9a-f]{32}\/chk-\d+$/);
    const manifest = JSON.parse(readFileSync(join(path, "_metadata.json"), "utf8"));
    const emitted = (Object.values(manifest.sources)[0] as { position: { emitted: number } }).position
      .emitted;
    // Mid-stream: the restored run must continue from it, not start over.
    expect(emitted).toBeGreaterThan(0);
    expect(emitted).toBeLessThan(ROWS);

    const restored = spawn("node", [WEIR, "run", file, "--from-savepoint", path], {
      cwd: dir,
      stdio: ["ignore", "ignore", "pipe"],
    });
    const restoredErr: string[] = [];
    restored.stderr!.on("data", (d) => restoredErr.push(String(d)));
    const end = await exited(restored);
    expect(end.code, restoredErr.join("")).toBe(0);
    expect(restoredErr.join("")).toMatch(/restored from checkpoint \d+/);
    const ids = readFileSync(join(dir, "out.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l).id as number);
    expect(ids).toEqual(Array.from({ length: ROWS }, (_, i) => i + 1));
    // Savepoints are never expired by checkpoint retention.
    expect(existsSync(join(path, "_metadata.json"))).toBe(true);
  }, 120_000);

  it("weir savepoint PID | JOB_ID: prints the path once written, fails clearly without a directory, --stop stops the job, and the savepoint restores", async () => {
    const dir = mkdtempSync(join(tmpdir(), "weir-savepoint-cmd-"));
    const control = join(dir, "control");
    const env = { ...process.env, WEIR_CONTROL_DIR: control };
    const file = join(dir, "job.sql");
    // No 'execution.checkpointing.savepoint-dir': the command names the directory.
    writeFileSync(
      file,
      `CREATE TABLE seq (id BIGINT) WITH (
  'connector' = 'datagen', 'rows-per-second' = '1000',
  'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '${CMD_ROWS}'
);
CREATE TABLE out (id BIGINT) WITH ('connector' = 'filesystem', 'path' = 'out.jsonl', 'format' = 'json');
INSERT INTO out SELECT id FROM seq;
`,
    );
    const savepoint = (...args: string[]) =>
      new Promise<{ code: number; stdout: string; stderr: string }>((res) => {
        execFile(
          "node",
          [WEIR, "savepoint", ...args],
          { cwd: dir, env, timeout: 60_000 },
          (e, stdout, stderr) => res({ code: e ? ((e as { code?: number }).code ?? -1) : 0, stdout, stderr }),
        );
      });
    const child = spawn("node", [WEIR, "run", file], { cwd: dir, env, stdio: ["ignore", "ignore", "pipe"] });
    const stderr: string[] = [];
    child.stderr!.on("data", (d) => stderr.push(String(d)));
    const done = exited(child);
    const pid = String(child.pid);

    // Until the job runs, the answer is that none is running (exit 2); then, without a
    // savepoint directory, that one is needed.
    let first = await savepoint(pid);
    await eventually(
      async () => {
        if (/no job is running|no process|not a running weir run/.test(first.stderr))
          first = await savepoint(pid);
        return !/no job is running|no process|not a running weir run/.test(first.stderr);
      },
      () => `the job did not start; weir savepoint said ${first.stderr}; stderr:\n${stderr.join("")}`,
      60_000,
    );
    expect(first.code).toBe(2);
    expect(first.stderr).toContain("weir savepoint: error: ");
    expect(first.stderr).toContain("no savepoint directory: set 'execution.checkpointing.savepoint-dir'");

    const taken = await savepoint(pid, "--dir", "sp");
    expect(taken.code, taken.stderr).toBe(0);
    const firstPath = taken.stdout.trim();
    expect(firstPath).toMatch(new RegExp(`^${dir}/sp/[0-9a-f]{32}/chk-\\d+$`));
    expect(existsSync(join(firstPath, "_metadata.json"))).toBe(true);
    expect(stderr.join("")).toContain(`savepoint written to ${firstPath}`);
    const jobId = /sp\/([0-9a-f]{32})\//.exec(firstPath)![1]!;

    // By job id, with --stop: the job stops right after it and exits 0.
    const unknown = await savepoint("0123456789abcdef0123456789abcdef");
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain(
      `no running weir run has job 0123456789abcdef0123456789abcdef; running: ${jobId}`,
    );
    const stopped = await savepoint(jobId, "--dir", "sp", "--stop");
    expect(stopped.code, stopped.stderr).toBe(0);
    const path = stopped.stdout.trim();
    expect(path).not.toBe(firstPath);
    const end = await done;
    expect(end.code, stderr.join("")).toBe(0);
    expect(stderr.join("")).toContain("Job stopped with a savepoint");
    // Nothing was processed after the savepoint: the file holds what it records.
    const manifest = JSON.parse(readFileSync(join(path, "_metadata.json"), "utf8"));
    const emitted = (Object.values(manifest.sources)[0] as { position: { emitted: number } }).position
      .emitted;
    const lines = () => readFileSync(join(dir, "out.jsonl"), "utf8").trim().split("\n");
    expect(lines().length).toBe(emitted);
    expect(emitted).toBeLessThan(CMD_ROWS);
    // The process is gone: its control socket too.
    expect(existsSync(join(control, `${pid}.sock`))).toBe(false);

    const restored = spawn("node", [WEIR, "run", file, "--from-savepoint", path], {
      cwd: dir,
      env,
      stdio: ["ignore", "ignore", "pipe"],
    });
    const restoredErr: string[] = [];
    restored.stderr!.on("data", (d) => restoredErr.push(String(d)));
    expect((await exited(restored)).code, restoredErr.join("")).toBe(0);
    expect(lines().map((l) => JSON.parse(l).id as number)).toEqual(
      Array.from({ length: CMD_ROWS }, (_, i) => i + 1),
    );
  }, 120_000);
});
