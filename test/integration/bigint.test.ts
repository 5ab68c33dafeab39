// Exact BIGINT over the whole 64-bit range end to end (issue 16): ids such as 2^63 − 1, −2^63 and
// 1234567890123456789 read from JSON and CSV files and Kafka, through a projection with Java's
// wrap-around arithmetic, a join, a window aggregate and a group aggregate, written to filesystem
// JSON/CSV, a Postgres upsert table and an upsert-kafka topic, and a group aggregate with such
// keys checkpointed and restored on both state backends. Expected values are computed here with
// BigInt and Java's long semantics (BigInt.asIntN(64, …)), never with doubles.
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createConnectorRegistry } from "@weir/connectors";
import { CheckpointStore, type JobCheckpoint, runJob } from "@weir/runtime";
import { afterAll, describe, expect, it } from "vitest";
import { Engine } from "../../packages/cli/src/engine/engine.js";
import { planSql } from "../support/plan.js";
import { brokers, KafkaFixture, runSql } from "./kafka-helpers.js";
import { PG_URL, PgFixture } from "./pg-helpers.js";

const db = new PgFixture();
const kafka = new KafkaFixture();
afterAll(async () => {
  await db.close();
  await kafka.close();
});

const MAX = 9223372036854775807n;
const MIN = -9223372036854775808n;
const IDS = [MAX, MIN, 1234567890123456789n, 9007199254740993n, -9007199254740993n, 42n];
const long = (x: bigint) => BigInt.asIntN(64, x);
const dir = mkdtempSync(join(tmpdir(), "weir-bigint-"));

/** Three events per id, in time order: two in the window [00:00:00, 00:00:10), one in [00:00:10, 00:00:20); v = id. */
const EVENTS = ["00:00:01", "00:00:02", "00:00:15"].flatMap((t) =>
  IDS.map((id) => ({ id, v: id, ts: `2026-01-01 ${t}` })),
);
const eventLine = (e: { id: bigint; v: bigint; ts: string }) =>
  `{"id": ${e.id}, "v": ${e.v}, "ts": "${e.ts}"}`;

function lines(path: string): string[] {
  return readFileSync(path, "utf8")
    .split("\n")
    .filter((l) => l !== "")
    .sort();
}

async function ok(sql: string): Promise<void> {
  const r = await runSql(sql, { cwd: dir });
  expect(
    r.err.filter((l) => /error/i.test(l)),
    r.err.join("\n"),
  ).toEqual([]);
  expect(r.code).toBe(0);
}

