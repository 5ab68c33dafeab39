import { type Query, type Statement, stripSpans } from "@weir/parser";
import { describe, expect, it } from "vitest";
import { expectRoundTrip, parseOne } from "./helpers.js";

function query(stmt: Statement): Query {
  if (stmt.kind !== "QueryStatement") throw new Error(`not a query: ${stmt.kind}`);
  return stmt.query;
}

/** [title, sql, expected shape of the query (spans stripped)] */
type Case = [string, string, Record<string, unknown>];

function run(cases: Case[]): void {
  it.each(cases)("%s", (_title, sql, expected) => {
    const stmt = parseOne(sql);
    expect(stripSpans(query(stmt))).toMatchObject(expected);
    expectRoundTrip(stmt);
  });
}

const tvf = (name: string, args: unknown[]) => ({
  body: {
    from: [{ kind: "TableFunctionRef", lateral: false, call: { name: { parts: [{ value: name }] }, args } }],
  },
});

describe("window table-valued functions", () => {
  run([
    [
      "TUMBLE positional",
      "SELECT window_start, SUM(price) FROM TABLE(TUMBLE(TABLE Bid, DESCRIPTOR(bidtime), INTERVAL '10' MINUTES)) GROUP BY window_start, window_end",
      tvf("TUMBLE", [
        { value: { kind: "TableArg", table: { parts: [{ value: "Bid" }] }, partitionBy: [] } },
        { value: { kind: "DescriptorArg", columns: [{ value: "bidtime" }] } },
        { value: { kind: "IntervalLiteral", value: "10", qualifier: { start: "MINUTE" } } },
      ]),
    ],
    [
      "TUMBLE with offset",
      "SELECT * FROM TABLE(TUMBLE(TABLE Bid, DESCRIPTOR(bidtime), INTERVAL '10' MINUTES, INTERVAL '1' MINUTES))",
      tvf("TUMBLE", [{}, {}, {}, { value: { kind: "IntervalLiteral" } }]),
    ],
    [
      "TUMBLE named",
      "SELECT * FROM TABLE(TUMBLE(DATA => TABLE Bid, TIMECOL => DESCRIPTOR(bidtime), SIZE => INTERVAL '10' MINUTES, OFFSET => INTERVAL '1' MINUTE))",
      tvf("TUMBLE", [
        { name: { value: "DATA" }, value: { kind: "TableArg" } },
        { name: { value: "TIMECOL" }, value: { kind: "DescriptorArg" } },
        { name: { value: "SIZE" }, value: { kind: "IntervalLiteral" } },
        { name: { value: "OFFSET" }, value: { kind: "IntervalLiteral" } },
      ]),
    ],
    [
      "HOP",
      "SELECT * FROM TABLE(HOP(TABLE Bid, DESCRIPTOR(bidtime), INTERVAL '5' MINUTES, INTERVAL '10' MINUTES))",
      tvf("HOP", [{}, {}, { value: { value: "5" } }, { value: { value: "10" } }]),
    ],
    [
      "HOP named",
      "SELECT * FROM TABLE(HOP(DATA => TABLE Bid, TIMECOL => DESCRIPTOR(bidtime), SLIDE => INTERVAL '5' MINUTES, SIZE => INTERVAL '10' MINUTES))",
      tvf("HOP", [{}, {}, { name: { value: "SLIDE" } }, { name: { value: "SIZE" } }]),
    ],
    [
      "CUMULATE",
      "SELECT * FROM TABLE(CUMULATE(TABLE Bid, DESCRIPTOR(bidtime), INTERVAL '2' MINUTES, INTERVAL '10' MINUTES))",
      tvf("CUMULATE", [{}, {}, {}, {}]),
    ],
    [
      "CUMULATE named",
      "SELECT * FROM TABLE(CUMULATE(DATA => TABLE Bid, TIMECOL => DESCRIPTOR(bidtime), STEP => INTERVAL '2' MINUTES, SIZE => INTERVAL '10' MINUTES))",
      tvf("CUMULATE", [{}, {}, { name: { value: "STEP" } }, {}]),
    ],
    [
      "SESSION with one partition key",
      "SELECT * FROM TABLE(SESSION(TABLE Bid PARTITION BY item, DESCRIPTOR(bidtime), INTERVAL '5' MINUTES))",
      tvf("SESSION", [
        { value: { kind: "TableArg", partitionBy: [{ kind: "ColumnRef", names: [{ value: "item" }] }] } },
        {},
        {},
      ]),
    ],
    [
      "SESSION with a key list and named arguments",
      "SELECT * FROM TABLE(SESSION(DATA => TABLE Bid PARTITION BY (item, supplier), TIMECOL => DESCRIPTOR(bidtime), GAP => INTERVAL '5' MINUTES))",
      tvf("SESSION", [
        { name: { value: "DATA" }, value: { kind: "TableArg", partitionBy: [{}, {}] } },
        {},
        { name: { value: "GAP" } },
      ]),
    ],
    [
      "window TVF with alias and a join",
      "SELECT * FROM TABLE(TUMBLE(TABLE a, DESCRIPTOR(ts), INTERVAL '1' MINUTE)) AS l JOIN TABLE(TUMBLE(TABLE b, DESCRIPTOR(ts), INTERVAL '1' MINUTE)) AS r ON l.window_start = r.window_start AND l.id = r.id",
      {
        body: {
          from: [{ kind: "Join", left: { kind: "TableFunctionRef", alias: { name: { value: "l" } } } }],
        },
      },
    ],
  ]);
});

