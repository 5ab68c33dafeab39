import { afterAll, describe, expect, it } from "vitest";
import { PG_URL, PgFixture } from "../integration/pg-helpers.js";
import { run, workdir } from "./support.js";

const ORDERS = (path: string, extra = "") => `CREATE TABLE orders (id INT, amount INT) WITH (
  'connector' = 'filesystem',
  'path' = '${path}',
  'format' = 'json'${extra}
);
CREATE TABLE out_t (id INT, amount INT) WITH ('connector' = 'print');
INSERT INTO out_t SELECT id, amount FROM orders;
`;

describe("run-time errors are positioned at the table's DDL (issue 17, item 12)", () => {
  it("a missing input file: FILE:LINE:COL at 'path', the table, a similar name and the working directory", async () => {
    const cwd = workdir({ "sql/data/orders.jsonl": '{"id": 1, "amount": 5}\n' });
    const r = await run(ORDERS("sql/data/order.jsonl"), cwd);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      [
        "job.sql:3:12: error: table 'orders': cannot read 'sql/data/order.jsonl' (no such file)",
        "  'path' = 'sql/data/order.jsonl',",
        "           ^~~~~~~~~~~~~~~~~~~~~~",
        `hint: did you mean 'sql/data/orders.jsonl'? Relative paths resolve against the working directory ${cwd}`,
      ].join("\n"),
    );
  });

  it("--dry-run reports the same error, as a validation error", async () => {
    const cwd = workdir({});
    const r = await run(ORDERS("sql/data/order.jsonl"), cwd, { dryRun: true });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      "job.sql:3:12: error: table 'orders': cannot read 'sql/data/order.jsonl' (no such file)",
    );
    expect(r.stderr).toContain("The directory 'sql/data' does not exist either.");
  });

  it("a lookup join's filesystem table with a missing file: the same error at its 'path', before the job runs and under --dry-run", async () => {
    const cwd = workdir({ "o.jsonl": '{"id": 1, "amount": 5}\n' });
    const script = `CREATE TABLE orders (id INT, amount INT, proc AS PROCTIME()) WITH (
  'connector' = 'filesystem', 'path' = 'o.jsonl', 'format' = 'json');
CREATE TABLE dim (id INT, name STRING) WITH (
  'connector' = 'filesystem', 'path' = 'dim.csv', 'format' = 'csv');
CREATE TABLE out_t (id INT, name STRING) WITH ('connector' = 'print');
INSERT INTO out_t SELECT o.id, d.name FROM orders AS o JOIN dim FOR SYSTEM_TIME AS OF o.proc AS d ON o.id = d.id;
`;
    for (const dryRun of [false, true]) {
      const r = await run(script, cwd, { dryRun });
      expect(r.code).toBe(dryRun ? 1 : 2);
      expect(r.stderr).toContain("job.sql:4:40: error: table 'dim': cannot read 'dim.csv' (no such file)");
      expect(r.stdout).not.toContain("+I");
    }
  });

  it("a record that does not parse names the file and line, and the option that skips it", async () => {
    const cwd = workdir({ "o.jsonl": '{"id": 1, "amount": 5}\n{"id": 2, "amount": "five"}\n' });
    const r = await run(ORDERS("o.jsonl"), cwd);
    expect(r.code).toBe(2);
    const lines = r.stderr.split("\n");
    expect(lines[0]).toBe(
      `job.sql:1:1: error: table 'orders': file o.jsonl line 2: field 'amount': cannot read "five" as INT`,
    );
    expect(lines[3]).toBe(
      "hint: to skip records that do not parse (and count them), set 'json.ignore-parse-errors' = 'true' on table 'orders'",
    );
  });
});

describe("blank lines are counted (issue 17, item 20)", () => {
  it("a JSON file's blank lines are skipped and counted in the summary", async () => {
    const cwd = workdir({ "o.jsonl": '{"id": 1, "amount": 5}\n\n   \n{"id": 2, "amount": 6}\n' });
    const r = await run(ORDERS("o.jsonl"), cwd);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe("+I[1, 5]\n+I[2, 6]");
    expect(r.stderr).toContain("source orders (filesystem): 2 records read, 2 blank lines skipped");
  });
});

