// The Kafka source at the volume users run, against the real broker: a 3-partition topic of
// 1,000,000 records (partitions of ~70 MB, many times any fetch, buffer or batch size in the
// path) read bounded to its exact end offsets; an unbounded read that keeps up with a live
// producer until the consumer lag is 0; a partition added while the source runs; and a partition
// whose records keep arriving without advancing its event time, which must not go idle.

import type { KafkaSourceReader } from "@weir/connectors";
import { T } from "@weir/planner";
import { afterAll, describe, expect, it } from "vitest";
import { brokers, KafkaFixture, openReader, sourceNode } from "./kafka-helpers.js";
import { eventually, startScript } from "./pg-helpers.js";

const kafka = new KafkaFixture();
afterAll(() => kafka.close());

const PAD = "x".repeat(120);
/** ~220-byte JSON order events; record i goes to partition i % parts. */
const order = (parts: number) => (i: number) => ({
  partition: i % parts,
  value: `{"event_id":"e-${i}","store_id":"s-${i % 50}","amount":${(i % 1000) / 10},"currency":"KRW","paid_at":"2026-06-24T09:00:00+09:00","pad":"${PAD}"}`,
});

const COLUMNS = [
  { name: "event_id", type: T.string() },
  { name: "off", type: T.bigint(), metadata: "offset" },
  { name: "p", type: T.int(), metadata: "partition" },
];

/**
 * Polls until `until` says stop (or the source ends), checking that every partition's offsets
 * arrive contiguously from `from` and that each record is the one produced there; returns the
 * records read per partition.
 */
async function drain(
  reader: KafkaSourceReader,
  parts: number,
  until: (read: number[]) => boolean,
  from: number[] = new Array(parts).fill(0),
  partitionOf: (id: number) => number = (id) => id % parts,
): Promise<{ read: number[]; ended: boolean }> {
  const next = [...from];
  const read = new Array(parts).fill(0);
  for (;;) {
    if (until(read)) return { read, ended: false };
    const r = await reader.poll(4096);
    if (r.kind === "end") return { read, ended: true };
    if (r.kind === "idle") continue;
    for (const s of r.splits) {
      for (const row of s.batch.rows) {
        const p = row[2] as number;
        const off = Number(row[1]);
        if (off !== next[p]) throw new Error(`partition ${p}: offset ${off}, expected ${next[p]}`);
        const id = Number((row[0] as string).slice(2));
        if (partitionOf(id) !== p) throw new Error(`partition ${p} offset ${off}: record ${row[0]}`);
        next[p]++;
        read[p]++;
      }
    }
  }
}

