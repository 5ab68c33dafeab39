// Kafka connectors end to end through the CLI's Engine against a real broker: a group aggregate
// written as changelog-json, debezium-json and upsert-kafka topics and read back to the same
// materialised result; an upsert-kafka sink with tombstones; per-partition watermarks with an idle
// partition.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { brokers, KafkaFixture, materialize, readLines, runSql, tempDir } from "./kafka-helpers.js";

const kafka = new KafkaFixture();
afterAll(() => kafka.close());

const bounded = () =>
  `'properties.bootstrap.servers' = '${brokers()}', 'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset'`;
const boundedUpsert = () =>
  `'properties.bootstrap.servers' = '${brokers()}', 'scan.bounded.mode' = 'latest-offset'`;
const sinkProps = () => `'properties.bootstrap.servers' = '${brokers()}'`;

async function run(sql: string, maxRuntimeMs?: number): Promise<void> {
  const r = await runSql(sql, maxRuntimeMs ? { maxRuntimeMs } : {});
  expect(r.err.filter((l) => /error/i.test(l))).toEqual([]);
  expect(r.code).toBe(0);
}

describe("kafka connectors through SQL", () => {
  it("Kafka → group aggregate → changelog-json / debezium-json / upsert-kafka topics → back to the same result", async () => {
    const input = await kafka.topic("orders", 3);
    const cl = await kafka.topic("totals-cl", 3);
    const dbz = await kafka.topic("totals-dbz", 2);
    const up = await kafka.topic("totals-up", 3);
    const up2 = await kafka.topic("totals-up2", 2);
    const customers = ["ann", "bob", "cid", "dan", "eve"];
    const orders = Array.from({ length: 60 }, (_, i) => ({
      customer: customers[(i * 7) % 5],
      amount: (i * 13) % 17,
    }));
    await kafka.produce(
      input,
      orders.map((o, i) => ({ key: o.customer, value: JSON.stringify(o), partition: i % 3 })),
    );
    const expected = customers
      .map((c) => {
        const mine = orders.filter((o) => o.customer === c);
        return JSON.stringify({
          customer: c,
          total: mine.reduce((s, o) => s + o.amount, 0),
          cnt: mine.length,
        });
      })
      .sort();
    const cols = "customer STRING, total INT, cnt BIGINT";
    await run(`
      CREATE TABLE orders (customer STRING, amount INT) WITH ('connector' = 'kafka', 'topic' = '${input}', ${bounded()}, 'format' = 'json');
      CREATE TABLE cl (${cols}) WITH ('connector' = 'kafka', 'topic' = '${cl}', ${sinkProps()}, 'format' = 'changelog-json');
      CREATE TABLE dbz (${cols}) WITH ('connector' = 'kafka', 'topic' = '${dbz}', ${sinkProps()}, 'format' = 'debezium-json');
      CREATE TABLE up (${cols}, PRIMARY KEY (customer) NOT ENFORCED) WITH ('connector' = 'upsert-kafka', 'topic' = '${up}', ${sinkProps()}, 'key.format' = 'json', 'value.format' = 'json');
      INSERT INTO cl SELECT customer, SUM(amount), COUNT(*) FROM orders GROUP BY customer;
      INSERT INTO dbz SELECT customer, SUM(amount), COUNT(*) FROM orders GROUP BY customer;
      INSERT INTO up SELECT customer, SUM(amount), COUNT(*) FROM orders GROUP BY customer;
    `);
    // The changelog topic is keyed by the aggregate's stream key, so a key's changes stay in order in one partition.
    const clRecords = await kafka.readAll(cl);
    for (const r of clRecords)
      expect(r.key).toBe(JSON.stringify({ customer: JSON.parse(r.value!).data.customer }));
    expect(clRecords.some((r) => JSON.parse(r.value!).op === "-U")).toBe(true);

    const dir = tempDir();
    await run(`
      CREATE TABLE cl_in (${cols}) WITH ('connector' = 'kafka', 'topic' = '${cl}', ${bounded()}, 'format' = 'changelog-json');
      CREATE TABLE dbz_in (${cols}) WITH ('connector' = 'kafka', 'topic' = '${dbz}', ${bounded()}, 'format' = 'debezium-json');
      CREATE TABLE up2 (${cols}, PRIMARY KEY (customer) NOT ENFORCED) WITH ('connector' = 'upsert-kafka', 'topic' = '${up2}', ${sinkProps()}, 'key.format' = 'json', 'value.format' = 'json');
      CREATE TABLE cl_out (${cols}) WITH ('connector' = 'filesystem', 'path' = '${join(dir, "cl.jsonl")}', 'format' = 'changelog-json');
      CREATE TABLE dbz_out (${cols}) WITH ('connector' = 'filesystem', 'path' = '${join(dir, "dbz.jsonl")}', 'format' = 'changelog-json');
      INSERT INTO cl_out SELECT * FROM cl_in;
      INSERT INTO dbz_out SELECT * FROM dbz_in;
      INSERT INTO up2 SELECT * FROM cl_in;
    `);
    expect(materialize(readLines(join(dir, "cl.jsonl")))).toEqual(expected);
    expect(materialize(readLines(join(dir, "dbz.jsonl")))).toEqual(expected);

    await run(`
      CREATE TABLE up_in (${cols}, PRIMARY KEY (customer) NOT ENFORCED) WITH ('connector' = 'upsert-kafka', 'topic' = '${up}', ${boundedUpsert()}, 'key.format' = 'json', 'value.format' = 'json');
      CREATE TABLE up2_in (${cols}, PRIMARY KEY (customer) NOT ENFORCED) WITH ('connector' = 'upsert-kafka', 'topic' = '${up2}', ${boundedUpsert()}, 'key.format' = 'json', 'value.format' = 'json');
      CREATE TABLE up_out (${cols}) WITH ('connector' = 'filesystem', 'path' = '${join(dir, "up.jsonl")}', 'format' = 'changelog-json');
      CREATE TABLE up2_out (${cols}) WITH ('connector' = 'filesystem', 'path' = '${join(dir, "up2.jsonl")}', 'format' = 'changelog-json');
      INSERT INTO up_out SELECT * FROM up_in;
      INSERT INTO up2_out SELECT * FROM up2_in;
    `);
    expect(materialize(readLines(join(dir, "up.jsonl")))).toEqual(expected);
    expect(materialize(readLines(join(dir, "up2.jsonl")))).toEqual(expected);
  });

  it("upsert-kafka writes rows keyed by the primary key, tombstones for deletes, no -U; reading it back materialises the table", async () => {
    const changes = await kafka.topic("changes", 1);
    const target = await kafka.topic("upsert", 2);
    const data = (id: number, name: string) => ({ id, name });
    const log = [
      { op: "+I", data: data(1, "a") },
      { op: "+I", data: data(2, "b") },
      { op: "+I", data: data(3, "c") },
      { op: "-U", data: data(1, "a") },
      { op: "+U", data: data(1, "a2") },
      { op: "-D", data: data(2, "b") },
    ];
    await kafka.produce(
      changes,
      log.map((c) => ({ value: JSON.stringify(c) })),
    );
    await run(`
      CREATE TABLE src (id INT, name STRING) WITH ('connector' = 'kafka', 'topic' = '${changes}', ${bounded()}, 'format' = 'changelog-json');
      CREATE TABLE dst (id INT, name STRING, PRIMARY KEY (id) NOT ENFORCED) WITH ('connector' = 'upsert-kafka', 'topic' = '${target}', ${sinkProps()}, 'key.format' = 'json', 'value.format' = 'json', 'value.fields-include' = 'EXCEPT_KEY');
      INSERT INTO dst SELECT * FROM src;
    `);
    const records = await kafka.readAll(target);
    const byKey = (k: number) =>
      records.filter((r) => r.key === JSON.stringify({ id: k })).map((r) => r.value);
    expect(records).toHaveLength(5);
    expect(byKey(1)).toEqual([JSON.stringify({ name: "a" }), JSON.stringify({ name: "a2" })]);
    expect(byKey(2)).toEqual([JSON.stringify({ name: "b" }), null]);
    expect(byKey(3)).toEqual([JSON.stringify({ name: "c" })]);
    // Each key's records sit in the partition the Java-compatible murmur2 partitioner picks.
    for (const k of [1, 2, 3])
      expect(
        new Set(records.filter((r) => r.key === JSON.stringify({ id: k })).map((r) => r.partition)).size,
      ).toBe(1);

    const dir = tempDir();
    await run(`
      CREATE TABLE dst_in (id INT, name STRING, PRIMARY KEY (id) NOT ENFORCED) WITH ('connector' = 'upsert-kafka', 'topic' = '${target}', ${boundedUpsert()}, 'key.format' = 'json', 'value.format' = 'json', 'value.fields-include' = 'EXCEPT_KEY');
      CREATE TABLE out (id INT, name STRING) WITH ('connector' = 'filesystem', 'path' = '${join(dir, "out.jsonl")}', 'format' = 'changelog-json');
      INSERT INTO out SELECT * FROM dst_in;
    `);
    const lines = readLines(join(dir, "out.jsonl"));
    expect(materialize(lines)).toEqual([JSON.stringify(data(1, "a2")), JSON.stringify(data(3, "c"))]);
    // The tombstone came back as a delete of the stored row.
    expect(lines).toContain(JSON.stringify({ op: "-D", data: data(2, "b") }));
  });

  it("tracks watermarks per partition: an idle partition holds windows back until the idle timeout excludes it", async () => {
    const results: Record<string, string[]> = {};
    for (const idle of ["300 ms", null]) {
      const topic = await kafka.topic(`events-${idle === null ? "busy" : "idle"}`, 2);
      await kafka.produce(topic, [
        { partition: 1, value: JSON.stringify({ id: 0, ts: "2024-01-01 00:00:02.000" }) },
      ]);
      const dir = tempDir();
      const out = join(dir, "w.jsonl");
      const job = runSql(
        `
        CREATE TABLE ev (id INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts) WITH ('connector' = 'kafka', 'topic' = '${topic}',
          'properties.bootstrap.servers' = '${brokers()}', 'scan.startup.mode' = 'earliest-offset', 'format' = 'json'
          ${idle === null ? "" : `, 'scan.watermark.idle-timeout' = '${idle}'`});
        CREATE TABLE w (ws TIMESTAMP(3), we TIMESTAMP(3), c BIGINT) WITH ('connector' = 'filesystem', 'path' = '${out}', 'format' = 'json');
        INSERT INTO w SELECT window_start, window_end, COUNT(*) FROM TABLE(TUMBLE(TABLE ev, DESCRIPTOR(ts), INTERVAL '10' SECOND)) GROUP BY window_start, window_end;
      `,
        { maxRuntimeMs: 3000 },
      );
      // Partition 0's records come after partition 1 has been read (and, with the timeout, gone idle).
      await new Promise((r) => setTimeout(r, 1200));
      await kafka.produce(
        topic,
        ["00:00:01", "00:00:12", "00:00:25"].map((t, i) => ({
          partition: 0,
          value: JSON.stringify({ id: i + 1, ts: `2024-01-01 ${t}.000` }),
        })),
      );
      const r = await job;
      expect(r.err.filter((l) => /error/i.test(l))).toEqual([]);
      expect(r.code).toBe(0);
      results[idle ?? "none"] = readLines(out);
    }
    expect(results["300 ms"]).toEqual([
      JSON.stringify({ ws: "2024-01-01 00:00:00.000", we: "2024-01-01 00:00:10.000", c: 2 }),
      JSON.stringify({ ws: "2024-01-01 00:00:10.000", we: "2024-01-01 00:00:20.000", c: 1 }),
    ]);
    // Without the timeout partition 1 holds the watermark at 00:00:02: no window fires.
    expect(results.none).toEqual([]);
  });

  it("writes writable metadata columns (timestamp, headers) as record metadata, not value fields", async () => {
    const topic = await kafka.topic("with-metadata", 1);
    const dir = tempDir();
    writeFileSync(
      join(dir, "src.jsonl"),
      '{"id":1,"at":"2024-05-01T09:00:00Z"}\n{"id":2,"at":"2024-05-01T09:00:05.250Z"}\n',
    );
    await run(`
      CREATE TABLE src (id INT, at TIMESTAMP_LTZ(3)) WITH ('connector' = 'filesystem', 'path' = '${join(dir, "src.jsonl")}', 'format' = 'json', 'json.timestamp-format.standard' = 'ISO-8601');
      CREATE TABLE out_topic (
        id INT,
        ts TIMESTAMP_LTZ(3) METADATA FROM 'timestamp',
        hdrs MAP<STRING, BYTES> METADATA FROM 'headers'
      ) WITH ('connector' = 'kafka', 'topic' = '${topic}', ${sinkProps()}, 'format' = 'json');
      INSERT INTO out_topic SELECT id, at, MAP['source', CAST('weir' AS BYTES)] FROM src;
    `);
    const values = (await kafka.readAll(topic)).map((r) => r.value);
    expect(values).toEqual(['{"id":1}', '{"id":2}']);
    await run(`
      CREATE TABLE in_topic (
        id INT,
        ts TIMESTAMP_LTZ(3) METADATA FROM 'timestamp' VIRTUAL,
        hdrs MAP<STRING, BYTES> METADATA FROM 'headers' VIRTUAL
      ) WITH ('connector' = 'kafka', 'topic' = '${topic}', ${bounded()}, 'format' = 'json');
      CREATE TABLE back (id INT, ts TIMESTAMP_LTZ(3), src STRING) WITH ('connector' = 'filesystem', 'path' = '${join(dir, "back.jsonl")}', 'format' = 'json', 'json.timestamp-format.standard' = 'ISO-8601');
      INSERT INTO back SELECT id, ts, CAST(hdrs['source'] AS STRING) FROM in_topic;
    `);
    expect(readLines(join(dir, "back.jsonl")).map((l) => JSON.parse(l))).toEqual([
      { id: 1, ts: "2024-05-01T09:00:00.000Z", src: "weir" },
      { id: 2, ts: "2024-05-01T09:00:05.250Z", src: "weir" },
    ]);
  });
});
