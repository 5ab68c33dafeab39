// Restoring a Kafka source from a position that retention has since deleted (seeds 004): the
// gap is detected per partition with its exact range, against a real broker.
import { setTimeout as sleep } from "node:timers/promises";
import { connectKafkajs, connectorCatalog, KafkaSourceReader } from "@weir/connectors";
import { parse } from "@weir/parser";
import { bindStatement, Catalog, optimize, type PlanTarget, Session, type SourceNode } from "@weir/planner";
import type { Json } from "@weir/runtime";
import { afterAll, describe, expect, it } from "vitest";
import { brokers, KafkaFixture } from "./kafka-helpers.js";

const kafka = new KafkaFixture();
afterAll(() => kafka.close());

function sourceNode(topic: string, extra = ""): SourceNode {
  const sql = `CREATE TABLE t (v STRING) WITH ('connector' = 'kafka', 'topic' = '${topic}',
      'properties.bootstrap.servers' = '${brokers()}', 'scan.startup.mode' = 'earliest-offset',
      'scan.bounded.mode' = 'latest-offset', 'format' = 'raw'${extra});
    SELECT v FROM t;`;
  const catalog = new Catalog(connectorCatalog());
  const session = new Session();
  const targets: PlanTarget[] = [];
  for (const s of parse(sql).statements) {
    const r = bindStatement(s, catalog, session);
    if (!r.value) throw new Error(r.diagnostics.map((d) => d.message).join("; "));
    if (r.value.kind === "query") targets.push({ kind: "collect", plan: r.value.plan });
  }
  const dag = optimize(targets, session.all(), catalog);
  return dag.nodes.find((n) => n.kind === "source") as SourceNode;
}

async function readThree(node: SourceNode): Promise<Json> {
  const reader = new KafkaSourceReader(connectKafkajs);
  await reader.open({ node, metrics: new Map(), settings: {}, cwd: "." });
  let read = 0;
  while (read < 3) {
    const r = await reader.poll(3 - read);
    if (r.kind === "data") for (const s of r.splits) read += s.batch.length;
    else if (r.kind === "idle") await sleep(r.waitMs);
    else throw new Error("the topic ended before 3 records");
  }
  const position = reader.position();
  await reader.close();
  return position;
}

describe("Kafka restore after retention deleted the saved position", () => {
  it("fails with the exact missing range, or skips it and counts the loss", async () => {
    const topic = await kafka.topic("gap", 1);
    await kafka.produce(
      topic,
      Array.from({ length: 10 }, (_, i) => ({ value: `r${i}` })),
    );
    const position = await readThree(sourceNode(topic));
    // Retention: records 0..5 are gone; the saved next offset (3) now points into the hole.
    const admin = await kafka.admin();
    // kafkajs finds the partition leader from the topic's metadata: load it first.
    await admin.fetchTopicMetadata({ topics: [topic] });
    await admin.deleteTopicRecords({ topic, partitions: [{ partition: 0, offset: "6" }] });

    const failing = new KafkaSourceReader(connectKafkajs);
    await failing.open({ node: sourceNode(topic), metrics: new Map(), settings: {}, cwd: "." });
    await expect(failing.restore(position)).rejects.toThrow(new RegExp(`${topic}.*partition 0.*3.*5`, "s"));
    await failing.close();

    const metrics = new Map<string, number>();
    const skipping = new KafkaSourceReader(connectKafkajs);
    const node = sourceNode(topic, ", 'scan.restore.gap-policy' = 'skip'");
    await skipping.open({ node, metrics, settings: {}, cwd: "." });
    await skipping.restore(position);
    const values: string[] = [];
    for (;;) {
      const r = await skipping.poll(100);
      if (r.kind === "end") break;
      if (r.kind === "idle") await sleep(r.waitMs);
      if (r.kind === "data")
        for (const s of r.splits)
          for (const row of s.batch.rows.slice(0, s.batch.length)) values.push(String(row[0]));
    }
    await skipping.close();
    expect(values).toEqual(["r6", "r7", "r8", "r9"]);
    expect(metrics.get("restoreGapRecords")).toBe(3);
  });
});