describe("Kafka source at volume (real broker)", () => {
  it("reads every one of 1,000,000 records of a 3-partition topic and ends exactly at the end offsets", async () => {
    const topic = await kafka.topic("volume", 3);
    const total = 1_000_000;
    await kafka.produceBulk(topic, total, order(3));
    const ends = await (await kafka.admin()).fetchTopicOffsets(topic);
    expect(ends.map((o) => Number(o.high)).reduce((a, b) => a + b, 0)).toBe(total);
    const { reader } = await openReader(
      sourceNode(COLUMNS, {
        topic,
        format: "json",
        "scan.startup.mode": "earliest-offset",
        "scan.bounded.mode": "latest-offset",
      }),
    );
    try {
      const { read, ended } = await drain(reader, 3, () => false);
      expect(ended).toBe(true);
      expect(read).toEqual([333_334, 333_333, 333_333]);
      expect(reader.position()).toEqual({ [topic]: { "0": 333_334, "1": 333_333, "2": 333_333 } });
      expect(reader.lag()).toEqual({ [`${topic}-0`]: 0, [`${topic}-1`]: 0, [`${topic}-2`]: 0 });
    } finally {
      await reader.close();
    }
    // Producing and reading 1M records takes ~20 s on a quiet machine and over a minute on a loaded
    // one: the bound is for a hang, not a speed.
  }, 300_000);

  it("unbounded: keeps up with a live producer, reads every record, and the lag returns to 0", async () => {
    const topic = await kafka.topic("live", 3);
    const first = 150_000;
    await kafka.produceBulk(topic, first, order(3));
    const { reader } = await openReader(
      sourceNode(COLUMNS, { topic, format: "json", "scan.startup.mode": "earliest-offset" }),
    );
    try {
      const total = 450_000;
      // The rest is produced while the source reads.
      const producing = kafka.produceBulk(topic, total - first, order(3), first);
      const { read } = await drain(reader, 3, (r) => r[0] + r[1] + r[2] >= total);
      await producing;
      expect(read).toEqual([150_000, 150_000, 150_000]);
      await eventually(
        async () => {
          await reader.poll(10); // refreshes the end offsets in the background
          return Object.values(reader.lag()).every((l) => l === 0);
        },
        () => `consumer lag ${JSON.stringify(reader.lag())}`,
      );
    } finally {
      await reader.close();
    }
  });

  it("commits a completed checkpoint's offsets to 'properties.group.id'", async () => {
    const topic = await kafka.topic("commit", 3);
    await kafka.produceBulk(topic, 3_000, order(3));
    const groupId = `weir-it-commit-${kafka.run}`;
    const { reader } = await openReader(
      sourceNode(COLUMNS, {
        topic,
        format: "json",
        "scan.startup.mode": "earliest-offset",
        "properties.group.id": groupId,
      }),
    );
    try {
      await drain(reader, 3, (r) => r[0] + r[1] + r[2] >= 3_000);
      const position = reader.position() as Record<string, Record<string, number>>;
      expect(position[topic]).toEqual({ "0": 1_000, "1": 1_000, "2": 1_000 });
      const committed = async () =>
        Object.fromEntries(
          (await (await kafka.admin()).fetchOffsets({ groupId, topics: [topic] }))[0].partitions.map((p) => [
            String(p.partition),
            Number(p.offset),
          ]),
        );
      // Taking a position commits nothing; the checkpoint's completion commits its offsets.
      expect(await committed()).toEqual({ "0": -1, "1": -1, "2": -1 });
      reader.onCheckpointComplete(position);
      await eventually(
        async () => JSON.stringify(await committed()) === JSON.stringify(position[topic]),
        () => `committed offsets differ from ${JSON.stringify(position[topic])}`,
      );
    } finally {
      await reader.close();
    }
  });

  it("a partition added while the source runs is read from its earliest offset", async () => {
    const topic = await kafka.topic("grow", 2);
    await kafka.produceBulk(topic, 1_000, order(2));
    const { reader, metrics } = await openReader(
      sourceNode(COLUMNS, {
        topic,
        format: "json",
        "scan.startup.mode": "earliest-offset",
        "scan.topic-partition-discovery.interval": "1 s",
      }),
    );
    try {
      let read = await drain(
        reader,
        3,
        (r) => r[0] + r[1] >= 1_000,
        [0, 0, 0],
        (id) => id % 2,
      );
      expect(read.read).toEqual([500, 500, 0]);
      await (await kafka.admin()).createPartitions({ topicPartitions: [{ topic, count: 3 }] });
      await kafka.produceBulk(topic, 3_000, order(3), 1_000);
      read = await drain(reader, 3, (r) => r[0] + r[1] + r[2] >= 3_000, [500, 500, 0]);
      expect(read.read).toEqual([1_000, 1_000, 1_000]);
      expect(metrics.get("partitionsDiscovered")).toBe(1);
      expect(Object.keys(reader.lag()).sort()).toEqual([`${topic}-0`, `${topic}-1`, `${topic}-2`]);
    } finally {
      await reader.close();
    }
  });

  it("a partition whose rows do not advance its event time is active, not idle: no on-time row is late", async () => {
    const topic = await kafka.topic("steady", 2);
    // Partition 0 is ahead; partition 1 holds the watermark at 09:00:00 with rows every 250 ms
    // whose event time stays there, for longer than the idle timeout.
    const ts = (s: number) =>
      `2026-06-24T09:${String(Math.floor(s / 60)).padStart(2, "0")}:${String(s % 60).padStart(2, "0")}+09:00`;
    const row = (p: number, id: number, s: number) => ({
      partition: p,
      value: JSON.stringify({ id, paid_at: ts(s) }),
    });
    await kafka.produce(topic, [row(1, 0, 0), row(0, 1, 600)]);
    const sql = `
      CREATE TABLE orders (id INT, paid_at STRING,
        t AS TO_TIMESTAMP_LTZ(UNIX_TIMESTAMP(paid_at, 'yyyy-MM-dd''T''HH:mm:ssXXX') * 1000, 3),
        WATERMARK FOR t AS t
      ) WITH ('connector' = 'kafka', 'topic' = '${topic}', 'properties.bootstrap.servers' = '${brokers()}',
        'scan.startup.mode' = 'earliest-offset', 'format' = 'json', 'scan.watermark.idle-timeout' = '5 s');
      CREATE TABLE counts (window_start TIMESTAMP(3), n BIGINT) WITH ('connector' = 'print');
      INSERT INTO counts SELECT window_start, COUNT(*) FROM TABLE(TUMBLE(TABLE orders, DESCRIPTOR(t), INTERVAL '1' MINUTE))
        GROUP BY window_start, window_end;`;
    const run = startScript(sql);
    try {
      // Rows every 200 ms for twice the idle timeout. Wall time only paces the producer: the
      // timeout is 5 s, so a pause of the producer (a loaded machine) would have to last that long.
      const started = Date.now();
      let id = 2;
      while (Date.now() - started < 10_000) {
        await kafka.produce(topic, [row(1, id++, 0)]);
        await new Promise((r) => setTimeout(r, 200));
      }
      expect(run.settled(), run.err.join("\n")).toBe(false);
    } finally {
      run.stop();
    }
    // Stopped as Ctrl-C stops `weir run`: exit 130.
    expect(await run.done, run.err.join("\n")).toBe(130);
    const summary = run.err.join("\n");
    expect(summary).toMatch(/late records dropped: 0/);
  });
});
