#!/usr/bin/env node
// Recovery time: how long a SIGKILLed `weir run` takes, restarted with --restore, to process
// again, for a job whose state is K keys (a GROUP BY over K distinct keys):
//   node scripts/bench/recovery.mjs [--keys 10000,100000,300000] [--postgres URL]
// The job: datagen (id sequence, k random in 1..K, 200,000 rows/s) → GROUP BY k (COUNT, SUM)
// into blackhole, and every 1000th id into a Postgres append table flushed every 10 ms (the
// marker that the job is processing). It runs with checkpoints every 2 s until the state holds
// every key (3·K rows) and a checkpoint after that completed, then is SIGKILLed. Measured, from
// spawning the process until a new marker row is visible in Postgres:
//   fresh    a new job (no --restore): the process start, planning, opening the sinks
//   restore  `weir run --restore`: the same plus reading the checkpoint and restoring the state
// and the size of the checkpoint restored (its chk-N directory).
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const require = createRequire(join(ROOT, "packages/connectors/package.json"));
const pg = require("pg");
const args = process.argv.slice(2);
const arg = (name, dflt) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : dflt;
};
const keySizes = arg("keys", "10000,100000,300000").split(",").map(Number);
const pgUrl = arg("postgres", "postgres://root@127.0.0.1:5432/test");
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function until(cond, what, ms = 300_000) {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await cond();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(5);
  }
}

/** The newest complete checkpoint below `dir`: { id, path } or null. */
function latest(dir) {
  if (!existsSync(dir)) return null;
  let best = null;
  for (const job of readdirSync(dir)) {
    const jd = join(dir, job);
    if (!statSync(jd).isDirectory()) continue;
    for (const c of readdirSync(jd)) {
      const m = /^chk-(\d+)$/.exec(c);
      if (m && existsSync(join(jd, c, "_metadata.json")) && (best === null || Number(m[1]) > best.id))
        best = { id: Number(m[1]), path: join(jd, c) };
    }
  }
  return best;
}

function bytes(path) {
  let n = 0;
  for (const f of readdirSync(path)) n += statSync(join(path, f)).size;
  return n;
}

/** The weir run children: killed if this script fails (a timeout), so none is left running. */
const children = new Set();
process.on("exit", () => {
  for (const c of children) c.kill("SIGKILL");
});

function start(file, restore) {
  const child = spawn(
    "node",
    [join(ROOT, "packages/cli/dist/main.js"), "run", file, ...(restore ? ["--restore", restore] : [])],
    { stdio: ["ignore", "ignore", "pipe"] },
  );
  let stderr = "";
  child.stderr.on("data", (d) => {
    stderr += d;
  });
  const state = { child, exited: false, stderr: () => stderr };
  children.add(child);
  child.on("exit", () => {
    state.exited = true;
    children.delete(child);
  });
  return state;
}

async function run(keys, db) {
  const tag = `weir_recovery_${keys}_${Date.now()}`;
  const dir = mkdtempSync(join(tmpdir(), "weir-recovery-"));
  const checkpoints = join(dir, "checkpoints");
  await db.query(`CREATE TABLE ${tag} (id BIGINT)`);
  const file = join(dir, "job.sql");
  writeFileSync(
    file,
    `SET 'execution.checkpointing.interval' = '2 s';
SET 'execution.checkpointing.dir' = '${checkpoints}';
CREATE TABLE src (id BIGINT, k BIGINT, v INT) WITH (
  'connector' = 'datagen', 'rows-per-second' = '200000',
  'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '1000000000000',
  'fields.k.min' = '1', 'fields.k.max' = '${keys}', 'fields.v.min' = '1', 'fields.v.max' = '100'
);
CREATE TABLE agg (k BIGINT, n BIGINT, total BIGINT, PRIMARY KEY (k) NOT ENFORCED) WITH ('connector' = 'blackhole');
CREATE TABLE marks (id BIGINT) WITH (
  'connector' = 'jdbc', 'url' = '${pgUrl}', 'table-name' = '${tag}', 'sink.buffer-flush.interval' = '10 ms'
);
EXECUTE STATEMENT SET BEGIN
  INSERT INTO agg SELECT k, COUNT(*), SUM(v) FROM src GROUP BY k;
  INSERT INTO marks SELECT id FROM src WHERE MOD(id, 1000) = 0;
END;
`,
  );
  const count = async () => Number((await db.query(`SELECT count(*) AS n FROM ${tag}`)).rows[0].n);
  const maxId = async () =>
    Number((await db.query(`SELECT coalesce(max(id), 0) AS m FROM ${tag}`)).rows[0].m);

  // Fresh start: spawn → first marker row.
  const t0 = Date.now();
  const first = start(file, null);
  await until(async () => first.exited || (await count()) > 0, "the first marker row");
  if (first.exited) throw new Error(`weir run ended: ${first.stderr()}`);
  const freshMs = Date.now() - t0;
  // Every key in state, then a checkpoint after that.
  await until(async () => first.exited || (await maxId()) >= 3 * keys, `${3 * keys} rows`);
  const filled = latest(checkpoints)?.id ?? 0;
  await until(
    () => first.exited || (latest(checkpoints)?.id ?? 0) > filled,
    "a checkpoint of the full state",
  );
  if (first.exited) throw new Error(`weir run ended: ${first.stderr()}`);
  first.child.kill("SIGKILL");
  await until(() => first.exited, "the kill");
  const cp = latest(checkpoints);
  const before = await count();

  // Restore: spawn --restore → a marker row newer than what the killed run wrote.
  const t1 = Date.now();
  const second = start(file, checkpoints);
  await until(async () => second.exited || (await count()) > before, "a marker row after the restore");
  if (second.exited) throw new Error(`weir run --restore ended: ${second.stderr()}`);
  const restoreMs = Date.now() - t1;
  second.child.kill("SIGKILL");
  await until(() => second.exited, "the second kill");
  await db.query(`DROP TABLE ${tag}`);
  return { keys, freshMs, restoreMs, checkpointBytes: bytes(cp.path) };
}

const db = new pg.Client({ connectionString: pgUrl });
await db.connect();
process.on("unhandledRejection", (e) => {
  console.error(e);
  process.exit(1);
});
console.log("state keys   checkpoint size   fresh start ms   restore ms   restore − fresh ms");
for (const keys of keySizes) {
  const r = await run(keys, db);
  const mib = `${(r.checkpointBytes / 2 ** 20).toFixed(1)} MiB`;
  console.log(
    `${keys.toLocaleString("en-US").padStart(10)} ${mib.padStart(17)} ${String(r.freshMs).padStart(16)} ${String(r.restoreMs).padStart(12)} ${String(r.restoreMs - r.freshMs).padStart(20)}`,
  );
}
await db.end();
