import { describe, expect, it } from "vitest";
import type { LookupJoinNode, PhysicalDag } from "../../packages/planner/src/physical.js";
import { explainScript, planScript } from "./plan-helpers.js";

const ORDERS = `CREATE TABLE orders (order_id BIGINT, customer INT, amount INT, proc AS PROCTIME())
  WITH ('connector' = 'datagen', 'number-of-rows' = '10');`;
const OUT = `CREATE TABLE out (order_id BIGINT, tier STRING)
  WITH ('connector' = 'filesystem', 'path' = 'o.jsonl', 'format' = 'json');`;

function dim(options = "", connector = "jdbc"): string {
  return `CREATE TABLE customers (id INT, tier STRING, credit INT)
    WITH ('connector' = '${connector}', 'url' = 'jdbc:postgresql://h/db', 'table-name' = 'customers'${options});`;
}

const JOIN = (kind = "JOIN", extra = "") =>
  `INSERT INTO out SELECT o.order_id, c.tier FROM orders AS o ${kind} customers FOR SYSTEM_TIME AS OF o.proc AS c ON o.customer = c.id ${extra};`;

function lookupNode(dag: PhysicalDag): LookupJoinNode {
  const n = dag.nodes.filter((x) => x.kind === "lookup-join");
  expect(n).toHaveLength(1);
  return n[0] as LookupJoinNode;
}

