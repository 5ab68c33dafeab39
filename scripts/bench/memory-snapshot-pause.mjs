// The pause a checkpoint of the in-memory backend causes in the job loop, and how long it takes.
//
// Usage (build first): node --max-old-space-size=6144 scripts/bench/memory-snapshot-pause.mjs
//   [KEYS] [VALUE_BYTES] [--before] [--restore]
//
// It fills a value table with KEYS keys of VALUE_BYTES-character values, then runs a job loop
// stand-in: turns of 256 read-modify-writes of random keys through the state API (what an
// aggregation does per batch); while a checkpoint is stored, the event loop gets a turn (where
// a slice of the store runs) after every 10 ms of turns, as the job's coordinator gives it. One checkpoint is taken mid-run and
// written with the CheckpointStore into a temporary directory:
//   default:  as the job does now: snapshot({ deferred: true }) (copy-on-write) at the barrier,
//             then CheckpointStore.writeAsync in slices while the turns go on;
//   --before: as it did before: snapshot() and CheckpointStore.write at the barrier, the loop
//             waiting for both (run it against a build of the older code with WEIR_DIST).
// It prints the gaps between two turns (the longest is the longest pause of the job loop; also
// over 3 s without a checkpoint, the machine's own noise floor: GC, scheduling), the same gaps
// in the process's CPU time (what the gap cost in work, without the waits for a core), the
// synchronous part, the whole checkpoint's duration, the file size, and the update rate before
// and while the checkpoint is stored. --restore also reads the checkpoint back into a backend.
// WEIR_DIST: the runtime's dist/index.js to use (default: this checkout's).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";

const args = process.argv.slice(2);
const flags = new Set(args.filter((a) => a.startsWith("--")));
const [nArg, bArg] = args.filter((a) => !a.startsWith("--"));
const N = Number(nArg ?? 200000);
const B = Number(bArg ?? 1000);
const before = flags.has("--before");
const dist = process.env.WEIR_DIST
  ? pathToFileURL(resolve(process.env.WEIR_DIST)).href
  : new URL("../../packages/runtime/dist/index.js", import.meta.url).href;
const { CheckpointStore, readCheckpoint } = await import(dist);
// The backend is no part of the runtime's public API: its module, beside that index.js.
const { MemoryStateBackend } = await import(new URL("state/memory.js", dist).href);

const b = new MemoryStateBackend();
const v = b.value("v");
const filler = Buffer.alloc(B, "abcdef0123456789").toString("latin1");
for (let k = 0; k < N; k++) v.put(k, [k, `${k}:${filler}`]);

let seed = 42;
const rnd = () => {
  seed = (seed * 1103515245 + 12345) & 0x7fffffff;
  return seed;
};
let updates = 0;
/** One turn of the job loop: a batch of read-modify-writes. */
function turn() {
  for (let i = 0; i < 256; i++) {
    const k = rnd() % N;
    const x = v.get(k);
    x[0]++;
    v.put(k, x);
  }
  updates += 256;
}
const yieldTurn = () => new Promise((r) => setImmediate(r));
/** The process's CPU time (user + system), ms: on a loaded machine a wall-clock gap is mostly waiting for a core. */
const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

const dir = mkdtempSync(join(tmpdir(), "weir-snapshot-pause-"));
const store = new CheckpointStore(dir, 1);
const checkpoint = (state) => ({
  version: 2,
  jobId: "bench",
  checkpointId: 1,
  timestamp: Date.now(),
  planFingerprint: "bench",
  layout: {},
  dagVersion: 0,
  stateVersion: 1,
  sources: {},
  operators: { agg: { state, watermark: null, forwarded: null } },
  sinks: {},
  metrics: { durationMs: 0, sources: {}, operators: {}, sinks: {} },
});

const cpu0 = process.cpuUsage();
// Warm-up: the loop's own turn time, without a checkpoint.
let last = performance.now();
let lastCpu = cpuMs();
const gapsBefore = [];
const cpuGapsBefore = [];
const warmStart = performance.now();
let lastYield0 = warmStart;
while (performance.now() - warmStart < 3000) {
  turn();
  if (performance.now() - lastYield0 >= 10) {
    await yieldTurn();
    lastYield0 = performance.now();
  }
  const t = performance.now();
  gapsBefore.push(t - last);
  last = t;
  const c = cpuMs();
  cpuGapsBefore.push(c - lastCpu);
  lastCpu = c;
}
const rateBefore = updates / ((performance.now() - warmStart) / 1000);

