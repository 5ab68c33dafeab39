import { connectorCatalog } from "@weir/connectors";
import { parse } from "@weir/parser";
import { describe, expect, it } from "vitest";
import { bindStatement } from "../../packages/planner/src/binder/statement.js";
import { Catalog, describeRows } from "../../packages/planner/src/catalog/catalog.js";
import { Session } from "../../packages/planner/src/catalog/session.js";
import { showCreate } from "../../packages/planner/src/catalog/show-create.js";

function create(sql: string): Catalog {
  const catalog = new Catalog(connectorCatalog());
  const session = new Session();
  for (const s of parse(sql).statements) {
    const r = bindStatement(s, catalog, session);
    if (!r.value) throw new Error(r.diagnostics.map((d) => d.message).join("; "));
  }
  return catalog;
}

describe("SHOW CREATE", () => {
  it.each([
    `CREATE TABLE t (
       id BIGINT COMMENT 'the id', amount DECIMAL(10, 2), ts TIMESTAMP(3),
       part INT METADATA FROM 'partition' VIRTUAL, day AS CAST(ts AS DATE),
       WATERMARK FOR ts AS ts - INTERVAL '5' SECOND, PRIMARY KEY (id) NOT ENFORCED
     ) COMMENT 'orders' WITH ('connector' = 'kafka', 'topic' = 'o', 'properties.bootstrap.servers' = 'x:1', 'format' = 'json')`,
    "CREATE TEMPORARY TABLE `select` (`from` STRING, n INT) WITH ('connector' = 'datagen')",
  ])("prints DDL that creates the same table again: %s", (ddl) => {
    const first = create(ddl);
    const name = first.names("table")[0]!;
    const table = first.get(name)!;
    const again = create(showCreate(table));
    const copy = again.get(name)!;
    expect(describeRows(copy)).toEqual(describeRows(table));
    expect(copy.kind === "table" && copy.options).toEqual(table.kind === "table" && table.options);
  });

  it("prints a view with its query", () => {
    const c = create(`CREATE TABLE t (a INT, b STRING) WITH ('connector' = 'datagen');
      CREATE VIEW v AS SELECT a, UPPER(b) AS ub FROM t WHERE a > 1`);
    expect(showCreate(c.get("v")!)).toBe(
      "CREATE VIEW `v` (`a`, `ub`) AS\nSELECT a, UPPER(b) AS ub FROM t WHERE a > 1",
    );
  });
});
