// The Kafka reader's restore against a fake admin (the real-broker test is in test/integration):
// which partitions fail the restore, and where a skipping restore continues.
import { type SourceNode, T } from "@weir/planner";
import { ConnectorError, type Json } from "@weir/runtime";
import { describe, expect, it } from "vitest";
import type { KafkaAdmin, KafkaClient } from "../src/kafka/client.js";
import { KafkaSourceReader } from "../src/kafka/source.js";

/** Partition → [low, high] of topic `t`; a `null` topic fails `fetchTopicOffsets` after open. */
function fakeConnect(marks: Record<number, [number, number]>, failAfterOpen = false) {
  let calls = 0;
  const admin = {
    connect: async () => undefined,
    disconnect: async () => undefined,
    listTopics: async () => ["t"],
    fetchTopicMetadata: async () => ({
      topics: [{ name: "t", partitions: Object.keys(marks).map((p) => ({ partitionId: Number(p) })) }],
    }),
    fetchTopicOffsets: async () => {
      if (failAfterOpen && calls++ > 0) throw new Error("broker down");
      return Object.entries(marks).map(([p, [low, high]]) => ({
        partition: Number(p),
        offset: String(high),
        low: String(low),
        high: String(high),
      }));
    },
  } as unknown as KafkaAdmin;
  return () => ({ admin: () => admin }) as unknown as KafkaClient;
}

function node(options: Record<string, string>): SourceNode {
  return {
    kind: "source",
    id: 0,
    inputs: [],
    schema: [{ name: "v", type: T.string() }],
    changelogMode: { kind: "insert-only" },
    streamKey: null,
    watermarkColumn: null,
    table: "t",
    connector: "kafka",
    options: {
      topic: "t",
      "properties.bootstrap.servers": "fake:9092",
      "scan.startup.mode": "earliest-offset",
      format: "raw",
      ...options,
    },
    columns: [{ kind: "physical", name: "v" }],
    watermark: null,
    idleTimeoutMs: 0,
    primaryKey: null,
    projectedColumns: null,
  } as unknown as SourceNode;
}

async function restore(
  marks: Record<number, [number, number]>,
  position: Json,
  options: Record<string, string> = {},
  failAfterOpen = false,
) {
  const reader = new KafkaSourceReader(fakeConnect(marks, failAfterOpen));
  const metrics = new Map<string, number>();
  await reader.open({ node: node(options), metrics, settings: {}, cwd: "." });
  try {
    await reader.restore(position);
    return { position: reader.position(), metrics: Object.fromEntries(metrics), error: null };
  } catch (e) {
    expect(e).toBeInstanceOf(ConnectorError);
    return { position: null, metrics: Object.fromEntries(metrics), error: (e as Error).message };
  }
}

describe("KafkaSourceReader.restore", () => {
  it("continues at the saved offsets when nothing is gone", async () => {
    const r = await restore({ 0: [0, 100], 1: [10, 50] }, { t: { "0": 40, "1": 10 } });
    expect(r).toEqual({ position: { t: { "0": 40, "1": 10 } }, metrics: {}, error: null });
  });

  it("fails on a gap in one partition, whatever the others say", async () => {
    const r = await restore({ 0: [0, 1000], 1: [60, 70] }, { t: { "0": 900, "1": 5 } });
    expect(r.error).toContain("topic t partition 1: offsets 5..59 (55 records) are no longer available");
    expect(r.error).not.toContain("partition 0");
  });

  it("with 'skip', continues a gapped partition at its earliest offset and counts the loss", async () => {
    const r = await restore(
      { 0: [0, 1000], 1: [60, 70] },
      { t: { "0": 900, "1": 5 } },
      { "scan.restore.gap-policy": "skip" },
    );
    expect(r).toEqual({
      position: { t: { "0": 900, "1": 60 } },
      metrics: { restoreGapRecords: 55, restoreGapPartitions: 1 },
      error: null,
    });
  });

  it("a partition of the checkpoint the broker does not know is unknown, even with 'skip'", async () => {
    const r = await restore({ 0: [0, 10] }, { t: { "0": 3, "7": 3 } }, { "scan.restore.gap-policy": "skip" });
    expect(r.error).toContain("topic t partition 7: unknown");
  });

  it("offsets that cannot be fetched make every partition unknown", async () => {
    const r = await restore({ 0: [0, 10], 1: [0, 10] }, { t: { "0": 3, "1": 3 } }, {}, true);
    expect(r.error).toContain("topic t partition 0: unknown (cannot fetch its offsets: broker down)");
    expect(r.error).toContain("topic t partition 1: unknown");
  });
});
