// Issue 14: a NULL event time read from Kafka is quarantined with its topic, partition and
// offset (and, without a quarantine, fails the job naming them); the on-time rows are all kept.
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { brokers, KafkaFixture, readLines, runSql, tempDir } from "./kafka-helpers.js";

const kafka = new KafkaFixture();
afterAll(() => kafka.close());

const order = (id: number, paid: string | null) => JSON.stringify({ id, paid_at: paid, amount: 10 });

function script(topic: string, quarantine: boolean): string {
  return `CREATE TABLE orders (
  id INT, paid_at TIMESTAMP_LTZ(3), amount INT,
  WATERMARK FOR paid_at AS paid_at - INTERVAL '5' SECOND
) WITH ('connector' = 'kafka', 'topic' = '${topic}', 'format' = 'json',
  'properties.bootstrap.servers' = '${brokers()}', 'properties.group.id' = '${topic}-g',
  'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset',
  'quality.max-future-skew' = '24 h'${quarantine ? ", 'quality.quarantine' = 'bad_orders'" : ""});
CREATE TABLE bad_orders (rule STRING, position STRING, raw STRING)
  WITH ('connector' = 'filesystem', 'path' = 'bad.jsonl', 'format' = 'json');
CREATE TABLE per_minute (window_start TIMESTAMP(3), n BIGINT)
  WITH ('connector' = 'filesystem', 'path' = 'out.jsonl', 'format' = 'json');
INSERT INTO per_minute
SELECT window_start, COUNT(*) FROM TABLE(TUMBLE(TABLE orders, DESCRIPTOR(paid_at), INTERVAL '1' MINUTE))
GROUP BY window_start, window_end;
`;
}

describe("timestamp quality on a Kafka source (issue 14)", () => {
  it("a NULL event time and a year-2999 event time are quarantined with topic, partition and offset", async () => {
    const topic = await kafka.topic("quality", 2);
    const p0 = [order(1, "2026-06-24 02:01:30"), order(2, null), order(3, "2026-06-24 02:03:30")];
    const p1 = [
      order(4, "2026-06-24 02:02:30"),
      order(5, "2999-01-01 00:00:00"),
      order(6, "2026-06-24 02:04:30"),
    ];
    await kafka.produce(topic, [
      ...p0.map((value) => ({ value, partition: 0 })),
      ...p1.map((value) => ({ value, partition: 1 })),
    ]);
    const cwd = tempDir();
    const r = await runSql(script(topic, true), { cwd });
    expect(r.err.filter((l) => /error/i.test(l))).toEqual([]);
    expect(r.code).toBe(0);
    const bad = readLines(join(cwd, "bad.jsonl")).map((l) => JSON.parse(l));
    expect(bad).toEqual(
      expect.arrayContaining([
        { rule: "null-event-time", position: `topic ${topic} partition 0 offset 1`, raw: p0[1] },
        { rule: "max-future-skew", position: `topic ${topic} partition 1 offset 1`, raw: p1[1] },
      ]),
    );
    expect(bad).toHaveLength(2);
    // every on-time order counted in its minute: 4 windows, 1 each
    const out = readLines(join(cwd, "out.jsonl")).map((l) => JSON.parse(l) as { n: number });
    expect(out).toHaveLength(4);
    expect(out.every((o) => o.n === 1)).toBe(true);
  });

  it("without a quarantine, a NULL event time fails the job naming topic, partition and offset", async () => {
    const topic = await kafka.topic("quality-fail", 1);
    await kafka.produce(
      topic,
      [order(1, "2026-06-24 02:01:30"), order(2, null)].map((value) => ({ value })),
    );
    const r = await runSql(script(topic, false), { cwd: tempDir() });
    expect(r.code).toBe(2);
    expect(r.err.join("\n")).toContain(
      `table 'orders': topic ${topic} partition 0 offset 1: quality rule 'null-event-time': the event time 'paid_at' is NULL`,
    );
  });
});
