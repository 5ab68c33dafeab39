import { connectorCatalog } from "@weir/connectors";
import { parse } from "@weir/parser";
import { describe, expect, it } from "vitest";
import { bindStatement } from "../../packages/planner/src/binder/statement.js";
import { Catalog } from "../../packages/planner/src/catalog/catalog.js";
import { Session } from "../../packages/planner/src/catalog/session.js";
import { PlanError } from "../../packages/planner/src/optimizer/errors.js";
import { materializedViewTarget } from "../../packages/planner/src/optimizer/materialized-view.js";

const DDL = `
CREATE TABLE orders (order_id INT, user_name STRING, amount DECIMAL(10, 2),
  ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
  WITH ('connector' = 'datagen');
CREATE TABLE users (id INT NOT NULL, name STRING, PRIMARY KEY (id) NOT ENFORCED)
  WITH ('connector' = 'datagen');
`;

/** Binds DDL plus one CREATE MATERIALIZED VIEW and builds its target. */
function target(view: string, url?: string) {
  const catalog = new Catalog(connectorCatalog());
  const session = new Session();
  let last: ReturnType<typeof bindStatement>["value"];
  for (const s of parse(DDL + view).statements) {
    const r = bindStatement(s, catalog, session);
    if (!r.value) throw new Error(r.diagnostics.map((d) => d.message).join("; "));
    last = r.value;
  }
  if (last?.kind !== "create-materialized-view") throw new Error("not a materialized view");
  return materializedViewTarget(last.view, last.plan, session.all(), url, catalog.connectors);
}

describe("materialised view key", () => {
  it.each([
    ["GROUP BY", "SELECT user_name, COUNT(*) AS n FROM orders GROUP BY user_name", ["user_name"]],
    [
      "GROUP BY two keys, key columns not first",
      "SELECT COUNT(*) AS n, user_name, order_id FROM orders GROUP BY order_id, user_name",
      ["user_name", "order_id"],
    ],
    [
      "tumbling window aggregate",
      "SELECT window_start, window_end, user_name, SUM(amount) AS s FROM TABLE(TUMBLE(TABLE orders, DESCRIPTOR(ts), INTERVAL '1' MINUTE)) GROUP BY window_start, window_end, user_name",
      ["window_start", "window_end", "user_name"],
    ],
    ["source primary key through a projection", "SELECT name, id FROM users WHERE id > 3", ["id"]],
  ])("%s", (_name, query, key) => {
    const t = target(`CREATE MATERIALIZED VIEW mv AS ${query};`);
    const names = (t.table.primaryKey ?? []).map((i) => t.table.columns[i]!.name);
    expect(names.sort()).toEqual([...key].sort());
    for (const i of t.table.primaryKey ?? []) expect(t.table.schema[i]!.type.nullable).toBe(false);
  });

  it.each([
    ["a projection of a source without a key", "SELECT order_id, amount FROM orders"],
    ["a filter of a source without a key", "SELECT * FROM orders WHERE amount > 1"],
  ])("refuses %s, at the view, with a hint", (_name, query) => {
    const sql = `CREATE MATERIALIZED VIEW mv AS ${query};`;
    let error: unknown;
    try {
      target(sql);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(PlanError);
    const e = error as PlanError;
    expect(e.message).toContain("materialized view 'mv' has no unique key");
    expect(e.hint).toContain("add GROUP BY, or a PRIMARY KEY to the source");
    expect(e.span!.offset).toBe(DDL.length);
  });
});

describe("materialised view table", () => {
  it.each([
    [
      "embedded",
      "",
      "postgres://postgres@127.0.0.1:5/postgres",
      {
        "table-name": "mv",
        url: "postgres://postgres@127.0.0.1:5/postgres",
      },
    ],
    [
      "own url and table",
      "WITH ('url' = 'postgres://h/db', 'table-name' = 's.t')",
      "postgres://x/y",
      {
        "table-name": "s.t",
        url: "postgres://h/db",
      },
    ],
    ["a name Postgres would fold stays unquoted", "", undefined, { "table-name": "mv" }],
  ])("%s", (_name, withClause, defaultUrl, expected) => {
    const t = target(
      `CREATE MATERIALIZED VIEW mv ${withClause} AS SELECT user_name, COUNT(*) AS n FROM orders GROUP BY user_name;`,
      defaultUrl,
    );
    expect(t.table.options).toEqual({ connector: "postgres", "sink.create-table": "true", ...expected });
  });

  it.each([
    ["'sink.create-table'", "'sink.create-table' = 'false'", "is set by the view itself"],
    ["an unknown option", "'urll' = 'x'", "option 'urll'"],
  ])("rejects %s", (_name, option, message) => {
    expect(() =>
      target(
        `CREATE MATERIALIZED VIEW mv WITH (${option}) AS SELECT user_name, COUNT(*) AS n FROM orders GROUP BY user_name;`,
      ),
    ).toThrow(message);
  });
});
