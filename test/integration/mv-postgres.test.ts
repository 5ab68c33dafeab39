// CREATE MATERIALIZED VIEW end to end: the view's job keeps a Postgres table equal to its query,
// in the embedded Postgres (read through the `pg` client and psql while the job runs) or in the
// real server with 'url'; SELECT on the view reads its table; a query without a key is refused.
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { brokers, KafkaFixture, runSql } from "./kafka-helpers.js";
import { embeddedUrl, eventually, PG_URL, PgFixture, queryText, startScript } from "./pg-helpers.js";

const ROOT = resolve(import.meta.dirname, "../..");
const ORDERS_PATH = join(ROOT, "sql/data/orders.jsonl");
const ORDERS = readFileSync(ORDERS_PATH, "utf8").trim().split("\n");

const kafka = new KafkaFixture();
const db = new PgFixture();

afterAll(async () => {
  await db.close();
  await kafka.close();
});

const ORDERS_DDL = `CREATE TABLE orders (
  order_id INT, user_name STRING, amount DECIMAL(10, 2), order_time TIMESTAMP(3)
) WITH ('connector' = 'filesystem', 'path' = '${ORDERS_PATH}', 'format' = 'json');`;

const SPEND_QUERY =
  "SELECT user_name, COUNT(*) AS orders, SUM(amount) AS total FROM orders GROUP BY user_name";

/** `user orders total` per user, from the file's text (exact cents). */
function expectedSpend(lines: readonly string[]): string[] {
  const by = new Map<string, { n: number; cents: bigint }>();
  for (const l of lines) {
    const o = JSON.parse(l) as { user_name: string };
    const m = /"amount":(\d+)(?:\.(\d{1,2}))?/.exec(l)!;
    const c = BigInt(m[1]!) * 100n + BigInt((m[2] ?? "0").padEnd(2, "0"));
    const g = by.get(o.user_name) ?? { n: 0, cents: 0n };
    g.n++;
    g.cents += c;
    by.set(o.user_name, g);
  }
  return [...by]
    .map(([u, g]) => `${u} ${g.n} ${g.cents / 100n}.${(g.cents % 100n).toString().padStart(2, "0")}`)
    .sort();
}

async function spendRows(url: string, table: string): Promise<string[]> {
  const rows = await queryText(url, `SELECT user_name, orders, total FROM ${table}`);
  return rows.map((r) => r.join(" ")).sort();
}

