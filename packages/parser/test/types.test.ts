import { parseDataType, print, stripSpans } from "@weir/parser";
import { describe, expect, it } from "vitest";

describe("data types", () => {
  const cases: [string, string, Record<string, unknown>][] = [
    ["INT", "INT", { kind: "ScalarType", name: "INT", notNull: false }],
    ["integer not null", "INT NOT NULL", { name: "INT", notNull: true }],
    ["BIGINT NULL", "BIGINT", { name: "BIGINT", notNull: false }],
    ["DECIMAL(10, 2)", "DECIMAL(10, 2)", { name: "DECIMAL", precision: 10, scale: 2 }],
    ["NUMERIC(5)", "DECIMAL(5)", { name: "DECIMAL", precision: 5 }],
    ["VARCHAR(20)", "VARCHAR(20)", { name: "VARCHAR", length: 20 }],
    ["CHAR(3)", "CHAR(3)", { name: "CHAR", length: 3 }],
    ["STRING", "STRING", { name: "STRING" }],
    ["BYTES", "BYTES", { name: "BYTES" }],
    ["VARBINARY(8)", "VARBINARY(8)", { name: "VARBINARY", length: 8 }],
    ["DOUBLE PRECISION", "DOUBLE", { name: "DOUBLE" }],
    ["TIMESTAMP(3)", "TIMESTAMP(3)", { name: "TIMESTAMP", precision: 3, withLocalTimeZone: false }],
    ["TIMESTAMP WITHOUT TIME ZONE", "TIMESTAMP", { name: "TIMESTAMP", withLocalTimeZone: false }],
    [
      "TIMESTAMP(3) WITH LOCAL TIME ZONE",
      "TIMESTAMP(3) WITH LOCAL TIME ZONE",
      { name: "TIMESTAMP", precision: 3, withLocalTimeZone: true },
    ],
    ["TIMESTAMP_LTZ(3)", "TIMESTAMP_LTZ(3)", { name: "TIMESTAMP_LTZ", precision: 3 }],
    ["TIME(0)", "TIME(0)", { name: "TIME", precision: 0 }],
    ["DATE", "DATE", { name: "DATE" }],
    ["BOOLEAN", "BOOLEAN", { name: "BOOLEAN" }],
    [
      "ARRAY<INT NOT NULL>",
      "ARRAY<INT NOT NULL>",
      { kind: "ArrayType", element: { name: "INT", notNull: true } },
    ],
    ["STRING ARRAY", "ARRAY<STRING>", { kind: "ArrayType", element: { name: "STRING" } }],
    ["MULTISET<STRING>", "MULTISET<STRING>", { kind: "MultisetType" }],
    [
      "MAP<STRING, ARRAY<BIGINT>>",
      "MAP<STRING, ARRAY<BIGINT>>",
      { kind: "MapType", key: { name: "STRING" }, value: { kind: "ArrayType" } },
    ],
    [
      "ROW<a INT, `b c` STRING 'desc'> NOT NULL",
      "ROW<a INT, `b c` STRING 'desc'> NOT NULL",
      {
        kind: "RowType",
        notNull: true,
        fields: [{ name: { value: "a" } }, { name: { value: "b c" }, description: { value: "desc" } }],
      },
    ],
    ["ROW(a INT, b DOUBLE)", "ROW<a INT, b DOUBLE>", { kind: "RowType", fields: [{}, {}] }],
    ["INTERVAL DAY(2) TO SECOND(3)", "INTERVAL DAY(2) TO SECOND(3)", { kind: "IntervalType" }],
  ];
  it.each(cases)("%s", (sql, printed, expected) => {
    const r = parseDataType(sql);
    expect(r.diagnostics).toEqual([]);
    const node = r.node!;
    expect(node).toMatchObject(expected);
    expect(print(node)).toBe(printed);
    expect(stripSpans(parseDataType(printed).node)).toEqual(stripSpans(node));
  });

  const errors: [string, string][] = [
    ["VARCHR(3)", "expected a data type but found 'VARCHR'"],
    ["DECIMAL(10,", "expected a scale but found end of input"],
    ["MAP<STRING>", "expected ',' but found '>'"],
    ["ARRAY<INT", "expected '>' but found end of input"],
    ["INT(3)", "expected no parameters for INT but found '('"],
  ];
  it.each(errors)("rejects %s", (sql, message) => {
    const r = parseDataType(sql);
    expect(r.node).toBeUndefined();
    expect(r.diagnostics.map((d) => d.message)).toEqual([message]);
  });
});
