// Nested projection push-down through the Kafka source: the value's ROW column is read only
// through `b.x`, so its other nested field is syntax-checked only (a wrong type there is no bad
// record), with a key column ahead of the value's (the format's field positions are not the
// table's columns).
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { brokers, KafkaFixture, readLines, runSql, tempDir } from "./kafka-helpers.js";

const kafka = new KafkaFixture();
afterAll(() => kafka.close());

describe("kafka source: nested projection push-down", () => {
  it("builds only the nested fields read; reading the ROW whole still converts every field", async () => {
    const topic = await kafka.topic("nested-rows", 1, "nested");
    await kafka.produce(
      topic,
      [1, 2, 3].map((i) => ({
        key: JSON.stringify({ k: `k${i}` }),
        // y is declared INT: this text cannot be read as one
        value: JSON.stringify({ n: i, b: { y: `not a number ${i}`, x: i * 10 } }),
      })),
    );
    const dir = tempDir();
    const table = (name: string) => `CREATE TABLE ${name} (k STRING, n INT, b ROW<x INT, y INT>) WITH (
      'connector' = 'kafka', 'topic' = '${topic}', 'properties.bootstrap.servers' = '${brokers()}',
      'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset',
      'key.format' = 'json', 'key.fields' = 'k', 'value.format' = 'json',
      'value.fields-include' = 'EXCEPT_KEY');`;
    const out = join(dir, "out.jsonl");
    const r = await runSql(`${table("t")}
      CREATE TABLE o (k STRING, n INT, x INT) WITH ('connector' = 'filesystem', 'path' = '${out}', 'format' = 'json');
      INSERT INTO o SELECT k, n, b.x FROM t;`);
    expect(r.err.filter((l) => /error/i.test(l))).toEqual([]);
    expect(r.code).toBe(0);
    expect(readLines(out).sort()).toEqual([
      '{"k":"k1","n":1,"x":10}',
      '{"k":"k2","n":2,"x":20}',
      '{"k":"k3","n":3,"x":30}',
    ]);
    // The same records with the ROW read whole: y is converted, and the job fails on it.
    const whole = await runSql(`${table("t")}
      CREATE TABLE o2 (k STRING, b ROW<x INT, y INT>) WITH ('connector' = 'filesystem', 'path' = '${join(dir, "o2.jsonl")}', 'format' = 'json');
      INSERT INTO o2 SELECT k, b FROM t;`);
    expect(whole.code).not.toBe(0);
    expect(whole.err.join("\n")).toMatch(/not a number/);
  });
});