describe("CREATE MATERIALIZED VIEW in the embedded Postgres", () => {
  it("is readable through pg and psql while its job runs over an unbounded Kafka source", async () => {
    const topic = await kafka.topic("mv-clicks", 2);
    const events = (from: number, to: number) =>
      Array.from({ length: to - from }, (_, i) => {
        const k = from + i;
        return { key: `u${k % 5}`, value: JSON.stringify({ user_name: `u${k % 5}`, n: k }) };
      });
    const expected = (upTo: number): string[] => {
      const by = new Map<string, [number, number]>();
      for (let k = 0; k < upTo; k++) {
        const g = by.get(`u${k % 5}`) ?? [0, 0];
        by.set(`u${k % 5}`, [g[0] + 1, g[1] + k]);
      }
      return [...by].map(([u, [c, s]]) => `${u} ${c} ${s}`).sort();
    };
    await kafka.produce(topic, events(0, 40));
    const run = startScript(`
      CREATE TABLE clicks (user_name STRING, n INT) WITH (
        'connector' = 'kafka', 'topic' = '${topic}', 'properties.bootstrap.servers' = '${brokers()}',
        'properties.group.id' = '${topic}-g', 'scan.startup.mode' = 'earliest-offset', 'format' = 'json');
      CREATE MATERIALIZED VIEW clicks_per_user WITH ('sink.buffer-flush.interval' = '100 ms') AS
      SELECT user_name, COUNT(*) AS clicks, SUM(n) AS total FROM clicks GROUP BY user_name;
    `);
    try {
      const url = await embeddedUrl(run);
      let seen: string[] = [];
      const read = async () => {
        seen = (await queryText(url, "SELECT user_name, clicks, total FROM clicks_per_user")).map((r) =>
          r.join(" "),
        );
        seen.sort();
        return seen;
      };
      const tableExists = async () =>
        (
          await queryText(url, "SELECT count(*) FROM pg_tables WHERE tablename = 'clicks_per_user'")
        )[0]![0] === "1";
      await eventually(tableExists, () => run.err.join("\n"));
      await eventually(
        async () => JSON.stringify(await read()) === JSON.stringify(expected(40)),
        () => `view is ${seen.join(", ")}\n${run.err.join("\n")}`,
      );
      await kafka.produce(topic, events(40, 100));
      await eventually(
        async () => JSON.stringify(await read()) === JSON.stringify(expected(100)),
        () => `view is ${seen.join(", ")}\n${run.err.join("\n")}`,
      );
      // psql, as a user would, while the job still runs.
      const port = new URL(url).port;
      const { stdout } = await promisify(execFile)(
        "psql",
        [
          "-h",
          "127.0.0.1",
          "-p",
          port,
          "-U",
          "postgres",
          "-At",
          "-c",
          "SELECT sum(clicks) FROM clicks_per_user",
        ],
        { timeout: 20_000 },
      );
      expect(stdout.trim()).toBe("100");
      expect(run.settled()).toBe(false);
    } finally {
      run.stop();
    }
    expect(await run.done, run.err.join("\n")).toBe(130); // stopped by Ctrl-C (EXIT_INTERRUPTED)
  });

  it("over a bounded file source, stays served after the job ends with serve", async () => {
    const run = startScript(`${ORDERS_DDL}\nCREATE MATERIALIZED VIEW spend AS ${SPEND_QUERY};`, {
      serve: true,
    });
    try {
      const url = await embeddedUrl(run);
      await eventually(
        async () => run.err.some((l) => l.includes("still serving")),
        () => run.err.join("\n"),
      );
      expect(await spendRows(url, "spend")).toEqual(expectedSpend(ORDERS));
      expect(run.settled()).toBe(false);
    } finally {
      run.stop();
    }
    expect(await run.done).toBe(0);
  });

  it("answers a SELECT on the view from the script with the view's contents", async () => {
    const { code, out, err } = await runSql(
      `${ORDERS_DDL}\nCREATE MATERIALIZED VIEW spend AS ${SPEND_QUERY};\nSELECT * FROM spend;`,
    );
    expect(code, err.join("\n")).toBe(0);
    const rows = out
      .map((l) => /^\| \+I \|\s*(\S+) \|\s*(\d+) \|\s*([\d.]+) \|$/.exec(l))
      .filter((m) => m !== null)
      .map((m) => `${m[1]} ${m[2]} ${m[3]}`)
      .sort();
    expect(rows).toEqual(expectedSpend(ORDERS));
    // The SELECT read the view's table through the postgres source, not the orders file again.
    expect(err.join("\n")).toMatch(/source spend \(postgres\): 4 records read/);
  });

  it("refuses a query without a unique key, pointing at the view", async () => {
    const { code, err } = await runSql(
      `${ORDERS_DDL}\nCREATE MATERIALIZED VIEW big AS SELECT order_id, amount FROM orders WHERE amount > 20;`,
    );
    expect(code).toBe(1);
    const text = err.join("\n");
    expect(text).toContain("test.sql:4:1: error: materialized view 'big' has no unique key");
    expect(text).toContain("hint: add GROUP BY, or a PRIMARY KEY to the source");
    expect(text).not.toContain("embedded Postgres");
  });
});

describe("CREATE MATERIALIZED VIEW with 'url' (the real Postgres)", () => {
  it("replaces what the table held and keeps it equal to the query", async () => {
    const table = `${db.schema}.spend_ext`;
    const admin = await db.admin();
    await admin.query(`CREATE TABLE ${table} (stale int)`);
    await admin.query(`INSERT INTO ${table} VALUES (1)`);
    const { code, err } = await runSql(
      `${ORDERS_DDL}\nCREATE MATERIALIZED VIEW spend_ext WITH ('url' = '${PG_URL}', 'table-name' = '${table}') AS ${SPEND_QUERY};`,
    );
    expect(code, err.join("\n")).toBe(0);
    expect(err.join("\n")).not.toContain("embedded Postgres");
    expect(await spendRows(PG_URL, table)).toEqual(expectedSpend(ORDERS));
    const key = await db.rows(
      `SELECT a.attname FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY(i.indkey)
       WHERE i.indrelid = '${table}'::regclass AND i.indisprimary`,
    );
    expect(key).toEqual([["user_name"]]);
  });

  it("DROP MATERIALIZED VIEW drops the table the view made (after a query ran its job)", async () => {
    const table = `${db.schema}.spend_dropped`;
    const { code, out, err } = await runSql(
      `${ORDERS_DDL}\nCREATE MATERIALIZED VIEW spend_dropped WITH ('url' = '${PG_URL}', 'table-name' = '${table}') AS ${SPEND_QUERY};\nSELECT * FROM spend_dropped;\nDROP MATERIALIZED VIEW spend_dropped;`,
    );
    expect(code, err.join("\n")).toBe(0);
    expect(out.join("\n")).toMatch(/Received a total of \d+ rows/);
    expect(await db.rows(`SELECT to_regclass('${table}') IS NULL`)).toEqual([["t"]]);
  });

  it("rejects an option the view sets itself", async () => {
    const { code, err } = await runSql(
      `${ORDERS_DDL}\nCREATE MATERIALIZED VIEW v WITH ('url' = '${PG_URL}', 'sink.create-table' = 'false') AS ${SPEND_QUERY};`,
    );
    expect(code).toBe(1);
    expect(err.join("\n")).toContain("option 'sink.create-table' is set by the view itself");
  });
});
