// Savepoints of a running `weir run`: SIGUSR1 writes one into 'execution.checkpointing.savepoint-dir'
// (without periodic checkpoints), the process is then killed with SIGKILL, and
// `weir run --from-savepoint PATH` continues from it: the output file holds every row once.
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { eventually } from "./pg-helpers.js";

const ROOT = resolve(import.meta.dirname, "../..");
const WEIR = join(ROOT, "packages/cli/dist/main.js");
const ROWS = 4000;

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
});
