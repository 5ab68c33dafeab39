// Checks the real broker the suite runs against (KAFKA_BROKERS, started by scripts/test.sh through
// scripts/kafka.sh): keyed idempotent produce and consume across partitions, group offset commits,
// and transaction commit/abort as seen by read_committed and read_uncommitted consumers — the
// guarantees the Kafka source and the exactly-once sink are built on.
import { randomUUID } from "node:crypto";
import { createRequire } from "node:module";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type * as KafkaJs from "../../packages/connectors/node_modules/kafkajs/types/index.js";

// kafkajs is a dependency of @weir/connectors, not of the workspace root, so it is resolved from there.
const kafkajs = createRequire(new URL("../../packages/connectors/package.json", import.meta.url))(
  "kafkajs",
) as typeof KafkaJs;

const MISSING_BROKER =
  "KAFKA_BROKERS is not set. Run the suite with scripts/test.sh, which starts a single-node broker " +
  "with scripts/kafka.sh, or start one yourself (`scripts/kafka.sh start` prints its address) and " +
  "run with KAFKA_BROKERS=<host:port>.";

const brokers = (process.env.KAFKA_BROKERS ?? "")
  .split(",")
  .map((b) => b.trim())
  .filter((b) => b !== "");

interface Received {
  readonly partition: number;
  readonly offset: string;
  readonly key: string;
  readonly value: string;
}

/** Consumes `topic` from earliest with a fresh group until `count` records arrived, then disconnects
 * (committing the group's offsets). Every record received before the disconnect is returned, so
 * extra records show up in the result rather than being dropped. */
async function consume(
  kafka: KafkaJs.Kafka,
  topic: string,
  groupId: string,
  count: number,
  readUncommitted: boolean,
): Promise<Received[]> {
  const consumer = kafka.consumer({ groupId, readUncommitted, maxWaitTimeInMs: 200 });
  const received: Received[] = [];
  let done: () => void = () => {};
  const reached = new Promise<void>((resolve) => {
    done = resolve;
  });
  try {
    await consumer.connect();
    await consumer.subscribe({ topic, fromBeginning: true });
    await consumer.run({
      eachMessage: async ({ partition, message }) => {
        received.push({
          partition,
          offset: message.offset,
          key: message.key?.toString() ?? "",
          value: message.value?.toString() ?? "",
        });
        if (received.length >= count) done();
      },
    });
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`consumed ${received.length} of ${count} records from ${topic}`)),
        15_000,
      );
    });
    await Promise.race([reached, timeout]).finally(() => clearTimeout(timer));
  } finally {
    await consumer.disconnect();
  }
  return received;
}

function byPartition(records: readonly Received[]): Map<number, Received[]> {
  const out = new Map<number, Received[]>();
  for (const r of records) {
    const list = out.get(r.partition) ?? [];
    list.push(r);
    out.set(r.partition, list);
  }
  return out;
}

