// Issue 14, item 2: backfill as its own mode. sql/revenue_minute_kafka_postgres.sql run with
// `--backfill REPLAY_ID` over a day of order-paid events in a replay topic: the realtime topic is
// never read (it does not even exist here), the rows go to the staging table with replay_id,
// replayed_at and original_event_time, and merge once into revenue_minute under the version
// guard; a second run with the same replay id changes nothing.
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { Engine } from "../../packages/cli/src/engine/engine.js";
import { createConnectorRegistry } from "../../packages/connectors/src/index.js";
import { brokers, KafkaFixture } from "./kafka-helpers.js";
import { PG_URL, PgFixture } from "./pg-helpers.js";

const ROOT = resolve(import.meta.dirname, "../..");
const SCRIPT = readFileSync(join(ROOT, "sql/revenue_minute_kafka_postgres.sql"), "utf8");

const kafka = new KafkaFixture();
const db = new PgFixture();
afterAll(async () => {
  await db.close();
  await kafka.close();
});

const STORES = ["store-1", "store-2", "store-7"];
const pad = (n: number) => String(n).padStart(2, "0");

/** A day of events in KST: each store pays once every 10 minutes, 1000 KRW + the minute of the day. */
function dayOfEvents(): string[] {
  const events: string[] = [];
  for (let m = 0; m < 24 * 60; m += 10) {
    for (const [s, store] of STORES.entries()) {
      const at = `2026-06-24T${pad(Math.floor(m / 60))}:${pad(m % 60)}:${pad(10 + s)}+09:00`;
      events.push(
        JSON.stringify({
          event_id: `evt-${m}-${s}`,
          event_type: "OrderPaid",
          event_version: 1,
          order_id: `ord-${m}-${s}`,
          store_id: store,
          amount: 1000 + m,
          currency: "KRW",
          paid_at: at,
          produced_at: at,
        }),
      );
    }
  }
  return events;
}

function script(realtimeTopic: string, replayTopic: string, table: string): string {
  const sql = SCRIPT.replace("'topic' = 'order-paid'", `'topic' = '${realtimeTopic}'`)
    .replace("'order-paid-replay'", `'${replayTopic}'`)
    .replace("'localhost:9092'", `'${brokers()}'`)
    .replace("'weir-revenue-minute-backfill'", `'${replayTopic}-group'`)
    .replace("'jdbc:postgresql://127.0.0.1:5432/postgres'", `'${PG_URL}'`)
    .replace("'table-name' = 'revenue_minute'", `'table-name' = '${table}'`)
    .replace("'revenue_minute_staging'", `'${table}_staging'`)
    .replace(/\s*'username' = 'postgres',\n\s*'password' = 'postgres',/, "")
    .replace("'out/checkpoints/revenue_minute'", `'${mkdtempSync(join(tmpdir(), "weir-cp-"))}'`);
  for (const needle of [realtimeTopic, replayTopic, `${table}_staging`, `'${replayTopic}-group'`])
    expect(sql).toContain(needle);
  return sql;
}

async function backfill(sql: string, replayId: string): Promise<{ code: number; err: string }> {
  const err: string[] = [];
  const engine = new Engine({
    cwd: ROOT,
    out: { out: () => undefined, err: (l) => err.push(l) },
    connectors: createConnectorRegistry(),
  });
  const code = await engine.runScript(sql, { file: "backfill.sql", backfill: replayId });
  return { code, err: err.join("\n") };
}