describe("joins and table references", () => {
  run([
    [
      "inner join with ON",
      "SELECT * FROM a INNER JOIN b ON a.id = b.id",
      {
        body: { from: [{ kind: "Join", joinType: "INNER", natural: false, condition: { kind: "JoinOn" } }] },
      },
    ],
    [
      "plain JOIN is INNER",
      "SELECT * FROM a JOIN b USING (id, k)",
      { body: { from: [{ joinType: "INNER", condition: { kind: "JoinUsing", columns: [{}, {}] } }] } },
    ],
    ["left outer", "SELECT * FROM a LEFT OUTER JOIN b ON TRUE", { body: { from: [{ joinType: "LEFT" }] } }],
    ["right", "SELECT * FROM a RIGHT JOIN b ON a.x = b.x", { body: { from: [{ joinType: "RIGHT" }] } }],
    [
      "full outer",
      "SELECT * FROM a FULL OUTER JOIN b ON a.x = b.x",
      { body: { from: [{ joinType: "FULL" }] } },
    ],
    ["cross", "SELECT * FROM a CROSS JOIN b", { body: { from: [{ joinType: "CROSS" }] } }],
    ["natural", "SELECT * FROM a NATURAL JOIN b", { body: { from: [{ joinType: "INNER", natural: true }] } }],
    [
      "joins are left-deep",
      "SELECT * FROM a JOIN b ON a.x = b.x LEFT JOIN c ON b.y = c.y",
      {
        body: {
          from: [
            { joinType: "LEFT", left: { kind: "Join", joinType: "INNER" }, right: { kind: "NamedTable" } },
          ],
        },
      },
    ],
    [
      "parenthesised join on the right",
      "SELECT * FROM a JOIN (b JOIN c ON b.y = c.y) ON a.x = b.x",
      { body: { from: [{ right: { kind: "Join" } }] } },
    ],
    [
      "comma join",
      "SELECT * FROM a, b AS bb, c cc",
      { body: { from: [{}, { alias: { name: { value: "bb" } } }, { alias: { name: { value: "cc" } } }] } },
    ],
    [
      "derived table without alias",
      "SELECT * FROM (SELECT a FROM t) WHERE a > 1",
      { body: { from: [{ kind: "DerivedTable", lateral: false }] } },
    ],
    [
      "derived table with alias and column aliases",
      "SELECT * FROM (VALUES (1, 'a')) AS v (id, name)",
      {
        body: {
          from: [
            {
              kind: "DerivedTable",
              alias: { name: { value: "v" }, columns: [{ value: "id" }, { value: "name" }] },
            },
          ],
        },
      },
    ],
    [
      "temporal join",
      "SELECT * FROM orders AS o JOIN rates FOR SYSTEM_TIME AS OF o.order_time AS r ON o.currency = r.currency",
      {
        body: {
          from: [
            {
              right: {
                kind: "NamedTable",
                systemTime: { kind: "ColumnRef" },
                alias: { name: { value: "r" } },
              },
            },
          ],
        },
      },
    ],
    [
      "lookup join with a hint",
      "SELECT * FROM o JOIN customers /*+ LOOKUP('table' = 'customers', 'retry-strategy' = 'fixed_delay') */ FOR SYSTEM_TIME AS OF o.proc_time AS c ON o.cid = c.id",
      { body: { from: [{ right: { hints: [{ name: { value: "LOOKUP" }, options: [{}, {}] }] } }] } },
    ],
    [
      "LATERAL TABLE in a comma join",
      "SELECT s, w FROM t, LATERAL TABLE(split(s)) AS T(w)",
      {
        body: {
          from: [
            { kind: "NamedTable" },
            {
              kind: "TableFunctionRef",
              lateral: true,
              alias: { name: { value: "T" }, columns: [{ value: "w" }] },
            },
          ],
        },
      },
    ],
    [
      "LEFT JOIN LATERAL TABLE ON TRUE",
      "SELECT * FROM t LEFT JOIN LATERAL TABLE(split(s)) AS T(w) ON TRUE",
      { body: { from: [{ joinType: "LEFT", right: { kind: "TableFunctionRef", lateral: true } }] } },
    ],
    [
      "CROSS JOIN UNNEST",
      "SELECT o.id, t.tag FROM orders AS o CROSS JOIN UNNEST(o.tags) AS t (tag)",
      {
        body: {
          from: [
            {
              joinType: "CROSS",
              right: { kind: "UnnestRef", withOrdinality: false, alias: { columns: [{ value: "tag" }] } },
            },
          ],
        },
      },
    ],
    [
      "UNNEST WITH ORDINALITY",
      "SELECT * FROM t CROSS JOIN UNNEST(t.arr) WITH ORDINALITY AS u(v, pos)",
      { body: { from: [{ right: { kind: "UnnestRef", withOrdinality: true } }] } },
    ],
    [
      "table hints",
      "SELECT * FROM kafka_t /*+ OPTIONS('scan.startup.mode' = 'earliest-offset'), OPTIONS('a' = 'b') */ k",
      {
        body: {
          from: [
            {
              kind: "NamedTable",
              hints: [
                { name: { value: "OPTIONS" }, options: [{ key: { value: "scan.startup.mode" } }] },
                { options: [{}] },
              ],
              alias: { name: { value: "k" } },
            },
          ],
        },
      },
    ],
    [
      "query hint",
      "SELECT /*+ BROADCAST(d) */ * FROM f JOIN d ON f.k = d.k",
      { body: { hints: [{ name: { value: "BROADCAST" }, args: [{ value: "d" }] }] } },
    ],
  ]);
});

