// The Prometheus endpoint during real Kafka runs (`'weir.metrics.port'` = 0, as `weir run
// --metrics-port 0`): metric names, labels and values scraped while the job runs; a stuck
// partition (one old row, then nothing, no idle timeout) raises the watermark-lag alarm while the
// consumer lag is 0; counters continue across a restore from a checkpoint.
import { mkdtempSync, readdirSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { Engine } from "../../packages/cli/src/engine/engine.js";
import { brokers, KafkaFixture } from "./kafka-helpers.js";
import { PG_URL, PgFixture } from "./pg-helpers.js";

const kafka = new KafkaFixture();
const db = new PgFixture();
afterAll(async () => {
  await kafka.close();
  await db.close();
});

interface Sample {
  readonly name: string;
  readonly labels: Record<string, string>;
  readonly value: number;
}

/** The samples of a Prometheus text exposition (`# HELP`/`# TYPE` lines skipped). */
function parseExposition(text: string): Sample[] {
  const out: Sample[] = [];
  for (const line of text.split("\n")) {
    if (line === "" || line.startsWith("#")) continue;
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m) throw new Error(`not an exposition line: ${line}`);
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? "").matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[l[1]!] = l[2]!;
    out.push({ name: m[1]!, labels, value: Number(m[3]) });
  }
  return out;
}

/** The value of the one sample of `name` whose labels include `labels`, or undefined. */
function value(
  samples: readonly Sample[],
  name: string,
  labels: Record<string, string> = {},
): number | undefined {
  const found = samples.filter(
    (s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v),
  );
  if (found.length > 1) throw new Error(`${found.length} samples of ${name} match ${JSON.stringify(labels)}`);
  return found[0]?.value;
}

/** A job run through the CLI's Engine in the background, stopped by `stop()` (as Ctrl-C). */
class RunningScript {
  readonly err: string[] = [];
  private readonly controller = new AbortController();
  readonly done: Promise<number>;

  constructor(sql: string, cwd: string, settings: [string, string][], restore?: string) {
    const engine = new Engine({
      cwd,
      out: { out: () => undefined, err: (l) => this.err.push(l) },
      settings: [["weir.metrics.port", "0"], ...settings],
    });
    this.done = engine.runScript(sql, {
      file: "metrics.sql",
      signal: this.controller.signal,
      ...(restore ? { restore } : {}),
    });
    this.done.then((code) => {
      this.finished = code;
    });
  }

  /** The endpoint's URL, from the line printed at start. */
  async url(): Promise<string> {
    return until("the metrics endpoint's address", () => {
      const line = this.err.find((l) => l.startsWith("weir: metrics at "));
      return line?.slice("weir: metrics at ".length);
    });
  }

  async scrape(): Promise<Sample[]> {
    const res = await fetch(await this.url());
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
    return parseExposition(await res.text());
  }

  /** Scrapes until `ok` holds of a scrape; returns that scrape. */
  async scrapeUntil(what: string, ok: (s: Sample[]) => boolean): Promise<Sample[]> {
    let last: Sample[] = [];
    return until(
      what,
      async () => {
        if (this.finished !== null)
          throw new Error(`the job ended (exit ${this.finished}): ${this.err.join("\n")}`);
        last = await this.scrape();
        return ok(last) ? last : undefined;
      },
      () =>
        `; the last scrape:\n${last
          .filter((x) => x.name.startsWith("weir_"))
          .map((x) => `${x.name}${JSON.stringify(x.labels)} ${x.value}`)
          .join("\n")}\n${this.err.join("\n")}`,
    );
  }

  finished: number | null = null;

  async stop(): Promise<number> {
    this.controller.abort();
    const code = await this.done;
    this.finished = code;
    return code;
  }
}

/** Polls `f` (every 50 ms) until it gives a value; fails after 60 s with what was awaited. */
async function until<T>(
  what: string,
  f: () => T | undefined | Promise<T | undefined>,
  detail: () => string = () => "",
): Promise<T> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const v = await f();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${detail()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const customers = ["ann", "bob", "cid", "dan", "eve"];

function script(topic: string, table: string): string {
  return `
    CREATE TABLE orders (customer STRING, amount INT, ts TIMESTAMP(3),
      WATERMARK FOR ts AS ts - INTERVAL '1' SECOND
    ) WITH ('connector' = 'kafka', 'topic' = '${topic}', 'properties.bootstrap.servers' = '${brokers()}',
      'scan.startup.mode' = 'earliest-offset', 'format' = 'json');
    CREATE TABLE totals (customer STRING, total INT, cnt BIGINT, PRIMARY KEY (customer) NOT ENFORCED) WITH (
      'connector' = 'postgres', 'url' = '${PG_URL}', 'table-name' = '${db.schema}.${table}',
      'sink.create-table' = 'true', 'sink.buffer-flush.interval' = '50 ms');
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
          value(s, "weir_sink_rows_upserted_total", { table: "totals" })! >= customers.length,
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
      const agg = s.find(
        (x) => x.name === "weir_operator_records_in_total" && x.labels.kind === "group-aggregate",
      );
      expect(agg?.value).toBe(41);
      expect(value(s, "weir_operator_late_records_dropped_total", { job, task: agg!.labels.task! })).toBe(0);
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

  it("late rows: the late ratio over the last minute and its alarm", async () => {
    const topic = await kafka.topic("metrics-late", 1);
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
          'scan.startup.mode' = 'earliest-offset', 'format' = 'json');
      CREATE TABLE totals (w TIMESTAMP(3), total INT) WITH ('connector' = 'blackhole');
      INSERT INTO totals SELECT window_start, SUM(amount)
        FROM TABLE(TUMBLE(TABLE orders, DESCRIPTOR(ts), INTERVAL '1' SECOND)) GROUP BY window_start, window_end;`,
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
      expect(value(s, "weir_operator_late_records_dropped_total", op)).toBe(5);
      expect(value(s, "weir_operator_records_in_total", op)).toBe(15);
      expect(value(s, "weir_operator_late_ratio", op)).toBeCloseTo(5 / 15, 6);
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
    const first = new RunningScript(script(topic, "restored"), cwd, settings);
    let upserted = 0;
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
        "a checkpoint after the 30 records",
        (x) => value(x, "weir_checkpoints_completed_total")! > c0 + 1,
      );
      upserted = value(s, "weir_sink_rows_upserted_total")!;
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
    const second = new RunningScript(script(topic, "restored"), cwd, settings, "chk");
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
      await second.scrapeUntil(
        "the new rows upserted on top of the restored count",
        (x) => value(x, "weir_sink_rows_upserted_total")! >= upserted + 1,
      );
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