describe("weir run --backfill (real Kafka, real Postgres)", () => {
  it("merges a day of replayed events once, keeps newer realtime rows, and a second run changes nothing", async () => {
    const replay = await kafka.topic("order-paid-replay", 2);
    const events = dayOfEvents();
    await kafka.produce(
      replay,
      events.map((value, i) => ({ value, partition: i % 3 === 2 ? 1 : 0 })),
    );
    const table = await db.createRevenueMinute("revenue_minute_bf");
    // Two realtime rows already there: one written after the replay was computed (a newer
    // version, kept), one older than the replay (overwritten).
    await db.rows(`INSERT INTO ${table} VALUES
      ('2026-06-24 12:00:00+09', '2026-06-24 12:01:00+09', 'store-1', 'KRW', 9, 999.00, 9, 99999999999, true, '2026-06-24 12:00:59.999+09', now()),
      ('2026-06-24 13:00:00+09', '2026-06-24 13:01:00+09', 'store-2', 'KRW', 9, 999.00, 9, 1, true, '2026-06-24 13:00:59.999+09', now())`);
    const sql = script(`${replay}-realtime-never-created`, replay, table);

    const first = await backfill(sql, "2026-06-24-replay");
    expect(first.code, first.err).toBe(0);
    const windows = (24 * 60) / 10;
    expect(first.err).toContain(
      `backfill '2026-06-24-replay' merged into revenue_minute: ${windows * STORES.length - 1} rows written, 1 kept (the target's version was as new or newer); staging table ${table}_staging`,
    );
    const rows = await db.rows(
      `SELECT to_char(window_start AT TIME ZONE 'Asia/Seoul', 'HH24:MI'), store_id, order_count, revenue_amount, version FROM ${table} ORDER BY 1, 2`,
    );
    expect(rows).toHaveLength(windows * STORES.length);
    const byKey = new Map(rows.map((r) => [`${r[0]} ${r[1]}`, r]));
    expect(byKey.get("12:00 store-1")!.slice(2)).toEqual(["9", "999.00", "99999999999"]); // newer: kept
    expect(byKey.get("13:00 store-2")!.slice(2, 4)).toEqual(["1", `${1000 + 13 * 60}.00`]); // older: replaced
    expect(byKey.get("23:50 store-7")!.slice(2, 4)).toEqual(["1", `${1000 + 23 * 60 + 50}.00`]);

    // The staging rows carry the replay's columns; original_event_time is the window's event time.
    const staged = await db.rows(
      `SELECT count(*), count(DISTINCT replay_id), min(replay_id),
              bool_and(original_event_time = window_end - interval '1 millisecond'),
              bool_and(replayed_at > now() - interval '1 hour')
       FROM ${table}_staging`,
    );
    expect(staged[0]).toEqual([String(windows * STORES.length), "1", "2026-06-24-replay", "t", "t"]);

    const snapshot = async () => [
      await db.rows(`SELECT * FROM ${table} ORDER BY window_start, store_id`),
      await db.rows(`SELECT * FROM ${table}_staging ORDER BY window_start, store_id`),
    ];
    const before = await snapshot();
    const second = await backfill(sql, "2026-06-24-replay");
    expect(second.code, second.err).toBe(0);
    expect(second.err).toMatch(
      /backfill '2026-06-24-replay' was merged into revenue_minute at .*; nothing to do/,
    );
    expect(await snapshot()).toEqual(before);
  });

  it("refuses a source without a replay input and a sink without a merge", async () => {
    const r = await backfill(
      `CREATE TABLE s (id INT) WITH ('connector' = 'filesystem', 'path' = 'sql/data/orders.jsonl', 'format' = 'json');
CREATE TABLE o (id INT) WITH ('connector' = 'print');
INSERT INTO o SELECT id FROM s;`,
      "r1",
    );
    expect(r.code).toBe(1);
    expect(r.err).toContain(
      "backfill: source table 's' has no replay input: set 'backfill.path' to the files to replay (a backfill never reads the realtime input 'sql/data/orders.jsonl')",
    );
    const sink = await backfill(
      `CREATE TABLE s (id INT) WITH ('connector' = 'filesystem', 'path' = 'x.jsonl', 'backfill.path' = 'sql/data/orders.jsonl', 'format' = 'json');
CREATE TABLE o (id INT) WITH ('connector' = 'print');
INSERT INTO o SELECT id FROM s;`,
      "r1",
    );
    expect(sink.code).toBe(1);
    expect(sink.err).toContain(
      "backfill: sink table 'o' (connector 'print'): a backfill merges into a Postgres table",
    );
  });
});

describe("weir run --backfill from files, with a cut-over", () => {
  it("replays 'backfill.path' (old events: 'quality.max-age' is a realtime rule) and merges only the windows before 'backfill.cutover'", async () => {
    const dir = mkdtempSync(join(tmpdir(), "weir-bf-"));
    const replay = join(dir, "replay.jsonl");
    const lines = [0, 1, 2, 3].map((m) =>
      JSON.stringify({ id: m, amount: 10 * (m + 1), paid_at: `2026-06-24T10:0${m}:30+09:00` }),
    );
    writeFileSync(replay, `${lines.join("\n")}\n`);
    const table = `${db.schema}.per_minute_bf`;
    await db.rows(
      `CREATE TABLE ${table} (window_start timestamptz PRIMARY KEY, total bigint NOT NULL, version bigint NOT NULL)`,
    );
    const sql = `CREATE TABLE pay (id INT, amount BIGINT, paid_at STRING,
  ts AS TO_TIMESTAMP_LTZ(UNIX_TIMESTAMP(paid_at, 'yyyy-MM-dd''T''HH:mm:ssXXX') * 1000, 3),
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND
) WITH ('connector' = 'filesystem', 'path' = '${join(dir, "realtime-never-read.jsonl")}',
  'backfill.path' = '${replay}', 'format' = 'json',
  'quality.max-age' = '1 d', 'quality.max-future-skew' = '24 h');
CREATE TABLE per_minute (window_start TIMESTAMP_LTZ(3), total BIGINT, version BIGINT, wt TIMESTAMP_LTZ(3),
  PRIMARY KEY (window_start) NOT ENFORCED
) WITH ('connector' = 'jdbc', 'url' = '${PG_URL}', 'table-name' = '${table}',
  'backfill.cutover' = '2026-06-24T10:02:00+09:00');
INSERT INTO per_minute
SELECT CAST(window_start AS TIMESTAMP_LTZ(3)), SUM(amount), UNIX_TIMESTAMP(), window_time
FROM TABLE(TUMBLE(TABLE pay, DESCRIPTOR(ts), INTERVAL '1' MINUTE)) GROUP BY window_start, window_end, window_time;`;
    const r = await backfill(sql, "files-1");
    expect(r.code, r.err).toBe(0);
    expect(r.err).toContain(
      "backfill 'files-1' merged into per_minute: 2 rows written, 0 kept (the target's version was as new or newer), 2 at or after the cut-over left to realtime",
    );
    const rows = await db.rows(
      `SELECT to_char(window_start AT TIME ZONE 'Asia/Seoul', 'HH24:MI'), total FROM ${table} ORDER BY 1`,
    );
    expect(rows).toEqual([
      ["10:00", "10"],
      ["10:01", "20"],
    ]);
    const staged = await db.rows(`SELECT count(*) FROM ${table}_staging WHERE replay_id = 'files-1'`);
    expect(staged).toEqual([["4"]]);
  });
});
