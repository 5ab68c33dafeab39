import { parse, statementKindLabel, stripSpans } from "@weir/parser";
import { describe, expect, it } from "vitest";
import { expectRoundTrip, parseOne } from "./helpers.js";

/** [sql, label, expected shape (spans stripped)] */
const cases: [string, string, Record<string, unknown>][] = [
  [
    `CREATE TABLE IF NOT EXISTS db.orders (
       id BIGINT COMMENT 'the id',
       price DECIMAL(10, 2) NOT NULL,
       total AS price * 2 COMMENT 'computed',
       ts TIMESTAMP(3),
       part INT METADATA FROM 'partition' VIRTUAL,
       off BIGINT METADATA,
       WATERMARK FOR ts AS ts - INTERVAL '5' SECOND,
       CONSTRAINT pk PRIMARY KEY (id) NOT ENFORCED
     ) COMMENT 'orders' PARTITIONED BY (part) WITH ('connector' = 'kafka', 'topic' = 'o')`,
    "CREATE TABLE",
    {
      kind: "CreateTable",
      ifNotExists: true,
      temporary: false,
      name: { parts: [{ value: "db" }, { value: "orders" }] },
      columns: [
        { kind: "PhysicalColumn", name: { value: "id" }, comment: { value: "the id" } },
        { kind: "PhysicalColumn", type: { name: "DECIMAL", notNull: true } },
        { kind: "ComputedColumn", expr: { kind: "BinaryExpr", op: "*" }, comment: { value: "computed" } },
        { kind: "PhysicalColumn", type: { name: "TIMESTAMP", precision: 3 } },
        { kind: "MetadataColumn", from: { value: "partition" }, virtual: true },
        { kind: "MetadataColumn", virtual: false },
      ],
      watermark: { column: { value: "ts" }, expr: { kind: "BinaryExpr", op: "-" } },
      primaryKey: { constraintName: { value: "pk" }, columns: [{ value: "id" }], enforced: false },
      comment: { value: "orders" },
      partitionedBy: [{ value: "part" }],
      options: [
        { key: { value: "connector" }, value: { value: "kafka" } },
        { key: { value: "topic" }, value: { value: "o" } },
      ],
    },
  ],
  [
    "CREATE TEMPORARY TABLE t (id INT PRIMARY KEY NOT ENFORCED, v STRING)",
    "CREATE TABLE",
    { temporary: true, primaryKey: { columns: [{ value: "id" }] }, columns: [{}, {}] },
  ],
  [
    "CREATE TABLE t2 (x INT) WITH ('connector' = 'print') LIKE t (EXCLUDING OPTIONS INCLUDING WATERMARKS)",
    "CREATE TABLE",
    {
      like: {
        source: { parts: [{ value: "t" }] },
        options: [
          { mode: "EXCLUDING", target: "OPTIONS" },
          { mode: "INCLUDING", target: "WATERMARKS" },
        ],
      },
    },
  ],
  [
    "CREATE TABLE t3 WITH ('connector' = 'blackhole') AS SELECT a, b FROM t",
    "CREATE TABLE AS",
    { columns: [], asQuery: { kind: "Query", body: { kind: "Select" } } },
  ],
  [
    "CREATE TEMPORARY VIEW IF NOT EXISTS v (a, b) COMMENT 'v' AS SELECT 1, 2",
    "CREATE TEMPORARY VIEW",
    { kind: "CreateView", temporary: true, ifNotExists: true, columns: [{ value: "a" }, { value: "b" }] },
  ],
  ["CREATE VIEW v AS SELECT * FROM t", "CREATE VIEW", { kind: "CreateView", temporary: false, columns: [] }],
  [
    "CREATE MATERIALIZED VIEW mv WITH ('sink' = 'pg') AS SELECT k, COUNT(*) FROM t GROUP BY k",
    "CREATE MATERIALIZED VIEW",
    { kind: "CreateMaterializedView", options: [{ key: { value: "sink" } }] },
  ],
  [
    "DROP TABLE IF EXISTS t",
    "DROP TABLE",
    { kind: "Drop", objectType: "TABLE", ifExists: true, temporary: false },
  ],
  ["DROP TEMPORARY VIEW v", "DROP VIEW", { objectType: "VIEW", temporary: true, ifExists: false }],
  ["DROP MATERIALIZED VIEW cat.db.mv", "DROP MATERIALIZED VIEW", { objectType: "MATERIALIZED VIEW" }],
  [
    "INSERT INTO sink (a, b) SELECT a, b FROM src",
    "INSERT INTO",
    { kind: "Insert", mode: "INTO", columns: [{ value: "a" }, { value: "b" }], partition: [] },
  ],
  [
    "INSERT OVERWRITE sink PARTITION (dt = '2024-01-01', h = 3) SELECT * FROM src",
    "INSERT OVERWRITE",
    { mode: "OVERWRITE", partition: [{ column: { value: "dt" } }, { column: { value: "h" } }] },
  ],
  [
    "INSERT INTO sink /*+ OPTIONS('sink.parallelism' = '2') */ VALUES (1, 'a'), (2, 'b')",
    "INSERT INTO",
    { hints: [{ name: { value: "OPTIONS" } }], query: { body: { kind: "Values", rows: [{}, {}] } } },
  ],
  ["INSERT INTO sink (SELECT 1)", "INSERT INTO", { columns: [], query: { body: { kind: "ParenQuery" } } }],
  [
    `EXECUTE STATEMENT SET BEGIN
       INSERT INTO a SELECT * FROM t;
       INSERT INTO b SELECT CASE WHEN x > 1 THEN 'y' END FROM t;
     END`,
    "EXECUTE STATEMENT SET",
    {
      kind: "StatementSet",
      inserts: [{ table: { parts: [{ value: "a" }] } }, { table: { parts: [{ value: "b" }] } }],
    },
  ],
  [
    "SET 'parallelism.default' = '2'",
    "SET",
    { kind: "SetStatement", key: { value: "parallelism.default" }, value: { value: "2" } },
  ],
  ["SET", "SET", { kind: "SetStatement" }],
  ["RESET 'parallelism.default'", "RESET", { kind: "ResetStatement", key: { value: "parallelism.default" } }],
  ["RESET", "RESET", { kind: "ResetStatement" }],
  ["SHOW TABLES", "SHOW TABLES", { kind: "Show", object: "TABLES" }],
  ["SHOW VIEWS", "SHOW VIEWS", { object: "VIEWS" }],
  ["SHOW JOBS", "SHOW JOBS", { object: "JOBS" }],
  ["SHOW FUNCTIONS", "SHOW FUNCTIONS", { object: "FUNCTIONS" }],
  ["SHOW MATERIALIZED VIEWS", "SHOW MATERIALIZED VIEWS", { object: "MATERIALIZED VIEWS" }],
  ["SHOW CREATE TABLE t", "SHOW CREATE TABLE", { kind: "ShowCreate", objectType: "TABLE" }],
  ["SHOW CREATE VIEW v", "SHOW CREATE VIEW", { kind: "ShowCreate", objectType: "VIEW" }],
  ["DESCRIBE t", "DESCRIBE", { kind: "Describe", name: { parts: [{ value: "t" }] } }],
  ["DESC db.t", "DESCRIBE", { kind: "Describe" }],
  ["EXPLAIN SELECT 1", "EXPLAIN", { kind: "Explain", details: [], target: { kind: "QueryStatement" } }],
  ["EXPLAIN PLAN FOR SELECT 1", "EXPLAIN", { details: [], target: { kind: "QueryStatement" } }],
  [
    "EXPLAIN CHANGELOG_MODE, ESTIMATED_COST, JSON_EXECUTION_PLAN INSERT INTO s SELECT * FROM t",
    "EXPLAIN",
    { details: ["CHANGELOG_MODE", "ESTIMATED_COST", "JSON_EXECUTION_PLAN"], target: { kind: "Insert" } },
  ],
  [
    "EXPLAIN STATEMENT SET BEGIN INSERT INTO s SELECT 1; END",
    "EXPLAIN",
    { target: { kind: "StatementSet", inserts: [{}] } },
  ],
  ["STOP JOB 'abc123'", "STOP JOB", { kind: "StopJob", jobId: { value: "abc123" }, withSavepoint: false }],
  ["STOP JOB 'j' WITH SAVEPOINT WITH DRAIN", "STOP JOB", { withSavepoint: true, withDrain: true }],
  ["SELECT 1", "SELECT", { kind: "QueryStatement" }],
  ["VALUES (1)", "VALUES", { kind: "QueryStatement" }],
  [
    "SELECT 1 UNION ALL SELECT 2",
    "UNION",
    { query: { body: { kind: "SetOperation", op: "UNION", all: true } } },
  ],
  [
    "WITH x AS (SELECT 1) SELECT * FROM x",
    "SELECT",
    { query: { with: { ctes: [{ name: { value: "x" } }] } } },
  ],
  ["TABLE orders", "TABLE", { query: { body: { kind: "TableQuery" } } }],
];