// The checkpoint.
let syncMs = 0;
let syncCpu = null;
let stored = null;
let failed = null;
const c0 = process.cpuUsage();
const c0cpu = (c0.user + c0.system) / 1000;
const t0 = performance.now();
let done = false;
let writing;
if (before) {
  try {
    const s = b.snapshot();
    stored = store.write(checkpoint(s));
  } catch (e) {
    failed = e;
  }
  syncMs = performance.now() - t0;
  syncCpu = process.cpuUsage(c0);
  done = true;
} else {
  const s = b.snapshot({ deferred: true });
  syncMs = performance.now() - t0;
  syncCpu = process.cpuUsage(c0);
  writing = store.writeAsync(checkpoint(s)).then(
    (r) => {
      stored = r;
      done = true;
      s.release();
    },
    (e) => {
      failed = e;
      done = true;
      s.release();
    },
  );
}
// The loop goes on while the checkpoint is stored; the first gap counts the synchronous part.
last = t0;
lastCpu = c0cpu;
const gaps = [];
const cpuGaps = [];
const updatesAtTrigger = updates;
// As the job's coordinator does: an event-loop turn for the store after every 10 ms of turns.
let lastYield = performance.now();
while (!done) {
  turn();
  if (performance.now() - lastYield >= 10) {
    await yieldTurn();
    lastYield = performance.now();
  }
  const t = performance.now();
  gaps.push(t - last);
  last = t;
  const c = cpuMs();
  cpuGaps.push(c - lastCpu);
  lastCpu = c;
}
const totalMs = performance.now() - t0;
if (before) {
  gaps.push(totalMs);
  cpuGaps.push(cpuMs() - c0cpu);
}
/** The longest gap, the 99th percentile and how many exceed 100 and 200 ms. */
const summary = (g) => {
  const s = [...g].sort((a, b) => a - b);
  const r = (x) => Number((x ?? 0).toFixed(1));
  return {
    max: r(s.at(-1)),
    p99: r(s[Math.floor(s.length * 0.99)]),
    over100: s.filter((x) => x > 100).length,
    over200: s.filter((x) => x > 200).length,
    turns: s.length,
  };
};
await writing;
const rateDuring = before ? 0 : (updates - updatesAtTrigger) / (totalMs / 1000);
const cpu = process.cpuUsage(cpu0);
const mb = (x) => (x / 1e6).toFixed(0);
const bytes = stored ? Object.values(stored.stateBytes ?? {}).reduce((a, x) => a + x, 0) : 0;
console.log(
  JSON.stringify({
    mode: before ? "before (snapshot + write at the barrier)" : "copy-on-write + asynchronous write",
    keys: N,
    valueBytes: B,
    stateFileMB: stored ? Number(mb(bytes)) : null,
    failed: failed ? String(failed.message ?? failed) : null,
    syncPhaseMs: Number(syncMs.toFixed(1)),
    syncPhaseCpuMs: Number(((syncCpu.user + syncCpu.system) / 1000).toFixed(1)),
    loopGapsDuringCheckpointMs: summary(gaps),
    loopGapsWithoutCheckpointMs: summary(gapsBefore),
    loopGapsCpuDuringCheckpointMs: summary(cpuGaps),
    loopGapsCpuWithoutCheckpointMs: summary(cpuGapsBefore),
    checkpointTotalMs: Number(totalMs.toFixed(0)),
    updatesPerSecBefore: Math.round(rateBefore),
    updatesPerSecDuring: Math.round(rateDuring),
    cpuSec: Number(((cpu.user + cpu.system) / 1e6).toFixed(2)),
    loadavg: (await import("node:os")).loadavg().map((x) => Number(x.toFixed(2))),
  }),
);
if (flags.has("--restore") && stored) {
  const t = performance.now();
  const cp = readCheckpoint(stored.path).checkpoint;
  const r = new MemoryStateBackend();
  r.value("v");
  r.restore(cp.operators.agg.state);
  console.log(JSON.stringify({ restoreMs: Math.round(performance.now() - t), restoredKeys: r.stats().keys }));
}
rmSync(dir, { recursive: true, force: true });
