// The seeds' two layers, sql/revenue_minute_two_layers.sql, against a real Kafka broker and a real
// Postgres: order-paid JSON events (out of order, duplicated, late) in a fresh topic → the realtime
// layer (2 min watermark, 3 min allowed lateness, provisional rows turning final; later events to
// a late topic) and the correction layer (24 h allowed lateness) → two Postgres tables. The
// expected rows are computed independently from the event file.
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { brokers, KafkaFixture, runSql } from "./kafka-helpers.js";
import { PG_URL, PgFixture } from "./pg-helpers.js";

const ROOT = resolve(import.meta.dirname, "../..");
const SCRIPT = readFileSync(join(ROOT, "sql/revenue_minute_two_layers.sql"), "utf8");
/**
 * The shared event file, plus two mobile-payment retries that arrive 10 and 8 minutes late (the
 * seeds' case): beyond the realtime layer's 2 + 3 minutes, within the correction layer's 24 h.
 */
const EVENTS = [
  ...readFileSync(join(ROOT, "sql/data/order_paid.jsonl"), "utf8").trim().split("\n"),
  '{"event_id":"evt-20260624-0901","event_type":"OrderPaid","event_version":1,"order_id":"ord-901","store_id":"store-1","amount":15000.00,"currency":"KRW","paid_at":"2026-06-24T11:45:40+09:00","produced_at":"2026-06-24T11:55:40+09:00"}',
  '{"event_id":"evt-20260624-0902","event_type":"OrderPaid","event_version":1,"order_id":"ord-902","store_id":"store-7","amount":2500.00,"currency":"KRW","paid_at":"2026-06-24T11:48:10+09:00","produced_at":"2026-06-24T11:56:10+09:00"}',
];

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
 * A layer's definition as a batch over the events in arrival order (one partition): the
 * watermark before each event is max paid time − 2 min; an event whose minute window ended at or
 * before watermark − `allowedMs` is late (not counted, and listed); the first event of each
 * event_id counts (processing-time dedup = arrival order). Per window, store and currency:
 * distinct orders, exact sum, events.
 */
function expected(
  lines: readonly string[],
  allowedMs: number,
): { rows: Map<string, string>; late: string[] } {
  let watermark = Number.NEGATIVE_INFINITY;
  const seen = new Set<string>();
  const late: string[] = [];
  const groups = new Map<string, { orders: Set<string>; cents: bigint; events: number }>();
  for (const line of lines) {
    const e = JSON.parse(line) as Event;
    const t = Date.parse(e.paid_at);
    const start = Math.floor(t / 60_000) * 60_000;
    const isLate = start + 60_000 - 1 + allowedMs <= watermark;
    watermark = Math.max(watermark, t - 120_000);
    if (e.event_type !== "OrderPaid" || seen.has(e.event_id)) continue;
    seen.add(e.event_id);
    if (isLate) {
      late.push(e.order_id);
      continue;
    }
    const key = `${start}|${e.store_id}|${e.currency}`;
    const g = groups.get(key) ?? { orders: new Set<string>(), cents: 0n, events: 0 };
    g.orders.add(e.order_id);
    g.cents += cents(line);
    g.events++;
    groups.set(key, g);
  }
  const rows = new Map<string, string>();
  for (const [key, g] of groups) {
    const start = Number(key.split("|")[0]);
    rows.set(key, `${start + 60_000} ${g.orders.size} ${money(g.cents)} ${g.events}`);
  }
  return { rows, late: late.sort() };
}

function rewrite(topic: string, lateTopic: string, realtime: string, final: string): string {
  const sql = SCRIPT.replaceAll("'topic' = 'order-paid'", `'topic' = '${topic}'`)
    .replace("'topic' = 'late-order-paid'", `'topic' = '${lateTopic}'`)
    .replaceAll("'localhost:9092'", `'${brokers()}'`)
    .replace("'weir-revenue-realtime'", `'${topic}-realtime'`)
    .replace("'weir-revenue-corrections'", `'${topic}-corrections'`)
    .replaceAll("'jdbc:postgresql://127.0.0.1:5432/postgres'", `'${PG_URL}'`)
    .replace("'table-name' = 'revenue_minute'", `'table-name' = '${realtime}'`)
    .replace("'table-name' = 'revenue_minute_final'", `'table-name' = '${final}'`)
    .replaceAll(/\s*'username' = 'postgres',\n\s*'password' = 'postgres',/g, "")
    .replace("'out/checkpoints/revenue_minute_two_layers'", `'${mkdtempSync(join(tmpdir(), "weir-cp-"))}'`);
  for (const needle of [topic, lateTopic, realtime, final]) expect(sql).toContain(needle);
  expect(sql).not.toContain("'localhost:9092'");
  return sql;
}

