import { userInfo } from "node:os";
import type { Field, SinkNode, SourceNode } from "@weir/planner";
import { T } from "@weir/planner";
import { ChangeBatch, ConnectorError, Op, type Row, type SinkWriter } from "@weir/runtime";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createPostgresSink, createPostgresSource } from "../src/postgres/index.js";
import { sinkNode, sourceNode } from "./helpers.js";

/** Integration tests against the real Postgres server (PG* variables, else 127.0.0.1:5432/test). */
const URL =
  process.env.WEIR_TEST_PG_URL ??
  `postgres://${encodeURIComponent(process.env.PGUSER || process.env.USER || userInfo().username)}@127.0.0.1:5432/test`;
const SCHEMA = `weir_test_${process.pid}_${Date.now().toString(36)}`;

let admin: pg.Client;

beforeAll(async () => {
  admin = new pg.Client({ connectionString: URL });
  await admin.connect();
  await admin.query(`CREATE SCHEMA ${SCHEMA}`);
});

afterAll(async () => {
  await admin.query(`DROP SCHEMA IF EXISTS ${SCHEMA} CASCADE`);
  await admin.end();
});

async function rows(sql: string): Promise<unknown[][]> {
  const r = await admin.query({ text: sql, rowMode: "array" });
  return r.rows as unknown[][];
}

function pgSink(
  table: string,
  fields: readonly Field[],
  key: readonly number[] | null,
  options: Record<string, string> = {},
): { sink: SinkWriter; node: SinkNode; metrics: Map<string, number>; open: () => Promise<void> } {
  const node: SinkNode = {
    ...sinkNode(fields, { connector: "postgres", url: URL, "table-name": `${SCHEMA}.${table}`, ...options }),
    table,
    primaryKey: key,
  };
  const sink = createPostgresSink(node);
  const metrics = new Map<string, number>();
  return { sink, node, metrics, open: () => sink.open({ node, metrics, settings: {}, cwd: "." }) };
}

const KV: Field[] = [
  { name: "id", type: T.bigint(false) },
  { name: "v", type: T.string() },
];

