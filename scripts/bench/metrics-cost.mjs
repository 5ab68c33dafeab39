#!/usr/bin/env node
// The cost of observability, piece by piece (build first: scripts/pnpm.sh exec tsc -b):
//   node scripts/bench/metrics-cost.mjs
// 1. the per-row work: the event-time lag sketch at a sink, in CPU ns per row (5M rows);
// 2. the per-request work: CPU ms of one /metrics scrape and one /api/jobs (the job page's JSON)
//    of a running job (datagen → window aggregate → blackhole), as the server answers them.
// 3. with `--nexmark q0` (or another query): the whole, in one process: 6 alternating runs of 2M
//    events without and with metrics and the job page served and fetched every second (the
//    same process keeps the JIT state alike for both), CPU seconds sorted.
// `weir bench nexmark --metrics` measures the whole too (with vs without, one process each); on a
// shared machine its noise is larger than these costs, which is why they are measured one by one.
import { request } from "node:http";
import { benchQuery, defaultBenchRoot } from "../../packages/cli/dist/bench/nexmark.js";
import { Engine } from "../../packages/cli/dist/engine/engine.js";
import { EventTimeLagSketch } from "../../packages/runtime/dist/job/latency.js";

const cpuMs = (c0) => {
  const c = process.cpuUsage(c0);
  return (c.user + c.system) / 1000;
};
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

// 1. Rows as a sink sees them: batches of 1024, event time in column 2, lags of 0..10 s.
{
  const n = 1024;
  const now = Date.now();
  const rows = Array.from({ length: n }, (_, i) => [i, "x", now - ((i * 7919) % 10_000)]);
  const batch = { ops: new Uint8Array(n), rows, length: n };
  const sketch = new EventTimeLagSketch(2, now);
  for (let k = 0; k < 1000; k++) sketch.addBatch(batch, now);
  const batches = Math.ceil(5_000_000 / n);
  const c0 = process.cpuUsage();
  for (let k = 0; k < batches; k++) sketch.addBatch(batch, now);
  console.log(`event-time lag sketch: ${((cpuMs(c0) * 1e6) / (batches * n)).toFixed(1)} ns CPU per row`);
}

// 2. A running job with /metrics and the job page served; each request timed server-side
// (the CPU the process spends from sending the request to the end of the response, which
// includes this client's small share).
{
  const engine = new Engine({
    cwd: process.cwd(),
    out: { out: () => undefined, err: () => undefined },
    settings: [
      ["weir.metrics.port", "0"],
      ["weir.ui.port", "0"],
    ],
  });
  const sql = `
    CREATE TABLE g (k INT, v INT, ts AS LOCALTIMESTAMP, WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
      WITH ('connector' = 'datagen', 'rows-per-second' = '2000', 'fields.k.min' = '1', 'fields.k.max' = '50');
    CREATE TABLE o (k INT, c BIGINT, w TIMESTAMP(3)) WITH ('connector' = 'blackhole');
    INSERT INTO o SELECT k, COUNT(*), window_time
      FROM TABLE(TUMBLE(TABLE g, DESCRIPTOR(ts), INTERVAL '1' SECOND)) GROUP BY k, window_start, window_end, window_time;`;
  const controller = new AbortController();
  const done = engine.runScript(sql, { file: "metrics-cost.sql", signal: controller.signal });
  const get = (url) =>
    new Promise((resolve, reject) => {
      const c0 = process.cpuUsage();
      request(url, (res) => {
        let bytes = 0;
        res.on("data", (d) => {
          bytes += d.length;
        });
        res.on("end", () => resolve({ ms: cpuMs(c0), bytes }));
      })
        .on("error", reject)
        .end();
    });
  const scrapes = [];
  const pages = [];
  let bytes = { metrics: 0, page: 0 };
  while (engine.metrics.url === null || engine.metrics.uiUrl === null)
    await new Promise((r) => setTimeout(r, 50));
  // About 8 s of the job: the job page's history has its first points.
  for (let i = 0; i < 16; i++) {
    await new Promise((r) => setTimeout(r, 500));
    const m = await get(engine.metrics.url);
    const p = await get(`${engine.metrics.uiUrl}api/jobs`);
    scrapes.push(m.ms);
    pages.push(p.ms);
    bytes = { metrics: m.bytes, page: p.bytes };
  }
  controller.abort();
  await done;
  await engine.close();
  console.log(
    `/metrics scrape: ${median(scrapes).toFixed(2)} ms CPU (median of ${scrapes.length}, ${bytes.metrics} bytes)`,
  );
  console.log(
    `/api/jobs (job page): ${median(pages).toFixed(2)} ms CPU (median of ${pages.length}, ${bytes.page} bytes)`,
  );
}

// 3. The whole, alternating in one process.
const q = process.argv.indexOf("--nexmark");
if (q >= 0) {
  const query = process.argv[q + 1] ?? "q0";
  const out = { out: () => undefined, err: () => undefined };
  const root = defaultBenchRoot(process.cwd());
  const cpu = { off: [], on: [] };
  for (let i = 0; i < 6; i++)
    for (const metrics of [false, true]) {
      const r = await benchQuery(query, { events: 2_000_000, warmupEvents: 200_000, root, metrics }, out);
      cpu[metrics ? "on" : "off"].push(r.cpuSeconds);
    }
  const sorted = (xs) => [...xs].sort((a, b) => a - b);
  const mid = (xs) => (sorted(xs)[2] + sorted(xs)[3]) / 2;
  for (const k of ["off", "on"])
    console.log(
      `${query} metrics ${k.padEnd(3)}: cpu s ${sorted(cpu[k])
        .map((x) => x.toFixed(2))
        .join(" ")} (median ${mid(cpu[k]).toFixed(3)})`,
    );
  console.log(`${query}: median with / without = ${((mid(cpu.on) / mid(cpu.off) - 1) * 100).toFixed(1)} %`);
}
