import { parse, renderDiagnostic, statementKindLabel } from "@weir/parser";
import { describe, expect, it } from "vitest";

function located(sql: string): string[] {
  return parse(sql).diagnostics.map((d) => `${d.span.line}:${d.span.column} ${d.message}`);
}

describe("syntax errors", () => {
  const cases: [string, string[]][] = [
    ["SELECT a FROM t WHERE (a > 1", ["1:29 expected ')' but found end of input"]],
    ["SELECT a, FROM t", ["1:11 expected an expression but found 'FROM'"]],
    ["SELECT COUNT(* FROM t", ["1:16 expected ')' but found 'FROM'"]],
    ["SELECT a FROM", ["1:14 expected a table name, '(' or TABLE(...) but found end of input"]],
    ["SELECT * FROM t WHERE", ["1:22 expected an expression but found end of input"]],
    ["SELECT * FROM a JOIN b", ["1:23 expected ON or USING after the joined table but found end of input"]],
    ["CREATE TABLE t (a INT,\n  WATERMARK FOR a a - 1)", ["2:19 expected 'AS' but found 'a'"]],
    ["CREATE TABLE t (a INT) WITH ('k' = 1)", ["1:36 expected an option value string but found '1'"]],
    ["CREATE TABLE t (a INT) WITH (k = 'v')", ["1:30 expected an option key string but found 'k'"]],
    ["CREATE TABLE t (a VARCHR(3))", ["1:19 expected a data type but found 'VARCHR'"]],
    [
      "CREATE TABLE t (select INT)",
      ["1:17 expected a column name, WATERMARK or PRIMARY KEY but found 'select'"],
    ],
    ["CREATE INDEX i", ["1:8 expected TABLE, VIEW or MATERIALIZED VIEW after CREATE but found 'INDEX'"]],
    ["SELECT 1 2", ["1:10 expected ';' or end of statement but found '2'"]],
    [
      "FOO",
      [
        "1:1 expected a statement (CREATE, DROP, INSERT, EXECUTE, SELECT, WITH, VALUES, SET, RESET, SHOW, DESCRIBE, EXPLAIN, STOP) but found 'FOO'",
      ],
    ],
    ["SET a = 'b'", ["1:5 expected a quoted key such as 'parallelism.default' but found 'a'"]],
    [
      "SELECT * FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '1' FORTNIGHT))",
      ["1:66 expected ')' but found 'FORTNIGHT'"],
    ],
    [
      "EXECUTE STATEMENT SET BEGIN SELECT 1; END",
      ["1:29 expected INSERT inside STATEMENT SET but found 'SELECT'"],
    ],
    [
      "SHOW TABLE",
      [
        "1:6 expected TABLES, VIEWS, MATERIALIZED VIEWS, JOBS, FUNCTIONS or CREATE after SHOW but found 'TABLE'",
      ],
    ],
    ["EXPLAIN FOO SELECT 1", ["1:9 expected a query, INSERT or STATEMENT SET to explain but found 'FOO'"]],
  ];
  it.each(cases)("%s", (sql, expected) => {
    expect(located(sql)).toEqual(expected);
  });

  it("points an unterminated string at its opening quote and reports nothing else", () => {
    const sql = "SELECT 1;\nSELECT id,\n  'abc FROM t;\nSELECT 2;";
    const r = parse(sql);
    expect(r.diagnostics).toEqual([
      {
        code: "unterminated-string",
        message: "unterminated string: missing closing '",
        span: { offset: 23, end: 24, line: 3, column: 3 },
        severity: "error",
      },
    ]);
    // The string runs to the end of input, so the second statement is the last one.
    expect(r.statements.map((s) => s.span.line)).toEqual([1, 2]);
  });

  it("suggests the keyword a misspelt word was probably meant to be", () => {
    const r = parse("SELECT a FROM t WHERE a > 1 GRUP BY a");
    expect(r.diagnostics[0]).toMatchObject({
      message: "expected ';' or end of statement but found 'GRUP'",
      hint: "did you mean GROUP?",
    });
    expect(parse("SELEC 1").diagnostics[0].hint).toBe("did you mean SELECT?");
  });
});

