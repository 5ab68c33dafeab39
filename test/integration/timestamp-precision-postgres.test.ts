// TIMESTAMP(6) / TIMESTAMP(9) end to end (issue 16): JSON lines with micro- and nanosecond
// timestamps are grouped and joined, and written to a JSON file, a CSV file and a real Postgres
// table (timestamp(6) / timestamptz(6), read back as text: no JS Date in between); the Postgres
// table read back by a Weir postgres source keeps the microseconds; a TIMESTAMP(9) column in a
// Postgres sink is refused, since Postgres holds microseconds.
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { Engine } from "../../packages/cli/src/engine/engine.js";
import { PG_URL, PgFixture } from "./pg-helpers.js";

const db = new PgFixture();
afterAll(() => db.close());

const dir = mkdtempSync(join(tmpdir(), "weir-ts-nanos-"));
const READINGS = [
  { id: 1, sensor: "a", at: "2026-06-24 12:34:56.123456789", seen: "2026-06-24 12:34:56.123456Z" },
  { id: 2, sensor: "a", at: "2026-06-24 12:34:56.123456788", seen: "2026-06-24 12:34:56.000001Z" },
  { id: 3, sensor: "b", at: "2026-06-24 12:34:56.123456789", seen: "2026-06-24 12:34:57.999999Z" },
  { id: 4, sensor: "b", at: "1969-12-31 23:59:59.999999999", seen: "1969-12-31 23:59:59.999999Z" },
  { id: 5, sensor: "c", at: "2026-06-24 12:34:56.123", seen: "2026-06-24 12:34:56.5Z" },
  { id: 6, sensor: "c", at: "2026-06-24 12:34:56.123000000", seen: "2026-06-24 12:34:56.000000Z" },
];
writeFileSync(join(dir, "readings.jsonl"), `${READINGS.map((r) => JSON.stringify(r)).join("\n")}\n`);
writeFileSync(
  join(dir, "marks.jsonl"),
  '{"at":"2026-06-24 12:34:56.123456789","label":"exact"}\n{"at":"2026-06-24 12:34:56.123456790","label":"late"}\n',
);

const SOURCES = `
  CREATE TABLE readings (id INT, sensor STRING, \`at\` TIMESTAMP(9), seen TIMESTAMP_LTZ(6))
    WITH ('connector' = 'filesystem', 'path' = 'readings.jsonl', 'format' = 'json');
  CREATE TABLE marks (\`at\` TIMESTAMP(9), label STRING)
    WITH ('connector' = 'filesystem', 'path' = 'marks.jsonl', 'format' = 'json');`;

async function run(sql: string): Promise<{ code: number; out: string[]; err: string[] }> {
  const out: string[] = [];
  const err: string[] = [];
  const engine = new Engine({ cwd: dir, out: { out: (l) => out.push(l), err: (l) => err.push(l) } });
  const code = await engine.runScript(sql, { file: "ts-nanos.sql" });
  return { code, out, err };
}

