// issue 17, item 20: a Kafka record whose value is null, empty or blank holds no row; it is
// skipped (as Flink does) and counted, so that the run summary shows it.
import { afterAll, describe, expect, it } from "vitest";
import { brokers, KafkaFixture, runSql } from "./kafka-helpers.js";

const kafka = new KafkaFixture();
afterAll(() => kafka.close());

describe("Kafka source: empty values", () => {
  it("skips null, empty and blank values and counts them in emptyValuesSkipped", async () => {
    const topic = await kafka.topic("empty-values", 1);
    await kafka.produce(topic, [
      { value: '{"id": 1}' },
      { value: null },
      { value: "" },
      { value: "   " },
      { value: '{"id": 2}' },
    ]);
    const r = await runSql(`CREATE TABLE src (id INT) WITH (
  'connector' = 'kafka', 'topic' = '${topic}', 'format' = 'json',
  'properties.bootstrap.servers' = '${brokers()}',
  'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset');
CREATE TABLE p (id INT) WITH ('connector' = 'blackhole');
INSERT INTO p SELECT id FROM src;
`);
    expect(r.code, r.err.join("\n")).toBe(0);
    const line = r.err.find((l) => l.includes("source src (kafka)"));
    expect(line).toMatch(/: 2 records read, .*3 empty values skipped/);
  });

  it("a record that does not parse is shown at the table's DDL with the option that skips it (item 12)", async () => {
    const topic = await kafka.topic("bad-record", 1);
    await kafka.produce(topic, [{ value: '{"id": 1}' }, { value: '{"id": "one"}' }]);
    const r = await runSql(`CREATE TABLE src (id INT) WITH (
  'connector' = 'kafka', 'topic' = '${topic}', 'format' = 'json',
  'properties.bootstrap.servers' = '${brokers()}',
  'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset');
CREATE TABLE p (id INT) WITH ('connector' = 'blackhole');
INSERT INTO p SELECT id FROM src;
`);
    expect(r.code).toBe(2);
    const text = r.err.join("\n");
    expect(text).toContain(
      `test.sql:1:1: error: table 'src': topic ${topic} partition 0 offset 1: field 'id': cannot read "one" as INT`,
    );
    expect(text).toContain(
      "hint: to skip records that do not parse (and count them), set 'json.ignore-parse-errors' = 'true' on table 'src'",
    );
  });
});
