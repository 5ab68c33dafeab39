// Lookup join against a real Postgres dimension table (issue 16 item 4): each probe row queries
// the table when it arrives. The probe side is an unbounded source the test feeds itself
// (`Job.pushSource`), in phases separated by changes to the dimension table, and the job's
// clock is the test's: every check waits for conditions (the lookups drained), never for time.
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createConnectorRegistry, printChange } from "@weir/connectors";
import type { PhysicalDag } from "@weir/planner";
import { ChangeBatch, Job, type JobCheckpoint, type Op } from "@weir/runtime";
import { afterAll, describe, expect, it } from "vitest";
import { planScript } from "../smoke/script-job.js";
import { planSql } from "../support/plan.js";
import { runSql } from "./kafka-helpers.js";
import { eventually, PG_URL, PgFixture } from "./pg-helpers.js";

const pg = new PgFixture();
afterAll(() => pg.close());

const dir = mkdtempSync(join(tmpdir(), "lookup-join-"));
let seq = 0;

/** A dimension table `lookup_join_<n>` (id INT primary key, tier TEXT) with `rows`. */
async function dimTable(rows: [number, string][]): Promise<string> {
  const name = `${pg.schema}.lookup_join_${++seq}`;
  const admin = await pg.admin();
  await admin.query(`CREATE TABLE ${name} (id int PRIMARY KEY, tier text)`);
  for (const [id, tier] of rows) await admin.query(`INSERT INTO ${name} VALUES ($1, $2)`, [id, tier]);
  return name;
}

async function sql(text: string, params: unknown[] = []): Promise<void> {
  await (await pg.admin()).query(text, params);
}

function script(table: string, opts: string, join = "JOIN", extra = ""): string {
  return `
    CREATE TABLE orders (order_id INT, customer INT, proc_time AS PROCTIME())
    WITH ('connector' = 'filesystem', 'path' = '${dir}', 'format' = 'json', 'source.monitor-interval' = '1 h');
    CREATE TABLE customers (id INT, tier STRING, PRIMARY KEY (id) NOT ENFORCED)
    WITH ('connector' = 'jdbc', 'url' = '${PG_URL.replace(/^postgres:/, "jdbc:postgresql:")}${PG_URL.includes("?") ? "&" : "?"}application_name=lookup_join_${seq}',
          'table-name' = '${table}'${opts});
    SELECT o.order_id, o.customer, c.tier
    FROM orders AS o ${join} customers FOR SYSTEM_TIME AS OF o.proc_time AS c ON o.customer = c.id ${extra};`;
}

/** A job over `dag` with the test's clock; `push` feeds orders, `drain` waits for the lookups. */
async function start(dag: PhysicalDag, restoreFrom?: JobCheckpoint) {
  const clock = { now: Date.UTC(2030, 0, 1) };
  const lines: string[] = [];
  const job = new Job(dag, {
    connectors: createConnectorRegistry({ clock: () => clock.now }),
    cwd: dir,
    now: () => clock.now,
    ...(restoreFrom ? { restoreFrom } : {}),
    collect: (batch, schema) => {
      for (let i = 0; i < batch.length; i++)
        lines.push(printChange("", batch.ops[i] as Op, batch.rows[i]!, schema));
    },
  });
  await job.open();
  const source = dag.nodes.find((n) => n.kind === "source")!;
  const lookup = () => job.graph.operators().find((o) => o.node.kind === "lookup-join")!;
  const push = (rows: [number, number | null][]) =>
    job.pushSource(source.id, {
      kind: "data",
      splits: [{ split: "orders", batch: ChangeBatch.inserts(rows.map((r) => [...r])) }],
    });
  const drain = async () => {
    await job.drainAsync();
    await job.flushSinks(true);
  };
  const metric = (name: string) => {
    const v = job.metricValues()[`lookup-join-${lookup().node.id}.${name}`];
    return typeof v === "number" ? v : null;
  };
  return { job, lines, push, drain, clock, lookup, metric };
}