describe("select clauses", () => {
  run([
    [
      "legacy group windows",
      "SELECT user_id, TUMBLE_START(ts, INTERVAL '1' HOUR) AS ws, TUMBLE_END(ts, INTERVAL '1' HOUR), HOP_START(ts, INTERVAL '1' MINUTE, INTERVAL '1' HOUR), SESSION_ROWTIME(ts, INTERVAL '5' MINUTE) FROM t GROUP BY TUMBLE(ts, INTERVAL '1' HOUR), user_id",
      {
        body: {
          groupBy: [
            { kind: "GroupingExpr", expr: { kind: "FunctionCall", name: { parts: [{ value: "TUMBLE" }] } } },
            {},
          ],
        },
      },
    ],
    [
      "HOP and SESSION group windows",
      "SELECT COUNT(*) FROM t GROUP BY HOP(ts, INTERVAL '1' MINUTE, INTERVAL '1' HOUR), SESSION(ts, INTERVAL '5' MINUTE)",
      {
        body: {
          groupBy: [
            { expr: { name: { parts: [{ value: "HOP" }] } } },
            { expr: { name: { parts: [{ value: "SESSION" }] } } },
          ],
        },
      },
    ],
    [
      "grouping sets, rollup, cube",
      "SELECT a, b, SUM(c) FROM t GROUP BY GROUPING SETS ((a, b), (a), ()), ROLLUP(a, b), CUBE((a, b), c)",
      {
        body: {
          groupBy: [
            {
              kind: "GroupingSets",
              sets: [
                { expr: { kind: "RowConstructor" } },
                { expr: { kind: "ColumnRef" } },
                { kind: "EmptyGroupingSet" },
              ],
            },
            { kind: "RollupCube", op: "ROLLUP", exprs: [{}, {}] },
            { kind: "RollupCube", op: "CUBE", exprs: [{ kind: "RowConstructor" }, {}] },
          ],
        },
      },
    ],
    [
      "having and distinct",
      "SELECT DISTINCT a FROM t GROUP BY a HAVING COUNT(*) > 1",
      { body: { distinct: true, having: { kind: "BinaryExpr", op: ">" } } },
    ],
    [
      "WINDOW clause with OVER aggregates",
      "SELECT SUM(x) OVER w, AVG(x) OVER (w) FROM t WINDOW w AS (PARTITION BY k ORDER BY ts RANGE BETWEEN INTERVAL '1' HOUR PRECEDING AND CURRENT ROW)",
      {
        body: { windows: [{ name: { value: "w" }, spec: { partitionBy: [{}], frame: { unit: "RANGE" } } }] },
      },
    ],
    [
      "deduplication (Top-1)",
      "SELECT * FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY id ORDER BY proctime ASC) AS row_num FROM t) WHERE row_num = 1",
      { body: { from: [{ kind: "DerivedTable" }], where: { op: "=" } } },
    ],
    [
      "qualified star and aliases",
      "SELECT t.*, db.u.*, a AS `select`, b c FROM t",
      {
        body: {
          items: [
            { kind: "SelectStar", qualifier: { parts: [{ value: "t" }] } },
            { kind: "SelectStar", qualifier: { parts: [{ value: "db" }, { value: "u" }] } },
            { kind: "SelectExpr", alias: { value: "select", quoted: true } },
            { kind: "SelectExpr", alias: { value: "c" } },
          ],
        },
      },
    ],
    [
      "order by and limit",
      "SELECT a FROM t ORDER BY a DESC, b LIMIT 10",
      { orderBy: [{ direction: "DESC" }, {}], limit: { text: "10" } },
    ],
    [
      "offset and fetch",
      "SELECT a FROM t ORDER BY a OFFSET 5 ROWS FETCH FIRST 10 ROWS ONLY",
      { offset: { text: "5" }, fetch: { text: "10" } },
    ],
    [
      "INTERSECT binds tighter than UNION",
      "SELECT 1 UNION SELECT 2 INTERSECT SELECT 3",
      { body: { kind: "SetOperation", op: "UNION", right: { kind: "SetOperation", op: "INTERSECT" } } },
    ],
    [
      "set operations are left-associative",
      "SELECT 1 EXCEPT SELECT 2 UNION ALL SELECT 3",
      { body: { op: "UNION", all: true, left: { op: "EXCEPT" } } },
    ],
    [
      "parenthesised queries",
      "(SELECT 1) UNION (SELECT 2 ORDER BY 1 LIMIT 1)",
      { body: { left: { kind: "ParenQuery" }, right: { kind: "ParenQuery", query: { limit: {} } } } },
    ],
    [
      "CTEs with column lists",
      "WITH a (x) AS (SELECT 1), b AS (SELECT x FROM a) SELECT * FROM b",
      {
        with: {
          ctes: [
            { name: { value: "a" }, columns: [{ value: "x" }] },
            { name: { value: "b" }, columns: [] },
          ],
        },
      },
    ],
    [
      "VALUES with ROW",
      "VALUES ROW(1, 'a'), (2, 'b')",
      { body: { kind: "Values", rows: [{ explicit: true }, { explicit: false }] } },
    ],
    ["select without FROM", "SELECT 1 + 1", { body: { from: [], items: [{}] } }],
    [
      "comments anywhere",
      "SELECT /* c1 */ a -- c2\n , b /* c3 */ FROM /* c4 */ t -- end",
      { body: { items: [{}, {}], from: [{ kind: "NamedTable" }] } },
    ],
  ]);
});