describe("--dry-run checks what run checks before reading data (issue 17, item 13)", () => {
  const pg = new PgFixture();
  afterAll(() => pg.close());

  it("checks the Postgres sink table (columns and key), listing every problem", async () => {
    await pg.admin();
    await pg.rows(`CREATE TABLE ${pg.schema}.totals (id integer PRIMARY KEY, total text)`);
    const sql = `CREATE TABLE src (id INT, total BIGINT) WITH ('connector' = 'datagen', 'number-of-rows' = '1');
CREATE TABLE totals (id INT, total BIGINT, extra INT, PRIMARY KEY (extra) NOT ENFORCED) WITH (
  'connector' = 'postgres', 'url' = '${PG_URL}', 'table-name' = '${pg.schema}.totals');
INSERT INTO totals SELECT id, total, id FROM src;
`;
    const r = await run(sql, workdir({}), { dryRun: true });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("job.sql:2:1: error: table 'totals': ");
    expect(r.stderr).toContain("its column 'total' is text, but Weir column 'total' is BIGINT");
    expect(r.stderr).toContain("it has no column 'extra'");
    // The key is checked too, though columns differ.
    expect(r.stderr).toContain("it has PRIMARY KEY (id), but the Weir sink table has PRIMARY KEY (extra)");
  });

  it("a NUL character in a STRING bound for Postgres fails naming the table, column and row (item 20)", async () => {
    await pg.rows(`CREATE TABLE ${pg.schema}.names (id integer PRIMARY KEY, name text)`);
    const cwd = workdir({ "in.jsonl": '{"id": 1, "name": "ok"}\n{"id": 2, "name": "a\\u0000b"}\n' });
    const sql = `CREATE TABLE src (id INT, name STRING) WITH ('connector' = 'filesystem', 'path' = 'in.jsonl', 'format' = 'json');
CREATE TABLE names (id INT, name STRING, PRIMARY KEY (id) NOT ENFORCED) WITH (
  'connector' = 'postgres', 'url' = '${PG_URL}', 'table-name' = '${pg.schema}.names');
INSERT INTO names SELECT id, name FROM src;
`;
    const r = await run(sql, cwd);
    expect(r.code).toBe(2);
    expect(r.stderr.split("\n")[0]).toBe(
      `job.sql:2:1: error: table 'names': column 'name' of the row [2, "a\\u0000b"]: a STRING value holds a NUL character (U+0000), which Postgres text cannot store`,
    );
    expect(r.stderr).toContain("hint: remove it in the query, e.g. REPLACE(name, CHR(0), '')");
    // Nothing of the failed flush was written.
    expect(await pg.rows(`SELECT count(*)::text FROM ${pg.schema}.names`)).toEqual([["0"]]);
  });

  it("checks the checkpoint settings and --restore as the run does", async () => {
    const sql = `SET 'execution.checkpointing.interval' = '10 s';
CREATE TABLE s (id INT) WITH ('connector' = 'datagen', 'number-of-rows' = '1');
CREATE TABLE p (id INT) WITH ('connector' = 'blackhole');
INSERT INTO p SELECT id FROM s;
`;
    const r = await run(sql, workdir({}), { dryRun: true });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      "job.sql: error: 'execution.checkpointing.interval' = '10 s' needs a checkpoint directory",
    );
    const cwd = workdir({});
    const restore = await run(sql.replace(/^SET .*\n/, ""), cwd, { dryRun: true, restore: "no/such/chk-1" });
    expect(restore.code).toBe(1);
    expect(restore.stderr).toContain("job.sql: error: ");
    expect(restore.stderr).not.toContain("OK");
  });

  it("refuses a Kafka sink of two topics before reaching any server", async () => {
    const sql = `CREATE TABLE k (id INT) WITH ('connector' = 'kafka', 'topic' = 'a;b',
  'properties.bootstrap.servers' = '127.0.0.1:9', 'format' = 'json');
INSERT INTO k VALUES (1);
`;
    const r = await run(sql, workdir({}), { dryRun: true });
    expect(r.code).toBe(1);
    expect(r.stderr.split("\n")[0]).toBe(
      "job.sql:1:64: error: table 'k': a Kafka sink writes to exactly one 'topic'",
    );
  });

  it("refuses a Kafka sink whose key layout it cannot encode before reaching any server", async () => {
    const sql = `CREATE TABLE k (id INT, v STRING) WITH ('connector' = 'kafka', 'topic' = 't',
  'properties.bootstrap.servers' = '127.0.0.1:9', 'format' = 'json', 'key.format' = 'raw', 'key.fields' = 'id');
INSERT INTO k VALUES (1, 'x');
`;
    const r = await run(sql, workdir({}), { dryRun: true });
    expect(r.code).toBe(1);
    expect(r.stderr.split("\n")[0]).toBe(
      "job.sql:1:1: error: table 'k': the raw format needs exactly one STRING or BYTES column",
    );
  });

  it("refuses an exactly-once sink without checkpointing before reaching any server", async () => {
    const sql = `CREATE TABLE k (id INT) WITH ('connector' = 'kafka', 'topic' = 't',
  'properties.bootstrap.servers' = '127.0.0.1:9', 'format' = 'json',
  'sink.delivery-guarantee' = 'exactly-once');
INSERT INTO k VALUES (1);
`;
    const r = await run(sql, workdir({}), { dryRun: true });
    expect(r.code).toBe(1);
    expect(r.stderr.split("\n")[0]).toBe(
      "job.sql: error: sink k: 'sink.delivery-guarantee' = 'exactly-once' commits at checkpoints: enable checkpointing (SET 'execution.checkpointing.interval' = '10 s' and 'execution.checkpointing.dir'), or use 'at-least-once'",
    );
  });
});
