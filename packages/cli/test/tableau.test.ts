import type { DataType } from "@weir/planner";
import { T } from "@weir/planner";
import { ChangeBatchBuilder, Op } from "@weir/runtime";
import { describe, expect, it } from "vitest";
import { TableauPrinter, typeWidth } from "../src/engine/tableau.js";

describe("typeWidth", () => {
  const cases: readonly [string, DataType, number][] = [
    ["BOOLEAN", T.boolean(), 5],
    ["INT", T.int(), 11],
    ["BIGINT", T.bigint(), 20],
    ["DECIMAL(10, 2)", T.decimal(10, 2), 12],
    ["DATE", T.date(), 10],
    ["TIME(0)", T.time(0), 8],
    ["TIMESTAMP(0)", T.timestamp(0), 19],
    ["TIMESTAMP(3)", T.timestamp(3), 23],
    ["TIMESTAMP(6)", T.timestamp(6), 26],
    ["TIMESTAMP_LTZ(9)", T.timestampLtz(9), 29],
  ];
  for (const [name, type, width] of cases) it(name, () => expect(typeWidth(type)).toBe(width));
});

describe("TableauPrinter", () => {
  it("prints a TIMESTAMP(6) value whole, with every fraction digit", () => {
    const lines: string[] = [];
    const p = new TableauPrinter([{ name: "ts", type: T.timestamp(6) }], (l) => lines.push(l), "UTC");
    const b = new ChangeBatchBuilder(1);
    b.push(Op.INSERT, [Date.UTC(2024, 4, 1, 9, 0, 0, 123)]);
    p.batch(b.finish());
    p.end();
    expect(lines).toEqual([
      "+----+----------------------------+",
      "| op |                         ts |",
      "+----+----------------------------+",
      "| +I | 2024-05-01 09:00:00.123000 |",
      "+----+----------------------------+",
      "Received a total of 1 row",
    ]);
  });
});