describe("lookup join planning", () => {
  it("plans a LEFT lookup join as an insert-only LookupJoin into an append-only sink", () => {
    const sql = `${ORDERS}${dim()}${OUT}${JOIN("LEFT JOIN", "AND c.credit > o.amount")}`;
    const node = lookupNode(planScript(sql));
    expect(node).toMatchObject({
      joinType: "left",
      table: "customers",
      connector: "jdbc",
      leftKeys: [1],
      dimKeys: [0],
      changelogMode: { kind: "insert-only" },
      lookup: { cache: null, maxRetries: 3, bufferCapacity: 100, timeoutMs: 180_000, ordered: true },
    });
    expect(node.condition).not.toBeNull();
    expect(explainScript(sql)).toContain(
      "LookupJoin(table=[customers], joinType=[LeftOuterJoin], lookup=[id=customer], where=[(credit > amount)]",
    );
  });

  it("reads the cache options, Flink's deprecated ones and the async settings", () => {
    const partial = lookupNode(
      planScript(
        `${ORDERS}${dim(`, 'lookup.cache' = 'partial', 'lookup.partial-cache.expire-after-access' = '5 min', 'lookup.partial-cache.cache-missing-key' = 'false', 'lookup.max-retries' = '0'`)}${OUT}${JOIN()}`,
      ),
    );
    expect(partial.lookup).toMatchObject({
      cache: {
        maxRows: null,
        expireAfterWriteMs: null,
        expireAfterAccessMs: 300_000,
        cacheMissingKey: false,
      },
      maxRetries: 0,
    });
    const legacy = lookupNode(
      planScript(
        `${ORDERS}${dim(`, 'lookup.cache.max-rows' = '7', 'lookup.cache.ttl' = '10 s', 'lookup.cache.caching-missing-key' = 'false'`)}${OUT}${JOIN()}`,
      ),
    );
    expect(legacy.lookup.cache).toEqual({
      maxRows: 7,
      expireAfterWriteMs: 10_000,
      expireAfterAccessMs: null,
      cacheMissingKey: false,
    });
    const set = lookupNode(
      planScript(
        `SET 'table.exec.async-lookup.buffer-capacity' = '7'; SET 'table.exec.async-lookup.timeout' = '2 s';
         SET 'table.exec.async-lookup.output-mode' = 'ALLOW_UNORDERED';
         ${ORDERS}${dim()}${OUT}${JOIN()}`,
      ),
    );
    expect(set.lookup).toMatchObject({ bufferCapacity: 7, timeoutMs: 2000, ordered: false });
  });

  it("refuses options it would not honour", () => {
    const plan = (opts: string) => () => planScript(`${ORDERS}${dim(opts)}${OUT}${JOIN()}`);
    expect(plan(`, 'lookup.cache' = 'FULL'`)).toThrow(/'lookup.cache' = 'FULL' is not supported/);
    expect(plan(`, 'lookup.partial-cache.expire-after-write' = '1 min'`)).toThrow(
      /has no effect without a PARTIAL cache/,
    );
    expect(plan(`, 'lookup.cache' = 'PARTIAL'`)).toThrow(/needs at least one of/);
    expect(plan(`, 'lookup.cache' = 'PARTIAL', 'lookup.cache.ttl' = '1 min'`)).toThrow(/cannot be mixed/);
    expect(plan(`, 'lookup.cache.max-rows' = '5'`)).toThrow(/need both/);
    expect(plan(`, 'lookup.cache' = 'NONE', 'lookup.cache.max-rows' = '5'`)).toThrow(
      /no effect with 'lookup.cache' = 'NONE'/,
    );
    expect(plan(`, 'lookup.partial-cache.max-rows' = '0'`)).toThrow(/at least 1/);
  });

  it("needs an equality on a column of the lookup table, and a table without computed columns", () => {
    expect(() =>
      planScript(
        `${ORDERS}${dim()}${OUT}INSERT INTO out SELECT o.order_id, c.tier FROM orders AS o JOIN customers FOR SYSTEM_TIME AS OF o.proc AS c ON o.customer > c.id;`,
      ),
    ).toThrow(/Temporal table join requires an equality condition on fields of table \[customers\]/);
    expect(() =>
      planScript(
        `${ORDERS}CREATE TABLE customers (id INT, tier STRING, credit INT, t2 AS UPPER(tier))
           WITH ('connector' = 'postgres', 'table-name' = 'customers');${OUT}${JOIN()}`,
      ),
    ).toThrow(/has computed column 't2'/);
  });

  it("plans a bounded filesystem side input as a lookup join with a FULL cache, a computed probe key in a calc before it", () => {
    const fs = (opts = "") => `CREATE TABLE customers (id INT, tier STRING, credit INT)
      WITH ('connector' = 'filesystem', 'path' = 'c.jsonl', 'format' = 'json'${opts});`;
    const dag = planScript(`${ORDERS}${fs()}${OUT}${JOIN()}`);
    expect(dag.nodes.some((n) => n.kind === "join")).toBe(false);
    expect(lookupNode(dag)).toMatchObject({
      connector: "filesystem",
      leftKeys: [1],
      dimKeys: [0],
      lookup: { cache: null, full: { reloadIntervalMs: null, fixedRate: false } },
    });
    const computed = `${ORDERS}${fs(", 'lookup.cache' = 'FULL', 'lookup.full-cache.periodic-reload.interval' = '1 h', 'lookup.full-cache.periodic-reload.schedule-mode' = 'FIXED_RATE'")}${OUT}
      INSERT INTO out SELECT o.order_id, c.tier FROM orders AS o JOIN customers FOR SYSTEM_TIME AS OF o.proc AS c
      ON MOD(o.customer, 10) = c.id AND c.credit > o.amount;`;
    const node = lookupNode(planScript(computed));
    expect(node).toMatchObject({
      leftKeys: [4],
      dimKeys: [0],
      lookup: { full: { reloadIntervalMs: 3_600_000, fixedRate: true } },
    });
    // The residual reads the dimension columns after the computed key column.
    const plan = explainScript(computed);
    expect(plan).toContain(
      "LookupJoin(table=[customers], joinType=[InnerJoin], lookup=[id=$key0], where=[(credit > amount)]",
    );
    expect(plan).toMatch(/Calc\(select=\[order_id, customer, amount, proc, \(customer % 10\) AS \$key0\]/);

    const plan2 = (opts: string) => () => planScript(`${ORDERS}${fs(opts)}${OUT}${JOIN()}`);
    expect(plan2(", 'lookup.cache' = 'PARTIAL'")).toThrow(/a file cannot be queried by key/);
    expect(plan2(", 'lookup.cache' = 'NONE'")).toThrow(/a file cannot be queried by key/);
    expect(plan2(", 'lookup.full-cache.reload-strategy' = 'TIMED'")).toThrow(/'TIMED' is not supported/);
    expect(plan2(", 'lookup.full-cache.timed-reload.iso-time' = '10:15Z'")).toThrow(
      /'lookup.full-cache.timed-reload.iso-time' has no effect without the TIMED reload strategy/,
    );
    expect(plan2(", 'lookup.full-cache.periodic-reload.schedule-mode' = 'FIXED_RATE'")).toThrow(
      /has no effect without 'lookup.full-cache.periodic-reload.interval'/,
    );
    expect(plan2(", 'lookup.full-cache.periodic-reload.interval' = '0 s'")).toThrow(
      /not a positive duration/,
    );
    expect(plan2(", 'source.monitor-interval' = '1 s'")).toThrow(
      /is unbounded, and a lookup join loads its table whole/,
    );
    expect(() =>
      planScript(`${ORDERS}CREATE TABLE customers (id INT, tier STRING, credit INT)
        WITH ('connector' = 'filesystem', 'path' = 'c.jsonl', 'format' = 'debezium-json');${OUT}${JOIN()}`),
    ).toThrow(/format 'debezium-json' reads a changelog/);
    // A Postgres table has no FULL cache options.
    expect(() =>
      planScript(`${ORDERS}${dim(", 'lookup.full-cache.periodic-reload.interval' = '1 h'")}${OUT}${JOIN()}`),
    ).toThrow(/lookup.full-cache.periodic-reload.interval/);
    const kafka = `CREATE TABLE customers (id INT, tier STRING, credit INT)
      WITH ('connector' = 'kafka', 'topic' = 't', 'properties.bootstrap.servers' = 'h:1', 'format' = 'json');`;
    expect(() => planScript(`${ORDERS}${kafka}${OUT}${JOIN()}`)).toThrow(
      /Processing-time temporal join is not supported yet/,
    );
  });
});
