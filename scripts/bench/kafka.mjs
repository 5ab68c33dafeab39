#!/usr/bin/env node
// Kafka read throughput, Weir against the Kafka client's own consume loop, on one topic:
//   node scripts/bench/kafka.mjs [--events N] [--partitions P] [--brokers HOST:PORT] [--postgres URL]
// Produces N ~200-byte JSON order events (the seeds' fields) to a fresh P-partition topic, then
// measures, each in its own process, records per CPU-second (user + system of that process):
//   ceiling    kafkajs's plain eachBatch loop, touching every record's value (no decoding)
//   ceiling + JSON.parse  the same loop, parsing each value with JSON.parse (what decoding costs)
//   (printed below the table: the ceiling loop with Weir's record batch decoder and timer fix,
//   and with the timer fix alone; see ceilingLoop)
//   blackhole  weir run: Kafka (json, rowtime watermark, the partition merge) → blackhole
//   blackhole, light  the same with amount DOUBLE and the record timestamp as rowtime: the source
//              path without DECIMAL parsing and string-timestamp parsing
//   postgres   weir run: the same → Postgres upsert keyed by event_id (skipped without --postgres; the table is dropped afterwards)
// --cpu-prof DIR: the weir runs write V8 CPU profiles (node --cpu-prof) into DIR.
// --topic-prefix P: name the topic P-<time> (default weir-bench).
// --node-flags "FLAGS": the node flags of every child process, the ceiling loops' as well as
// weir's, so both run on the same heap settings (printed with the results); default: the flags
// bin/weir runs weir with (packages/cli/node-flags).
// weir runs what packages/cli/bin/weir runs: the bundle (dist/weir.mjs, `scripts/pnpm.sh build`)
// while it is fresh, else dist/main.js (WEIR_NO_BUNDLE=1: always dist/main.js).
// The broker: --brokers, else $KAFKA_BROKERS, else scripts/kafka.sh starts one (and stops it).
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const require = createRequire(join(ROOT, "packages/connectors/package.json"));
const { Kafka, logLevel } = require("kafkajs");

const args = process.argv.slice(2);
const arg = (name, dflt) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : dflt;
};
const events = Number(arg("events", "1000000"));
const partitions = Number(arg("partitions", "3"));
const pgUrl = arg("postgres", undefined);
const profDir = arg("cpu-prof", undefined);
const nodeFlags = arg("node-flags", readFileSync(join(ROOT, "packages/cli/node-flags"), "utf8"))
  .split(/\s+/)
  .filter(Boolean);
const nodeArgs = [...nodeFlags, ...(profDir ? ["--cpu-prof", `--cpu-prof-dir=${resolve(profDir)}`] : [])];
let brokers = arg("brokers", process.env.KAFKA_BROKERS);
let started = false;
if (!brokers) {
  brokers = execFileSync(join(ROOT, "scripts/kafka.sh"), ["start"], { encoding: "utf8" }).trim();
  started = true;
}

const topic = `${arg("topic-prefix", "weir-bench")}-${Date.now()}`;
const kafka = new Kafka({ brokers: brokers.split(","), clientId: "weir-bench", logLevel: logLevel.NOTHING });

async function produce() {
  const admin = kafka.admin();
  await admin.connect();
  await admin.createTopics({ topics: [{ topic, numPartitions: partitions }], waitForLeaders: true });
  await admin.disconnect();
  const producer = kafka.producer();
  await producer.connect();
  const inflight = [];
  const base = Date.parse("2026-06-24T00:00:00Z");
  for (let i = 0; i < events; i += 4000) {
    const by = Array.from({ length: partitions }, () => []);
    for (let j = i; j < Math.min(events, i + 4000); j++) {
      const t = new Date(base + j * 10 + (j % 7) * 1000).toISOString().slice(0, 19);
      by[j % partitions].push({
        partition: j % partitions,
        value: `{"event_id":"evt-${j}","event_type":"OrderPaid","order_id":"ord-${j >> 1}","store_id":"store-${j % 20}","amount":${(j % 9000) / 100},"currency":"KRW","paid_at":"${t}+09:00"}`,
      });
    }
    inflight.push(
      producer.sendBatch({ acks: 1, topicMessages: by.map((messages) => ({ topic, messages })) }),
    );
    if (inflight.length >= 8) await inflight.shift();
  }
  await Promise.all(inflight);
  await producer.disconnect();
}

