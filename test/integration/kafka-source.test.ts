// The kafka source reader against a real broker: exact per-partition positions and restore,
// startup and bounded modes, metadata columns, key formats, and bad records.
import { T } from "@weir/planner";
import { ConnectorError } from "@weir/runtime";
import { afterAll, describe, expect, it } from "vitest";
import { KafkaFixture, openReader, pollChanges, pollToEnd, sourceNode } from "./kafka-helpers.js";

const kafka = new KafkaFixture();
afterAll(() => kafka.close());

const ID_V = [
  { name: "id", type: T.int() },
  { name: "v", type: T.string() },
];

/** 3 partitions; partition p holds records id = p*100 + i, i < counts[p], v = `p<p>-<i>`. */
async function filledTopic(name: string, counts: readonly number[]): Promise<string> {
  const topic = await kafka.topic(name, counts.length);
  const messages = counts.flatMap((n, p) =>
    Array.from({ length: n }, (_, i) => ({
      partition: p,
      value: JSON.stringify({ id: p * 100 + i, v: `p${p}-${i}` }),
    })),
  );
  await kafka.produce(topic, messages);
  return topic;
}

function expectedRows(
  topic: string,
  counts: readonly number[],
  from: readonly number[] = [0, 0, 0],
  to?: readonly number[],
) {
  return counts.flatMap((n, p) =>
    Array.from({ length: (to?.[p] ?? n) - from[p] }, (_, j) => {
      const i = from[p] + j;
      return { split: `${topic}-${p}`, change: `+I ${p * 100 + i} p${p}-${i}` };
    }),
  );
}

const byPartition = (reads: readonly { split: string; change: string }[]) =>
  [...reads].sort((a, b) => (a.split < b.split ? -1 : a.split > b.split ? 1 : 0));

describe("kafka source: positions", () => {
  it("reads a bounded 3-partition topic with exact positions, and a restore in the middle gives the same rest", async () => {
    const counts = [40, 25, 7];
    const topic = await filledTopic("positions", counts);
    const node = sourceNode(ID_V, {
      topic,
      format: "json",
      "scan.startup.mode": "earliest-offset",
      "scan.bounded.mode": "latest-offset",
    });
    const first = await openReader(node);
    const head = await pollChanges(first.reader, 30, 10);
    const position = first.reader.position() as Record<string, Record<string, number>>;
    // The position is the next offset per partition, exactly after what was returned.
    const taken = [0, 1, 2].map((p) => head.reads.filter((r) => r.split === `${topic}-${p}`).length);
    expect(position).toEqual({ [topic]: { "0": taken[0], "1": taken[1], "2": taken[2] } });
    // Per partition, the first records in offset order.
    expect(byPartition(head.reads)).toEqual(byPartition(expectedRows(topic, counts, [0, 0, 0], taken)));
    const rest = await pollToEnd(first.reader, 10);
    expect(first.reader.position()).toEqual({ [topic]: { "0": 40, "1": 25, "2": 7 } });
    await first.reader.close();

    const second = await openReader(node, position);
    const restored = await pollToEnd(second.reader, 10);
    await second.reader.close();
    expect(byPartition(restored)).toEqual(byPartition(rest));
    expect(byPartition(restored)).toEqual(byPartition(expectedRows(topic, counts, taken)));
  });
});

