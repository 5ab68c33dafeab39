#!/usr/bin/env node
// End-to-end latency that exactly-once adds: Kafka → weir run → Kafka (read by a read_committed
// consumer) and → a Postgres append table, once with 'sink.delivery-guarantee' = 'at-least-once'
// and once with 'exactly-once', the same checkpoint interval in both runs:
//   node scripts/bench/eos-latency.mjs [--interval 1s] [--messages 100] [--gap-ms 50]
//        [--brokers HOST:PORT] [--postgres URL]
// Each message carries the time it was produced; latency = when it was first seen (the Kafka
// consumer's eachMessage; a Postgres poll every 10 ms) − that time. The job is warmed up first
// (one message seen through both sinks) and the messages then produced one every --gap-ms.
import { spawn } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const require = createRequire(join(ROOT, "packages/connectors/package.json"));
const { Kafka, logLevel } = require("kafkajs");
const pg = require("pg");

const args = process.argv.slice(2);
const arg = (name, dflt) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : dflt;
};
const interval = arg("interval", "1s");
const messages = Number(arg("messages", "100"));
const gapMs = Number(arg("gap-ms", "50"));
const brokers = arg("brokers", process.env.KAFKA_BROKERS);
const pgUrl = arg("postgres", "postgres://root@127.0.0.1:5432/test");
if (!brokers) throw new Error("--brokers or KAFKA_BROKERS is needed");

const kafka = new Kafka({
  brokers: brokers.split(","),
  clientId: "weir-eos-latency",
  logLevel: logLevel.NOTHING,
});
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function waitFor(cond, what, ms = 60_000) {
  const deadline = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(5);
  }
}

function percentile(xs, p) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
}

async function measure(guarantee) {
  const tag = `weir-lat-${guarantee.replace(/-/g, "")}-${Date.now()}`;
  const input = `${tag}-in`;
  const output = `${tag}-out`;
  const table = tag.replace(/-/g, "_");
  const admin = kafka.admin();
  await admin.connect();
  await admin.createTopics({
    topics: [
      { topic: input, numPartitions: 1 },
      { topic: output, numPartitions: 1 },
    ],
    waitForLeaders: true,
  });
  await admin.disconnect();
  const db = new pg.Client({ connectionString: pgUrl });
  await db.connect();
  await db.query(`CREATE TABLE ${table} (id BIGINT, produced_ms BIGINT)`);

  const dir = mkdtempSync(join(tmpdir(), "weir-eos-latency-"));
  const file = join(dir, "job.sql");
  const eos = guarantee === "exactly-once" ? `, 'sink.transactional-id-prefix' = '${output}'` : "";
  writeFileSync(
    file,
    `SET 'execution.checkpointing.interval' = '${interval}';
SET 'execution.checkpointing.dir' = '${join(dir, "checkpoints")}';
CREATE TABLE src (id BIGINT, produced_ms BIGINT) WITH (
  'connector' = 'kafka', 'topic' = '${input}', 'properties.bootstrap.servers' = '${brokers}',
  'properties.group.id' = '${input}', 'scan.startup.mode' = 'earliest-offset', 'format' = 'json'
);
CREATE TABLE kout (id BIGINT, produced_ms BIGINT) WITH (
  'connector' = 'kafka', 'topic' = '${output}', 'properties.bootstrap.servers' = '${brokers}',
  'format' = 'json', 'sink.delivery-guarantee' = '${guarantee}'${eos}
);
CREATE TABLE pout (id BIGINT, produced_ms BIGINT) WITH (
  'connector' = 'jdbc', 'url' = '${pgUrl}', 'table-name' = '${table}',
  'sink.delivery-guarantee' = '${guarantee}'
);
EXECUTE STATEMENT SET BEGIN
  INSERT INTO kout SELECT id, produced_ms FROM src;
  INSERT INTO pout SELECT id, produced_ms FROM src;
END;
`,
  );
  const child = spawn("node", [join(ROOT, "packages/cli/dist/main.js"), "run", file], {
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  child.stderr.on("data", (d) => {
    stderr += d;
  });
  let exited = false;
  child.on("exit", () => {
    exited = true;
  });

  const seenKafka = new Map();
  const seenPg = new Map();
  const consumer = kafka.consumer({ groupId: `${output}-reader`, readUncommitted: false });
  await consumer.connect();
  await consumer.subscribe({ topic: output, fromBeginning: true });
  await consumer.run({
    eachMessage: async ({ message }) => {
      const now = Date.now();
      const v = JSON.parse(message.value.toString());
      if (!seenKafka.has(v.id)) seenKafka.set(v.id, now - v.produced_ms);
    },
  });
  let polling = true;
  const poller = (async () => {
    let last = -1;
    while (polling) {
      const r = await db.query(`SELECT id, produced_ms FROM ${table} WHERE id > $1 ORDER BY id`, [last]);
      const now = Date.now();
      for (const row of r.rows) {
        const id = Number(row.id);
        if (!seenPg.has(id)) seenPg.set(id, now - Number(row.produced_ms));
        last = Math.max(last, id);
      }
      await sleep(10);
    }
  })();

  const producer = kafka.producer();
  await producer.connect();
  const send = (id) =>
    producer.send({ topic: input, messages: [{ value: JSON.stringify({ id, produced_ms: Date.now() }) }] });
  // Warm-up: the job is running and both sinks deliver.
  await send(0);
  await waitFor(() => exited || (seenKafka.has(0) && seenPg.has(0)), "the warm-up message", 120_000);
  if (exited) throw new Error(`weir run ended: ${stderr}`);
  for (let id = 1; id <= messages; id++) {
    await send(id);
    await sleep(gapMs);
  }
  await waitFor(
    () => exited || (seenKafka.size > messages && seenPg.size > messages),
    `all ${messages} messages in both sinks`,
    120_000,
  );
  if (exited) throw new Error(`weir run ended: ${stderr}`);
  child.kill("SIGINT");
  await waitFor(() => exited, "weir run to stop");
  polling = false;
  await poller;
  await producer.disconnect();
  await consumer.disconnect();
  await db.query(`DROP TABLE ${table}`);
  await db.end();
  const stats = (m) => {
    const xs = [...m].filter(([id]) => id > 0).map(([, ms]) => ms);
    return { p50: percentile(xs, 50), p95: percentile(xs, 95), max: Math.max(...xs), n: xs.length };
  };
  return { kafka: stats(seenKafka), postgres: stats(seenPg) };
}

const rows = [];
for (const g of ["at-least-once", "exactly-once"]) {
  const r = await measure(g);
  rows.push([g, "Kafka (read_committed)", r.kafka]);
  rows.push([g, "Postgres (append)", r.postgres]);
}
console.log(`checkpoint interval ${interval}, ${messages} messages ${gapMs} ms apart`);
console.log("guarantee       sink                      messages   p50 ms   p95 ms   max ms");
for (const [g, sink, s] of rows)
  console.log(
    `${g.padEnd(15)} ${sink.padEnd(25)} ${String(s.n).padStart(8)} ${String(s.p50).padStart(8)} ${String(s.p95).padStart(8)} ${String(s.max).padStart(8)}`,
  );
