// Event-time temporal join against an upsert-kafka versioned table on a real broker: upserts
// are the versions, a tombstone (key only, NULL rowtime) deletes the key — changelog-normalize
// completes it with the deleted row, so the delete takes the deleted version's time, as in Flink.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { brokers, KafkaFixture, materialize, readLines, runSql, tempDir } from "./kafka-helpers.js";

const kafka = new KafkaFixture();
afterAll(() => kafka.close());

describe("event-time temporal join over upsert-kafka", () => {
  it("joins each order with the tier valid at its time; a tombstone ends the key", async () => {
    const tiers = await kafka.topic("tiers", 2);
    const key = (customer: string) => JSON.stringify({ customer });
    const tier = (customer: string, t: string, at: string) =>
      JSON.stringify({ customer, tier: t, valid_from: `2024-05-01 09:${at}` });
    await kafka.produce(tiers, [
      { key: key("alice"), value: tier("alice", "gold", "00:00") },
      { key: key("bob"), value: tier("bob", "silver", "00:00") },
      { key: key("carol"), value: tier("carol", "gold", "00:00") },
      { key: key("alice"), value: tier("alice", "platinum", "03:00") },
      { key: key("carol"), value: null },
      { key: key("dave"), value: tier("dave", "bronze", "05:00") },
    ]);
    const dir = tempDir();
    const orders = [
      { order_id: 1, customer: "alice", order_time: "2024-05-01 09:00:10" },
      { order_id: 2, customer: "bob", order_time: "2024-05-01 09:01:20" },
      { order_id: 3, customer: "carol", order_time: "2024-05-01 09:02:05" },
      { order_id: 4, customer: "alice", order_time: "2024-05-01 09:03:40" },
      { order_id: 5, customer: "dave", order_time: "2024-05-01 09:02:50" },
      { order_id: 6, customer: "dave", order_time: "2024-05-01 09:06:00" },
    ];
    writeFileSync(join(dir, "orders.jsonl"), `${orders.map((o) => JSON.stringify(o)).join("\n")}\n`);
    const r = await runSql(
      `
      CREATE TABLE orders (
        order_id INT, customer STRING, order_time TIMESTAMP(3),
        WATERMARK FOR order_time AS order_time - INTERVAL '1' MINUTE
      ) WITH ('connector' = 'filesystem', 'path' = 'orders.jsonl', 'format' = 'json');
      CREATE TABLE tiers (
        customer STRING, tier STRING, valid_from TIMESTAMP(3),
        WATERMARK FOR valid_from AS valid_from - INTERVAL '1' MINUTE,
        PRIMARY KEY (customer) NOT ENFORCED
      ) WITH ('connector' = 'upsert-kafka', 'topic' = '${tiers}', 'properties.bootstrap.servers' = '${brokers()}',
        'scan.bounded.mode' = 'latest-offset', 'key.format' = 'json', 'value.format' = 'json');
      CREATE TABLE out (order_id INT, customer STRING, tier STRING)
      WITH ('connector' = 'filesystem', 'path' = 'out.jsonl', 'format' = 'changelog-json');
      INSERT INTO out
      SELECT o.order_id, o.customer, t.tier
      FROM orders AS o LEFT JOIN tiers FOR SYSTEM_TIME AS OF o.order_time AS t ON o.customer = t.customer;
      `,
      { cwd: dir },
    );
    expect(r.err.filter((l) => /error/i.test(l))).toEqual([]);
    expect(r.code).toBe(0);
    const row = (order_id: number, customer: string, t: string | null) =>
      JSON.stringify({ order_id, customer, tier: t });
    expect(materialize(readLines(join(dir, "out.jsonl")))).toEqual(
      [
        row(1, "alice", "gold"),
        row(2, "bob", "silver"),
        // carol's tombstone deletes her version from its time (09:00:00) on.
        row(3, "carol", null),
        row(4, "alice", "platinum"),
        // dave's first version is at 09:05:00.
        row(5, "dave", null),
        row(6, "dave", "bronze"),
      ].sort(),
    );
    // Insert-only: every change is +I.
    expect(readLines(join(dir, "out.jsonl")).every((l) => JSON.parse(l).op === "+I")).toBe(true);
  });
});