describe("Postgres upsert sink", () => {
  it("reduces one flush per key, so +I k, -D k, +I k leaves the row", async () => {
    await admin.query(`CREATE TABLE ${SCHEMA}.kv (id bigint PRIMARY KEY, v text)`);
    await admin.query(`INSERT INTO ${SCHEMA}.kv VALUES (4, 'old4'), (5, 'old5')`);
    const s = pgSink("kv", KV, [0], { "sink.buffer-flush.interval": "0" });
    await s.open();
    s.sink.write(
      ChangeBatch.of([
        [Op.INSERT, [1, "a"]],
        [Op.DELETE, [1, "a"]],
        [Op.INSERT, [1, "b"]],
        [Op.INSERT, [2, "x"]],
        [Op.UPDATE_BEFORE, [2, "x"]],
        [Op.UPDATE_AFTER, [2, "y"]],
        [Op.INSERT, [3, "z"]],
        [Op.DELETE, [3, "z"]],
        [Op.DELETE, [4, "old4"]],
        [Op.DELETE, [5, "old5"]],
        [Op.INSERT, [5, "new5"]],
      ]),
    );
    await s.sink.flush();
    await s.sink.close();
    expect(await rows(`SELECT id::int, v FROM ${SCHEMA}.kv ORDER BY id`)).toEqual([
      [1, "b"],
      [2, "y"],
      [5, "new5"],
    ]);
    expect(s.metrics.get("flushes")).toBe(1);
    expect(s.metrics.get("rowsUpserted")).toBe(3);
    expect(s.metrics.get("rowsDeleted")).toBe(2);
  });

  it("accepts Flink's jdbc connector and url, and flushes by size", async () => {
    await admin.query(`CREATE TABLE ${SCHEMA}.kv2 (id bigint PRIMARY KEY, v text)`);
    const s = pgSink("kv2", KV, [0], {
      connector: "jdbc",
      url: `jdbc:${URL.replace(/^postgres:/, "postgresql:")}`,
      "sink.buffer-flush.max-rows": "10",
      "sink.buffer-flush.interval": "0",
    });
    await s.open();
    // Ten changes make the buffer due: written without a flush() call.
    for (let i = 0; i < 10; i++) s.sink.write(ChangeBatch.inserts([[i % 20, `v${i}`]]));
    await vi.waitFor(() => expect(s.metrics.get("flushes")).toBe(1), { timeout: 30_000 });
    // The next 25 are due at the 20th; written one transaction (coalesced) with the rest at flush.
    for (let i = 10; i < 35; i++) s.sink.write(ChangeBatch.inserts([[i % 20, `v${i}`]]));
    await s.sink.flush();
    await s.sink.close();
    expect(s.metrics.get("flushes")).toBe(2);
    const got = await rows(`SELECT id::int, v FROM ${SCHEMA}.kv2 ORDER BY id`);
    expect(got).toHaveLength(20);
    expect(got[0]).toEqual([0, "v20"]);
    expect(got[19]).toEqual([19, "v19"]);
  });

  it("with a version column, an older write never overwrites a newer one", async () => {
    await admin.query(`CREATE TABLE ${SCHEMA}.ver (id int PRIMARY KEY, ver bigint, v text)`);
    const fields: Field[] = [
      { name: "id", type: T.int(false) },
      { name: "ver", type: T.bigint() },
      { name: "v", type: T.string() },
    ];
    const s = pgSink("ver", fields, [0], { "sink.version-column": "ver", "sink.buffer-flush.interval": "0" });
    await s.open();
    const step = async (changes: [Op, Row][]) => {
      s.sink.write(ChangeBatch.of(changes));
      await s.sink.flush();
      return rows(`SELECT id, ver::int, v FROM ${SCHEMA}.ver ORDER BY id`);
    };
    expect(await step([[Op.INSERT, [1, 5, "new"]]])).toEqual([[1, 5, "new"]]);
    expect(await step([[Op.UPDATE_AFTER, [1, 3, "old"]]])).toEqual([[1, 5, "new"]]);
    expect(await step([[Op.DELETE, [1, 3, "old"]]])).toEqual([[1, 5, "new"]]);
    // An equal version is the same write again: `WHERE target.version < EXCLUDED.version`.
    expect(await step([[Op.UPDATE_AFTER, [1, 5, "same"]]])).toEqual([[1, 5, "new"]]);
    expect(await step([[Op.UPDATE_AFTER, [1, 6, "newer"]]])).toEqual([[1, 6, "newer"]]);
    expect(await step([[Op.DELETE, [1, 7, "x"]]])).toEqual([]);
    // A delete leaves no tombstone: a later insert, however old, inserts.
    expect(await step([[Op.INSERT, [1, 2, "again"]]])).toEqual([[1, 2, "again"]]);
    // In one flush the same rule holds.
    expect(
      await step([
        [Op.INSERT, [2, 9, "nine"]],
        [Op.UPDATE_AFTER, [2, 4, "four"]],
        [Op.DELETE, [1, 1, "again"]],
      ]),
    ).toEqual([
      [1, 2, "again"],
      [2, 9, "nine"],
    ]);
    await s.sink.close();
  });

  it("with a final column, a provisional row never overwrites or deletes a final one", async () => {
    await admin.query(`CREATE TABLE ${SCHEMA}.fin (id int PRIMARY KEY, ver bigint, fin boolean, v text)`);
    const fields: Field[] = [
      { name: "id", type: T.int(false) },
      { name: "ver", type: T.bigint() },
      { name: "fin", type: T.boolean(false) },
      { name: "v", type: T.string() },
    ];
    const s = pgSink("fin", fields, [0], {
      "sink.version-column": "ver",
      "sink.final-column": "fin",
      "sink.buffer-flush.interval": "0",
    });
    await s.open();
    const step = async (changes: [Op, Row][]) => {
      s.sink.write(ChangeBatch.of(changes));
      await s.sink.flush();
      return rows(`SELECT id, ver::int, fin, v FROM ${SCHEMA}.fin ORDER BY id`);
    };
    expect(await step([[Op.INSERT, [1, 1, false, "p1"]]])).toEqual([[1, 1, false, "p1"]]);
    expect(await step([[Op.UPDATE_AFTER, [1, 2, true, "final"]]])).toEqual([[1, 2, true, "final"]]);
    // A provisional row with a newer version (another pipeline, a replay) does not replace it...
    expect(await step([[Op.UPDATE_AFTER, [1, 3, false, "late provisional"]]])).toEqual([
      [1, 2, true, "final"],
    ]);
    // ... nor does a provisional retraction delete it; an older final does not either.
    expect(await step([[Op.DELETE, [1, 9, false, "x"]]])).toEqual([[1, 2, true, "final"]]);
    expect(await step([[Op.UPDATE_AFTER, [1, 1, true, "older final"]]])).toEqual([[1, 2, true, "final"]]);
    // The same rules within one flush (the reducer), then a newer final wins.
    expect(
      await step([
        [Op.INSERT, [2, 1, true, "f"]],
        [Op.UPDATE_BEFORE, [2, 1, false, "f"]],
        [Op.UPDATE_AFTER, [2, 2, false, "p"]],
        [Op.UPDATE_AFTER, [1, 4, true, "newer final"]],
      ]),
    ).toEqual([
      [1, 4, true, "newer final"],
      [2, 1, true, "f"],
    ]);
    await s.sink.close();
  });

  it("survives connections killed mid-run with no lost or doubled change", async () => {
    await admin.query(`CREATE TABLE ${SCHEMA}.killed (id int PRIMARY KEY, n bigint, v text)`);
    const fields: Field[] = [
      { name: "id", type: T.int(false) },
      { name: "n", type: T.bigint() },
      { name: "v", type: T.string() },
    ];
    const app = `weir_kill_${process.pid}`;
    const s = pgSink("killed", fields, [0], {
      url: `${URL}?application_name=${app}`,
      "sink.buffer-flush.max-rows": "40",
      "sink.buffer-flush.interval": "0",
      "sink.max-retries": "20",
    });
    await s.open();
    // A deterministic changelog over 100 keys, materialised alongside.
    const expected = new Map<number, Row>();
    let seed = 12345;
    const rand = (n: number) => {
      // The LCG mod 2^31 in exact 32-bit arithmetic (a double product would pass 2^53).
      seed = (Math.imul(seed, 1103515245) + 12345) & 0x7fffffff;
      return seed % n;
    };
    let kills = 0;
    const kill = async () => {
      const r = await admin.query(
        "SELECT count(*)::int AS n FROM (SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1) k",
        [app],
      );
      kills += r.rows[0].n as number;
    };
    for (let b = 0; b < 150; b++) {
      const changes: [Op, Row][] = [];
      for (let i = 0; i < 30; i++) {
        const id = rand(100);
        const old = expected.get(id);
        const row: Row = [id, b * 100 + i, `v${b}-${i}`];
        if (old === undefined) {
          changes.push([Op.INSERT, row]);
          expected.set(id, row);
        } else if (rand(4) === 0) {
          changes.push([Op.DELETE, old]);
          expected.delete(id);
        } else {
          changes.push([Op.UPDATE_BEFORE, old], [Op.UPDATE_AFTER, row]);
          expected.set(id, row);
        }
      }
      s.sink.write(ChangeBatch.of(changes));
      // Kill while a flush is in flight (every 10th batch) or while idle (every 25th).
      if (b % 10 === 5) await kill();
      if (b % 3 === 0) await s.sink.flush();
      if (b % 25 === 20) await kill();
    }
    await s.sink.flush();
    await s.sink.close();
    expect(kills).toBeGreaterThan(0);
    expect(s.metrics.get("retries") ?? 0).toBeGreaterThan(0);
    const got = await rows(`SELECT id, n::int, v FROM ${SCHEMA}.killed ORDER BY id`);
    const want = [...expected.values()].sort((a, b) => (a[0] as number) - (b[0] as number));
    expect(got).toEqual(want);
  }, 60_000);
});