describe("kafka source: startup and bounded modes", () => {
  it("earliest, specific-offsets and group-offsets start where they say; bounded specific-offsets ends there", async () => {
    const counts = [10, 10, 10];
    const topic = await filledTopic("modes", counts);
    const bounded = { topic, format: "json", "scan.bounded.mode": "latest-offset" };
    const read = async (options: Record<string, string>) => {
      const { reader } = await openReader(sourceNode(ID_V, { ...bounded, ...options }));
      try {
        return byPartition(await pollToEnd(reader));
      } finally {
        await reader.close();
      }
    };
    expect(await read({ "scan.startup.mode": "earliest-offset" })).toEqual(
      byPartition(expectedRows(topic, counts)),
    );
    expect(
      await read({
        "scan.startup.mode": "specific-offsets",
        "scan.startup.specific-offsets": "partition:0,offset:7;partition:2,offset:9",
      }),
    ).toEqual(byPartition(expectedRows(topic, counts, [7, 0, 9])));
    expect(
      await read({
        "scan.startup.mode": "earliest-offset",
        "scan.bounded.mode": "specific-offsets",
        "scan.bounded.specific-offsets": "partition:0,offset:2;partition:1,offset:0;partition:2,offset:3",
      }),
    ).toEqual(byPartition(expectedRows(topic, counts, [0, 0, 0], [2, 0, 3])));
    // latest-offset + bounded latest-offset: nothing to read, ends at once.
    expect(await read({ "scan.startup.mode": "latest-offset" })).toEqual([]);

    // The reader commits its positions to properties.group.id; group-offsets resumes there.
    const groupId = `weir-it-group-${kafka.run}`;
    const { reader } = await openReader(
      sourceNode(ID_V, {
        ...bounded,
        "scan.startup.mode": "specific-offsets",
        "scan.startup.specific-offsets": "partition:0,offset:4;partition:1,offset:5;partition:2,offset:6",
        "scan.bounded.mode": "specific-offsets",
        "scan.bounded.specific-offsets": "partition:0,offset:4;partition:1,offset:5;partition:2,offset:6",
        "properties.group.id": groupId,
      }),
    );
    expect(await pollToEnd(reader)).toEqual([]);
    await reader.close();
    expect(await read({ "scan.startup.mode": "group-offsets", "properties.group.id": groupId })).toEqual(
      byPartition(expectedRows(topic, counts, [4, 5, 6])),
    );
    // Without a committed offset and no reset policy, group-offsets is a user error.
    await expect(
      openReader(
        sourceNode(ID_V, {
          ...bounded,
          "scan.startup.mode": "group-offsets",
          "properties.group.id": `${groupId}-none`,
        }),
      ),
    ).rejects.toThrow(/no committed offset for topic .* partition 0/);
  });

  it("timestamp startup and bounded timestamp pick offsets by record time", async () => {
    const topic = await kafka.topic("timestamps", 2);
    const base = 1_700_000_000_000;
    await kafka.produce(
      topic,
      [0, 1].flatMap((p) =>
        Array.from({ length: 6 }, (_, i) => ({
          partition: p,
          timestamp: String(base + i * 1000 + p),
          value: JSON.stringify({ id: p * 100 + i, v: `p${p}-${i}` }),
        })),
      ),
    );
    const { reader } = await openReader(
      sourceNode(ID_V, {
        topic,
        format: "json",
        "scan.startup.mode": "timestamp",
        "scan.startup.timestamp-millis": String(base + 2000),
        "scan.bounded.mode": "timestamp",
        "scan.bounded.timestamp-millis": String(base + 4000),
      }),
    );
    const reads = byPartition(await pollToEnd(reader));
    await reader.close();
    // Partition 0: ts base+2000, base+3000 (base+4000 is excluded). Partition 1 (ts +1 ms): offsets 2, 3.
    expect(reads.map((r) => r.change)).toEqual(["+I 2 p0-2", "+I 3 p0-3", "+I 102 p1-2", "+I 103 p1-3"]);
  });

  it("an unbounded latest-offset source reads only what is produced after it started, and topic-pattern matches topics", async () => {
    const topic = await filledTopic("latest", [3, 3]);
    const { reader } = await openReader(
      sourceNode(ID_V, {
        "topic-pattern": `weir-it-latest-${kafka.run}`,
        format: "json",
        "scan.startup.mode": "latest-offset",
      }),
    );
    expect((await reader.poll(10)).kind).toBe("idle");
    await kafka.produce(topic, [{ partition: 1, value: JSON.stringify({ id: 7, v: "new" }) }]);
    const { reads } = await pollChanges(reader, 1);
    expect(reads).toEqual([{ split: `${topic}-1`, change: "+I 7 new" }]);
    expect(reader.position()).toEqual({ [topic]: { "0": 3, "1": 4 } });
    await reader.close();
  });
});

describe("kafka source: metadata columns and key formats", () => {
  it("reads metadata columns, and key fields from the key under EXCEPT_KEY with a prefix", async () => {
    const topic = await kafka.topic("meta", 1);
    await kafka.produce(topic, [
      {
        key: JSON.stringify({ id: 1 }),
        value: JSON.stringify({ v: "a" }),
        timestamp: "1700000000123",
        headers: { h: "x", g: Buffer.from([0x41]) },
      },
      { key: JSON.stringify({ id: 2 }), value: JSON.stringify({ v: "b" }), timestamp: "1700000000456" },
    ]);
    const node = sourceNode(
      [
        { name: "k_id", type: T.int() },
        { name: "v", type: T.string() },
        { name: "tp", type: T.string(), metadata: "topic" },
        { name: "pt", type: T.int(), metadata: "partition" },
        { name: "off", type: T.bigint(), metadata: "offset" },
        { name: "ts", type: T.timestampLtz(3), metadata: "timestamp" },
        { name: "tt", type: T.string(), metadata: "timestamp-type" },
        { name: "k", type: T.bytes(), metadata: "key" },
        { name: "hs", type: T.map(T.string(), T.bytes()), metadata: "headers" },
        { name: "le", type: T.int(), metadata: "leader-epoch" },
      ],
      {
        topic,
        "value.format": "json",
        "key.format": "json",
        "key.fields": "k_id",
        "key.fields-prefix": "k_",
        "value.fields-include": "EXCEPT_KEY",
        "scan.startup.mode": "earliest-offset",
        "scan.bounded.mode": "latest-offset",
      },
    );
    const { reader } = await openReader(node);
    const reads = await pollToEnd(reader);
    await reader.close();
    expect(reads.map((r) => r.change)).toEqual([
      `+I 1 a ${topic} 0 0 1700000000123 CreateTime b'{"id":1}' {"h":"x","g":"A"} 0`,
      `+I 2 b ${topic} 0 1 1700000000456 CreateTime b'{"id":2}' {} 0`,
    ]);
  });

  it("with value.fields-include ALL the value's fields win; csv values and raw keys decode", async () => {
    const topic = await kafka.topic("keys", 1);
    await kafka.produce(topic, [
      { key: "key-1", value: "5,five" },
      { key: "key-2", value: "6,six\n" },
    ]);
    const node = sourceNode(
      [
        { name: "n", type: T.int() },
        { name: "s", type: T.string() },
      ],
      { topic, format: "csv", "scan.startup.mode": "earliest-offset", "scan.bounded.mode": "latest-offset" },
    );
    let { reader } = await openReader(node);
    expect((await pollToEnd(reader)).map((r) => r.change)).toEqual(["+I 5 five", "+I 6 six"]);
    await reader.close();

    const rawKey = sourceNode(
      [
        { name: "k", type: T.string() },
        { name: "n", type: T.int() },
        { name: "s", type: T.string() },
      ],
      {
        topic,
        "value.format": "csv",
        "key.format": "raw",
        "key.fields": "k",
        "value.fields-include": "EXCEPT_KEY",
        "scan.startup.mode": "earliest-offset",
        "scan.bounded.mode": "latest-offset",
      },
    );
    ({ reader } = await openReader(rawKey));
    expect((await pollToEnd(reader)).map((r) => r.change)).toEqual(["+I key-1 5 five", "+I key-2 6 six"]);
    await reader.close();
  });
});

