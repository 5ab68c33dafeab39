import { connectorCatalog } from "@weir/connectors";
import { parse } from "@weir/parser";
import { describe, expect, it } from "vitest";
import { Catalog } from "../../packages/planner/src/catalog/catalog.js";
import { Session } from "../../packages/planner/src/catalog/session.js";
import { StatementCompiler } from "../../packages/planner/src/script/compile.js";
import type { CompiledStatement } from "../../packages/planner/src/script/results.js";
import { compileScript, ScriptCompiler } from "../../packages/planner/src/script/script.js";

const DDL = `
CREATE TABLE orders (id INT, customer STRING, amount INT, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
  WITH ('connector' = 'filesystem', 'path' = 'orders.jsonl', 'format' = 'json');
CREATE TABLE out_ids (id INT) WITH ('connector' = 'blackhole');
CREATE TABLE out_counts (n BIGINT) WITH ('connector' = 'filesystem', 'path' = 'n.jsonl', 'format' = 'json');
CREATE TABLE out_totals (customer STRING, n BIGINT, PRIMARY KEY (customer) NOT ENFORCED)
  WITH ('connector' = 'postgres', 'table-name' = 'totals', 'password' = 'hunter2');
`;

/** Compiles `DDL` and then `sql` statement by statement; the results of `sql`'s statements. */
function compileAfterDdl(
  sql: string,
  compiler = new StatementCompiler(new Catalog(connectorCatalog()), new Session()),
) {
  for (const s of parse(DDL).statements) expect(compiler.compile(s).kind).toBe("effect");
  const parsed = parse(sql);
  expect(parsed.diagnostics).toEqual([]);
  return { compiler, results: parsed.statements.map((s) => compiler.compile(s)) };
}

function only(sql: string): CompiledStatement {
  const { results } = compileAfterDdl(sql);
  expect(results).toHaveLength(1);
  return results[0]!;
}