async function actual(table: string): Promise<{ rows: Map<string, string>; meta: (string | null)[][] }> {
  const rows = await db.rows(
    `SELECT (extract(epoch FROM window_start) * 1000)::bigint, store_id, currency,
            (extract(epoch FROM window_end) * 1000)::bigint, order_count, revenue_amount, source_event_count,
            version, is_final, (extract(epoch FROM watermark_at) * 1000)::bigint
     FROM ${table}`,
  );
  return {
    rows: new Map(rows.map((r) => [`${r[0]}|${r[1]}|${r[2]}`, `${r[3]} ${r[4]} ${r[5]} ${r[6]}`])),
    meta: rows.map((r) => [r[3], r[7], r[8], r[9]]),
  };
}

function sorted(m: Map<string, string>): [string, string][] {
  return [...m].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
}

describe("sql/revenue_minute_two_layers.sql (real Kafka, real Postgres)", () => {
  it("realtime rows within 3 min of lateness turn final, later events go to the late topic, the mart is corrected for 24 h", async () => {
    const topic = await kafka.topic("order-paid-2l", 1);
    const lateTopic = await kafka.topic("late-order-paid-2l", 1);
    await kafka.produce(
      topic,
      EVENTS.map((l) => ({ key: (JSON.parse(l) as Event).order_id, value: l })),
    );
    const realtime = await db.createRevenueMinute("revenue_minute");
    const final = await db.createRevenueMinute("revenue_minute_final");
    const { code, err } = await runSql(rewrite(topic, lateTopic, realtime, final));
    expect(code, err.join("\n")).toBe(0);

    const rt = expected(EVENTS, 3 * 60_000);
    const mart = expected(EVENTS, 24 * 3600_000);
    // The data has events late beyond 2 + 3 minutes (else the test would not test the side output),
    // and the correction layer counts them.
    expect(rt.late.length).toBeGreaterThan(0);
    expect(mart.late).toEqual([]);
    const gotRt = await actual(realtime);
    const gotMart = await actual(final);
    expect(sorted(gotRt.rows)).toEqual(sorted(rt.rows));
    expect(sorted(gotMart.rows)).toEqual(sorted(mart.rows));

    const lastWatermark =
      Math.max(...EVENTS.map((l) => Date.parse((JSON.parse(l) as Event).paid_at))) - 120_000;
    // At the end of the bounded input every row is final. A window that fired while the input
    // still ran was provisional first (version 1, is_final FALSE), then corrected or made final
    // (a higher version): the final row overwrote it. Windows still open at the end of the input
    // fire final at once (version 1).
    for (const meta of [gotRt.meta, gotMart.meta]) {
      for (const [windowEnd, version, isFinal, watermarkAt] of meta) {
        expect(isFinal).toBe("t");
        expect(Number(version)).toBeGreaterThanOrEqual(1);
        // The watermark that fired or corrected it, or the last watermark for a window that
        // fired at the end of the input (whose end the watermark never reached).
        expect(watermarkAt).not.toBeNull();
        expect(Number(watermarkAt)).toBeLessThanOrEqual(lastWatermark);
        if (Number(version) >= 2) expect(Number(watermarkAt)).toBeGreaterThanOrEqual(Number(windowEnd) - 1);
      }
      expect(meta.filter((m) => Number(m[1]) >= 2).length).toBeGreaterThan(meta.length / 2);
    }

    // The late topic: exactly the events the realtime layer could not count, with the report.
    const late = (await kafka.readAll(lateTopic)).map((r) => JSON.parse(r.value!) as Record<string, unknown>);
    expect(late.map((r) => r.order_id as string).sort()).toEqual(rt.late);
    for (const r of late) {
      expect(Number(r.lateness_ms)).toBeGreaterThan(3 * 60_000);
      expect(String(r.reason)).toMatch(/^window-aggregate \d+: window \[.*\) has fired$/);
      expect(r.current_watermark).not.toBeNull();
    }
    expect(err.join("\n")).toMatch(/late records routed to a side-output table/);
  });
});
