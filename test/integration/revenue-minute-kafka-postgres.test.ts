// The seeds' production pipeline, sql/revenue_minute_kafka_postgres.sql, against a real Kafka
// broker and a real Postgres: order-paid JSON events (out of order, duplicated, late) in a fresh
// topic → deduplicated, revenue per store and currency per KST minute → upserted into
// revenue_minute. The expected rows are computed independently from the event file.
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { brokers, KafkaFixture, runSql } from "./kafka-helpers.js";
import { eventually, PG_URL, PgFixture, startScript } from "./pg-helpers.js";

const ROOT = resolve(import.meta.dirname, "../..");
const SCRIPT = readFileSync(join(ROOT, "sql/revenue_minute_kafka_postgres.sql"), "utf8");
const EVENTS = readFileSync(join(ROOT, "sql/data/order_paid.jsonl"), "utf8").trim().split("\n");

const kafka = new KafkaFixture();
const db = new PgFixture();

afterAll(async () => {
  await db.close();
  await kafka.close();
});

interface Event {
  event_id: string;
  event_type: string;
  order_id: string;
  store_id: string;
  currency: string;
  paid_at: string;
}

/** Cents from the amount's source text, exactly. */
function cents(line: string): bigint {
  const m = /"amount":(-?)(\d+)(?:\.(\d{1,2}))?/.exec(line)!;
  const v = BigInt(m[2]!) * 100n + BigInt((m[3] ?? "0").padEnd(2, "0"));
  return m[1] === "-" ? -v : v;
}

function money(c: bigint): string {
  const sign = c < 0n ? "-" : "";
  const a = c < 0n ? -c : c;
  return `${sign}${a / 100n}.${(a % 100n).toString().padStart(2, "0")}`;
}

/**
 * The pipeline's definition as a batch over the events in arrival order (one partition): the
 * watermark after each event is max paid time − 2 min; an event whose minute window ended at or
 * before the watermark is late; the first event of each event_id counts (processing-time order
 * = arrival order), late or not, for deduplication; then per window, store and currency:
 * distinct orders, exact sum, events. Keys are `epoch-ms|store|currency`.
 */
function expectedRows(lines: readonly string[]): Map<string, string> {
  let watermark = Number.NEGATIVE_INFINITY;
  const seen = new Set<string>();
  const groups = new Map<string, { orders: Set<string>; cents: bigint; events: number }>();
  for (const line of lines) {
    const e = JSON.parse(line) as Event;
    const t = Date.parse(e.paid_at);
    const start = Math.floor(t / 60_000) * 60_000;
    const late = start + 60_000 - 1 <= watermark;
    watermark = Math.max(watermark, t - 120_000);
    if (e.event_type !== "OrderPaid" || seen.has(e.event_id)) continue;
    seen.add(e.event_id);
    if (late) continue;
    const key = `${start}|${e.store_id}|${e.currency}`;
    const g = groups.get(key) ?? { orders: new Set<string>(), cents: 0n, events: 0 };
    g.orders.add(e.order_id);
    g.cents += cents(line);
    g.events++;
    groups.set(key, g);
  }
  const out = new Map<string, string>();
  for (const [key, g] of groups) {
    const start = Number(key.split("|")[0]);
    out.set(key, `${start + 60_000} ${g.orders.size} ${money(g.cents)} ${g.events}`);
  }
  return out;
}

/** The script with the test's topic, broker, consumer group and Postgres table. */
function rewrite(topic: string, table: string, opts: { bounded: boolean; appName?: string }): string {
  const url = new URL(PG_URL);
  if (opts.appName) url.searchParams.set("application_name", opts.appName);
  let sql = SCRIPT.replace("'topic' = 'order-paid'", `'topic' = '${topic}'`)
    .replace("'localhost:9092'", `'${brokers()}'`)
    .replace("'weir-revenue-minute'", `'${topic}-group'`)
    .replace("'jdbc:postgresql://127.0.0.1:5432/postgres'", `'${url.toString()}'`)
    .replace("'table-name' = 'revenue_minute'", `'table-name' = '${table}'`)
    .replace(/\s*'username' = 'postgres',\n\s*'password' = 'postgres',/, "")
    .replace("'out/checkpoints/revenue_minute'", `'${mkdtempSync(join(tmpdir(), "weir-cp-"))}'`);
  if (!opts.bounded) sql = sql.replace("  'scan.bounded.mode' = 'latest-offset',\n", "");
  for (const needle of [topic, brokers(), table]) expect(sql).toContain(needle);
  expect(sql.includes("'scan.bounded.mode'")).toBe(opts.bounded);
  return sql;
}