describe("StatementCompiler: what each statement kind leaves to do", () => {
  it.each([
    ["CREATE TABLE t (a INT) WITH ('connector' = 'blackhole');", "effect create-table"],
    ["CREATE VIEW v AS SELECT id FROM orders;", "effect create-view"],
    ["SET 'table.local-time-zone' = 'UTC';", "effect set"],
    ["RESET 'table.local-time-zone';", "effect reset"],
    ["DROP TABLE out_ids;", "effect drop"],
    ["SET;", "listing set"],
    ["SHOW TABLES;", "listing show"],
    ["SHOW FUNCTIONS;", "listing show"],
    ["SHOW CREATE TABLE orders;", "listing show-create"],
    ["DESCRIBE orders;", "listing describe"],
    ["EXPLAIN SELECT id FROM orders;", "listing explain"],
    ["EXPLAIN INSERT INTO out_ids SELECT id FROM orders;", "listing explain"],
    ["INSERT INTO out_ids SELECT id FROM orders;", "job insert"],
    [
      "EXECUTE STATEMENT SET BEGIN INSERT INTO out_ids SELECT id FROM orders; INSERT INTO out_ids SELECT amount FROM orders; END;",
      "job statement-set",
    ],
    ["CREATE TABLE copy WITH ('connector' = 'blackhole') AS SELECT id FROM orders;", "job create-table-as"],
    [
      "CREATE MATERIALIZED VIEW mv AS SELECT customer, COUNT(*) AS n FROM orders GROUP BY customer;",
      "job create-materialized-view",
    ],
    ["SELECT id FROM orders;", "query query"],
    ["SHOW JOBS;", "job-control show"],
    ["STOP JOB 'abc';", "job-control stop-job"],
    ["SELECT nope FROM orders;", "invalid"],
    ["INSERT INTO nowhere SELECT id FROM orders;", "invalid"],
  ])("%s → %s", (sql, expected) => {
    const r = only(sql);
    expect(r.kind === "invalid" ? r.kind : `${r.kind} ${r.bound.kind}`).toBe(expected);
    expect(r.diagnostics.some((d) => d.severity === "error")).toBe(r.kind === "invalid");
  });

  it("gives a job one target per INSERT, each at its statement", () => {
    const sql =
      "EXECUTE STATEMENT SET BEGIN INSERT INTO out_ids SELECT id FROM orders; INSERT INTO out_totals SELECT customer, COUNT(*) FROM orders GROUP BY customer; END;";
    const r = only(sql);
    if (r.kind !== "job") throw new Error(r.kind);
    expect(r.targets.map((t) => t.table.name)).toEqual(["out_ids", "out_totals"]);
    const second = sql.indexOf("INSERT", sql.indexOf("INSERT") + 1);
    expect(r.targets.map((t) => t.span?.column)).toEqual([sql.indexOf("INSERT") + 1, second + 1]);
  });

  it("lists SHOW and DESCRIBE as header and rows, SHOW CREATE and EXPLAIN as text", () => {
    expect((only("SHOW TABLES;") as { listing: unknown }).listing).toEqual({
      kind: "rows",
      header: ["table name"],
      rows: [["orders"], ["out_counts"], ["out_ids"], ["out_totals"]],
    });
    const describe = only("DESCRIBE out_totals;") as Extract<CompiledStatement, { kind: "listing" }>;
    expect(describe.listing).toEqual({
      kind: "rows",
      header: ["name", "type", "null", "key", "extras", "watermark"],
      rows: [
        ["customer", "STRING", "FALSE", "PRI(customer)", "", ""],
        ["n", "BIGINT", "TRUE", "", "", ""],
      ],
    });
    const create = only("SHOW CREATE TABLE out_totals;") as Extract<CompiledStatement, { kind: "listing" }>;
    expect(create.listing.kind).toBe("text");
    expect(JSON.stringify(create.listing)).not.toContain("hunter2");
    const explain = only("EXPLAIN CHANGELOG_MODE SELECT id FROM orders;") as Extract<
      CompiledStatement,
      { kind: "listing" }
    >;
    expect(explain.listing.kind === "text" && explain.listing.text).toMatch(/changelogMode=\[I\]/);
  });

  it("lists the settings with their secrets hidden", () => {
    const { results } = compileAfterDdl(
      "SET 'sql-client.execution.result-mode' = 'tableau'; SET 'weir.secret.token' = 'abc'; SET;",
    );
    const listing = results[2]!;
    if (listing.kind !== "listing") throw new Error(listing.kind);
    if (listing.listing.kind !== "rows") throw new Error(listing.listing.kind);
    expect(listing.listing.header).toEqual(["key", "value"]);
    expect(listing.listing.rows).toContainEqual(["sql-client.execution.result-mode", "tableau"]);
    expect(listing.listing.rows).toContainEqual(["weir.secret.token", "******"]);
    expect(JSON.stringify(listing.listing)).not.toContain("abc");
  });

  it("applies effects in order: a later statement sees what an earlier one did", () => {
    const sql =
      "CREATE VIEW big AS SELECT id FROM orders WHERE amount > 10; SELECT id FROM big; DROP VIEW big; SELECT id FROM big;";
    const { results } = compileAfterDdl(sql);
    expect(results.map((r) => r.kind)).toEqual(["effect", "query", "effect", "invalid"]);
    const d = results[3]!.diagnostics[0]!;
    expect([d.severity, d.span.line, d.span.column]).toEqual(["error", 1, sql.lastIndexOf("big") + 1]);
  });

  it("positions a bind error, a plan error and an unknown setting's warning in the source", () => {
    const { results } = compileAfterDdl(
      "SET 'no.such.key' = 'x';\nINSERT INTO out_ids SELECT customer, id FROM orders;\nINSERT INTO out_counts SELECT COUNT(*) FROM orders;",
    );
    const [set, wide, updating] = results;
    expect(set!.kind).toBe("effect");
    expect(set!.diagnostics.map((d) => [d.severity, d.span.line, d.span.column])).toEqual([
      ["warning", 1, 5],
    ]);
    // The column count is checked when the INSERT is bound: at its query.
    expect(wide!.kind).toBe("invalid");
    expect(wide!.diagnostics.map((d) => [d.span.line, d.span.column])).toEqual([[2, 21]]);
    // A sink that cannot take updates is refused only when the job is planned: at the query that
    // produces the updates.
    expect(updating!.kind).toBe("job");
    if (updating!.kind !== "job") return;
    const compiler = new StatementCompiler(new Catalog(connectorCatalog()), new Session());
    const planned = compiler.plan(updating.targets);
    expect(planned.ok).toBe(false);
    if (planned.ok) return;
    expect(planned.diagnostics[0]!.code).toBe("sink-changelog");
    expect([planned.diagnostics[0]!.span.line, planned.diagnostics[0]!.span.column]).toEqual([
      3,
      "INSERT INTO out_counts SELECT".indexOf("SELECT") + 1,
    ]);
  });

  it("refuses EXPLAIN of a query that does not plan, with the plan error", () => {
    const r = only("EXPLAIN INSERT INTO out_counts SELECT COUNT(*) FROM orders;");
    expect(r.kind).toBe("invalid");
    expect(r.diagnostics.map((d) => d.code)).toEqual(["sink-changelog"]);
  });

  it("refuses a materialised view without a unique key at the view, and does not keep it", () => {
    const { compiler, results } = compileAfterDdl(
      "CREATE MATERIALIZED VIEW mv AS SELECT id, amount FROM orders;",
    );
    const r = results[0]!;
    expect(r.kind).toBe("invalid");
    expect(r.diagnostics.map((d) => [d.code, d.span.line, d.span.column])).toEqual([["mv-no-key", 1, 1]]);
    expect(compiler.catalog.get("mv")).toBe(undefined);
  });

  it("puts a materialised view's table in the catalog unless told not to", () => {
    const view =
      "CREATE MATERIALIZED VIEW mv AS SELECT customer, COUNT(*) AS n FROM orders GROUP BY customer;";
    const registered = compileAfterDdl(view);
    const o = registered.compiler.catalog.get("mv");
    expect(o?.kind === "materialized-view" && o.table?.options.connector).toBe("postgres");
    const left = compileAfterDdl(
      view,
      new StatementCompiler(new Catalog(connectorCatalog()), new Session(), { registerViewTables: false }),
    );
    const p = left.compiler.catalog.get("mv");
    expect(p?.kind === "materialized-view" && p.table).toBe(undefined);
    // Created again with IF NOT EXISTS once its table is planned: nothing more to plan.
    const again = registered.compiler.compile(
      parse(view.replace("VIEW mv", "VIEW IF NOT EXISTS mv")).statements[0]!,
    );
    expect(again.kind === "job" && again.targets).toEqual([]);
  });
});

