#!/usr/bin/env node
// Weir's kafkajs record batch decoder (packages/connectors/src/kafka/record-batch.ts) on real
// batches, one build against another:
//   node scripts/bench/record-batch-decoder.mjs --brokers HOST:PORT [--events N] [--pairs P] A.js B.js
// Produces N events of scripts/bench/kafka.mjs's shape (~200-byte JSON, 3 partitions) to a fresh
// topic, consumes them with kafkajs while keeping the raw bytes of every record batch it fetches,
// then decodes all of those batches with each build's decoder (A.js, B.js: built record-batch.js
// files, e.g. packages/connectors/dist/kafka/record-batch.js of two trees) in one process, in
// rounds alternating A B, B A, ... (so load changes hit both), after a warm-up. Prints each
// one's median and minimum CPU ns per record over the P rounds, and a digest of what each
// decoded (offset, timestamp, attributes, key and value of every record): they must be equal.
import { createHash } from "node:crypto";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const require = createRequire(join(ROOT, "packages/connectors/package.json"));
const args = process.argv.slice(2);
const flag = (name, dflt) => {
  const i = args.indexOf(`--${name}`);
  if (i < 0) return dflt;
  const v = args[i + 1];
  args.splice(i, 2);
  return v;
};
const brokers = flag("brokers", process.env.KAFKA_BROKERS);
const events = Number(flag("events", "200000"));
const pairs = Number(flag("pairs", "40"));
if (!brokers || args.length !== 2) {
  console.error(
    "usage: node scripts/bench/record-batch-decoder.mjs --brokers HOST:PORT [--events N] [--pairs P] A.js B.js",
  );
  process.exit(2);
}

// kafkajs's own decoder, wrapped to keep each batch's bytes (firstOffset, length, the batch).
const decoderPath = require.resolve("kafkajs/src/protocol/recordBatch/v0/decoder.js");
const kafkajsDecode = require(decoderPath);
const batches = [];
require.cache[decoderPath].exports = (d) => {
  const at = d.offset;
  const length = d.buffer.readInt32BE(at + 8);
  if (at + 12 + length <= d.buffer.length) batches.push(Buffer.from(d.buffer.subarray(at, at + 12 + length)));
  return kafkajsDecode(d);
};
const { Kafka, logLevel } = require("kafkajs");
const kafka = new Kafka({
  brokers: brokers.split(","),
  clientId: "weir-bench-rb",
  logLevel: logLevel.NOTHING,
});
const topic = `weir-bench-rb-${Date.now()}`;
const admin = kafka.admin();
await admin.connect();
await admin.createTopics({ topics: [{ topic, numPartitions: 3 }], waitForLeaders: true });
const producer = kafka.producer();
await producer.connect();
const base = Date.parse("2026-06-24T00:00:00Z");
for (let i = 0; i < events; i += 4000) {
  const by = [[], [], []];
  for (let j = i; j < Math.min(events, i + 4000); j++) {
    const t = new Date(base + j * 10 + (j % 7) * 1000).toISOString().slice(0, 19);
    by[j % 3].push({
      partition: j % 3,
      value: `{"event_id":"evt-${j}","event_type":"OrderPaid","order_id":"ord-${j >> 1}","store_id":"store-${j % 20}","amount":${(j % 9000) / 100},"currency":"KRW","paid_at":"${t}+09:00"}`,
    });
  }
  await producer.sendBatch({ acks: 1, topicMessages: by.map((messages) => ({ topic, messages })) });
}
await producer.disconnect();
const consumer = kafka.consumer({ groupId: `${topic}-g`, maxWaitTimeInMs: 100 });
await consumer.connect();
await consumer.subscribe({ topics: [topic], fromBeginning: true });
await new Promise((done) => {
  let n = 0;
  consumer.run({
    autoCommit: false,
    eachBatch: async ({ batch }) => {
      n += batch.messages.length;
      if (n >= events) done();
    },
  });
});
await consumer.disconnect();
await admin.deleteTopics({ topics: [topic] });
await admin.disconnect();

const Decoder = require("kafkajs/src/protocol/decoder");
const decoders = [];
for (const file of args) {
  const m = await import(pathToFileURL(resolve(file)).href);
  decoders.push(m.makeRecordBatchDecoder(m.kafkajsInternals(require)));
}
let records = 0;
async function decodeAll(decode, hash) {
  let n = 0;
  for (const b of batches) {
    const r = await decode(new Decoder(b));
    n += r.records.length;
    if (hash)
      for (const m of r.records) {
        hash.update(
          `${m.offset} ${m.timestamp} ${m.attributes} ${m.key?.length ?? -1} ${m.value?.length ?? -1}\n`,
        );
        if (m.key) hash.update(m.key);
        if (m.value) hash.update(m.value);
      }
  }
  records = n;
}
const digests = [];
for (const d of decoders) {
  const h = createHash("sha256");
  await decodeAll(d, h);
  digests.push(h.digest("hex").slice(0, 16));
}
for (let i = 0; i < 5; i++) for (const d of decoders) await decodeAll(d);
const ns = [[], []];
for (let i = 0; i < pairs; i++) {
  for (const k of i % 2 ? [1, 0] : [0, 1]) {
    const c0 = process.cpuUsage();
    await decodeAll(decoders[k]);
    const c = process.cpuUsage(c0);
    ns[k].push(((c.user + c.system) * 1000) / records);
  }
}
const median = (v) => [...v].sort((x, y) => x - y)[v.length >> 1];
const bytes = batches.reduce((s, b) => s + b.length, 0);
console.log(
  `${batches.length} batches, ${records.toLocaleString("en")} records, ${bytes.toLocaleString("en")} bytes`,
);
for (const k of [0, 1])
  console.log(
    `${args[k]}: median ${median(ns[k]).toFixed(1)} ns/record, min ${Math.min(...ns[k]).toFixed(1)}, digest ${digests[k]}`,
  );
console.log(digests[0] === digests[1] ? "same records" : "THE RECORDS DIFFER");
process.exit(digests[0] === digests[1] ? 0 : 1);
