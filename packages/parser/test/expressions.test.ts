import { type Expr, parseExpression, print, stripSpans } from "@weir/parser";
import { describe, expect, it } from "vitest";
import { parseExpr, shape } from "./helpers.js";

/** Parses, checks the printed form re-parses to the same tree, and returns the tree. */
function roundTripped(sql: string): Expr {
  const e = parseExpr(sql);
  expect(stripSpans(parseExpr(print(e)))).toEqual(stripSpans(e));
  return e;
}

describe("precedence", () => {
  // OR < AND < NOT < comparison/IS/LIKE/IN/BETWEEN < || + - < * / % < unary - + < . []
  const cases: [string, string][] = [
    ["a OR b AND c", "(a OR (b AND c))"],
    ["a AND b OR c", "((a AND b) OR c)"],
    ["NOT a AND b", "((NOT a) AND b)"],
    ["NOT a = b", "(NOT (a = b))"],
    ["a = b AND c <> d", "((a = b) AND (c <> d))"],
    ["a != b", "(a <> b)"],
    ["a + b * c", "(a + (b * c))"],
    ["a * b + c", "((a * b) + c)"],
    ["a - b - c", "((a - b) - c)"],
    ["a / b % c", "((a / b) % c)"],
    ["a || b + c", "((a || b) + c)"],
    ["a + b = c * d", "((a + b) = (c * d))"],
    ["-a * b", "((- a) * b)"],
    ["- - a", "(- (- a))"],
    ["-a.b[1]", "(- a.b[1])"],
    ["a < b + 1", "(a < (b + 1))"],
    ["a BETWEEN b + 1 AND c * 2 AND d", "((a BETWEEN (b + 1) AND (c * 2)) AND d)"],
    ["a NOT BETWEEN SYMMETRIC 1 AND 2", "(a NOT BETWEEN SYMMETRIC 1 AND 2)"],
    ["a IS NULL OR b IS NOT TRUE", "((a IS NULL) OR (b IS NOT TRUE))"],
    ["a IS NOT UNKNOWN AND b IS FALSE", "((a IS NOT UNKNOWN) AND (b IS FALSE))"],
    ["a IS DISTINCT FROM b + 1", "(a IS DISTINCT FROM (b + 1))"],
    ["a IS NOT DISTINCT FROM b", "(a IS NOT DISTINCT FROM b)"],
    ["a LIKE 'x%' ESCAPE '!' AND b", "((a LIKE 'x%' ESCAPE '!') AND b)"],
    ["a NOT SIMILAR TO 'x' || 'y'", "(a NOT SIMILAR TO ('x' || 'y'))"],
    ["a IN (1, 2) OR a NOT IN (3)", "((a IN [1, 2]) OR (a NOT IN [3]))"],
    ["NOT a IN (1)", "(NOT (a IN [1]))"],
    ["(a OR b) AND c", "((a OR b) AND c)"],
    ["a + b || c", "((a + b) || c)"],
    ["f(x).y[2].z", "f(x).y[2].z"],
    ["m['k'] = 1", "(m['k'] = 1)"],
  ];
  it.each(cases)("%s", (sql, expected) => {
    expect(shape(roundTripped(sql))).toBe(expected);
  });
});