describe("ScriptCompiler: one job for the script, as Flink's SQL client", () => {
  function script(sql: string, options: ConstructorParameters<typeof ScriptCompiler>[2] = {}) {
    const compiler = new ScriptCompiler(new Catalog(connectorCatalog()), new Session(), options);
    const results = parse(DDL + sql).statements.map((s) => compiler.statement(s));
    return { compiler, results };
  }
  const sinks = (c: ScriptCompiler) => c.targets.map((t) => (t.kind === "table" ? t.table.name : t.kind));

  it("gathers every INSERT, statement set, CTAS and view into the job, in order", () => {
    const { compiler } = script(`
      INSERT INTO out_ids SELECT id FROM orders;
      CREATE MATERIALIZED VIEW mv AS SELECT customer, COUNT(*) AS n FROM orders GROUP BY customer;
      EXECUTE STATEMENT SET BEGIN INSERT INTO out_totals SELECT customer, COUNT(*) FROM orders GROUP BY customer; END;
      CREATE TABLE copy WITH ('connector' = 'blackhole') AS SELECT id FROM orders;
      EXPLAIN INSERT INTO out_ids SELECT amount FROM orders;`);
    expect(sinks(compiler)).toEqual(["out_ids", "mv", "out_totals", "copy"]);
    const planned = compiler.plan();
    expect(planned.ok && planned.dag.sinks.length).toBe(4);
  });

  it("plans SELECTs into the job, or leaves them to be run when reached", () => {
    const sql = "INSERT INTO out_ids SELECT id FROM orders; SELECT amount FROM orders;";
    expect(sinks(script(sql).compiler)).toEqual(["out_ids", "collect"]);
    expect(sinks(script(sql, { queries: "run" }).compiler)).toEqual(["out_ids"]);
  });

  it("takes a dropped view's target out of the job; a view created twice adds one", () => {
    const view =
      "CREATE MATERIALIZED VIEW IF NOT EXISTS mv AS SELECT customer, COUNT(*) AS n FROM orders GROUP BY customer;";
    for (const registerViewTables of [true, false]) {
      const twice = script(`${view} ${view}`, { registerViewTables });
      expect(sinks(twice.compiler)).toEqual(["mv"]);
      const dropped = script(
        `${view} INSERT INTO out_ids SELECT id FROM orders; DROP MATERIALIZED VIEW mv;`,
        {
          registerViewTables,
        },
      );
      expect(sinks(dropped.compiler)).toEqual(["out_ids"]);
    }
  });

  it("places a view's table elsewhere, and hands the job over", () => {
    const { compiler, results } = script(
      "CREATE MATERIALIZED VIEW mv AS SELECT customer, COUNT(*) AS n FROM orders GROUP BY customer;",
      { registerViewTables: false },
    );
    const view = results.at(-1)!;
    if (view.kind !== "job") throw new Error(view.kind);
    const target = view.targets[0]!;
    const elsewhere = {
      ...target,
      table: { ...target.table, options: { ...target.table.options, url: "x" } },
    };
    compiler.placeView("mv", elsewhere);
    expect(compiler.targets).toEqual([elsewhere]);
    expect(compiler.take()).toEqual([elsewhere]);
    expect(compiler.targets).toEqual([]);
  });
});

