import { userInfo } from "node:os";
import type { Field, SinkNode } from "@weir/planner";
import { T } from "@weir/planner";
import { ChangeBatch, Op, type Row, type SinkWriter } from "@weir/runtime";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { mulberry32 } from "../../../test/support/random.js";
import { createPostgresSink, createPostgresSource } from "../src/postgres/index.js";
import { StatementBuilder } from "../src/postgres/statements.js";
import { sinkNode, sourceNode } from "./helpers.js";

/**
 * The Postgres sink under volume, against the real server: changelogs many times
 * `sink.buffer-flush.max-rows` and with flushes larger than one statement (10,000 rows), with
 * updates, deletes and repeated changes of a key within and across flushes, an update pair split
 * across two batches, NULLs and awkward text, for every column type the sink writes. The final
 * table, read back with the scan source, must equal the changelog applied one change at a time
 * (a model here, independent of the sink's reducer and statements).
 */
const URL =
  process.env.WEIR_TEST_PG_URL ??
  `postgres://${encodeURIComponent(process.env.PGUSER || process.env.USER || userInfo().username)}@127.0.0.1:5432/test`;
const SCHEMA = `weir_vol_${process.pid}_${Date.now().toString(36)}`;

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

function pgSink(
  table: string,
  fields: readonly Field[],
  options: Record<string, string>,
): { sink: SinkWriter; metrics: Map<string, number>; open: () => Promise<void> } {
  const node: SinkNode = {
    ...sinkNode(fields, { connector: "postgres", url: URL, "table-name": `${SCHEMA}.${table}`, ...options }),
    table,
    primaryKey: [0],
  };
  const sink = createPostgresSink(node);
  const metrics = new Map<string, number>();
  return { sink, metrics, open: () => sink.open({ node, metrics, settings: {}, cwd: "." }) };
}

/** Every row of the table through the scan source, by key. */
async function readBack(table: string, fields: readonly Field[]): Promise<Row[]> {
  const node = {
    ...sourceNode(fields, {
      connector: "postgres",
      url: URL,
      "table-name": `${SCHEMA}.${table}`,
      "scan.fetch-size": "5000",
    }),
    primaryKey: [0],
  };
  const reader = createPostgresSource(node);
  await reader.open({ node, metrics: new Map(), settings: {}, cwd: "." });
  const out: Row[] = [];
  for (;;) {
    const r = await reader.poll(10_000);
    if (r.kind === "end") break;
    if (r.kind !== "data") continue;
    for (const s of r.splits) for (const [, row] of ChangeBatch.toArray(s.batch)) out.push(row);
  }
  await reader.close();
  return out.sort((a, b) => (a[0] as number) - (b[0] as number));
}

/** A deterministic generator: an integer in [0, n). */
function random(seed: number): (n: number) => number {
  const next = mulberry32(seed);
  return (n) => Math.floor(next() * n);
}

const PIECES = [
  "a",
  '"',
  "\\",
  ",",
  "{",
  "}",
  "日本",
  "🎉",
  " ",
  "NULL",
  '""',
  "'",
  "\\x",
  "é",
  "\t",
  "(",
  ")",
];

const SCALARS: Field[] = [
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
  { name: "ts6", type: T.timestamp(6) },
  { name: "idt", type: T.intervalDayTime() },
  { name: "iym", type: T.intervalYearMonth() },
  { name: "m", type: T.map(T.string(), T.int()) },
  {
    name: "r",
    type: T.row([
      { name: "a", type: T.int() },
      { name: "b", type: T.string() },
    ]),
  },
  { name: "aa", type: T.array(T.array(T.int())) },
];
/** With native Postgres array columns (written with multi-row VALUES, not unnest). */
const WITH_ARRAYS: Field[] = [
  ...SCALARS,
  { name: "ai", type: T.array(T.int()) },
  { name: "as", type: T.array(T.string()) },
];