describe("lookup join against Postgres", () => {
  it("cache NONE: rows joined before an update keep the old value, rows after see the new one", async () => {
    const t = await dimTable([
      [1, "gold"],
      [2, "silver"],
    ]);
    const dag = planScript(script(t, ""), "lookup.sql", dir);
    const node = dag.nodes.find((n) => n.kind === "lookup-join");
    expect(node).toMatchObject({
      changelogMode: { kind: "insert-only" },
      lookup: { cache: null, maxRetries: 3 },
    });
    const r = await start(dag);
    try {
      r.push([
        [10, 1],
        [11, 2],
        [12, 3],
        [13, null],
      ]);
      await r.drain();
      expect(r.lines).toEqual(["+I[10, 1, gold]", "+I[11, 2, silver]"]);
      await sql(`UPDATE ${t} SET tier = 'platinum' WHERE id = 1`);
      await sql(`INSERT INTO ${t} VALUES (3, 'bronze')`);
      r.push([
        [20, 1],
        [21, 3],
      ]);
      await r.drain();
      // Insert-only: nothing emitted earlier is retracted or updated.
      expect(r.lines).toEqual([
        "+I[10, 1, gold]",
        "+I[11, 2, silver]",
        "+I[20, 1, platinum]",
        "+I[21, 3, bronze]",
      ]);
      // One statement per batch of distinct keys; the NULL key asks nothing.
      expect(r.metric("lookupRequests")).toBe(2);
      expect(r.metric("lookupKeys")).toBe(5);
    } finally {
      await r.job.close();
    }
  });

  it("a batch of more distinct keys than one statement takes (200) is looked up in several, every row joined", async () => {
    const t = await dimTable([]);
    await sql(`INSERT INTO ${t} SELECT g, 'tier' || g FROM generate_series(1, 450) AS g`);
    const dag = planScript(
      `SET 'table.exec.async-lookup.buffer-capacity' = '1000';\n${script(t, "")}`,
      "lookup.sql",
      dir,
    );
    const r = await start(dag);
    try {
      const rows: [number, number][] = Array.from({ length: 450 }, (_, i) => [1000 + i, 450 - i]);
      r.push(rows);
      await r.drain();
      expect(r.lines).toEqual(rows.map(([o, c]) => `+I[${o}, ${c}, tier${c}]`));
      // One lookup of 450 keys: the Postgres source splits it into statements of 200 keys.
      expect(r.metric("lookupRequests")).toBe(1);
      expect(r.metric("lookupKeys")).toBe(450);
    } finally {
      await r.job.close();
    }
  });

  it("LEFT lookup join pads rows without a match, applies the residual condition after the lookup, and is insert-only", async () => {
    const t = await dimTable([
      [1, "gold"],
      [2, "silver"],
    ]);
    const dag = planScript(script(t, "", "LEFT JOIN", "AND c.tier <> 'silver'"), "lookup.sql", dir);
    const r = await start(dag);
    try {
      r.push([
        [1, 1],
        [2, 2],
        [3, 7],
        [4, null],
      ]);
      await r.drain();
      expect(r.lines).toEqual(["+I[1, 1, gold]", "+I[2, 2, null]", "+I[3, 7, null]", "+I[4, null, null]"]);
    } finally {
      await r.job.close();
    }
    // An append-only sink takes it (a regular LEFT join would be updating and refused).
    const insertSql = script(t, "", "LEFT JOIN").replace(
      "SELECT o.order_id",
      `CREATE TABLE out (order_id INT, customer INT, tier STRING) WITH ('connector' = 'filesystem', 'path' = '${dir}/out', 'format' = 'json');
         INSERT INTO out SELECT o.order_id`,
    );
    const planned = planSql(insertSql, { file: "lookup.sql" });
    expect(planned.nodes.find((n) => n.kind === "lookup-join")?.changelogMode).toEqual({
      kind: "insert-only",
    });
  });

  it("PARTIAL cache with expire-after-write serves the cached row until it expires (job clock)", async () => {
    const t = await dimTable([[1, "gold"]]);
    const dag = planScript(
      script(t, `, 'lookup.cache' = 'PARTIAL', 'lookup.partial-cache.expire-after-write' = '1 min'`),
      "lookup.sql",
      dir,
    );
    const r = await start(dag);
    try {
      r.push([[1, 1]]);
      await r.drain();
      await sql(`UPDATE ${t} SET tier = 'platinum' WHERE id = 1`);
      r.clock.now += 59_999;
      r.push([[2, 1]]);
      await r.drain();
      expect(r.metric("lookupCacheHits")).toBe(1);
      r.clock.now += 1;
      r.push([[3, 1]]);
      await r.drain();
      expect(r.lines).toEqual(["+I[1, 1, gold]", "+I[2, 1, gold]", "+I[3, 1, platinum]"]);
      expect(r.metric("lookupRequests")).toBe(2);
    } finally {
      await r.job.close();
    }
  });

  it("PARTIAL cache with expire-after-access keeps a key while it is read", async () => {
    const t = await dimTable([[1, "gold"]]);
    const r = await start(
      planScript(
        script(t, `, 'lookup.cache' = 'PARTIAL', 'lookup.partial-cache.expire-after-access' = '1 min'`),
        "lookup.sql",
        dir,
      ),
    );
    try {
      r.push([[1, 1]]);
      await r.drain();
      await sql(`UPDATE ${t} SET tier = 'platinum' WHERE id = 1`);
      for (const id of [2, 3, 4]) {
        r.clock.now += 50_000; // read again within the minute: still cached
        r.push([[id, 1]]);
        await r.drain();
      }
      r.clock.now += 60_000; // a minute without a read: expired
      r.push([[5, 1]]);
      await r.drain();
      expect(r.lines).toEqual([
        "+I[1, 1, gold]",
        "+I[2, 1, gold]",
        "+I[3, 1, gold]",
        "+I[4, 1, gold]",
        "+I[5, 1, platinum]",
      ]);
    } finally {
      await r.job.close();
    }
  });

  it("PARTIAL cache: max-rows evicts the least recently used key; missing keys are cached unless cache-missing-key is false", async () => {
    const t = await dimTable([
      [1, "gold"],
      [2, "silver"],
    ]);
    const dag = planScript(
      script(t, `, 'lookup.cache' = 'PARTIAL', 'lookup.partial-cache.max-rows' = '2'`),
      "lookup.sql",
      dir,
    );
    const r = await start(dag);
    try {
      r.push([[1, 1]]);
      await r.drain();
      r.push([[2, 2]]);
      await r.drain();
      r.push([[3, 9]]); // missing: cached as "no row"; evicts key 1
      await r.drain();
      await sql(`UPDATE ${t} SET tier = tier || '-new'`);
      await sql(`INSERT INTO ${t} VALUES (9, 'late')`);
      r.push([[4, 2]]); // cached
      await r.drain();
      r.push([[5, 9]]); // cached missing key: still no row
      await r.drain();
      r.push([[6, 1]]); // evicted: queried again
      await r.drain();
      expect(r.lines).toEqual([
        "+I[1, 1, gold]",
        "+I[2, 2, silver]",
        "+I[4, 2, silver]",
        "+I[6, 1, gold-new]",
      ]);
      expect(r.metric("lookupCacheSize")).toBe(2);
    } finally {
      await r.job.close();
    }

    const t2 = await dimTable([]);
    const r2 = await start(
      planScript(
        script(
          t2,
          `, 'lookup.cache' = 'PARTIAL', 'lookup.partial-cache.max-rows' = '10', 'lookup.partial-cache.cache-missing-key' = 'false'`,
        ),
        "lookup.sql",
        dir,
      ),
    );
    try {
      r2.push([[1, 9]]);
      await r2.drain();
      await sql(`INSERT INTO ${t2} VALUES (9, 'late')`);
      r2.push([[2, 9]]);
      await r2.drain();
      expect(r2.lines).toEqual(["+I[2, 9, late]"]);
    } finally {
      await r2.job.close();
    }
  });

  it("retries a lookup on a new connection when its connection is terminated; with no retries left the job fails naming table and key", async () => {
    const t = await dimTable([[1, "gold"]]);
    const app = `lookup_join_${seq}`;
    const r = await start(planScript(script(t, ""), "lookup.sql", dir));
    const terminate = async () => {
      const rows = await pg.rows(
        `SELECT pg_terminate_backend(pid)::text FROM pg_stat_activity WHERE application_name = '${app}'`,
      );
      expect(rows).toEqual([["true"]]);
    };
    try {
      r.push([[1, 1]]);
      await r.drain();
      await terminate();
      expect(r.metric("lookupConnects")).toBe(1);
      r.push([[2, 1]]);
      await r.drain();
      expect(r.lines).toEqual(["+I[1, 1, gold]", "+I[2, 1, gold]"]);
      // A new connection (after a failed statement, or at once when the client saw the loss).
      expect(r.metric("lookupConnects")).toBe(2);
      // Terminated while a statement is in flight (blocked by a lock): that statement is retried.
      // (Above, the statement may or may not have been sent before the client saw the loss.)
      const retried = r.metric("lookupRetries")!;
      const admin = await pg.admin();
      await admin.query("BEGIN");
      await admin.query(`LOCK TABLE ${t} IN ACCESS EXCLUSIVE MODE`);
      try {
        r.push([[3, 1]]);
        await eventually(
          async () =>
            (
              await pg.rows(
                `SELECT count(*)::text FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid WHERE a.application_name = '${app}' AND NOT l.granted`,
              )
            )[0]![0] === "1",
          () => "the lookup waiting for the lock",
        );
        await terminate();
      } finally {
        await admin.query("COMMIT");
      }
      await r.drain();
      expect(r.lines).toEqual(["+I[1, 1, gold]", "+I[2, 1, gold]", "+I[3, 1, gold]"]);
      expect(r.metric("lookupRetries")).toBe(retried + 1);
      expect(r.metric("lookupConnects")).toBe(3);
    } finally {
      await r.job.close();
    }

    const t2 = await dimTable([[1, "gold"]]);
    const app2 = `lookup_join_${seq}`;
    const r2 = await start(planScript(script(t2, `, 'lookup.max-retries' = '0'`), "lookup.sql", dir));
    try {
      r2.push([[1, 1]]);
      await r2.drain();
      // Terminated while its statement is in flight (blocked by a lock), so that the statement
      // fails: a connection lost while idle is replaced before the next statement, which is no
      // failure at all.
      const admin = await pg.admin();
      await admin.query("BEGIN");
      await admin.query(`LOCK TABLE ${t2} IN ACCESS EXCLUSIVE MODE`);
      try {
        r2.push([[2, 1]]);
        await eventually(
          async () =>
            (
              await pg.rows(
                `SELECT count(*)::text FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid WHERE a.application_name = '${app2}' AND NOT l.granted`,
              )
            )[0]![0] === "1",
          () => "the lookup waiting for the lock",
        );
        await pg.rows(
          `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = '${app2}'`,
        );
      } finally {
        await admin.query("COMMIT");
      }
      await expect(r2.drain()).rejects.toThrow(
        /table customers.*lookup of key \(1\) failed after 0 retries/s,
      );
    } finally {
      await r2.job.close().catch(() => undefined);
    }
  });

  it("bounds the rows in flight (backpressure), times out a lookup that hangs, and drains in-flight lookups before a checkpoint; a restore continues", async () => {
    const t = await dimTable([
      [1, "gold"],
      [2, "silver"],
    ]);
    const dag = planScript(script(t, ""), "lookup.sql", dir);
    const settings = { "table.exec.async-lookup.buffer-capacity": "2" };
    const dagCap: PhysicalDag = planWith(script(t, ""), settings);
    expect(dagCap.nodes.find((n) => n.kind === "lookup-join")).toMatchObject({
      lookup: { bufferCapacity: 2 },
    });
    expect(dag.nodes.find((n) => n.kind === "lookup-join")).toMatchObject({
      lookup: { bufferCapacity: 100, timeoutMs: 180_000, ordered: true },
    });

    const admin = await pg.admin();
    const r = await start(dagCap);
    let cp: JobCheckpoint;
    try {
      // The table is locked: lookups hang in flight.
      await admin.query("BEGIN");
      await admin.query(`LOCK TABLE ${t} IN ACCESS EXCLUSIVE MODE`);
      r.push([
        [1, 1],
        [2, 2],
        [3, 1],
        [4, 2],
        [5, 1],
      ]);
      const op = r.lookup().driver.task.async!;
      expect(op.pending).toBe(true);
      expect(op.saturated).toBe(true);
      // Key 1 (rows 1, 3, 5: one request) is in flight; key 2 waits until it returns.
      expect(r.metric("lookupKeys")).toBe(1);
      expect(r.metric("lookupInFlight")).toBe(5);
      // A checkpoint waits for the lookups in flight: release the lock once it is waiting.
      const taken = r.job.checkpoint();
      await admin.query("COMMIT");
      cp = await taken;
      expect(op.pending).toBe(false);
      expect(r.lines).toEqual([
        "+I[1, 1, gold]",
        "+I[2, 2, silver]",
        "+I[3, 1, gold]",
        "+I[4, 2, silver]",
        "+I[5, 1, gold]",
      ]);
    } finally {
      await admin.query("ROLLBACK").catch(() => undefined);
      await r.job.close();
    }
    const r2 = await start(dagCap, cp);
    try {
      await sql(`UPDATE ${t} SET tier = 'platinum' WHERE id = 1`);
      r2.push([[6, 1]]);
      await r2.drain();
      expect(r2.lines).toEqual(["+I[6, 1, platinum]"]);
    } finally {
      await r2.job.close();
    }

    const r3 = await start(planWith(script(t, ""), { "table.exec.async-lookup.timeout": "300 ms" }));
    try {
      await admin.query("BEGIN");
      await admin.query(`LOCK TABLE ${t} IN ACCESS EXCLUSIVE MODE`);
      r3.push([[1, 1]]);
      await expect(r3.drain()).rejects.toThrow(
        /table customers: Async function call has timed out: no answer for key \(1\) within 300 ms/,
      );
    } finally {
      await admin.query("ROLLBACK");
      await r3.job.close().catch(() => undefined);
    }
  });

  it("runs in the job loop: watermarks stay behind the rows they follow, so a window after the lookup counts every row", async () => {
    const t = await dimTable([
      [1, "gold"],
      [2, "silver"],
    ]);
    const run = mkdtempSync(join(tmpdir(), "lookup-join-run-"));
    const orders = [
      [1, 1, "2024-05-01 09:00:10"],
      [2, 2, "2024-05-01 09:00:20"],
      [3, 1, "2024-05-01 09:01:10"],
      [4, 3, "2024-05-01 09:01:30"],
      [5, 1, "2024-05-01 09:02:05"],
    ].map(([order_id, customer, ts]) => JSON.stringify({ order_id, customer, ts }));
    writeFileSync(join(run, "orders.jsonl"), `${orders.join("\n")}\n`);
    const r = await runSql(
      `CREATE TABLE orders (order_id INT, customer INT, ts TIMESTAMP(3), proc_time AS PROCTIME(),
         WATERMARK FOR ts AS ts)
       WITH ('connector' = 'filesystem', 'path' = 'orders.jsonl', 'format' = 'json');
       CREATE TABLE customers (id INT, tier STRING)
       WITH ('connector' = 'postgres', 'url' = '${PG_URL}', 'table-name' = '${t}');
       CREATE VIEW enriched AS
         SELECT o.order_id, o.ts, c.tier
         FROM orders AS o LEFT JOIN customers FOR SYSTEM_TIME AS OF o.proc_time AS c ON o.customer = c.id;
       CREATE TABLE out (window_start TIMESTAMP(3), tier STRING, n BIGINT)
       WITH ('connector' = 'filesystem', 'path' = 'out.jsonl', 'format' = 'json');
       SET 'table.exec.async-lookup.buffer-capacity' = '2';
       INSERT INTO out
       SELECT window_start, tier, COUNT(*) AS n
       FROM TABLE(TUMBLE(TABLE enriched, DESCRIPTOR(ts), INTERVAL '1' MINUTE))
       GROUP BY window_start, window_end, tier;`,
      { cwd: run },
    );
    expect(r.err.filter((l) => /error/i.test(l))).toEqual([]);
    expect(r.code).toBe(0);
    expect(r.err.filter((l) => /late records/.test(l))).toEqual(["  late records dropped: 0"]);
    const rows = readFileSync(join(run, "out.jsonl"), "utf8").trim().split("\n").sort();
    // And straight into the append-only sink: a LEFT lookup join is insert-only.
    const direct = await runSql(
      `CREATE TABLE orders (order_id INT, customer INT, ts TIMESTAMP(3), proc_time AS PROCTIME())
       WITH ('connector' = 'filesystem', 'path' = 'orders.jsonl', 'format' = 'json');
       CREATE TABLE customers (id INT, tier STRING)
       WITH ('connector' = 'postgres', 'url' = '${PG_URL}', 'table-name' = '${t}');
       CREATE TABLE enriched (order_id INT, tier STRING)
       WITH ('connector' = 'filesystem', 'path' = 'enriched.jsonl', 'format' = 'json');
       INSERT INTO enriched SELECT o.order_id, c.tier
       FROM orders AS o LEFT JOIN customers FOR SYSTEM_TIME AS OF o.proc_time AS c ON o.customer = c.id;`,
      { cwd: run },
    );
    expect(direct.code).toBe(0);
    expect(readFileSync(join(run, "enriched.jsonl"), "utf8").trim().split("\n")).toEqual(
      [
        { order_id: 1, tier: "gold" },
        { order_id: 2, tier: "silver" },
        { order_id: 3, tier: "gold" },
        { order_id: 4, tier: null },
        { order_id: 5, tier: "gold" },
      ].map((x) => JSON.stringify(x)),
    );
    expect(rows).toEqual(
      [
        { window_start: "2024-05-01 09:00:00.000", tier: "gold", n: 1 },
        { window_start: "2024-05-01 09:00:00.000", tier: "silver", n: 1 },
        { window_start: "2024-05-01 09:01:00.000", tier: "gold", n: 1 },
        { window_start: "2024-05-01 09:01:00.000", tier: null, n: 1 },
        { window_start: "2024-05-01 09:02:00.000", tier: "gold", n: 1 },
      ]
        .map((x) => JSON.stringify(x))
        .sort(),
    );
  });

  it("ALLOW_UNORDERED lets a cache hit overtake a row in flight, ORDERED does not; a watermark waits for the rows before it", async () => {
    const t = await dimTable([
      [1, "gold"],
      [2, "silver"],
    ]);
    const admin = await pg.admin();
    for (const mode of ["ORDERED", "ALLOW_UNORDERED"]) {
      const text = script(t, `, 'lookup.cache' = 'PARTIAL', 'lookup.partial-cache.max-rows' = '10'`).replace(
        "proc_time AS PROCTIME())",
        "proc_time AS PROCTIME(), ts AS TO_TIMESTAMP_LTZ(order_id, 3), WATERMARK FOR ts AS ts)",
      );
      const r = await start(
        planWith(text, {
          "table.exec.async-lookup.output-mode": mode,
          "table.exec.async-lookup.buffer-capacity": "3",
        }),
      );
      const sinkWatermark = () => {
        const sink = r.job.graph.sinks()[0]!;
        return sink.driver.forwarded > Number.NEGATIVE_INFINITY ? sink.driver.watermark : null;
      };
      try {
        r.push([[100, 1]]);
        await r.drain();
        expect(sinkWatermark()).toBe(100);
        await admin.query("BEGIN");
        await admin.query(`LOCK TABLE ${t} IN ACCESS EXCLUSIVE MODE`);
        // Rows 2 and 3 do not advance the watermark (100); row 200 does, after itself.
        r.push([
          [2, 2], // not cached: in flight until the lock is released
          [3, 1], // cached
          [200, 1], // cached
        ]);
        r.job.pumpAsync();
        await r.job.flushSinks(true);
        expect(r.lines).toEqual(
          mode === "ORDERED"
            ? ["+I[100, 1, gold]"]
            : ["+I[100, 1, gold]", "+I[3, 1, gold]", "+I[200, 1, gold]"],
        );
        // The capacity counts rows not emitted: ORDERED holds the cached rows 3 and 200 behind row 2.
        expect(r.lookup().driver.task.async!.saturated).toBe(mode === "ORDERED");
        // The watermark after row 200 waits for row 2, in both modes.
        expect(sinkWatermark()).toBe(100);
        await admin.query("COMMIT");
        await r.drain();
        expect(r.lines).toEqual(
          mode === "ORDERED"
            ? ["+I[100, 1, gold]", "+I[2, 2, silver]", "+I[3, 1, gold]", "+I[200, 1, gold]"]
            : ["+I[100, 1, gold]", "+I[3, 1, gold]", "+I[200, 1, gold]", "+I[2, 2, silver]"],
        );
        expect(sinkWatermark()).toBe(200);
      } finally {
        await admin.query("ROLLBACK").catch(() => undefined);
        await r.job.close();
      }
    }
  });

  it("refuses what it would not honour, with Flink's names", () => {
    const plan = (opts: string) => () => planScript(script("x", opts), "lookup.sql", dir);
    expect(plan(`, 'lookup.cache' = 'FULL'`)).toThrow(/'lookup.cache' = 'FULL' is not supported/);
    expect(plan(`, 'lookup.partial-cache.max-rows' = '10'`)).toThrow(/has no effect without a PARTIAL cache/);
    expect(plan(`, 'lookup.cache' = 'PARTIAL'`)).toThrow(/needs at least one of/);
    expect(plan(`, 'lookup.cache.ttl' = '1 min'`)).toThrow(
      /need both 'lookup.cache.max-rows' and 'lookup.cache.ttl'/,
    );
    const legacy = planScript(
      script("x", `, 'lookup.cache.max-rows' = '5', 'lookup.cache.ttl' = '1 min'`),
      "lookup.sql",
      dir,
    );
    expect(legacy.nodes.find((n) => n.kind === "lookup-join")).toMatchObject({
      lookup: { cache: { maxRows: 5, expireAfterWriteMs: 60_000, cacheMissingKey: true } },
    });
    expect(() =>
      planScript(
        `CREATE TABLE orders (order_id INT, customer INT, proc_time AS PROCTIME())
         WITH ('connector' = 'filesystem', 'path' = '${dir}', 'format' = 'json', 'source.monitor-interval' = '1 h');
         CREATE VIEW v AS SELECT customer AS id, order_id FROM orders;
         SELECT * FROM orders AS o JOIN v FOR SYSTEM_TIME AS OF o.proc_time AS c ON o.customer = c.id;`,
        "lookup.sql",
        dir,
      ),
    ).toThrow(/Processing-time temporal join is not supported yet/);
  });
});

/** Plans `source` with job settings (SET statements). */
function planWith(source: string, settings: Record<string, string>): PhysicalDag {
  const sets = Object.entries(settings)
    .map(([k, v]) => `SET '${k}' = '${v}';`)
    .join("\n");
  return planScript(`${sets}\n${source}`, "lookup.sql", dir);
}