describe("compileScript", () => {
  it("compiles and plans a whole script", () => {
    const c = compileScript(
      `${DDL} INSERT INTO out_ids SELECT id FROM orders WHERE amount > 1;`,
      new Catalog(connectorCatalog()),
      new Session(),
    );
    expect(c.ok).toBe(true);
    expect(c.results.map((r) => r.kind)).toEqual(["effect", "effect", "effect", "effect", "job"]);
    expect(c.dag?.nodes.map((n) => n.kind)).toEqual(["source", "calc", "sink"]);
  });

  it("has nothing to plan without an INSERT or a SELECT", () => {
    const c = compileScript(DDL, new Catalog(connectorCatalog()), new Session());
    expect([c.ok, c.dag]).toEqual([true, null]);
  });

  it("stops at the first invalid statement, with the diagnostics so far", () => {
    const c = compileScript(
      `SET 'no.such.key' = 'x';\nSELECT nope FROM nowhere;\nCREATE TABLE later (a INT) WITH ('connector' = 'blackhole');`,
      new Catalog(connectorCatalog()),
      new Session(),
    );
    expect(c.ok).toBe(false);
    expect(c.results.map((r) => r.kind)).toEqual(["effect", "invalid"]);
    expect(c.diagnostics.map((d) => [d.severity, d.span.line])).toEqual([
      ["warning", 1],
      ["error", 2],
    ]);
  });

  it("reports a parse error and compiles nothing", () => {
    const c = compileScript("SELEC 1;", new Catalog(connectorCatalog()), new Session());
    expect([c.ok, c.results.length, c.diagnostics[0]?.span.line]).toEqual([false, 0, 1]);
  });

  it("reports a plan error of the job at its position", () => {
    const c = compileScript(
      `${DDL}\nINSERT INTO out_counts SELECT COUNT(*) FROM orders;`,
      new Catalog(connectorCatalog()),
      new Session(),
    );
    expect(c.ok).toBe(false);
    expect(c.results.at(-1)?.kind).toBe("job");
    expect(c.diagnostics.map((d) => d.code)).toEqual(["sink-changelog"]);
    expect(c.diagnostics[0]!.span.line).toBe(DDL.split("\n").length + 1);
  });
});