/** What packages/cli/bin/weir runs: the bundle dist/weir.mjs while it is fresh, else dist/main.js. */
function weirEntry() {
  const bundle = join(ROOT, "packages/cli/dist/weir.mjs");
  if (process.env.WEIR_NO_BUNDLE || !existsSync(bundle)) return join(ROOT, "packages/cli/dist/main.js");
  const built = statSync(bundle).mtimeMs;
  const yaml = join(ROOT, "node_modules/.modules.yaml");
  const newer = (dir) =>
    readdirSync(dir, { withFileTypes: true }).some((e) =>
      e.isDirectory()
        ? newer(join(dir, e.name))
        : e.name.endsWith(".js") && statSync(join(dir, e.name)).mtimeMs > built,
    );
  // A package's modules are judged by its dist/.tsbuildinfo (tsc writes it after them), as there.
  const stale =
    (existsSync(yaml) && statSync(yaml).mtimeMs >= built) ||
    readdirSync(join(ROOT, "packages")).some((p) => {
      const dist = join(ROOT, "packages", p, "dist");
      if (!existsSync(dist)) return false;
      const info = join(dist, ".tsbuildinfo");
      return existsSync(info) ? statSync(info).mtimeMs > built : newer(dist);
    });
  return join(ROOT, stale ? "packages/cli/dist/main.js" : "packages/cli/dist/weir.mjs");
}

/** Runs `argv` in a child process; returns its CPU seconds (user + system) and wall seconds. */
function measure(argv) {
  const t0 = Date.now();
  const r = spawnSync("/usr/bin/time", ["-f", "%U %S", ...argv], { encoding: "utf8", maxBuffer: 1 << 26 });
  if (r.status !== 0) throw new Error(`${argv.join(" ")} failed:\n${r.stderr}`);
  const [u, s] = r.stderr.trim().split("\n").at(-1).split(" ").map(Number);
  return { cpu: u + s, wall: (Date.now() - t0) / 1000, stderr: r.stderr };
}

// \`patched\`: the same loop after installing Weir's record batch decoder (what the Kafka source
// runs, packages/connectors/src/kafka/record-batch.ts), so Weir's rows can also be read against a
// ceiling that decodes records as cheaply as Weir does: it reads the values' lengths from the
// lazily decoded batches (\`batch.weirRuns\`) as the source reads them, without record objects.
// \`timerFix\` (with \`patched\` too): kafkajs's request queue without its 1 ms timer loop, as Weir
// runs it (packages/connectors/src/kafka/request-queue.ts).
const ceilingLoop = (parse, patched = false, timerFix = patched) => `
${patched || timerFix ? `(async () => { ${patched ? `(await import(${JSON.stringify(pathToFileURL(join(ROOT, "packages/connectors/dist/kafka/record-batch.js")).href)})).installRecordBatchDecoder(); ` : ""}${timerFix ? `(await import(${JSON.stringify(pathToFileURL(join(ROOT, "packages/connectors/dist/kafka/request-queue.js")).href)})).installRequestQueueFix(); ` : ""}main(); })();` : "main();"}
function main() {
const { Kafka, logLevel } = require(${JSON.stringify(require.resolve("kafkajs"))});
const kafka = new Kafka({ brokers: ${JSON.stringify(brokers.split(","))}, clientId: "c", logLevel: logLevel.NOTHING });
const c = kafka.consumer({ groupId: "weir-bench-" + Date.now(), maxWaitTimeInMs: 100 });
let n = 0, bytes = 0;
(async () => {
  await c.connect();
  await c.subscribe({ topics: [${JSON.stringify(topic)}], fromBeginning: true });
  await c.run({ autoCommit: false, eachBatch: async ({ batch }) => {
    ${patched && !parse ? `if (batch.weirRuns !== undefined) { for (const r of batch.weirRuns) for (let i = r.from; i < r.to; i++) { bytes += r.records.valueLength(i); n++; } } else` : ""}
    for (const m of batch.messages) { ${parse ? "bytes += JSON.parse(m.value.toString()).event_id.length" : "bytes += m.value.length"}; n++; }
    if (n >= ${events}) { console.log(n, bytes); process.exit(0); }
  } });
})();
}`;

function script(sink, light = false) {
  const columns = light
    ? `event_id STRING, event_type STRING, order_id STRING, store_id STRING, amount DOUBLE,
  currency STRING, paid_at STRING, paid_time TIMESTAMP_LTZ(3) METADATA FROM 'timestamp',`
    : `event_id STRING, event_type STRING, order_id STRING, store_id STRING, amount DECIMAL(18, 2),
  currency STRING, paid_at STRING,
  paid_time AS TO_TIMESTAMP_LTZ(UNIX_TIMESTAMP(paid_at, 'yyyy-MM-dd''T''HH:mm:ssXXX') * 1000, 3),`;
  return `
CREATE TABLE orders (
  ${columns}
  WATERMARK FOR paid_time AS paid_time - INTERVAL '2' MINUTE
) WITH ('connector' = 'kafka', 'topic' = '${topic}', 'properties.bootstrap.servers' = '${brokers}',
  'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset', 'format' = 'json');
${sink}
INSERT INTO out SELECT event_id, store_id, amount, paid_time FROM orders;
`;
}

