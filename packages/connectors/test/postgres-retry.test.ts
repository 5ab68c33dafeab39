import { userInfo } from "node:os";
import type { Field, SinkNode } from "@weir/planner";
import { T } from "@weir/planner";
import { ChangeBatch, Op } from "@weir/runtime";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPostgresSink } from "../src/postgres/index.js";
import { sinkNode } from "./helpers.js";

/**
 * issue 17, item 19: the Postgres sink retries SQLSTATE 53300 (too many connections) and 55000
 * (the database is not accepting connections) with its bounded backoff, against the real server:
 * a role with CONNECTION LIMIT 1 whose one connection is taken, and a database with
 * ALLOW_CONNECTIONS false. The sink's wait between retries is where the test lifts the condition.
 */
const HOST = "127.0.0.1:5432";
const ADMIN_USER = process.env.PGUSER || process.env.USER || userInfo().username;
const ADMIN_URL = process.env.WEIR_TEST_PG_URL ?? `postgres://${encodeURIComponent(ADMIN_USER)}@${HOST}/test`;
const TAG = `${process.pid}_${Date.now().toString(36)}`;
const ROLE = `weir_limited_${TAG}`;
const DB = `weir_closed_${TAG}`;

let admin: pg.Client;

beforeAll(async () => {
  admin = new pg.Client({ connectionString: ADMIN_URL });
  await admin.connect();
  await admin.query(`CREATE ROLE ${ROLE} LOGIN CONNECTION LIMIT 1`);
  await admin.query(`CREATE TABLE public.${ROLE} (id bigint PRIMARY KEY, v text)`);
  await admin.query(`GRANT ALL ON public.${ROLE} TO ${ROLE}`);
  await admin.query(`CREATE DATABASE ${DB}`);
  const inDb = new pg.Client({ connectionString: ADMIN_URL.replace(/\/test$/, `/${DB}`) });
  await inDb.connect();
  await inDb.query("CREATE TABLE kv (id bigint PRIMARY KEY, v text)");
  await inDb.end();
});

afterAll(async () => {
  await admin.query(`DROP TABLE IF EXISTS public.${ROLE}`);
  await admin.query(`DROP ROLE IF EXISTS ${ROLE}`);
  await admin.query(`DROP DATABASE IF EXISTS ${DB}`);
  await admin.end();
});

const KV: Field[] = [
  { name: "id", type: T.bigint(false) },
  { name: "v", type: T.string() },
];

function sink(url: string, table: string, sleep: (ms: number) => Promise<void>) {
  const node: SinkNode = {
    ...sinkNode(KV, { connector: "postgres", url, "table-name": table, "sink.buffer-flush.interval": "0" }),
    table,
    primaryKey: [0],
  };
  const metrics = new Map<string, number>();
  const writer = createPostgresSink(node, { sleep });
  return { writer, metrics, open: () => writer.open({ node, metrics, settings: {}, cwd: "." }) };
}

describe("Postgres sink: a server that refuses for a moment", () => {
  it("retries SQLSTATE 53300 (too many connections) and writes once a connection is free", async () => {
    const holder = new pg.Client({ connectionString: `postgres://${ROLE}@${HOST}/test` });
    await holder.connect();
    const waits: number[] = [];
    const s = sink(`postgres://${ROLE}@${HOST}/test`, `public.${ROLE}`, async (ms) => {
      waits.push(ms);
      if (waits.length === 1) await holder.end(); // the connection limit frees up
      // The server counts the ended backend a moment later: wait until it is gone.
      for (;;) {
        const r = await admin.query("SELECT count(*)::int AS n FROM pg_stat_activity WHERE usename = $1", [
          ROLE,
        ]);
        if (r.rows[0].n === 0) break;
      }
    });
    await s.open();
    expect(waits.length).toBeGreaterThanOrEqual(1);
    expect(s.metrics.get("retries")).toBe(waits.length);
    s.writer.write(ChangeBatch.of([[Op.INSERT, [1, "a"]]]));
    await s.writer.flush();
    await s.writer.close();
    const r = await admin.query(`SELECT id::int, v FROM public.${ROLE}`);
    expect(r.rows).toEqual([{ id: 1, v: "a" }]);
  });

  it("gives up after 'sink.max-retries' with the SQLSTATE in the message", async () => {
    const holder = new pg.Client({ connectionString: `postgres://${ROLE}@${HOST}/test` });
    await holder.connect();
    try {
      const waits: number[] = [];
      const s = sink(`postgres://${ROLE}@${HOST}/test`, `public.${ROLE}`, async (ms) => {
        waits.push(ms);
      });
      await expect(s.open()).rejects.toThrow(/\[SQLSTATE 53300\] \(after 3 retries\)/);
      // Bounded: three waits of the backoff, 0.7 s in all.
      expect(waits).toEqual([100, 200, 400]);
    } finally {
      await holder.end();
    }
  });

  it("retries SQLSTATE 55000 (the database is not accepting connections)", async () => {
    await admin.query(`ALTER DATABASE ${DB} ALLOW_CONNECTIONS false`);
    let refusedOnce = false;
    const s = sink(ADMIN_URL.replace(/\/test$/, `/${DB}`), "kv", async () => {
      refusedOnce = true;
      await admin.query(`ALTER DATABASE ${DB} ALLOW_CONNECTIONS true`);
    });
    await s.open();
    expect(refusedOnce).toBe(true);
    expect(s.metrics.get("retries")).toBe(1);
    s.writer.write(ChangeBatch.of([[Op.INSERT, [7, "x"]]]));
    await s.writer.flush();
    await s.writer.close();
  });
});