describe("the Kafka broker the integration tests run against", () => {
  let kafka: KafkaJs.Kafka;
  let admin: KafkaJs.Admin;
  const topics: string[] = [];
  const run = randomUUID().slice(0, 8);

  /** Every test calls this first, so a missing broker fails each test with the reason. */
  function requireBroker(): void {
    if (brokers.length === 0) throw new Error(MISSING_BROKER);
  }

  async function createTopic(name: string): Promise<string> {
    const topic = `weir-it-${name}-${run}`;
    const created = await admin.createTopics({
      topics: [{ topic, numPartitions: 3, replicationFactor: 1 }],
      waitForLeaders: true,
    });
    expect(created).toBe(true);
    topics.push(topic);
    return topic;
  }

  beforeAll(async () => {
    if (brokers.length === 0) return;
    kafka = new kafkajs.Kafka({
      clientId: `weir-it-${run}`,
      brokers,
      logLevel: kafkajs.logLevel.NOTHING,
    });
    admin = kafka.admin();
    await admin.connect();
  });

  afterAll(async () => {
    if (admin === undefined) return;
    if (topics.length > 0) await admin.deleteTopics({ topics }).catch(() => {});
    await admin.disconnect();
  });

  it("delivers keyed records from an idempotent producer per partition, in order, from earliest", async () => {
    requireBroker();
    const topic = await createTopic("keyed");
    const [meta] = (await admin.fetchTopicMetadata({ topics: [topic] })).topics;
    expect(meta?.partitions.map((p) => p.partitionId).sort()).toEqual([0, 1, 2]);

    const keys = Array.from({ length: 12 }, (_, i) => `key-${i}`);
    const rounds = 5;
    const messages = Array.from({ length: rounds }, (_, r) =>
      keys.map((key) => ({ key, value: `${key}#${r}` })),
    );

    // The partition of each key as the Java-compatible default partitioner (murmur2) assigns it.
    const partitionOf = new Map<string, number>();
    const partitioner = kafkajs.Partitioners.DefaultPartitioner();
    for (const key of keys) {
      partitionOf.set(
        key,
        partitioner({ topic, partitionMetadata: meta!.partitions, message: { key, value: null } }),
      );
    }
    expect(new Set(partitionOf.values()).size).toBeGreaterThan(1);

    const producer = kafka.producer({
      idempotent: true,
      maxInFlightRequests: 1,
      createPartitioner: kafkajs.Partitioners.DefaultPartitioner,
    });
    await producer.connect();
    try {
      // Two sends, so each partition's log holds more than one batch.
      await producer.send({ topic, acks: -1, messages: messages.slice(0, 3).flat() });
      await producer.send({ topic, acks: -1, messages: messages.slice(3).flat() });
    } finally {
      await producer.disconnect();
    }

    const expected = new Map<number, string[]>([
      [0, []],
      [1, []],
      [2, []],
    ]);
    for (const m of messages.flat()) expected.get(partitionOf.get(m.key)!)!.push(m.value);

    const offsets = await admin.fetchTopicOffsets(topic);
    expect(offsets.map((o) => [o.partition, o.low, o.high]).sort()).toEqual(
      [...expected].map(([p, values]) => [p, "0", String(values.length)]).sort(),
    );

    const groupId = `weir-it-keyed-${run}`;
    const received = await consume(kafka, topic, groupId, keys.length * rounds, false);
    expect(received).toHaveLength(keys.length * rounds);
    const got = byPartition(received);
    for (const [partition, values] of expected) {
      const records = got.get(partition) ?? [];
      expect(records.map((r) => r.offset)).toEqual(values.map((_, i) => String(i)));
      expect(records.map((r) => r.value)).toEqual(values);
      for (const r of records) expect(partitionOf.get(r.key)).toBe(partition);
    }

    // The group committed its position at the end of every partition.
    const [committed] = await admin.fetchOffsets({ groupId, topics: [topic] });
    expect(committed?.partitions.map((p) => [p.partition, p.offset]).sort()).toEqual(
      [...expected].map(([p, values]) => [p, String(values.length)]).sort(),
    );
  });

  it("hides aborted transactions from read_committed consumers and shows committed ones", async () => {
    requireBroker();
    const topic = await createTopic("txn");
    const producer = kafka.producer({
      transactionalId: `weir-it-txn-${run}`,
      idempotent: true,
      maxInFlightRequests: 1,
    });
    await producer.connect();
    // Per partition: committed c0,c1 (offsets 0,1; marker 2), aborted a0,a1 (3,4; marker 5),
    // committed c2 (6; marker 7). A committed record after the aborted ones in every partition
    // means reading all committed records proves the aborted ones were skipped, not pending.
    const steps: readonly { readonly values: readonly string[]; readonly commit: boolean }[] = [
      { values: ["c0", "c1"], commit: true },
      { values: ["a0", "a1"], commit: false },
      { values: ["c2"], commit: true },
    ];
    try {
      for (const step of steps) {
        const txn = await producer.transaction();
        await txn.send({
          topic,
          messages: [0, 1, 2].flatMap((partition) =>
            step.values.map((v) => ({ partition, key: `p${partition}`, value: `p${partition}-${v}` })),
          ),
        });
        if (step.commit) await txn.commit();
        else await txn.abort();
      }
    } finally {
      await producer.disconnect();
    }

    // The coordinator writes the commit/abort markers after the client's call returns: wait
    // (bounded) for the last marker to land before checking the end offsets.
    let offsets = await admin.fetchTopicOffsets(topic);
    for (let i = 0; i < 100 && offsets.some((o) => o.high !== "8"); i++) {
      await new Promise((r) => setTimeout(r, 100));
      offsets = await admin.fetchTopicOffsets(topic);
    }
    expect(offsets.map((o) => [o.partition, o.high]).sort()).toEqual([
      [0, "8"],
      [1, "8"],
      [2, "8"],
    ]);

    const committedOnly = await consume(kafka, topic, `weir-it-rc-${run}`, 9, false);
    const everything = await consume(kafka, topic, `weir-it-ru-${run}`, 15, true);
    const committedParts = byPartition(committedOnly);
    const everythingParts = byPartition(everything);
    for (const partition of [0, 1, 2]) {
      const rc = committedParts.get(partition) ?? [];
      expect(rc.map((r) => [r.offset, r.value])).toEqual([
        ["0", `p${partition}-c0`],
        ["1", `p${partition}-c1`],
        ["6", `p${partition}-c2`],
      ]);
      const ru = everythingParts.get(partition) ?? [];
      expect(ru.map((r) => [r.offset, r.value])).toEqual([
        ["0", `p${partition}-c0`],
        ["1", `p${partition}-c1`],
        ["3", `p${partition}-a0`],
        ["4", `p${partition}-a1`],
        ["6", `p${partition}-c2`],
      ]);
    }
  });
});