describe("exact BIGINT end to end", () => {
  it("files → projection, join, window aggregate, group aggregate → JSON, CSV and a Postgres upsert table, digit for digit", async () => {
    const events = join(dir, "events.jsonl");
    writeFileSync(events, `${EVENTS.map(eventLine).join("\n")}\n`);
    const names = join(dir, "names.csv");
    writeFileSync(names, `${IDS.map((id, i) => `${id},n${i}`).join("\n")}\n`);
    const table = `${db.schema}.bigint_totals`;
    await db.admin();
    await ok(`
      CREATE TABLE events (id BIGINT, v BIGINT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts)
        WITH ('connector' = 'filesystem', 'path' = '${events}', 'format' = 'json');
      CREATE TABLE names (id BIGINT, name STRING) WITH ('connector' = 'filesystem', 'path' = '${names}', 'format' = 'csv');
      CREATE TABLE calc (id BIGINT, p1 BIGINT, t2 BIGINT, neg BIGINT, d BIGINT, m INT, s STRING, i INT, back BIGINT)
        WITH ('connector' = 'filesystem', 'path' = '${join(dir, "calc.csv")}', 'format' = 'csv');
      CREATE TABLE joined (id BIGINT, name STRING, v BIGINT)
        WITH ('connector' = 'filesystem', 'path' = '${join(dir, "joined.jsonl")}', 'format' = 'json');
      CREATE TABLE windowed (w STRING, id BIGINT, n BIGINT, s BIGINT, mx BIGINT, mn BIGINT)
        WITH ('connector' = 'filesystem', 'path' = '${join(dir, "windowed.jsonl")}', 'format' = 'json');
      CREATE TABLE totals (id BIGINT, n BIGINT, s BIGINT, a BIGINT, mx BIGINT, PRIMARY KEY (id) NOT ENFORCED)
        WITH ('connector' = 'postgres', 'url' = '${PG_URL}', 'table-name' = '${table}', 'sink.create-table' = 'true');
      INSERT INTO calc SELECT id, id + 1, id * 2, -id, id / 10, id % 10, CAST(id AS STRING), CAST(id AS INT),
        CAST(CAST(id AS STRING) AS BIGINT) FROM events WHERE ts < TIMESTAMP '2026-01-01 00:00:02';
      INSERT INTO joined SELECT e.id, n.name, e.v FROM events e JOIN names n ON e.id = n.id;
      INSERT INTO windowed SELECT DATE_FORMAT(window_start, 'HH:mm:ss'), id, COUNT(*), SUM(v), MAX(v), MIN(v + 1)
        FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '10' SECOND)) GROUP BY window_start, window_end, id;
      INSERT INTO totals SELECT id, COUNT(*), SUM(v), AVG(v), MAX(v + 1) FROM events GROUP BY id;
    `);

    // Java semantics: + and * wrap, / truncates, % has the dividend's sign, (int) keeps the low bits.
    expect(lines(join(dir, "calc.csv"))).toEqual(
      IDS.map((id) =>
        [
          id,
          long(id + 1n),
          long(id * 2n),
          long(-id),
          long(id / 10n),
          id % 10n,
          id,
          BigInt.asIntN(32, id),
          id,
        ].join(","),
      ).sort(),
    );
    expect(lines(join(dir, "joined.jsonl"))).toEqual(
      EVENTS.map((e) => `{"id":${e.id},"name":"n${IDS.indexOf(e.id)}","v":${e.v}}`).sort(),
    );
    expect(lines(join(dir, "windowed.jsonl"))).toEqual(
      IDS.flatMap((id) => [
        `{"w":"00:00:00","id":${id},"n":2,"s":${long(2n * id)},"mx":${id},"mn":${long(id + 1n)}}`,
        `{"w":"00:00:10","id":${id},"n":1,"s":${id},"mx":${id},"mn":${long(id + 1n)}}`,
      ]).sort(),
    );
    // SUM wraps like Flink's (a Java long); AVG(BIGINT) is BIGINT: the wrapped sum / count.
    const rows = await db.rows(`SELECT id, n, s, a, mx FROM ${table}`);
    expect(rows.map((r) => r.join(" ")).sort()).toEqual(
      IDS.map((id) => {
        const sum = long(3n * id);
        const mx = id === MAX ? MIN : id + 1n; // MAX(v + 1): v + 1 wrapped for 2^63 − 1
        return `${id} 3 ${sum} ${sum / 3n} ${mx}`;
      }).sort(),
    );
    const types = await db.rows(
      `SELECT data_type FROM information_schema.columns WHERE table_schema = '${db.schema}' AND table_name = 'bigint_totals' AND column_name = 'id'`,
    );
    expect(types).toEqual([["bigint"]]);
  });

  it("Kafka: values, keys and the offset metadata column exact; an upsert-kafka sink keyed by a 64-bit id", async () => {
    const input = await kafka.topic("in", 1, "bigint_it");
    const output = await kafka.topic("totals", 2, "bigint_it");
    const records = IDS.flatMap((id) => [id, id]).map((id) => ({
      key: `{"id":${id}}`,
      value: `{"id": ${id}, "v": ${id}}`,
    }));
    await kafka.produce(input, records);
    await ok(`
      CREATE TABLE kin (id BIGINT, v BIGINT, off BIGINT METADATA FROM 'offset' VIRTUAL) WITH ('connector' = 'kafka',
        'topic' = '${input}', 'properties.bootstrap.servers' = '${brokers()}', 'scan.startup.mode' = 'earliest-offset',
        'scan.bounded.mode' = 'latest-offset', 'format' = 'json');
      CREATE TABLE kout (id BIGINT, s BIGINT, last_off BIGINT, PRIMARY KEY (id) NOT ENFORCED) WITH ('connector' = 'upsert-kafka',
        'topic' = '${output}', 'properties.bootstrap.servers' = '${brokers()}', 'key.format' = 'json', 'value.format' = 'json');
      INSERT INTO kout SELECT id, SUM(v * 3), MAX(off) FROM kin GROUP BY id;
    `);
    const last = new Map<string, string | null>();
    for (const r of await kafka.readAll(output)) last.set(r.key ?? "", r.value);
    expect([...last].sort()).toEqual(
      IDS.map((id, i): [string, string] => [
        `{"id":${id}}`,
        `{"id":${id},"s":${long(long(id * 3n) * 2n)},"last_off":${2 * i + 1}}`,
      ]).sort(),
    );
  });

  for (const backend of ["hashmap", "rocksdb"] as const) {
    it(`checkpoints and restores aggregate state keyed by 64-bit ids (${backend})`, async () => {
      const input = join(dir, `chk-${backend}.jsonl`);
      const n = 240;
      const ev = Array.from({ length: n }, (_, i) => ({
        id: IDS[i % IDS.length]!,
        v: i % 4 === 0 ? MAX : BigInt(i),
      }));
      writeFileSync(input, `${ev.map((e) => `{"id": ${e.id}, "v": ${e.v}}`).join("\n")}\n`);
      const table = `bigint_chk_${backend}`;
      const sql = `
        SET 'state.backend.type' = '${backend}';
        CREATE TABLE events (id BIGINT, v BIGINT) WITH ('connector' = 'filesystem', 'path' = '${input}', 'format' = 'json');
        CREATE TABLE totals (id BIGINT, c BIGINT, s BIGINT, mx BIGINT, PRIMARY KEY (id) NOT ENFORCED) WITH (
          'connector' = 'postgres', 'url' = '${PG_URL}', 'table-name' = '${db.schema}.${table}', 'sink.create-table' = 'true');
        INSERT INTO totals SELECT id, COUNT(*), SUM(v), MAX(v - id) FROM events GROUP BY id;`;
      const want = IDS.map((id) => {
        const mine = ev.filter((e) => e.id === id);
        const sum = mine.reduce((s, e) => long(s + e.v), 0n);
        const mx = mine.map((e) => long(e.v - id)).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))[
          mine.length - 1
        ];
        return `${id} ${mine.length} ${sum} ${mx}`;
      }).sort();

      const base = join(dir, `chk-${backend}`);
      const store = new CheckpointStore(base, 2);
      await db.admin();
      const dag = planSql(sql);
      const controller = new AbortController();
      let clock = 0;
      const first = await runJob(dag, {
        connectors: createConnectorRegistry(),
        cwd: dir,
        now: () => clock++,
        pollBatchSize: 20,
        signal: controller.signal,
        settings: { "execution.checkpointing.interval": "1 ms" },
        checkpoint: {
          onCheckpoint: async (cp: JobCheckpoint) => {
            if (cp.checkpointId <= 5) store.write(cp);
            if (cp.checkpointId === 7) controller.abort();
          },
        },
      });
      expect(first.reason).toBe("aborted");
      const partial = (await db.rows(`SELECT id, c, s, mx FROM ${db.schema}.${table}`)).map((r) =>
        r.join(" "),
      );
      expect(partial.sort()).not.toEqual(want);

      const err: string[] = [];
      const again = new Engine({ cwd: dir, out: { out: () => {}, err: (l) => err.push(l) } });
      const code = await again.runScript(sql, { file: "test.sql", restore: `chk-${backend}` });
      expect(code, err.join("\n")).toBe(0);
      expect(err.join("\n")).toContain("restored from checkpoint 5");
      const rows = await db.rows(`SELECT id, c, s, mx FROM ${db.schema}.${table}`);
      expect(rows.map((r) => r.join(" ")).sort()).toEqual(want);
    });
  }
});
