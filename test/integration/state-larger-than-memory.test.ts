// State larger than the heap: `weir run` of a regular join whose left side keeps every row in
// state (the right side matches one row in 1000), with 'state.backend.type' = 'rocksdb' in a
// process whose V8 heap is limited to 64 MB. By default the state grows to ~0.8 GB on disk, about
// 12 times the heap; WEIR_BIG_STATE_ROWS raises it (each row keeps ~4 kB: the 2000-character
// payload in the row and in its join key). On a small input the on-disk and the in-memory
// backends must write the same file.
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";

const ROOT = resolve(import.meta.dirname, "../..");
const WEIR = join(ROOT, "packages/cli/dist/main.js");
const ROWS = Number(process.env.WEIR_BIG_STATE_ROWS ?? 200_000);
const HEAP_MB = Number(process.env.WEIR_BIG_STATE_HEAP_MB ?? 64);
const PAYLOAD = 2000;

const dir = mkdtempSync(join(tmpdir(), "weir-big-state-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function script(rows: number, out: string): string {
  return `
CREATE TABLE a (id BIGINT, payload STRING) WITH (
  'connector' = 'datagen', 'fields.id.kind' = 'sequence', 'fields.id.start' = '1',
  'fields.id.end' = '${rows}', 'fields.payload.length' = '${PAYLOAD}', 'seed' = '7'
);
CREATE TABLE b (id BIGINT) WITH (
  'connector' = 'datagen', 'fields.id.kind' = 'sequence', 'fields.id.start' = '1',
  'fields.id.end' = '${Math.floor(rows / 1000)}'
);
CREATE TABLE out (id BIGINT, payload STRING) WITH (
  'connector' = 'filesystem', 'path' = '${out}', 'format' = 'json'
);
INSERT INTO out SELECT a.id, a.payload FROM a JOIN (SELECT id * 1000 AS j FROM b) AS bb ON a.id = bb.j;
`;
}

/** Bytes below `p` (files of the LMDB environments). */
function du(p: string): number {
  if (!existsSync(p)) return 0;
  const st = statSync(p);
  if (!st.isDirectory()) return st.size;
  let n = 0;
  for (const f of readdirSync(p)) n += du(join(p, f));
  return n;
}

/** The process's resident memory: anonymous (heap, buffers) and file-backed (mapped LMDB pages), in bytes. */
function rss(pid: number): { anon: number; file: number } | null {
  try {
    const s = readFileSync(`/proc/${pid}/status`, "utf8");
    const kb = (name: string) => Number(new RegExp(`${name}:\\s+(\\d+)`).exec(s)?.[1] ?? 0) * 1024;
    return { anon: kb("RssAnon"), file: kb("RssFile") };
  } catch {
    return null;
  }
}

interface Run {
  readonly code: number | null;
  readonly stderr: string;
  readonly peakDisk: number;
  readonly peakAnon: number;
  readonly peakFile: number;
}

/** Runs `weir run` and samples its state directory and RSS until it exits. */
function run(sql: string, settings: string[], env: Record<string, string>, localDir: string): Promise<Run> {
  const file = join(dir, `job-${Math.random().toString(36).slice(2)}.sql`);
  writeFileSync(file, sql);
  const args = [WEIR, "run", file, ...settings.flatMap((s) => ["--set", s])];
  const child = spawn("node", args, { stdio: ["ignore", "ignore", "pipe"], env: { ...process.env, ...env } });
  const stderr: string[] = [];
  child.stderr!.on("data", (d) => stderr.push(String(d)));
  let peakDisk = 0;
  let peakAnon = 0;
  let peakFile = 0;
  const sample = () => {
    peakDisk = Math.max(peakDisk, du(localDir));
    const r = child.pid === undefined ? null : rss(child.pid);
    if (r !== null) {
      peakAnon = Math.max(peakAnon, r.anon);
      peakFile = Math.max(peakFile, r.file);
    }
  };
  const timer = setInterval(sample, 250);
  return new Promise((done) => {
    child.on("exit", (code) => {
      clearInterval(timer);
      done({ code, stderr: stderr.join(""), peakDisk, peakAnon, peakFile });
    });
  });
}

describe("state larger than the V8 heap ('state.backend.type' = 'rocksdb')", () => {
  it("a small join gives the same file on both backends", async () => {
    const outputs: string[] = [];
    for (const backend of ["hashmap", "rocksdb"]) {
      const out = join(dir, `small-${backend}.jsonl`);
      const local = join(dir, `local-small-${backend}`);
      const r = await run(
        script(5000, out),
        [`state.backend.type=${backend}`, `state.backend.rocksdb.localdir=${local}`],
        {},
        local,
      );
      expect(r.code, r.stderr).toBe(0);
      outputs.push(readFileSync(out, "utf8"));
    }
    expect(outputs[0]!.split("\n").filter(Boolean)).toHaveLength(5);
    expect(outputs[1]).toBe(outputs[0]);
  }, 60_000);

  it(`a join holding ~${Math.round((ROWS * 2 * PAYLOAD) / 1e6)} MB of state completes in a ${HEAP_MB} MB heap`, async () => {
    const out = join(dir, "big.jsonl");
    const local = join(dir, "local-big");
    const r = await run(
      script(ROWS, out),
      ["state.backend.type=rocksdb", `state.backend.rocksdb.localdir=${local}`],
      { NODE_OPTIONS: `--max-old-space-size=${HEAP_MB}` },
      local,
    );
    expect(r.code, r.stderr).toBe(0);
    const mb = (n: number) => Math.round(n / 1e6);
    console.log(
      `big state: ${ROWS} rows, peak state on disk ${mb(r.peakDisk)} MB, heap limit ${HEAP_MB} MB, peak RSS anonymous ${mb(r.peakAnon)} MB, file-backed (mapped LMDB pages) ${mb(r.peakFile)} MB`,
    );
    // The state really was several times the heap, and the process's own memory stayed bounded.
    expect(r.peakDisk).toBeGreaterThan(8 * HEAP_MB * 1e6);
    expect(r.peakAnon).toBeLessThan(Math.max(400e6, r.peakDisk / 2));
    // Every 1000th row joined, with its generated payload.
    const rows = readFileSync(out, "utf8")
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { id: number; payload: string });
    expect(rows.map((x) => x.id).sort((x, y) => x - y)).toEqual(
      Array.from({ length: Math.floor(ROWS / 1000) }, (_, i) => (i + 1) * 1000),
    );
    for (const x of rows) expect(x.payload).toMatch(new RegExp(`^[0-9a-f]{${PAYLOAD}}$`));
    // The job's local state directory is gone when it ends.
    expect(du(local)).toBe(0);
  }, 180_000);
});
