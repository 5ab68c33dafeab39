import { type DataType, T } from "@weir/planner";
import { ChangeBatch, Op } from "@weir/runtime";
import { describe, expect, it } from "vitest";
import { createConnectorRegistry, formatValue, javaString, renderTableau } from "../src/index.js";
import { f, sinkNode } from "./helpers.js";

const ts = (s: string) => Date.parse(`${s}Z`);

describe("print sink", () => {
  const fields = [
    f("id", T.int()),
    f("name", T.string()),
    f("ts", T.timestamp(3)),
    f("amount", T.decimal(10, 2)),
  ];
  const batch = ChangeBatch.of([
    [Op.INSERT, [1, "a", ts("2024-01-01T12:00:00"), 1230n]],
    [Op.UPDATE_BEFORE, [1, "a", ts("2024-01-01T12:00:00"), 1230n]],
    [Op.UPDATE_AFTER, [1, null, ts("2024-01-01T12:00:05.250"), 5n]],
  ]);

  async function print(options: Record<string, string>) {
    const out: string[] = [];
    const err: string[] = [];
    const registry = createConnectorRegistry({
      stdout: { write: (s) => out.push(s) },
      stderr: { write: (s) => err.push(s) },
    });
    const node = sinkNode(fields, { connector: "print", ...options });
    const sink = registry.sink(node);
    await sink.open({ node, metrics: new Map(), settings: {}, cwd: "/" });
    sink.write(batch);
    await sink.close();
    return { out: out.join(""), err: err.join("") };
  }

  it("prints Flink's Row.toString lines", async () => {
    expect((await print({})).out).toBe(
      "+I[1, a, 2024-01-01T12:00, 12.30]\n-U[1, a, 2024-01-01T12:00, 12.30]\n+U[1, null, 2024-01-01T12:00:05.250, 0.05]\n",
    );
  });

  it("prefixes the identifier and writes to stderr on request", async () => {
    const { out, err } = await print({ "print-identifier": "orders", "standard-error": "true" });
    expect(out).toBe("");
    expect(err.split("\n")[0]).toBe("orders> +I[1, a, 2024-01-01T12:00, 12.30]");
  });

  const values: [string, unknown, DataType, string][] = [
    ["double", 1, T.double(), "1.0"],
    ["double large", 1e10, T.double(), "1.0E10"],
    ["double small", 0.0001, T.double(), "1.0E-4"],
    ["double fraction", 123.456, T.double(), "123.456"],
    ["float", Math.fround(0.1), T.float(), "0.1"],
    ["tiny decimal", 1n, T.decimal(10, 8), "1E-8"],
    ["ltz", ts("2024-01-01T12:00:00"), T.timestampLtz(3), "2024-01-01T12:00:00Z"],
    ["ltz millis", ts("2024-01-01T12:00:00.5"), T.timestampLtz(3), "2024-01-01T12:00:00.500Z"],
    ["time", 3_600_000, T.time(0), "01:00"],
    ["bytes", new Uint8Array([1, 255]), T.bytes(), "[1, -1]"],
    ["map", new Map([["k", 1]]), T.map(T.string(), T.int()), "{k=1}"],
    [
      "row",
      [1, "x"],
      T.row([
        { name: "a", type: T.int() },
        { name: "b", type: T.string() },
      ]),
      "+I[1, x]",
    ],
    ["interval", 90_061_500, T.intervalDayTime(), "PT25H1M1.5S"],
    ["interval ym", 14, T.intervalYearMonth(), "P1Y2M"],
  ];
  it.each(values)("shows %s as Java does", (_n, v, t, text) => {
    expect(javaString(v, t)).toBe(text);
  });
});

describe("tableau", () => {
  const values: [string, unknown, DataType, string][] = [
    ["timestamp(3)", ts("2024-01-01T12:00:00"), T.timestamp(3), "2024-01-01 12:00:00.000"],
    ["timestamp(0)", ts("2024-01-01T12:00:00"), T.timestamp(0), "2024-01-01 12:00:00"],
    ["decimal", 30n, T.decimal(5, 2), "0.30"],
    ["null", null, T.int(), "<NULL>"],
    ["boolean", true, T.boolean(), "TRUE"],
    ["bytes", new Uint8Array([10, 255]), T.bytes(), "x'0aff'"],
    [
      "row with null",
      [1, null],
      T.row([
        { name: "a", type: T.int() },
        { name: "b", type: T.string() },
      ]),
      "(1, NULL)",
    ],
    ["array", [false], T.array(T.boolean()), "[FALSE]"],
    ["interval", 90_061_500, T.intervalDayTime(), "+1 01:01:01.500"],
  ];
  it.each(values)("formats %s", (_n, v, t, text) => {
    expect(formatValue(v, t)).toBe(text);
  });

  it("converts TIMESTAMP_LTZ to the session time zone", () => {
    expect(formatValue(ts("2024-07-01T12:00:00"), T.timestampLtz(3), { timeZone: "Asia/Tokyo" })).toBe(
      "2024-07-01 21:00:00.000",
    );
  });

  it("renders Flink's tableau box", () => {
    const schema = [f("name", T.string()), f("cnt", T.bigint())];
    const text = renderTableau(schema, [
      [Op.INSERT, ["Alice", 1]],
      [Op.UPDATE_BEFORE, ["Alice", 1]],
      [Op.UPDATE_AFTER, ["Alice", 12]],
      [Op.INSERT, [null, 3]],
    ]);
    expect(text).toBe(
      [
        "+----+--------+-----+",
        "| op |   name | cnt |",
        "+----+--------+-----+",
        "| +I |  Alice |   1 |",
        "| -U |  Alice |   1 |",
        "| +U |  Alice |  12 |",
        "| +I | <NULL> |   3 |",
        "+----+--------+-----+",
        "Received a total of 4 rows",
        "",
      ].join("\n"),
    );
  });
});