describe("kafka source: bad records", () => {
  it("fails with the exact topic, partition and offset, or skips and counts with ignore-parse-errors", async () => {
    const topic = await kafka.topic("bad", 2);
    await kafka.produce(topic, [
      { partition: 0, value: JSON.stringify({ id: 1, v: "ok" }) },
      { partition: 1, value: JSON.stringify({ id: 2, v: "ok" }) },
      { partition: 1, value: "{not json" },
      { partition: 1, value: JSON.stringify({ id: "three", v: "wrong type" }) },
      { partition: 1, value: JSON.stringify({ id: 4, v: "ok" }) },
    ]);
    const options = {
      topic,
      format: "json",
      "scan.startup.mode": "earliest-offset",
      "scan.bounded.mode": "latest-offset",
    };
    const failing = await openReader(sourceNode(ID_V, options));
    const err = await pollToEnd(failing.reader).catch((e: unknown) => e);
    await failing.reader.close();
    expect(err).toBeInstanceOf(ConnectorError);
    expect((err as ConnectorError).location).toBe(`topic ${topic} partition 1 offset 1`);
    expect((err as ConnectorError).domain).toBe("user");

    const skipping = await openReader(sourceNode(ID_V, { ...options, "json.ignore-parse-errors": "true" }));
    const reads = byPartition(await pollToEnd(skipping.reader));
    await skipping.reader.close();
    expect(reads.map((r) => r.change)).toEqual(["+I 1 ok", "+I 2 ok", "+I 4 ok"]);
    expect(skipping.metrics.get("skippedRecords")).toBe(2);
    expect(skipping.reader.position()).toEqual({ [topic]: { "0": 1, "1": 4 } });
  });

  it("decodes only the value fields the query reads: a wrong type in another one is no bad record", async () => {
    const topic = await kafka.topic("projected", 1);
    await kafka.produce(topic, [
      { partition: 0, value: JSON.stringify({ id: "three", v: "a" }) },
      { partition: 0, value: JSON.stringify({ id: 4, v: "b" }) },
      { partition: 0, value: '{"id":5,"v":"c"' },
    ]);
    const options = {
      topic,
      format: "json",
      "scan.startup.mode": "earliest-offset",
      "scan.bounded.mode": "latest-offset",
    };
    // Every column read: the wrong type fails at its record.
    const all = await openReader(sourceNode(ID_V, options));
    const wrongType = await pollToEnd(all.reader).catch((e: unknown) => e);
    await all.reader.close();
    expect((wrongType as ConnectorError).location).toBe(`topic ${topic} partition 0 offset 0`);
    // Only `v` read (the planner's projection push-down): `id` is checked for syntax only, so the
    // first record reads, and the malformed third one still fails at its offset.
    const projected = await openReader({ ...sourceNode(ID_V, options), projectedColumns: [1] });
    const changes: string[] = [];
    const malformed = await (async () => {
      for (;;) {
        const r = await projected.reader.poll(1);
        if (r.kind === "end") return null;
        if (r.kind === "idle") await new Promise((res) => setTimeout(res, 10));
        if (r.kind === "data")
          for (const s of r.splits) changes.push(...s.batch.rows.map((row) => JSON.stringify(row)));
      }
    })().catch((e: unknown) => e);
    await projected.reader.close();
    expect(changes).toEqual(['[null,"a"]', '[null,"b"]']);
    expect((malformed as ConnectorError).location).toBe(`topic ${topic} partition 0 offset 2`);
  });
});