function rowOf(fields: readonly Field[], id: number, n: number, rand: (n: number) => number): Row {
  const text = (max: number) => {
    let s = "";
    const len = rand(max + 1);
    while (s.length < len) s += PIECES[rand(PIECES.length)];
    return s.slice(0, max).replace(/[\uD800-\uDBFF]$/, "");
  };
  const maybe = <V>(v: V): V | null => (rand(8) === 0 ? null : v);
  const values: Record<string, () => unknown> = {
    b: () => n % 2 === 0,
    ti: () => (n % 256) - 128,
    si: () => (n % 65536) - 32768,
    // BIGINT values are numbers when safe, bigints beyond (as Weir carries them)
    bi: () => (n % 2 === 0 ? n * 1_000_003 - 5e9 : -9_007_199_254_740_993n - BigInt(n)),
    fl: () => Math.fround(n / 7),
    db: () => (rand(20) === 0 ? Number.NaN : n / 3 - 1e6),
    dec: () => BigInt(n) * 12_345n - 10n ** 15n,
    ch: () => ["abc", "{,}", "a b", '"\\,', "日本語"][n % 5],
    vc: () => text(10),
    s: () => text(40),
    by: () => new Uint8Array([n & 255, 0, 92, 34, (n >> 8) & 255].slice(0, 1 + (n % 5))),
    d: () => (n % 800_000) - 719_162,
    tm: () => (n * 7919) % 86_400_000,
    ts: () => 1_709_296_496_789 + n * 60_013 - 62_135_596_800_000 * (n % 2),
    lts: () => 1_709_296_496_789 - n * 1_013,
    ts6: () => (1_709_296_496_789_123n + BigInt(n) * 7n) * 1000n,
    idt: () => n * 1_001 - 5_000_000,
    iym: () => (n % 300) - 150,
    m: () =>
      new Map<unknown, unknown>([
        [text(5), n],
        ["z", null],
      ]),
    r: () => [n, text(6)],
    aa: () => [[n, null], [], [-n]],
    ai: () => [n, null, -3],
    as: () => [text(4), "NULL", null, ""],
  };
  return fields.map((f, i) => (i === 0 ? id : f.name === "id" ? id : maybe(values[f.name]!())));
}

/**
 * A changelog over `keys` keys in batches of `batchSize`: inserts of absent keys, and for present
 * ones deletes, update pairs (sometimes split across two batches), and repeated +I/+U of the key
 * (upserts without a retraction). `apply` is the model: it applies one change to the expected table.
 */
function* changelog(
  fields: readonly Field[],
  keys: number,
  changes: number,
  batchSize: number,
  seed: number,
  present: (id: number) => Row | undefined,
  apply: (op: Op, row: Row) => void,
): Generator<[Op, Row][]> {
  const rand = random(seed);
  let batch: [Op, Row][] = [];
  let n = 0;
  const emit = (op: Op, row: Row) => {
    batch.push([op, row]);
    apply(op, row);
  };
  while (n < changes) {
    const id = rand(keys);
    const old = present(id);
    const row = rowOf(fields, id, n++, rand);
    if (old === undefined) emit(Op.INSERT, row);
    else {
      const what = rand(6);
      if (what === 0) emit(Op.DELETE, old);
      else if (what <= 2) {
        emit(Op.UPDATE_BEFORE, old);
        // The batch ends between the -U and its +U now and then.
        if (rand(4) === 0) {
          yield batch;
          batch = [];
        }
        emit(Op.UPDATE_AFTER, row);
      } else emit(what === 3 ? Op.INSERT : Op.UPDATE_AFTER, row);
    }
    if (batch.length >= batchSize) {
      yield batch;
      batch = [];
    }
  }
  if (batch.length > 0) yield batch;
}