await produce();
const dir = mkdtempSync(join(tmpdir(), "weir-bench-kafka-"));
const weir = weirEntry();
const rows = [];
const ceilingFile = join(dir, "ceiling.cjs");
writeFileSync(ceilingFile, ceilingLoop(false));
rows.push(["ceiling (kafkajs loop)", measure(["node", ...nodeFlags, ceilingFile])]);
const patchedFile = join(dir, "ceiling-patched.cjs");
writeFileSync(patchedFile, ceilingLoop(false, true));
const patchedCeiling = measure(["node", ...nodeFlags, patchedFile]);
const timerFile = join(dir, "ceiling-timer-fix.cjs");
writeFileSync(timerFile, ceilingLoop(false, false, true));
const timerCeiling = measure(["node", ...nodeFlags, timerFile]);
const parseFile = join(dir, "ceiling-parse.cjs");
writeFileSync(parseFile, ceilingLoop(true));
rows.push(["ceiling + JSON.parse", measure(["node", ...nodeFlags, parseFile])]);
const bh = join(dir, "blackhole.sql");
writeFileSync(
  bh,
  script(
    "CREATE TABLE out (event_id STRING, store_id STRING, amount DECIMAL(18, 2), t TIMESTAMP_LTZ(3)) WITH ('connector' = 'blackhole');",
  ),
);
rows.push(["weir → blackhole", measure(["node", ...nodeArgs, weir, "run", bh])]);
const light = join(dir, "blackhole-light.sql");
writeFileSync(
  light,
  script(
    "CREATE TABLE out (event_id STRING, store_id STRING, amount DOUBLE, t TIMESTAMP_LTZ(3)) WITH ('connector' = 'blackhole');",
    true,
  ),
);
rows.push(["weir → blackhole, light", measure(["node", ...nodeArgs, weir, "run", light])]);
if (pgUrl) {
  const table = `bench_upsert_${Date.now()}`;
  const pg = join(dir, "postgres.sql");
  writeFileSync(
    pg,
    script(
      `CREATE TABLE out (event_id STRING, store_id STRING, amount DECIMAL(18, 2), t TIMESTAMP_LTZ(3), PRIMARY KEY (event_id) NOT ENFORCED) WITH ('connector' = 'jdbc', 'url' = '${pgUrl}', 'table-name' = '${table}', 'sink.create-table' = 'true');`,
    ),
  );
  rows.push(["weir → postgres upsert", measure(["node", ...nodeArgs, weir, "run", pg])]);
  // The 1M-row table is not left behind.
  const pgLib = require("pg");
  const client = new pgLib.Client({ connectionString: pgUrl });
  await client.connect();
  await client.query(`DROP TABLE IF EXISTS ${table}`);
  await client.end();
}
const ceiling = events / rows[0][1].cpu;
console.log(
  `${events.toLocaleString("en")} events (~200-byte JSON), ${partitions} partitions, topic ${topic}`,
);
console.log(
  `node flags of every process: ${nodeFlags.join(" ") || "(none)"}; weir: ${weir.slice(ROOT.length + 1)}`,
);
console.log("what                         cpu s   wall s   records/s/core   of ceiling");
for (const [name, m] of rows) {
  const perCore = events / m.cpu;
  console.log(
    `${name.padEnd(26)} ${m.cpu.toFixed(2).padStart(7)} ${m.wall.toFixed(2).padStart(8)} ${Math.round(perCore).toLocaleString("en").padStart(16)} ${`${Math.round((100 * perCore) / ceiling)}%`.padStart(12)}`,
  );
}
console.log(
  `(the same kafkajs loop with Weir's record batch decoder installed: ${patchedCeiling.cpu.toFixed(2)} cpu s, ` +
    `${Math.round(events / patchedCeiling.cpu).toLocaleString("en")} records/s/core; weir → blackhole is ` +
    `${Math.round((100 * patchedCeiling.cpu) / rows.find(([n]) => n === "weir → blackhole")[1].cpu)}% of that)`,
);
console.log(
  `(the same kafkajs loop with only the request queue's timer fixed, as Weir runs kafkajs: ${timerCeiling.cpu.toFixed(2)} cpu s, ` +
    `${Math.round(events / timerCeiling.cpu).toLocaleString("en")} records/s/core; of that: ` +
    rows
      .filter(([n]) => n.startsWith("weir"))
      .map(([n, m]) => `${n.slice(7)} ${Math.round((100 * timerCeiling.cpu) / m.cpu)}%`)
      .join(", ") +
    ")",
);
if (started) execFileSync(join(ROOT, "scripts/kafka.sh"), ["stop", brokers]);