describe("TIMESTAMP(6) and TIMESTAMP(9) through files and Postgres", () => {
  it("writes grouped and joined nanosecond timestamps to JSON, CSV and Postgres with their digits", async () => {
    await db.admin();
    const table = `${db.schema}.ts_nanos_by_micro`;
    const r = await run(`${SOURCES}
      CREATE TABLE joined (id INT, \`at\` TIMESTAMP(9), label STRING, seen TIMESTAMP_LTZ(6))
        WITH ('connector' = 'filesystem', 'path' = 'joined.jsonl', 'format' = 'json');
      CREATE TABLE later (id INT, \`at\` TIMESTAMP(9), seen TIMESTAMP_LTZ(6))
        WITH ('connector' = 'filesystem', 'path' = 'later.csv', 'format' = 'csv');
      CREATE TABLE by_micro (
        micro TIMESTAMP(6), n BIGINT, first_seen TIMESTAMP_LTZ(6), last_seen TIMESTAMP_LTZ(6),
        PRIMARY KEY (micro) NOT ENFORCED
      ) WITH ('connector' = 'postgres', 'url' = '${PG_URL}', 'table-name' = '${table}',
              'sink.create-table' = 'true');
      EXECUTE STATEMENT SET BEGIN
        INSERT INTO joined SELECT r.id, r.\`at\`, m.label, r.seen FROM readings r JOIN marks m ON r.\`at\` = m.\`at\`;
        INSERT INTO later SELECT id, TIMESTAMPADD(SECOND, 1, \`at\`), seen FROM readings
          WHERE \`at\` > TIMESTAMP '2026-06-24 12:34:56.123456788';
        INSERT INTO by_micro SELECT CAST(\`at\` AS TIMESTAMP(6)), COUNT(*), MIN(seen), MAX(seen)
          FROM readings GROUP BY CAST(\`at\` AS TIMESTAMP(6));
      END;`);
    expect(r.code, r.err.join("\n")).toBe(0);

    const joined = readFileSync(join(dir, "joined.jsonl"), "utf8").trim().split("\n").sort();
    expect(joined).toEqual([
      '{"id":1,"at":"2026-06-24 12:34:56.123456789","label":"exact","seen":"2026-06-24 12:34:56.123456Z"}',
      '{"id":3,"at":"2026-06-24 12:34:56.123456789","label":"exact","seen":"2026-06-24 12:34:57.999999Z"}',
    ]);
    // a filter one nanosecond above a value, and TIMESTAMPADD keeping the nanoseconds
    expect(readFileSync(join(dir, "later.csv"), "utf8").trim().split("\n").sort()).toEqual([
      "1,2026-06-24 12:34:57.123456789,2026-06-24 12:34:56.123456Z",
      "3,2026-06-24 12:34:57.123456789,2026-06-24 12:34:57.999999Z",
    ]);

    const rows = await db.rows(
      `SELECT micro::text, n::text, first_seen::text, last_seen::text FROM ${table} ORDER BY micro`,
    );
    expect(rows).toEqual([
      ["1969-12-31 23:59:59.999999", "1", "1969-12-31 23:59:59.999999+00", "1969-12-31 23:59:59.999999+00"],
      ["2026-06-24 12:34:56.123", "2", "2026-06-24 12:34:56+00", "2026-06-24 12:34:56.5+00"],
      ["2026-06-24 12:34:56.123456", "3", "2026-06-24 12:34:56.000001+00", "2026-06-24 12:34:57.999999+00"],
    ]);
    const types = await db.rows(
      `SELECT column_name, data_type, datetime_precision::text FROM information_schema.columns
       WHERE table_schema = '${db.schema}' AND table_name = 'ts_nanos_by_micro' ORDER BY ordinal_position`,
    );
    expect(types.filter((t) => t[0] !== "n")).toEqual([
      ["micro", "timestamp without time zone", "6"],
      ["first_seen", "timestamp with time zone", "6"],
      ["last_seen", "timestamp with time zone", "6"],
    ]);

    // Read back by a Weir postgres source: the microseconds survive (text, not a JS Date).
    const back = await run(`
      SET 'sql-client.execution.result-mode' = 'tableau';
      CREATE TABLE pg_back (micro TIMESTAMP(6), n BIGINT, first_seen TIMESTAMP_LTZ(6), last_seen TIMESTAMP_LTZ(6))
        WITH ('connector' = 'postgres', 'url' = '${PG_URL}', 'table-name' = '${table}');
      CREATE TABLE back (micro TIMESTAMP(6), plus_one TIMESTAMP(6), micros BIGINT, last_seen TIMESTAMP_LTZ(6))
        WITH ('connector' = 'filesystem', 'path' = 'back.jsonl', 'format' = 'json');
      INSERT INTO back SELECT micro, micro + INTERVAL '0.001' SECOND, EXTRACT(MICROSECOND FROM micro), last_seen FROM pg_back;`);
    expect(back.code, back.err.join("\n")).toBe(0);
    expect(readFileSync(join(dir, "back.jsonl"), "utf8").trim().split("\n").sort()).toEqual([
      '{"micro":"1969-12-31 23:59:59.999999","plus_one":"1970-01-01 00:00:00.000999","micros":999999,"last_seen":"1969-12-31 23:59:59.999999Z"}',
      '{"micro":"2026-06-24 12:34:56.123000","plus_one":"2026-06-24 12:34:56.124000","micros":123000,"last_seen":"2026-06-24 12:34:56.500000Z"}',
      '{"micro":"2026-06-24 12:34:56.123456","plus_one":"2026-06-24 12:34:56.124456","micros":123456,"last_seen":"2026-06-24 12:34:57.999999Z"}',
    ]);
  });

  it("refuses a TIMESTAMP(9) column in a Postgres sink: Postgres holds microseconds", async () => {
    await db.admin();
    const r = await run(`${SOURCES}
      CREATE TABLE nanos_out (id INT, \`at\` TIMESTAMP(9)) WITH ('connector' = 'postgres', 'url' = '${PG_URL}',
        'table-name' = '${db.schema}.ts_nanos_refused', 'sink.create-table' = 'true');
      INSERT INTO nanos_out SELECT id, \`at\` FROM readings;`);
    expect(r.code).not.toBe(0);
    expect(r.err.join("\n")).toContain(
      "a Postgres timestamp holds microseconds, so TIMESTAMP(9) values would lose their last 3 digits; declare the Weir column TIMESTAMP(6)",
    );
  });
});