/** Key and value columns as `expectedRows` spells them. */
async function actualRows(table: string): Promise<Map<string, string>> {
  const rows = await db.rows(
    `SELECT (extract(epoch FROM window_start) * 1000)::bigint, store_id, currency,
            (extract(epoch FROM window_end) * 1000)::bigint, order_count, revenue_amount, source_event_count
     FROM ${table}`,
  );
  return new Map(rows.map((r) => [`${r[0]}|${r[1]}|${r[2]}`, `${r[3]} ${r[4]} ${r[5]} ${r[6]}`]));
}

function sorted(m: Map<string, string>): [string, string][] {
  return [...m].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
}

describe("sql/revenue_minute_kafka_postgres.sql (real Kafka, real Postgres)", () => {
  it("upserts exactly the expected revenue per store per minute, with the seeds' columns", async () => {
    const topic = await kafka.topic("order-paid", 1);
    await kafka.produce(
      topic,
      EVENTS.map((l) => ({ key: (JSON.parse(l) as Event).order_id, value: l })),
    );
    const table = await db.createRevenueMinute("revenue_minute");
    const started = Date.now();
    const { code, err } = await runSql(rewrite(topic, table, { bounded: true }));
    expect(code, err.join("\n")).toBe(0);
    const expected = expectedRows(EVENTS);
    expect(expected.size).toBeGreaterThan(5);
    expect(sorted(await actualRows(table))).toEqual(sorted(expected));
    // The data has late events: the run reports the drops.
    expect(err.join("\n")).toMatch(/3 late records dropped/);

    // The columns that are not a function of the events: filled, and consistent.
    const extra = await db.rows(
      `SELECT version, is_final, (extract(epoch FROM watermark_at) * 1000)::bigint,
              (extract(epoch FROM updated_at) * 1000)::bigint, (extract(epoch FROM window_end) * 1000)::bigint
       FROM ${table}`,
    );
    const now = Date.now();
    for (const [version, isFinal, watermarkAt, updatedAt, windowEnd] of extra) {
      const v = Number(version);
      expect(v).toBeGreaterThanOrEqual(Math.floor(started / 1000) - 1);
      expect(v).toBeLessThanOrEqual(Math.ceil(now / 1000) + 1);
      expect(Number(updatedAt)).toBeGreaterThanOrEqual(started - 1000);
      expect(Number(updatedAt)).toBeLessThanOrEqual(now + 1000);
      // A window TVF aggregation emits each window once, when the watermark reaches
      // window_time (= window_end − 1 ms): every row is final, computed at that watermark.
      expect(isFinal).toBe("t");
      expect(Number(watermarkAt)).toBe(Number(windowEnd) - 1);
    }
  });

  it("still gets the exact result when the sink's connection is killed mid-run", async () => {
    const topic = await kafka.topic("order-paid-kill", 1);
    const table = await db.createRevenueMinute("revenue_minute_kill");
    const appName = `weir_it_kill_${db.schema}`;
    const half = Math.floor(EVENTS.length / 2);
    await kafka.produce(
      topic,
      EVENTS.slice(0, half).map((l) => ({ value: l })),
    );
    // An unbounded run: the job stays up across the kill and ends when the test stops it.
    const run = startScript(rewrite(topic, table, { bounded: false, appName }));
    const admin = await db.admin();
    await eventually(
      async () => (await actualRows(table)).size > 0,
      () => `no rows before the kill; stderr:\n${run.err.join("\n")}`,
    );
    const killed = await admin.query({
      text: "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1",
      values: [appName],
    });
    expect(killed.rowCount).toBeGreaterThanOrEqual(1);

    // The rest of the events, and one far later event whose watermark closes every window of
    // the file (its own window stays open: an unbounded job never fires it).
    const last = Math.max(...EVENTS.map((l) => Date.parse((JSON.parse(l) as Event).paid_at)));
    const closer = {
      event_id: "evt-closer",
      event_type: "OrderPaid",
      event_version: 1,
      order_id: "ord-closer",
      store_id: "store-closer",
      amount: 1,
      currency: "KRW",
      paid_at: new Date(last + 10 * 60_000).toISOString().replace(".000Z", "+00:00"),
      produced_at: new Date(last + 10 * 60_000).toISOString().replace(".000Z", "+00:00"),
    };
    await kafka.produce(
      topic,
      [...EVENTS.slice(half), JSON.stringify(closer)].map((l) => ({ value: l })),
    );

    const expected = sorted(expectedRows(EVENTS));
    let actual: [string, string][] = [];
    await eventually(
      async () => {
        actual = sorted(await actualRows(table));
        return JSON.stringify(actual) === JSON.stringify(expected);
      },
      () =>
        `revenue_minute is\n${actual.join("\n")}\nexpected\n${expected.join("\n")}\n${run.err.join("\n")}`,
    );
    expect(run.settled()).toBe(false);
    run.stop();
    expect(await run.done, run.err.join("\n")).toBe(130); // stopped by Ctrl-C (EXIT_INTERRUPTED)
    expect(sorted(await actualRows(table))).toEqual(expected);
  });
});
