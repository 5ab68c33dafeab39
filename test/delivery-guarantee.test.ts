// 'sink.delivery-guarantee' = 'exactly-once' is checked before a job starts, and by --dry-run:
// it needs checkpointing, a Kafka sink needs 'sink.transactional-id-prefix' and a transaction
// timeout longer than the checkpoint interval, and the Arrow format has no exactly-once mode.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Engine, type Output } from "@weir/cli";
import { describe, expect, it } from "vitest";

async function dryRun(sql: string): Promise<{ code: number; err: string }> {
  const dir = mkdtempSync(join(tmpdir(), "weir-delivery-"));
  const err: string[] = [];
  const out: Output = { out: () => {}, err: (l) => err.push(l) };
  const code = await new Engine({ cwd: dir, out }).runScript(sql, { file: "job.sql", dryRun: true });
  return { code, err: err.join("\n") };
}

const source = `CREATE TABLE s (a INT) WITH ('connector' = 'datagen', 'number-of-rows' = '5');`;
const kafkaSink = (extra: string) => `CREATE TABLE k (a INT) WITH ('connector' = 'kafka', 'topic' = 't',
  'properties.bootstrap.servers' = '${process.env.KAFKA_BROKERS ?? "127.0.0.1:1"}', 'format' = 'json',
  'sink.delivery-guarantee' = 'exactly-once'${extra});`;
const checkpointing = (interval: string) => `SET 'execution.checkpointing.interval' = '${interval}';
SET 'execution.checkpointing.dir' = 'cp';`;

describe("exactly-once settings at plan time (--dry-run)", () => {
  it("a Kafka transaction timeout not longer than the checkpoint interval is an error", async () => {
    const r = await dryRun(
      `${checkpointing("2 min")}${source}${kafkaSink(", 'sink.transactional-id-prefix' = 'p'")}
       INSERT INTO k SELECT a FROM s;`,
    );
    expect(r.code).toBe(1);
    expect(r.err).toMatch(
      /sink k: 'properties.transaction.timeout.ms' \(60000 ms, the default\) must be larger than the checkpoint interval \(120000 ms\)/,
    );
  });

  it("a Kafka exactly-once sink needs a transactional id prefix", async () => {
    const r = await dryRun(`${checkpointing("1 s")}${source}${kafkaSink("")} INSERT INTO k SELECT a FROM s;`);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/needs 'sink.transactional-id-prefix'/);
  });

  it("exactly-once without checkpointing is an error for every sink kind", async () => {
    const r = await dryRun(
      `${source}CREATE TABLE f (a INT) WITH ('connector' = 'filesystem', 'path' = 'o.jsonl', 'format' = 'json',
        'sink.delivery-guarantee' = 'exactly-once');
       INSERT INTO f SELECT a FROM s;`,
    );
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/sink f: .*enable checkpointing/);
  });
});