describe("expressions", () => {
  const cases: [string, Record<string, unknown>][] = [
    ["NULL", { kind: "NullLiteral" }],
    ["TRUE", { kind: "BooleanLiteral", value: true }],
    ["false", { kind: "BooleanLiteral", value: false }],
    ["1.50", { kind: "NumberLiteral", text: "1.50" }],
    ["2E-3", { kind: "NumberLiteral", text: "2E-3" }],
    ["'it''s'", { kind: "StringLiteral", value: "it's" }],
    ["U&'\\00e9t\\00e9'", { kind: "StringLiteral", value: "été" }],
    ["X'CAFE'", { kind: "BinaryLiteral", hex: "CAFE" }],
    ["DATE '2024-01-02'", { kind: "TypedLiteral", type: "DATE", value: "2024-01-02" }],
    ["TIME '12:00:00'", { kind: "TypedLiteral", type: "TIME", value: "12:00:00" }],
    ["TIMESTAMP '2024-01-02 03:04:05.006'", { kind: "TypedLiteral", type: "TIMESTAMP" }],
    ["INTERVAL '1' MINUTE", { kind: "IntervalLiteral", value: "1", qualifier: { start: "MINUTE" } }],
    ["INTERVAL '10' MINUTES", { kind: "IntervalLiteral", value: "10", qualifier: { start: "MINUTE" } }],
    ["INTERVAL '1.5' SECOND(3)", { qualifier: { start: "SECOND", precision: 3 } }],
    ["INTERVAL '1:30' HOUR TO MINUTE", { qualifier: { start: "HOUR", end: "MINUTE" } }],
    ["INTERVAL '1 10:00:00' DAY TO SECOND", { qualifier: { start: "DAY", end: "SECOND" } }],
    [
      "INTERVAL '1 10:00:00.123' DAY(2) TO SECOND(3)",
      { qualifier: { precision: 2, fractionalPrecision: 3 } },
    ],
    ["INTERVAL '1-6' YEAR TO MONTH", { qualifier: { start: "YEAR", end: "MONTH" } }],
    ["INTERVAL '1 minute'", { kind: "IntervalLiteral", value: "1 minute" }],
    ["INTERVAL -'2' DAY", { kind: "IntervalLiteral", negative: true, value: "2" }],
    ["`select`.`from`", { kind: "ColumnRef", names: [{ value: "select", quoted: true }, { value: "from" }] }],
    ["t.user.name", { kind: "ColumnRef", names: [{ value: "t" }, { value: "user" }, { value: "name" }] }],
    ["COUNT(*)", { kind: "FunctionCall", star: true, args: [] }],
    ["COUNT(DISTINCT a)", { kind: "FunctionCall", distinct: true }],
    ["SUM(x) FILTER (WHERE x > 0)", { kind: "FunctionCall", filter: { kind: "BinaryExpr", op: ">" } }],
    ["LISTAGG(x) WITHIN GROUP (ORDER BY x)", { kind: "FunctionCall", withinGroup: [{ kind: "OrderItem" }] }],
    ["CURRENT_TIMESTAMP", { kind: "FunctionCall", noParens: true, args: [] }],
    ["PROCTIME()", { kind: "FunctionCall", noParens: false, args: [] }],
    [
      "cat.db.f(1)",
      { kind: "FunctionCall", name: { parts: [{ value: "cat" }, { value: "db" }, { value: "f" }] } },
    ],
    ["LEFT(s, 3)", { kind: "FunctionCall", name: { parts: [{ value: "LEFT" }] } }],
    [
      "CASE x WHEN 1 THEN 'a' WHEN 2 THEN 'b' ELSE 'c' END",
      { kind: "CaseExpr", operand: { kind: "ColumnRef" } },
    ],
    ["CASE WHEN a THEN 1 END", { kind: "CaseExpr", whens: [{ kind: "CaseWhen" }] }],
    [
      "CAST(x AS DECIMAL(10, 2))",
      { kind: "CastExpr", safe: false, type: { name: "DECIMAL", precision: 10, scale: 2 } },
    ],
    ["TRY_CAST(x AS INT)", { kind: "CastExpr", safe: true, type: { name: "INT" } }],
    ["EXISTS (SELECT 1)", { kind: "ExistsExpr" }],
    ["(SELECT MAX(a) FROM t)", { kind: "SubqueryExpr" }],
    ["a IN (SELECT b FROM t)", { kind: "InSubqueryExpr", negated: false }],
    ["a NOT IN (SELECT b FROM t)", { kind: "InSubqueryExpr", negated: true }],
    ["EXTRACT(YEAR FROM ts)", { kind: "ExtractExpr", unit: "YEAR" }],
    ["FLOOR(ts TO HOUR)", { kind: "FloorCeilExpr", fn: "FLOOR", unit: "HOUR" }],
    ["CEIL(ts TO DAY)", { kind: "FloorCeilExpr", fn: "CEIL", unit: "DAY" }],
    ["FLOOR(x)", { kind: "FunctionCall", name: { parts: [{ value: "FLOOR" }] } }],
    ["TRIM(BOTH 'x' FROM s)", { kind: "TrimExpr", mode: "BOTH", chars: { value: "x" } }],
    ["TRIM(LEADING FROM s)", { kind: "TrimExpr", mode: "LEADING" }],
    ["TRIM(s)", { kind: "TrimExpr", mode: "BOTH", source: { kind: "ColumnRef" } }],
    ["SUBSTRING(s FROM 2 FOR 3)", { kind: "SubstringExpr", from: { text: "2" }, for: { text: "3" } }],
    ["SUBSTRING(s, 2, 3)", { kind: "FunctionCall", args: [{}, {}, {}] }],
    ["POSITION('a' IN s)", { kind: "PositionExpr", needle: { value: "a" } }],
    ["OVERLAY(s PLACING 'x' FROM 2 FOR 1)", { kind: "OverlayExpr", for: { text: "1" } }],
    ["JSON_VALUE(j, '$.a')", { kind: "JsonValueExpr", path: { value: "$.a" } }],
    [
      "JSON_VALUE(j, '$.a' RETURNING INT)",
      { kind: "JsonValueExpr", returning: { kind: "ScalarType", name: "INT" } },
    ],
    [
      "JSON_VALUE(j, '$.a' RETURNING DOUBLE NULL ON EMPTY DEFAULT 0 ON ERROR)",
      {
        kind: "JsonValueExpr",
        onEmpty: { kind: "NULL" },
        onError: { kind: "DEFAULT", value: { text: "0" } },
      },
    ],
    ["TIMESTAMPADD(HOUR, 2, ts)", { kind: "TimestampArithExpr", fn: "TIMESTAMPADD", unit: "HOUR" }],
    ["TIMESTAMPDIFF(DAY, a, b)", { kind: "TimestampArithExpr", fn: "TIMESTAMPDIFF", unit: "DAY" }],
    ["ARRAY[1, 2, 3]", { kind: "ArrayConstructor", elements: [{}, {}, {}] }],
    [
      "MAP['a', 1, 'b', 2]",
      { kind: "MapConstructor", entries: [{ key: { value: "a" } }, { key: { value: "b" } }] },
    ],
    ["ROW(1, 'a')", { kind: "RowConstructor", explicit: true }],
    ["(1, 'a')", { kind: "RowConstructor", explicit: false }],
    ["arr[1]", { kind: "SubscriptExpr", index: { text: "1" } }],
    ["f(x).field", { kind: "FieldAccessExpr", field: { value: "field" } }],
    [
      "ROW_NUMBER() OVER (PARTITION BY a ORDER BY ts DESC NULLS LAST)",
      { over: { kind: "WindowSpec", orderBy: [{ direction: "DESC", nulls: "LAST" }] } },
    ],
    [
      "SUM(x) OVER (ORDER BY ts RANGE BETWEEN INTERVAL '1' HOUR PRECEDING AND CURRENT ROW)",
      {
        over: {
          frame: {
            unit: "RANGE",
            start: { bound: "PRECEDING", offset: { kind: "IntervalLiteral" } },
            end: { bound: "CURRENT ROW" },
          },
        },
      },
    ],
    [
      "SUM(x) OVER (ROWS BETWEEN 2 PRECEDING AND UNBOUNDED FOLLOWING)",
      {
        over: {
          frame: { unit: "ROWS", start: { bound: "PRECEDING" }, end: { bound: "UNBOUNDED FOLLOWING" } },
        },
      },
    ],
    ["SUM(x) OVER w", { over: { kind: "WindowRef", name: { value: "w" } } }],
    [
      "AVG(x) OVER (w ROWS 3 PRECEDING)",
      { over: { base: { value: "w" }, frame: { start: { bound: "PRECEDING" } } } },
    ],
  ];
  it.each(cases)("%s", (sql, expected) => {
    expect(roundTripped(sql)).toMatchObject(expected);
  });

  it("gives every node a span inside the input", () => {
    const sql = "CASE WHEN a.b[1] > 2 THEN CAST(x AS INT) ELSE -y END";
    const visit = (v: unknown): void => {
      if (Array.isArray(v)) v.forEach(visit);
      else if (v !== null && typeof v === "object") {
        const o = v as Record<string, unknown>;
        if ("kind" in o) {
          const span = o.span as { offset: number; end: number };
          expect(span.offset).toBeGreaterThanOrEqual(0);
          expect(span.end).toBeLessThanOrEqual(sql.length);
          expect(span.end).toBeGreaterThan(span.offset);
        }
        Object.values(o).forEach(visit);
      }
    };
    visit(parseExpr(sql));
    expect(parseExpr(sql).span).toEqual({ offset: 0, end: sql.length, line: 1, column: 1 });
  });

  const errors: [string, string][] = [
    ["1 +", "expected an expression but found end of input"],
    ["CASE WHEN a THEN 1", "expected 'END' but found end of input"],
    ["CAST(x INT)", "expected 'AS' but found 'INT'"],
    ["INTERVAL 5 SECOND", "expected an interval string such as '1' but found '5'"],
    ["MAP['a', 1, 'b']", "MAP[...] needs an even number of values (key, value, key, value, ...)"],
    ["a IS 5", "expected NULL, TRUE, FALSE, UNKNOWN or DISTINCT FROM after IS but found '5'"],
    [
      "EXTRACT(FORTNIGHT FROM ts)",
      "expected a time unit (YEAR, MONTH, DAY, HOUR, MINUTE, SECOND, ...) but found 'FORTNIGHT'",
    ],
    ["a b", "expected end of input but found 'b'"],
  ];
  it.each(errors)("rejects %s", (sql, message) => {
    const r = parseExpression(sql);
    expect(r.node).toBeUndefined();
    expect(r.diagnostics.map((d) => d.message)).toEqual([message]);
  });
});