describe("statements", () => {
  it.each(cases)("%s", (sql, label, expected) => {
    const stmt = parseOne(sql);
    expect(stripSpans(stmt)).toMatchObject(expected);
    expect(statementKindLabel(stmt)).toBe(label);
    expect(stmt.span.offset).toBe(0);
    expect(stmt.span.end).toBe(sql.length);
    expectRoundTrip(stmt);
  });

  it("reports a primary key without NOT ENFORCED but keeps the statement", () => {
    const r = parse("CREATE TABLE t (id INT, PRIMARY KEY (id)) WITH ('connector' = 'x')");
    expect(r.statements).toHaveLength(1);
    expect(r.diagnostics).toMatchObject([
      {
        code: "primary-key-not-enforced",
        message: "a PRIMARY KEY must be declared NOT ENFORCED",
        hint: "add NOT ENFORCED: Weir, like Flink, does not check keys",
        span: { line: 1, column: 25 },
      },
    ]);
  });

  it("splits a script into statements with their lines", () => {
    const r = parse("SET 'a' = 'b';\n\n-- note\nSELECT 1;;\nSHOW TABLES");
    expect(r.diagnostics).toEqual([]);
    expect(r.statements.map((s) => [statementKindLabel(s), s.span.line])).toEqual([
      ["SET", 1],
      ["SELECT", 4],
      ["SHOW TABLES", 5],
    ]);
  });
});