describe("Postgres sink under volume", () => {
  for (const [name, fields] of [
    ["unnest", SCALARS],
    ["values", WITH_ARRAYS],
  ] as const) {
    it(`writes a long changelog exactly, every column type (${name} statements)`, async () => {
      const table = `vol_${name}`;
      const s = pgSink(table, fields, { "sink.create-table": "true", "sink.buffer-flush.interval": "0" });
      await s.open();
      const expected = new Map<number, Row>();
      const apply = (op: Op, row: Row) => {
        if (op === Op.INSERT || op === Op.UPDATE_AFTER) expected.set(row[0] as number, row);
        else expected.delete(row[0] as number);
      };
      let batches = 0;
      // 60,000 changes over 30,000 keys in batches of 1,000, flushed every 16 batches as the
      // runtime does: flushes of up to 16,000 changes (more than one 10,000-row statement),
      // each many times max-rows (500).
      for (const batch of changelog(fields, 30_000, 60_000, 1_000, 7, (id) => expected.get(id), apply)) {
        s.sink.write(ChangeBatch.of(batch));
        if (++batches % 16 === 0) await s.sink.flush();
      }
      await s.sink.flush();
      await s.sink.close();
      const want = [...expected.values()].sort((a, b) => (a[0] as number) - (b[0] as number));
      const got = await readBack(table, fields);
      expect(got.length).toBe(want.length);
      expect(got).toEqual(want);
      expect(s.metrics.get("rowsDeleted")).toBeGreaterThan(0);
    }, 120_000);
  }

  it("cuts a flush into statements by the size of their array parameters (8 MiB), not only by rows", async () => {
    // 3,000 rows of ~9 KiB text (quotes, backslashes, two- and four-byte characters): ~27 MiB of
    // array text in one flush, so statements end at the size limit long before 10,000 rows.
    const fields: Field[] = [
      { name: "id", type: T.int(false) },
      { name: "s", type: T.string() },
    ];
    const rand = random(23);
    const text = (id: number) => {
      let t = `${id}:`;
      while (t.length < 9_000) t += PIECES[rand(PIECES.length)]!;
      return t;
    };
    const rows: Row[] = Array.from({ length: 3_000 }, (_, id) => [id, id % 97 === 0 ? null : text(id)]);
    const builder = new StatementBuilder(
      {
        sql: `"${SCHEMA}"."big"`,
        display: `${SCHEMA}.big`,
        schema: SCHEMA,
        primaryKey: ["id"],
        columns: [
          { sql: '"id"', name: "id", castType: "int4", type: fields[0]!.type },
          { sql: '"s"', name: "s", castType: "text", type: fields[1]!.type },
        ],
      },
      [0],
      null,
    );
    const statements = builder.upserts(rows);
    expect(statements.length).toBeGreaterThanOrEqual(3);
    // Each statement ends at the first row that takes it to the limit: under 8 MiB + one row.
    for (const st of statements)
      expect((st.values[1] as string).length).toBeLessThan(8 * 1024 * 1024 + 40_000);
    // The same rows through the sink, in one flush, then a second flush deleting every third.
    const s = pgSink("big", fields, { "sink.create-table": "true", "sink.buffer-flush.interval": "0" });
    await s.open();
    s.sink.write(ChangeBatch.inserts(rows));
    await s.sink.flush();
    const deletes = rows.filter((r) => (r[0] as number) % 3 === 0);
    s.sink.write(ChangeBatch.of(deletes.map((r) => [Op.DELETE, r] as [Op, Row])));
    await s.sink.flush();
    await s.sink.close();
    const got = await readBack("big", fields);
    expect(got).toEqual(rows.filter((r) => (r[0] as number) % 3 !== 0));
  }, 120_000);

  it("with a version column, applies each change by the version rule across flushes", async () => {
    const fields: Field[] = [
      { name: "id", type: T.int(false) },
      { name: "ver", type: T.bigint() },
      { name: "s", type: T.string() },
      { name: "dec", type: T.decimal(12, 2) },
    ];
    await admin.query(
      `CREATE TABLE ${SCHEMA}.vol_ver (id int PRIMARY KEY, ver bigint, s text, dec numeric(12,2))`,
    );
    const s = pgSink("vol_ver", fields, { "sink.version-column": "ver", "sink.buffer-flush.interval": "0" });
    await s.open();
    // The model: an upsert replaces a stored row only with a newer version (NULL is older than
    // every version), a delete removes it unless the stored version is newer.
    const stored = new Map<number, Row>();
    const older = (a: unknown, b: unknown) => a === null || (b !== null && (a as number) < (b as number));
    const notNewer = (a: unknown, b: unknown) => a === null || (b !== null && (a as number) <= (b as number));
    const rand = random(99);
    let batches = 0;
    for (let b = 0; b < 60; b++) {
      const batch: [Op, Row][] = [];
      for (let i = 0; i < 1_000; i++) {
        const id = rand(8_000);
        const ver = rand(10) === 0 ? null : rand(50);
        const row: Row = [
          id,
          ver,
          PIECES[rand(PIECES.length)]! + String(b * 1000 + i),
          BigInt(rand(1_000_000)),
        ];
        const old = stored.get(id);
        if (rand(5) === 0) {
          batch.push([Op.DELETE, row]);
          if (old !== undefined && notNewer(old[1], ver)) stored.delete(id);
        } else {
          batch.push([rand(2) === 0 ? Op.INSERT : Op.UPDATE_AFTER, row]);
          if (old === undefined || older(old[1], ver)) stored.set(id, row);
        }
      }
      s.sink.write(ChangeBatch.of(batch));
      if (++batches % 16 === 0) await s.sink.flush();
    }
    await s.sink.flush();
    await s.sink.close();
    const want = [...stored.values()].sort((a, b) => (a[0] as number) - (b[0] as number));
    expect(await readBack("vol_ver", fields)).toEqual(want);
  }, 120_000);

  it("names the column and row of a STRING with a NUL character, in an upsert and in a delete", async () => {
    const fields: Field[] = [
      { name: "k", type: T.string(false) },
      { name: "s", type: T.string() },
    ];
    await admin.query(`CREATE TABLE ${SCHEMA}.nul (k text PRIMARY KEY, s text)`);
    for (const [op, row] of [
      [Op.INSERT, ["a", "x\u0000y"]],
      [Op.DELETE, ["b\u0000", null]],
    ] as const) {
      const s = pgSink("nul", fields, { "sink.buffer-flush.interval": "0" });
      await s.open();
      s.sink.write(
        ChangeBatch.of([
          [Op.INSERT, ["ok", "fine"]],
          [op, [...row]],
        ]),
      );
      const column = op === Op.INSERT ? "s" : "k";
      await expect(s.sink.flush()).rejects.toThrow(
        new RegExp(
          `column '${column}' of the row \\[${JSON.stringify(row[0]).replace(/\\/g, "\\\\")}, .*NUL character`,
        ),
      );
      await s.sink.close();
    }
    expect((await admin.query(`SELECT count(*)::int AS n FROM ${SCHEMA}.nul`)).rows[0].n).toBe(0);
  });

  it("coalesces the changes that arrive while the server is slow into one transaction", async () => {
    const fields: Field[] = [
      { name: "id", type: T.int(false) },
      { name: "s", type: T.string() },
    ];
    await admin.query(`CREATE TABLE ${SCHEMA}.slow (id int PRIMARY KEY, s text)`);
    const app = `weir_slow_${process.pid}`;
    const s = pgSink("slow", fields, {
      url: `${URL}?application_name=${app}`,
      "sink.buffer-flush.interval": "0",
    });
    await s.open();
    // Another connection holds a lock on the table: the sink's first transaction waits for it.
    const holder = new pg.Client({ connectionString: URL });
    await holder.connect();
    await holder.query("BEGIN");
    await holder.query(`LOCK TABLE ${SCHEMA}.slow IN ACCESS EXCLUSIVE MODE`);
    const want = new Map<number, string>();
    const write = (from: number, to: number) => {
      const changes: [Op, Row][] = [];
      for (let i = from; i < to; i++) {
        const id = i % 3_000;
        changes.push([Op.UPDATE_AFTER, [id, `v${i} "q" \\ {,}`]]);
        want.set(id, `v${i} "q" \\ {,}`);
      }
      s.sink.write(ChangeBatch.of(changes));
    };
    try {
      write(0, 600);
      await vi.waitFor(
        async () => {
          const r = await admin.query(
            "SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = $1 AND wait_event_type = 'Lock'",
            [app],
          );
          expect(r.rows[0].n).toBe(1);
        },
        { timeout: 30_000, interval: 20 },
      );
      // While it waits: forty batches, each making the buffer due (max-rows 500).
      for (let b = 1; b <= 40; b++) write(b * 600, (b + 1) * 600);
    } finally {
      await holder.query("COMMIT");
      await holder.end();
    }
    await s.sink.flush();
    await s.sink.close();
    // The waiting transaction, then one with everything that arrived meanwhile.
    expect(s.metrics.get("flushes")).toBe(2);
    const got = await admin.query({ text: `SELECT id, s FROM ${SCHEMA}.slow ORDER BY id`, rowMode: "array" });
    expect(got.rows).toEqual([...want.entries()].sort((a, b) => a[0] - b[0]));
  }, 60_000);
});