describe("Postgres append sink", () => {
  it("inserts every row and rejects a retraction as an internal error", async () => {
    await admin.query(`CREATE TABLE ${SCHEMA}.log (id bigint, v text)`);
    const s = pgSink("log", KV, null, { "sink.buffer-flush.interval": "0" });
    await s.open();
    s.sink.write(
      ChangeBatch.inserts([
        [1, "a"],
        [1, "a"],
        [2, null],
      ]),
    );
    await s.sink.flush();
    expect(await rows(`SELECT id::int, v FROM ${SCHEMA}.log ORDER BY id, v`)).toEqual([
      [1, "a"],
      [1, "a"],
      [2, null],
    ]);
    expect(s.metrics.get("rowsInserted")).toBe(3);
    let err: unknown;
    try {
      s.sink.write(ChangeBatch.of([[Op.DELETE, [1, "a"]]]));
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConnectorError);
    expect((err as ConnectorError).domain).toBe("internal");
    await s.sink.close();
  });
});

describe("Postgres sink table checks", () => {
  it("creates the table from the sink schema with its primary key", async () => {
    const fields: Field[] = [
      { name: "id", type: T.bigint(false) },
      { name: "amount", type: T.decimal(10, 2) },
      { name: "ts", type: T.timestamp(3) },
      { name: "lts", type: T.timestampLtz(3) },
      { name: "tags", type: T.array(T.string()) },
      { name: "attrs", type: T.map(T.string(), T.int()) },
    ];
    const s = pgSink("created", fields, [0], { "sink.create-table": "true" });
    await s.open();
    await s.sink.close();
    expect(
      await rows(
        `SELECT a.attname, format_type(a.atttypid, a.atttypmod), a.attnotnull FROM pg_attribute a
          WHERE a.attrelid = '${SCHEMA}.created'::regclass AND a.attnum > 0 ORDER BY a.attnum`,
      ),
    ).toEqual([
      ["id", "bigint", true],
      ["amount", "numeric(10,2)", false],
      ["ts", "timestamp(3) without time zone", false],
      ["lts", "timestamp(3) with time zone", false],
      ["tags", "text[]", false],
      ["attrs", "jsonb", false],
    ]);
    expect(
      await rows(
        `SELECT a.attname FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY(i.indkey)
          WHERE i.indrelid = '${SCHEMA}.created'::regclass AND i.indisprimary`,
      ),
    ).toEqual([["id"]]);
  });

  const mismatches: { name: string; ddl: string; error: RegExp }[] = [
    {
      name: "a wrong column type",
      ddl: "(id bigint PRIMARY KEY, v integer)",
      error: /column 'v' is integer.*STRING.*expected text/,
    },
    {
      name: "a missing column",
      ddl: "(id bigint PRIMARY KEY, w text)",
      error: /has no column 'v' \(its columns: id, w\)/,
    },
    {
      name: "a different primary key",
      ddl: "(id bigint, v text PRIMARY KEY)",
      error: /PRIMARY KEY \(v\), but the Weir sink table has PRIMARY KEY \(id\)/,
    },
    {
      name: "no primary key",
      ddl: "(id bigint, v text)",
      error: /has no primary key, but the Weir sink table has PRIMARY KEY \(id\)/,
    },
  ];
  for (const [i, m] of mismatches.entries()) {
    it(`rejects an existing table with ${m.name} before any row is written`, async () => {
      await admin.query(`CREATE TABLE ${SCHEMA}.bad${i} ${m.ddl}`);
      const s = pgSink(`bad${i}`, KV, [0], { "sink.create-table": "true" });
      const err = await s.open().then(
        () => null,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(ConnectorError);
      expect((err as ConnectorError).domain).toBe("user");
      expect((err as Error).message).toMatch(m.error);
      expect((err as Error).message).toContain(`${SCHEMA}.bad${i}`);
      await s.sink.close();
      expect(await rows(`SELECT count(*)::int FROM ${SCHEMA}.bad${i}`)).toEqual([[0]]);
    });
  }

  it("rejects a numeric column whose scale differs", async () => {
    await admin.query(`CREATE TABLE ${SCHEMA}.money (id bigint PRIMARY KEY, amount numeric(12,3))`);
    const fields: Field[] = [KV[0], { name: "amount", type: T.decimal(10, 2) }];
    const s = pgSink("money", fields, [0]);
    await expect(s.open()).rejects.toThrow(/column 'amount' is numeric\(12,3\).*DECIMAL\(10, 2\)/);
    await s.sink.close();
  });
});

describe("Postgres scan source", () => {
  const ALL: Field[] = [
    { name: "id", type: T.int(false) },
    { name: "b", type: T.boolean() },
    { name: "ti", type: T.tinyint() },
    { name: "si", type: T.smallint() },
    { name: "bi", type: T.bigint() },
    { name: "fl", type: T.float() },
    { name: "db", type: T.double() },
    { name: "dec", type: T.decimal(20, 4) },
    { name: "ch", type: T.char(3) },
    { name: "vc", type: T.varchar(10) },
    { name: "s", type: T.string() },
    { name: "by", type: T.bytes() },
    { name: "d", type: T.date() },
    { name: "tm", type: T.time(3) },
    { name: "ts", type: T.timestamp(3) },
    { name: "lts", type: T.timestampLtz(3) },
    { name: "idt", type: T.intervalDayTime() },
    { name: "iym", type: T.intervalYearMonth() },
    { name: "ai", type: T.array(T.int()) },
    { name: "as", type: T.array(T.string()) },
    { name: "adec", type: T.array(T.decimal(10, 2)) },
    { name: "aa", type: T.array(T.array(T.int())) },
    { name: "m", type: T.map(T.string(), T.int()) },
    {
      name: "r",
      type: T.row([
        { name: "a", type: T.int() },
        { name: "b", type: T.decimal(5, 1) },
      ]),
    },
  ];
  const ROWS: Row[] = [
    [
      1,
      true,
      -128,
      32767,
      9007199254740991,
      Math.fround(0.1),
      0.1 + 0.2,
      123456789012345678n,
      "abc",
      "héllo",
      'quote " comma , brace { back \\ ',
      new Uint8Array([0, 1, 255]),
      19783,
      45_296_789,
      1_709_296_496_789,
      1_709_296_496_789,
      90_061_001,
      14,
      [1, null, -3],
      ["a,b", '"q"', "{x}", "NULL", "", null],
      [1234n, -5n],
      [[1, 2], [3]],
      new Map<unknown, unknown>([
        ["k", 1],
        ["z", null],
      ]),
      [7, 25n],
    ],
    [
      2,
      false,
      0,
      -32768,
      -9007199254740991,
      Number.NEGATIVE_INFINITY,
      Number.NaN,
      -1n,
      "xyz",
      "",
      "",
      new Uint8Array(0),
      -719162,
      0,
      -62135596800000,
      -1,
      -1,
      -13,
      [],
      [],
      [],
      [],
      new Map(),
      [null, null],
    ],
    [3, ...new Array<unknown>(ALL.length - 1).fill(null)],
    [
      4,
      null,
      null,
      null,
      null,
      1.5,
      -0,
      10000n,
      null,
      null,
      "日本語 🎉",
      null,
      -1,
      86_399_999,
      253402300799999,
      0,
      0,
      0,
      null,
      null,
      null,
      null,
      null,
      null,
    ],
  ];

  it("round-trips every type through the sink and the scan source, with a restorable position", async () => {
    const s = pgSink("alltypes", ALL, [0], { "sink.create-table": "true" });
    await s.open();
    s.sink.write(ChangeBatch.inserts(ROWS));
    await s.sink.flush();
    await s.sink.close();
    // The stored text is the wall clock for TIMESTAMP and the UTC instant for TIMESTAMP_LTZ.
    expect(
      await rows(
        `SELECT ts::text, (lts AT TIME ZONE 'UTC')::text, d::text, dec::text FROM ${SCHEMA}.alltypes WHERE id = 1`,
      ),
    ).toEqual([["2024-03-01 12:34:56.789", "2024-03-01 12:34:56.789", "2024-03-01", "12345678901234.5678"]]);
    expect(await rows(`SELECT d::text, ts::text FROM ${SCHEMA}.alltypes WHERE id = 2`)).toEqual([
      ["0001-01-01", "0001-01-01 00:00:00"],
    ]);

    const node: SourceNode = {
      ...sourceNode(ALL, {
        connector: "postgres",
        url: URL,
        "table-name": `${SCHEMA}.alltypes`,
        "scan.fetch-size": "3",
      }),
      table: "alltypes",
      primaryKey: [0],
    };
    const ctx = { node, metrics: new Map<string, number>(), settings: {}, cwd: "." };
    const reader = createPostgresSource(node);
    await reader.open(ctx);
    const first = await reader.poll(100);
    expect(first.kind).toBe("data");
    if (first.kind !== "data") return;
    expect(first.splits[0].split).toBe(`postgres:${SCHEMA}.alltypes`);
    expect(ChangeBatch.toArray(first.splits[0].batch).map(([, r]) => r)).toEqual(ROWS.slice(0, 3));
    const pos = reader.position();
    expect(pos).toEqual({ rowsRead: 3, done: false, after: ["3"] });
    await reader.close();

    const again = createPostgresSource(node);
    await again.open(ctx);
    await again.restore(pos);
    const rest = await again.poll(100);
    expect(rest.kind).toBe("data");
    if (rest.kind !== "data") return;
    const got = ChangeBatch.toArray(rest.splits[0].batch).map(([, r]) => r);
    expect(got).toEqual(ROWS.slice(3));
    expect(Object.is(got[0][6], -0)).toBe(true);
    expect((await again.poll(100)).kind).toBe("end");
    await again.close();
  });

  it("reads a table without a key by ctid pages", async () => {
    await admin.query(`CREATE TABLE ${SCHEMA}.nokey (v text)`);
    await admin.query(`INSERT INTO ${SCHEMA}.nokey SELECT 'r' || g FROM generate_series(1, 25) g`);
    const node = sourceNode([{ name: "v", type: T.string() }], {
      connector: "postgres",
      url: URL,
      "table-name": `${SCHEMA}.nokey`,
      "scan.fetch-size": "10",
    });
    const reader = createPostgresSource(node);
    await reader.open({ node, metrics: new Map(), settings: {}, cwd: "." });
    const seen: unknown[] = [];
    for (;;) {
      const r = await reader.poll(1000);
      if (r.kind !== "data") break;
      for (const [, row] of ChangeBatch.toArray(r.splits[0].batch)) seen.push(row[0]);
    }
    await reader.close();
    expect(seen).toEqual(Array.from({ length: 25 }, (_, i) => `r${i + 1}`));
  });
});
