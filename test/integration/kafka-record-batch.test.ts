// The record batch decoder and `Batch` Weir puts in kafkajs's place (packages/connectors/src/kafka/
// record-batch.ts) on the real broker: `weir run` (a fresh process, where they are installed) and
// the same run on kafkajs's own (WEIR_KAFKAJS_DECODER=kafkajs) read a 2-partition topic of
// gzip-compressed and plain batches, several fetches per partition, a committed and an aborted
// transaction (control records, aborted-record filtering of read_committed), records with
// headers and keys, into files that must be identical and hold exactly the committed records;
// so must the same read without key or header columns (the values, partition, offset and
// timestamp read from the lazily decoded batches, no record objects) and the read with Weir's decoder building record objects
// (WEIR_KAFKAJS_DECODER=eager).
import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { brokers, KafkaFixture, kafkajs, readLines, tempDir } from "./kafka-helpers.js";

const ROOT = resolve(import.meta.dirname, "../..");
const WEIR = join(ROOT, "packages/cli/dist/main.js");
const kafka = new KafkaFixture();
afterAll(() => kafka.close());

/** ~2.6 MB per partition: more than one fetch (kafkajs fetches ≤ 1 MiB per partition). */
const BULK = 24_000;

describe("Kafka record batches decoded by Weir's decoder", () => {
  it("reads exactly what kafkajs's own decoder reads", async () => {
    const topic = await kafka.topic("recbatch", 2, "krec");
    const value = (i: number, tag: string) =>
      JSON.stringify({
        id: i,
        tag,
        pad: "p".repeat(180),
        ts: `2026-06-24 00:00:${String(i % 60).padStart(2, "0")}`,
      });
    const client = new kafkajs.Kafka({
      clientId: "krec-it",
      brokers: brokers().split(","),
      logLevel: kafkajs.logLevel.NOTHING,
    });
    const producer = client.producer({ idempotent: true, maxInFlightRequests: 1 });
    await producer.connect();
    let id = 0;
    const expected = new Set<number>();
    for (const compression of [kafkajs.CompressionTypes.GZIP, kafkajs.CompressionTypes.None]) {
      for (let chunk = 0; chunk < BULK / 2; chunk += 2_000) {
        const messages = Array.from({ length: 2_000 }, () => {
          const i = id++;
          expected.add(i);
          return {
            partition: i % 2,
            key: i % 3 === 0 ? `k${i}` : null,
            value: value(i, "bulk"),
            ...(i % 500 === 0 ? { headers: { h: `v${i}`, dup: ["a", "b"] } } : {}),
          };
        });
        await producer.send({ topic, acks: -1, compression, messages });
      }
    }
    await producer.disconnect();
    const txProducer = client.producer({
      transactionalId: `krec-it-${kafka.run}`,
      idempotent: true,
      maxInFlightRequests: 1,
    });
    await txProducer.connect();
    for (const commit of [true, false, true]) {
      const txn = await txProducer.transaction();
      const messages = Array.from({ length: 50 }, () => {
        const i = id++;
        if (commit) expected.add(i);
        return { partition: i % 2, value: value(i, commit ? "committed" : "aborted") };
      });
      await txn.send({ topic, acks: -1, messages });
      await (commit ? txn.commit() : txn.abort());
    }
    await txProducer.disconnect();

    const dir = tempDir();
    const script = (out: string) => `
      CREATE TABLE src (id INT, tag STRING, ts TIMESTAMP(3), k BYTES METADATA FROM 'key' VIRTUAL,
        part INT METADATA FROM 'partition' VIRTUAL, off BIGINT METADATA FROM 'offset' VIRTUAL,
        hs MAP<STRING, BYTES> METADATA FROM 'headers' VIRTUAL, rt TIMESTAMP_LTZ(3) METADATA FROM 'timestamp' VIRTUAL,
        WATERMARK FOR ts AS ts - INTERVAL '1' MINUTE)
      WITH ('connector' = 'kafka', 'topic' = '${topic}', 'properties.bootstrap.servers' = '${brokers()}',
        'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset', 'format' = 'json');
      CREATE TABLE out (id INT, tag STRING, ts TIMESTAMP(3), part INT, off BIGINT, k BYTES, nh INT, t TIMESTAMP_LTZ(3))
        WITH ('connector' = 'filesystem', 'path' = '${out}', 'format' = 'json');
      INSERT INTO out SELECT id, tag, ts, part, off, k, CARDINALITY(hs), rt FROM src;`;
    // No key or metadata but those a record view gives: the source reads the values (and the
    // partition, offset and timestamp) straight from the lazily decoded batches.
    const valuesOnly = (out: string) => `
      CREATE TABLE src (id INT, tag STRING, ts TIMESTAMP(3),
        part INT METADATA FROM 'partition' VIRTUAL, off BIGINT METADATA FROM 'offset' VIRTUAL,
        rt TIMESTAMP_LTZ(3) METADATA FROM 'timestamp' VIRTUAL,
        WATERMARK FOR ts AS ts - INTERVAL '1' MINUTE)
      WITH ('connector' = 'kafka', 'topic' = '${topic}', 'properties.bootstrap.servers' = '${brokers()}',
        'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset', 'format' = 'json');
      CREATE TABLE out (id INT, tag STRING, ts TIMESTAMP(3), part INT, off BIGINT, t TIMESTAMP_LTZ(3))
        WITH ('connector' = 'filesystem', 'path' = '${out}', 'format' = 'json');
      INSERT INTO out SELECT id, tag, ts, part, off, rt FROM src;`;
    const run = (name: string, env: Record<string, string>, sqlOf = script) => {
      const sql = join(dir, `${name}.sql`);
      const out = join(dir, `${name}.jsonl`);
      writeFileSync(sql, sqlOf(out));
      execFileSync(process.execPath, [WEIR, "run", sql], { env: { ...process.env, ...env }, stdio: "pipe" });
      return readLines(out);
    };
    const ours = run("ours", {});
    const theirs = run("theirs", { WEIR_KAFKAJS_DECODER: "kafkajs" });
    expect(ours.length).toBe(expected.size);
    expect(ours).toEqual(theirs);
    // Weir's decoder building every record object (kafkajs's decodeMessages) reads the same
    expect(run("eager", { WEIR_KAFKAJS_DECODER: "eager" })).toEqual(theirs);
    const lazyValues = run("values", {}, valuesOnly);
    expect(lazyValues.length).toBe(expected.size);
    expect(lazyValues).toEqual(run("values-theirs", { WEIR_KAFKAJS_DECODER: "kafkajs" }, valuesOnly));
    expect(lazyValues).toEqual(
      ours.map((l) => {
        const { id, tag, ts, part, off, t } = JSON.parse(l) as Record<string, unknown>;
        return JSON.stringify({ id, tag, ts, part, off, t });
      }),
    );
    const rows = ours.map(
      (l) => JSON.parse(l) as { id: number; tag: string; off: number; part: number; nh: number | null },
    );
    expect(new Set(rows.map((r) => r.id))).toEqual(expected);
    expect(rows.some((r) => r.tag === "aborted")).toBe(false);
    expect(rows.filter((r) => r.nh === 2).length).toBe(Math.ceil(BULK / 500));
    // offsets strictly increase per partition, with the transaction markers' gaps
    for (const p of [0, 1]) {
      const offs = rows.filter((r) => r.part === p).map((r) => r.off);
      for (let i = 1; i < offs.length; i++) expect(offs[i]).toBeGreaterThan(offs[i - 1]);
    }
  });

  it("is installed in a fresh process, ahead of kafkajs's own", () => {
    const out = execFileSync(
      process.execPath,
      [
        "--input-type=module",
        "-e",
        `import { installRecordBatchDecoder } from ${JSON.stringify(join(ROOT, "packages/connectors/dist/kafka/record-batch.js"))};
         console.log(JSON.stringify(installRecordBatchDecoder()));`,
      ],
      { encoding: "utf8" },
    );
    expect(JSON.parse(out)).toEqual({ decoder: true, batch: true, lazy: true });
  });
});
