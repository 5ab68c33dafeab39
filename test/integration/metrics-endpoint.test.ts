// The Prometheus endpoint during real Kafka runs (`'weir.metrics.port'` = 0, as `weir run
// --metrics-port 0`): metric names, labels and values scraped while the job runs; a stuck
// partition (one old row, then nothing, no idle timeout) raises the watermark-lag alarm while the
// consumer lag is 0; counters continue across a restore from a checkpoint.
import { mkdtempSync, readdirSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { brokers, KafkaFixture } from "./kafka-helpers.js";
import { RunningScript, until, value } from "./metrics-helpers.js";
import { PG_URL, PgFixture } from "./pg-helpers.js";

const kafka = new KafkaFixture();
const db = new PgFixture();
afterAll(async () => {
  await kafka.close();
  await db.close();
});

const customers = ["ann", "bob", "cid", "dan", "eve"];

function script(topic: string, table: string, exactlyOnce = false): string {
  return `
    CREATE TABLE orders (customer STRING, amount INT, ts TIMESTAMP(3),
      WATERMARK FOR ts AS ts - INTERVAL '1' SECOND
    ) WITH ('connector' = 'kafka', 'topic' = '${topic}', 'properties.bootstrap.servers' = '${brokers()}',
      'scan.startup.mode' = 'earliest-offset', 'format' = 'json');
    CREATE TABLE totals (customer STRING, total INT, cnt BIGINT, PRIMARY KEY (customer) NOT ENFORCED) WITH (
      'connector' = 'postgres', 'url' = '${PG_URL}', 'table-name' = '${db.schema}.${table}',
      'sink.create-table' = 'true', 'sink.buffer-flush.interval' = '50 ms'${exactlyOnce ? ", 'sink.delivery-guarantee' = 'exactly-once'" : ""});
    INSERT INTO totals SELECT customer, SUM(amount), COUNT(*) FROM orders GROUP BY customer;`;
}

/** Orders to partition 1 with event times around now; `n` of them from `from`. */
function recent(n: number, from = 0): { key: string; value: string; partition: number }[] {
  return Array.from({ length: n }, (_, j) => {
    const i = from + j;
    const customer = customers[i % customers.length]!;
    const ts = new Date(Date.now() - 1000).toISOString().replace("T", " ").replace("Z", "");
    return { key: customer, value: JSON.stringify({ customer, amount: i % 7, ts }), partition: 1 };
  });
}

describe("the /metrics endpoint during a Kafka run", () => {
  it("names, labels and values; a stuck partition raises the watermark-lag alarm at consumer lag 0", async () => {
    await db.admin();
    const topic = await kafka.topic("metrics-stuck", 2);
    // Partition 0 gets one row from 2020 and then nothing: with no idle timeout it holds the
    // source watermark there, while partition 1 is current and everything is read.
    await kafka.produce(topic, [
      {
        key: "ann",
        value: JSON.stringify({ customer: "ann", amount: 1, ts: "2020-01-01 00:00:00" }),
        partition: 0,
      },
      ...recent(40),
    ]);
    const cwd = mkdtempSync(join(tmpdir(), "weir-metrics-"));
    const run = new RunningScript(script(topic, "stuck"), cwd, [
      ["weir.alarm.watermark-lag", "10 min"],
      ["weir.alarm.split-idle", "1 s"],
    ]);
    try {
      const s = await run.scrapeUntil(
        "all 41 records read and written, consumer lag 0 on both partitions and the watermark-lag alarm",
        (s) =>
          value(s, "weir_source_records_read_total", { table: "orders" }) === 41 &&
          value(s, "weir_kafka_consumer_lag_records", { topic, partition: "0" }) === 0 &&
          value(s, "weir_kafka_consumer_lag_records", { topic, partition: "1" }) === 0 &&
          value(s, "weir_alarm_watermark_lag", { table: "orders" }) === 1 &&
          value(s, "weir_sink_changes_written_total", { table: "totals" }) === 77 &&
          value(s, "weir_sink_rows_upserted_total", { table: "totals" })! >= customers.length &&
          value(s, "weir_sink_table_rows", { table: "totals" }) === customers.length,
      );
      const job = s.find((x) => x.name === "weir_job_up")!.labels.job!;
      expect(job).toMatch(/^[0-9a-f]{32}$/);
      const src = { job, task: "source-0", table: "orders" };
      expect(value(s, "weir_source_records_read_total", src)).toBe(41);
      // The source watermark is the stuck partition's: 2020-01-01 minus the 1 s delay.
      const wm = Date.UTC(2020, 0, 1) / 1000 - 1;
      expect(value(s, "weir_source_watermark_seconds", src)).toBe(wm);
      expect(value(s, "weir_source_watermark_lag_seconds", src)).toBeGreaterThan(Date.now() / 1000 - wm - 60);
      const p0 = { job, table: "orders", topic, partition: "0", split: `${topic}-0` };
      const p1 = { job, table: "orders", topic, partition: "1", split: `${topic}-1` };
      expect(value(s, "weir_split_watermark_seconds", p0)).toBe(wm);
      expect(value(s, "weir_split_watermark_lag_seconds", p1)).toBeLessThan(600);
      expect(value(s, "weir_split_idle", p0)).toBe(0);
      // Changes written, rows upserted and rows deleted are named apart: the group aggregate's
      // 41 rows give 5 inserts and 36 updates (-U, +U) = 77 changes; each flush upserts every key
      // it changed once, so the table's 5 rows took between 5 and 41 upserts.
      const sink = { job, task: "sink-3", table: "totals" };
      expect(value(s, "weir_sink_changes_written_total", sink)).toBe(77);
      const upserted = value(s, "weir_sink_rows_upserted_total", sink)!;
      expect(upserted).toBeGreaterThanOrEqual(customers.length);
      expect(upserted).toBeLessThanOrEqual(41);
      expect(value(s, "weir_sink_rows_deleted_total", sink)).toBe(0);
      expect(value(s, "weir_sink_flushes_total", sink)).toBeGreaterThan(0);
      expect(await db.rows(`SELECT count(*) FROM ${db.schema}.stuck`)).toEqual([["5"]]);
      // Seed 004's numbers named apart: 41 records read, 77 changes written, 5..41 rows upserted,
      // and the rows now in the table: 5 (the sink counts them after its flushes).
      expect(value(s, "weir_sink_table_rows", sink)).toBe(5);
      // Every flush that wrote rows is timed: a Prometheus histogram with cumulative buckets.
      const flushes = value(s, "weir_sink_flush_latency_seconds_count", sink)!;
      expect(flushes).toBeGreaterThan(0);
      expect(value(s, "weir_sink_flush_latency_seconds_bucket", { ...sink, le: "+Inf" })).toBe(flushes);
      expect(
        value(s, "weir_sink_flush_latency_seconds_bucket", { ...sink, le: "0.001" }),
      ).toBeLessThanOrEqual(value(s, "weir_sink_flush_latency_seconds_bucket", { ...sink, le: "60" })!);
      expect(value(s, "weir_sink_flush_latency_seconds_sum", sink)).toBeGreaterThan(0);
      // An at-least-once sink commits nothing at checkpoints; the rows carry no event time.
      expect(value(s, "weir_sink_commit_latency_seconds_count", sink)).toBeUndefined();
      expect(value(s, "weir_sink_event_time_lag_seconds", { ...sink, quantile: "0.5" })).toBeUndefined();
      const agg = s.find(
        (x) => x.name === "weir_operator_records_in_total" && x.labels.kind === "group-aggregate",
      );
      expect(agg?.value).toBe(41);
      expect(value(s, "weir_operator_late_records_dropped_total", { job, task: agg!.labels.task! })).toBe(0);
      expect(
        value(s, "weir_operator_late_records_total", { job, task: agg!.labels.task!, policy: "dropped" }),
      ).toBe(0);
      // The group aggregate keeps one accumulator per customer.
      expect(value(s, "weir_operator_state_keys", { job, task: agg!.labels.task! })).toBe(customers.length);
      expect(value(s, "weir_alarm_late_ratio", { job })).toBeUndefined();
      expect(value(s, "weir_checkpoints_failed_total", { job })).toBe(0);
      // The alarms are log lines too, with a stable prefix, once each.
      const raised = run.err.filter((l) => l.startsWith("WEIR-ALARM raised watermark_lag "));
      expect(raised).toHaveLength(1);
      expect(raised[0]).toContain(
        `job=${job} source orders: consumer lag 0 but the watermark 2019-12-31T23:59:59.000Z`,
      );
      expect(raised[0]).toContain(`held back by split ${topic}-0`);
      // The stuck partition has had no row for over 1 s: the split-idle alarm.
      const idle = await run.scrapeUntil(
        "the split-idle alarm of partition 0",
        (x) => value(x, "weir_alarm_split_idle", { split: `${topic}-0` }) === 1,
      );
      expect(value(idle, "weir_split_idle_seconds", p0)).toBeGreaterThan(1);
      expect(
        run.err.some((l) =>
          l.startsWith(`WEIR-ALARM raised split_idle job=${job} source orders: split ${topic}-0`),
        ),
      ).toBe(true);
      // Writing to the stuck partition moves the watermark: the alarm clears.
      await kafka.produce(topic, [{ ...recent(1)[0]!, partition: 0 }]);
      await run.scrapeUntil(
        "the watermark-lag alarm cleared",
        (x) =>
          value(x, "weir_source_records_read_total", { table: "orders" }) === 42 &&
          value(x, "weir_alarm_watermark_lag", { table: "orders" }) === undefined,
      );
      await until("the cleared line", () =>
        run.err.find((l) => l.startsWith(`WEIR-ALARM cleared watermark_lag job=${job} table=orders`)),
      );
    } finally {
      expect(await run.stop(), run.err.join("\n")).toBe(130);
    }
  }, 120_000);

  it.each([
    ["dropped", ""],
    [
      "side-output",
      `, 'late.policy' = 'side-output', 'late.side-output' = 'late_orders');
      CREATE TABLE late_orders (customer STRING, lateness_ms BIGINT) WITH ('connector' = 'blackhole'`,
    ],
  ])("late rows (%s): the late ratio over the last minute and its alarm", async (policy, lateOptions) => {
    const topic = await kafka.topic(`metrics-late-${policy}`, 1);
    // 10 rows a second apart, then 5 from an hour before: their windows have fired, they are late.
    const base = Date.now() - 60_000;
    const at = (ms: number) => new Date(ms).toISOString().replace("T", " ").replace("Z", "");
    const row = (ts: number, i: number) => ({
      key: `c${i % 3}`,
      value: JSON.stringify({ customer: `c${i % 3}`, amount: i, ts: at(ts) }),
      partition: 0,
    });
    await kafka.produce(topic, [
      ...Array.from({ length: 10 }, (_, i) => row(base + i * 1000, i)),
      ...Array.from({ length: 5 }, (_, i) => row(base - 3_600_000 + i * 1000, i)),
    ]);
    const cwd = mkdtempSync(join(tmpdir(), "weir-metrics-"));
    const run = new RunningScript(
      `
      CREATE TABLE orders (customer STRING, amount INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts)
        WITH ('connector' = 'kafka', 'topic' = '${topic}', 'properties.bootstrap.servers' = '${brokers()}',
          'scan.startup.mode' = 'earliest-offset', 'format' = 'json'${lateOptions});
      CREATE TABLE totals (w TIMESTAMP(3), total INT) WITH ('connector' = 'blackhole');
      INSERT INTO totals SELECT window_time, SUM(amount)
        FROM TABLE(TUMBLE(TABLE orders, DESCRIPTOR(ts), INTERVAL '1' SECOND))
        GROUP BY window_start, window_end, window_time;`,
      cwd,
      [["weir.alarm.late-ratio", "0.1"]],
    );
    try {
      const s = await run.scrapeUntil(
        "the late-ratio alarm",
        (x) => value(x, "weir_alarm_late_ratio", { kind: "window-aggregate" }) === 1,
      );
      const win = s.find((x) => x.name === "weir_alarm_late_ratio")!.labels;
      const op = { job: win.job!, task: win.task!, kind: "window-aggregate" };
      expect(value(s, "weir_operator_late_records_dropped_total", op)).toBe(policy === "dropped" ? 5 : 0);
      expect(value(s, "weir_operator_records_in_total", op)).toBe(15);
      // Routed rows are late rows too: the ratio counts them as it counts dropped ones.
      expect(value(s, "weir_operator_late_ratio", op)).toBeCloseTo(5 / 15, 6);
      expect(value(s, "weir_operator_late_records_total", { ...op, policy })).toBe(5);
      // The fired windows' window_time is about a minute before now (the rows are from a minute
      // ago): the event-time lag at the sink, by quantile, within the sketch's 9 %.
      const at = await run.scrapeUntil("the event-time lag at the sink", (x) =>
        x.some((y) => y.name === "weir_sink_event_time_lag_seconds"),
      );
      const q = (quantile: string) =>
        value(at, "weir_sink_event_time_lag_seconds", { job: op.job, table: "totals", quantile })!;
      expect(q("0.5")).toBeGreaterThan(45);
      expect(q("0.5")).toBeLessThan(600);
      expect(q("0.5")).toBeLessThanOrEqual(q("0.95"));
      expect(q("0.95")).toBeLessThanOrEqual(q("0.99"));
      const raised = run.err.filter((l) => l.startsWith("WEIR-ALARM raised late_ratio "));
      expect(raised).toEqual([
        `WEIR-ALARM raised late_ratio job=${op.job} window-aggregate ${op.task}: 5 of 15 rows in the last minute were late (33.3 %, threshold 10.0 %); raise the watermark delay or allow lateness`,
      ]);
    } finally {
      expect(await run.stop(), run.err.join("\n")).toBe(130);
    }
  });

  it("counters continue across a restore from a checkpoint", async () => {
    await db.admin();
    const topic = await kafka.topic("metrics-restore", 2);
    await kafka.produce(topic, recent(30));
    const cwd = mkdtempSync(join(tmpdir(), "weir-metrics-"));
    const settings: [string, string][] = [
      ["execution.checkpointing.interval", "100 ms"],
      ["execution.checkpointing.dir", "chk"],
    ];
    const first = new RunningScript(script(topic, "restored", true), cwd, settings);
    let upserted = 0;
    let commits = 0;
    let bytes = 0;
    let jobId = "";
    try {
      const read = await first.scrapeUntil(
        "30 records read",
        (s) => value(s, "weir_source_records_read_total") === 30,
      );
      // A checkpoint triggered after all 30 were read carries the counts.
      const c0 = value(read, "weir_checkpoints_completed_total")!;
      const s = await first.scrapeUntil(
        "a checkpoint after the 30 records, its commit counted in the table",
        (x) =>
          value(x, "weir_checkpoints_completed_total")! > c0 + 1 &&
          value(x, "weir_sink_table_rows") === customers.length,
      );
      upserted = value(s, "weir_sink_rows_upserted_total")!;
      // The exactly-once sink's commits are timed; alignment is 0 without a task of two inputs.
      commits = value(s, "weir_sink_commit_latency_seconds_count")!;
      expect(commits).toBeGreaterThan(0);
      expect(value(s, "weir_checkpoint_alignment_seconds_total")).toBe(0);
      expect(value(s, "weir_checkpoint_last_alignment_seconds")).toBe(0);
      expect(value(s, "weir_checkpoint_last_duration_seconds")).toBeGreaterThan(0);
      expect(value(s, "weir_operator_state_bytes", { kind: "group-aggregate" })).toBeGreaterThan(0);
      expect(upserted).toBeGreaterThanOrEqual(customers.length);
      expect(value(s, "weir_checkpoint_duration_seconds_total")).toBeGreaterThan(0);
      bytes = value(s, "weir_checkpoint_size_bytes")!;
      jobId = s.find((x) => x.name === "weir_job_up")!.labels.job!;
    } finally {
      expect(await first.stop(), first.err.join("\n")).toBe(130);
    }
    // The size is that of the checkpoint directory (manifest and state file): every checkpoint
    // after the 30 records holds the same state, so the one retention kept has that size, but
    // for the digits of its id, timestamp and duration in the manifest.
    const dirs = readdirSync(join(cwd, "chk", jobId)).filter((d) => d.startsWith("chk-"));
    expect(dirs).toHaveLength(1);
    const kept = join(cwd, "chk", jobId, dirs[0]!);
    const keptBytes = readdirSync(kept).reduce((n, f) => n + statSync(join(kept, f)).size, 0);
    expect(Math.abs(bytes - keptBytes)).toBeLessThan(64);
    await kafka.produce(topic, recent(12, 30));
    const second = new RunningScript(script(topic, "restored", true), cwd, settings, "chk");
    try {
      // 42 = 30 restored + the 12 new ones: a counter of this run only would say 12.
      const s = await second.scrapeUntil(
        "42 records read in all",
        (x) => value(x, "weir_source_records_read_total") === 42,
      );
      expect(value(s, "weir_source_records_read_total")).toBe(42);
      const agg = s.find(
        (x) => x.name === "weir_operator_records_in_total" && x.labels.kind === "group-aggregate",
      );
      expect(agg?.value).toBe(42);
      expect(value(s, "weir_sink_changes_written_total")).toBeGreaterThanOrEqual(30 * 2 - customers.length);
      const after = await second.scrapeUntil(
        "the new rows upserted on top of the restored count",
        (x) => value(x, "weir_sink_rows_upserted_total")! >= upserted + 1,
      );
      // The commit-latency histogram continues the restored counts too.
      expect(value(after, "weir_sink_commit_latency_seconds_count")).toBeGreaterThan(commits);
      expect(value(after, "weir_sink_table_rows")).toBe(customers.length);
      // The table counts each of the 42 rows once: the restored run read only the 12 new ones
      // (its position and state came from the checkpoint), so 42 is the carried count plus 12.
      await until("every row counted once in the table", async () => {
        const r = await db.rows(`SELECT sum(cnt) FROM ${db.schema}.restored`);
        return r[0]?.[0] === "42" ? true : undefined;
      });
    } finally {
      expect(await second.stop(), second.err.join("\n")).toBe(130);
    }
    expect(second.err.some((l) => /^ {2}restored from checkpoint \d+ /.test(l))).toBe(true);
  }, 120_000);
});