describe("resynchronisation", () => {
  it("reports every broken statement and keeps the good ones", () => {
    const sql = [
      "SELECT a, FROM t;",
      "CREATE TABLE ok (a INT) WITH ('connector' = 'x');",
      "SELECT (a FROM t;",
      "SELEC * FROM t;",
      "INSERT INTO s SELECT * FROM ok;",
      "SELECT f(a, (b;",
      "SELECT 1",
    ].join("\n");
    const r = parse(sql);
    expect(r.diagnostics.map((d) => `${d.span.line}:${d.span.column} ${d.message}`)).toEqual([
      "1:11 expected an expression but found 'FROM'",
      "3:11 expected ')' but found 'FROM'",
      "4:1 expected a statement (CREATE, DROP, INSERT, EXECUTE, SELECT, WITH, VALUES, SET, RESET, SHOW, DESCRIBE, EXPLAIN, STOP) but found 'SELEC'",
      "6:15 expected ')' but found ';'",
    ]);
    expect(r.statements.map((s) => `${s.span.line} ${statementKindLabel(s)}`)).toEqual([
      "2 CREATE TABLE",
      "5 INSERT INTO",
      "7 SELECT",
    ]);
  });

  it("skips a broken STATEMENT SET as a whole, semicolons inside BEGIN ... END included", () => {
    const sql = [
      "EXECUTE STATEMENT SET BEGIN",
      "  INSERT INTO a SELECT CASE WHEN x THEN 1 END FROM t;",
      "  INSERT INTO b SELEC 1;",
      "  INSERT INTO c SELECT 2;",
      "END;",
      "SELECT 3;",
    ].join("\n");
    const r = parse(sql);
    expect(r.diagnostics.map((d) => `${d.span.line}:${d.span.column}`)).toEqual(["3:17"]);
    expect(r.statements.map((s) => s.span.line)).toEqual([6]);
  });

  it("does not hang or throw on garbage", () => {
    const r = parse(") ) ( ; ,, END BEGIN */ /*+ ; SELECT");
    expect(r.diagnostics.length).toBeGreaterThan(0);
    expect(r.statements).toEqual([]);
  });

  it("reports input nested too deeply instead of overflowing the stack", () => {
    const r = parse(`SELECT ${"(".repeat(5000)}1${")".repeat(5000)}`);
    expect(r.diagnostics.map((d) => d.code)).toEqual(["too-deep"]);
  });
});

describe("renderDiagnostic", () => {
  it("renders file, line, column, source line, caret and hint", () => {
    const sql = "SELECT a\nFROM t\nWHERE a > 1 GRUP BY a;";
    const d = parse(sql).diagnostics[0];
    expect(renderDiagnostic(d, sql, "q.sql")).toBe(
      [
        "q.sql:3:13: error: expected ';' or end of statement but found 'GRUP'",
        "WHERE a > 1 GRUP BY a;",
        "            ^~~~",
        "hint: did you mean GROUP?",
      ].join("\n"),
    );
  });

  it("puts a caret after the last character for an error at end of input", () => {
    const sql = "SELECT (1";
    const d = parse(sql).diagnostics[0];
    expect(renderDiagnostic(d, sql, "f.sql")).toBe(
      ["f.sql:1:10: error: expected ')' but found end of input", "SELECT (1", "         ^"].join("\n"),
    );
  });

  it("keeps tabs in the caret line so the caret lines up", () => {
    const sql = "\tSELECT 'x";
    const d = parse(sql).diagnostics[0];
    expect(renderDiagnostic(d, sql, "t.sql")).toBe(
      ["t.sql:1:9: error: unterminated string: missing closing '", "\tSELECT 'x", "\t       ^"].join("\n"),
    );
  });
});
