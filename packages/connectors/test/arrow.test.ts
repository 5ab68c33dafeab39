import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type DataType, type Field, type LookupJoinNode, T } from "@weir/planner";
import { ChangeBatch, ConnectorError, type Json, Op, type Row, type SourceReader } from "@weir/runtime";
import * as A from "apache-arrow";
import { beforeEach, describe, expect, it } from "vitest";
import { arrowSinkFilePath, createConnectorRegistry, decimalWords } from "../src/index.js";
import { f, sinkNode, sourceNode } from "./helpers.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "weir-arrow-"));
});

const registry = createConnectorRegistry();

async function writeRows(path: string, fields: readonly Field[], batches: readonly (readonly Row[])[]) {
  const node = sinkNode(fields, { connector: "filesystem", format: "arrow", path });
  const sink = registry.sink(node);
  await sink.open({ node, metrics: new Map(), settings: {}, cwd: dir });
  for (const rows of batches) {
    sink.write(ChangeBatch.inserts(rows));
    await sink.flush();
  }
  await sink.close();
}

async function openSource(path: string, fields: readonly Field[], meta: Record<string, string> = {}) {
  const node = sourceNode(fields, { connector: "filesystem", format: "arrow", path }, meta);
  const reader = registry.source(node);
  await reader.open({ node, metrics: new Map(), settings: {}, cwd: dir });
  return reader;
}

async function drain(reader: SourceReader, maxRows = 1000, limit = Number.POSITIVE_INFINITY) {
  const out: [string, Row][] = [];
  while (out.length < limit) {
    const r = await reader.poll(Math.min(maxRows, limit - out.length));
    if (r.kind === "end") break;
    if (r.kind === "idle") throw new Error("a file source is never idle");
    for (const s of r.splits) {
      expect(s.batch.length).toBeGreaterThan(0);
      for (const [op, row] of ChangeBatch.toArray(s.batch)) {
        expect(op).toBe(Op.INSERT);
        out.push([s.split, row]);
      }
    }
  }
  return out;
}

/** Every Weir type the format maps, with values at the edges and a null (where nullable). */
const TYPE_CASES: readonly { name: string; type: DataType; values: readonly unknown[] }[] = [
  { name: "b", type: T.boolean(), values: [true, false, null] },
  { name: "i8", type: T.tinyint(), values: [-128, 127, null] },
  { name: "i16", type: T.smallint(), values: [-32768, 32767, null] },
  { name: "i32", type: T.int(false), values: [-2147483648, 2147483647, 0] },
  { name: "i64", type: T.bigint(), values: [-(2 ** 53) + 1, 2 ** 53 - 1, null] },
  { name: "i64x", type: T.bigint(), values: [-9223372036854775808n, 9223372036854775807n, 2n ** 53n] },
  { name: "f32", type: T.float(), values: [1.5, -0.25, null] },
  { name: "f64", type: T.double(), values: [Math.PI, -1e300, null] },
  {
    name: "dec",
    type: T.decimal(38, 10),
    values: [10n ** 38n - 1n, -(10n ** 38n - 1n), null],
  },
  { name: "dec2", type: T.decimal(10, 2), values: [-1n, 1230n, 0n] },
  { name: "c", type: T.char(3), values: ["abc", "é€😀", null] },
  { name: "s", type: T.string(), values: ["", "a\nb", null] },
  { name: "bin", type: T.bytes(), values: [Uint8Array.of(0, 255, 7), new Uint8Array(0), null] },
  { name: "d", type: T.date(), values: [-1, 19723, null] },
  { name: "t", type: T.time(3), values: [0, 86_399_999, null] },
  { name: "ts", type: T.timestamp(3), values: [-1, 1_700_000_000_123, null] },
  { name: "ltz", type: T.timestampLtz(3), values: [-86_400_001, 1_700_000_000_123, null] },
  // TIMESTAMP(4..9): bigint epoch nanos, as microseconds (precision ≤ 6) or nanoseconds
  { name: "ts6", type: T.timestamp(6), values: [-1000n, 1_700_000_000_123_456_000n, null] },
  { name: "ts9", type: T.timestamp(9), values: [-1n, 1_700_000_000_123_456_789n, null] },
  { name: "ltz9", type: T.timestampLtz(9), values: [1n, -86_400_000_000_000_001n, null] },
  { name: "idt", type: T.intervalDayTime(), values: [-90_061_001, 1, null] },
  { name: "iym", type: T.intervalYearMonth(), values: [-13, 25, null] },
  { name: "arr", type: T.array(T.decimal(5, 1)), values: [[1n, null, -99999n], [], null] },
  {
    name: "m",
    type: T.map(T.string(false), T.array(T.int())),
    values: [
      new Map<unknown, unknown>([
        ["a", [1, null]],
        ["b", null],
      ]),
      new Map(),
      null,
    ],
  },
  { name: "ms", type: T.multiset(T.string(false)), values: [new Map([["x", 2]]), new Map(), null] },
  {
    name: "r",
    type: T.row([
      { name: "x", type: T.int() },
      { name: "y", type: T.row([{ name: "z", type: T.timestampLtz(3) }]) },
      { name: "w", type: T.array(T.string()) },
    ]),
    values: [[1, [5], ["p", null]], [null, null, null], null],
  },
];

const allFields = TYPE_CASES.map((c) => f(c.name, c.type));
const allRows: Row[] = [0, 1, 2].map((i) => TYPE_CASES.map((c) => c.values[i]));

describe("arrow format: round trip", () => {
  it("writes and reads back every type, nulls, nested types and exact decimals", async () => {
    await writeRows("all.arrow", allFields, [allRows.slice(0, 2), allRows.slice(2)]);
    const rows = await drain(await openSource("all.arrow", allFields));
    expect(rows).toEqual(allRows.map((r) => ["all.arrow", r]));
  });

  it("writes the Arrow types of the documented mapping, readable by apache-arrow itself", async () => {
    await writeRows("all.arrow", allFields, [allRows]);
    const table = A.tableFromIPC(await readFile(join(dir, "all.arrow")));
    const types = Object.fromEntries(table.schema.fields.map((x) => [x.name, String(x.type)]));
    expect(types).toMatchObject({
      b: "Bool",
      i8: "Int8",
      i64: "Int64",
      f32: "Float32",
      dec: "Decimal[38e+10]",
      c: "Utf8",
      bin: "Binary",
      d: "Date32<DAY>",
      t: "Time32<MILLISECOND>",
      ts: "Timestamp<MILLISECOND>",
      ltz: "Timestamp<MILLISECOND, UTC>",
      ts6: "Timestamp<MICROSECOND>",
      ts9: "Timestamp<NANOSECOND>",
      ltz9: "Timestamp<NANOSECOND, UTC>",
      arr: "List<Decimal[5e+1]>",
      r: "Struct<{x:Int32, y:Struct<{z:Timestamp<MILLISECOND, UTC>}>, w:List<Utf8>}>",
    });
    expect(table.schema.fields.find((x) => x.name === "i32")?.nullable).toBe(false);
    expect(table.batches.length).toBe(1);
    // What another tool sees: apache-arrow's own getters agree with the Weir values.
    const first = table.get(0)!;
    expect(first.i64).toBe(BigInt(-(2 ** 53) + 1));
    expect(first.ts).toBe(-1);
    expect(table.getChild("ts6")!.data[0]!.values[1]).toBe(1_700_000_000_123_456n);
    expect(table.getChild("ts9")!.data[0]!.values[1]).toBe(1_700_000_000_123_456_789n);
    expect(first.d).toBe(-86_400_000);
    expect(Array.from(table.getChild("dec")!.get(1) as Uint32Array)).toEqual(
      Array.from(decimalWords(-(10n ** 38n - 1n))),
    );
  });

  it("refuses a TIMESTAMP(4..9) nested in a column (apache-arrow's builders take millis there)", async () => {
    const fields = [f("r", T.row([{ name: "t", type: T.timestamp(6) }]))];
    await expect(writeRows("nested.arrow", fields, [[[[1000n]]]])).rejects.toThrow(
      "column 'r' (ROW<`t` TIMESTAMP(6)>): Arrow and Parquet output holds TIMESTAMP(4..9) only as a top-level column",
    );
  });

  it("reads a microsecond Arrow timestamp into TIMESTAMP(3), TIMESTAMP(6) and TIMESTAMP(9) columns", async () => {
    const micros = A.makeVector({
      type: new A.TimestampMicrosecond(),
      data: BigInt64Array.of(1_700_000_000_123_456n, -1n),
    });
    await writeFile(join(dir, "micros.arrow"), A.tableToIPC(new A.Table({ t: micros }), "file"));
    for (const [type, want] of [
      [T.timestamp(3), [1_700_000_000_123, -1]],
      [T.timestamp(6), [1_700_000_000_123_456_000n, -1000n]],
      [T.timestamp(4), [1_700_000_000_123_400_000n, -100_000n]],
      [T.timestamp(9), [1_700_000_000_123_456_000n, -1000n]],
    ] as const) {
      const rows = await drain(await openSource("micros.arrow", [f("t", type)]));
      expect(rows.map((r) => r[1][0])).toEqual(want);
    }
  });

  it("puts a directory path in part-0.arrow and a .feather/.ipc path in that file", () => {
    expect(arrowSinkFilePath("out", "/w")).toBe("/w/out/part-0.arrow");
    expect(arrowSinkFilePath("o.feather", "/w")).toBe("/w/o.feather");
    expect(arrowSinkFilePath("/x/o.IPC", "/w")).toBe("/x/o.IPC");
  });

  it("writes a valid empty file when no rows arrive", async () => {
    await writeRows("out", allFields, []);
    expect(await drain(await openSource("out", allFields))).toEqual([]);
  });

  it("rejects an update change (the planner admits only insert-only input)", async () => {
    const fields = [f("id", T.int())];
    const node = sinkNode(fields, { connector: "filesystem", format: "arrow", path: "o.arrow" });
    const sink = registry.sink(node);
    await sink.open({ node, metrics: new Map(), settings: {}, cwd: dir });
    expect(() => sink.write(ChangeBatch.of([[Op.DELETE, [1]]]))).toThrow(/inserts only, got -D/);
    await sink.close();
  });
});

/** A file as pyarrow or another Arrow tool would write it: its own column order, types and extras. */
function foreignTable(): A.Table {
  const price = A.makeBuilder({ type: new A.Decimal(2, 9, 128), nullValues: [null] });
  for (const v of [decimalWords(12345n), null, decimalWords(-5n)]) price.append(v);
  return new A.Table({
    extra: A.vectorFromArray(["x", "y", "z"], new A.Utf8()),
    price: price.finish().toVector(),
    ts: A.makeVector(
      A.makeData({
        type: new A.TimestampMicrosecond(),
        length: 3,
        data: BigInt64Array.of(1_000_000n, 2_000_500n, -1n),
      }),
    ),
    name: A.vectorFromArray(["a", null, "c"], new A.Dictionary(new A.Utf8(), new A.Int32())),
    id: A.vectorFromArray([1, 2, 3], new A.Int16()),
    big: A.makeVector(BigInt64Array.of(0n, -(2n ** 53n - 1n), 2n ** 53n)),
  });
}

const foreignFields = [
  f("id", T.int()),
  f("name", T.string()),
  f("price", T.decimal(12, 3)),
  f("ts", T.timestamp(3)),
];

describe("arrow format: files written by other tools", () => {
  it.each(["file", "stream"] as const)("reads the IPC %s format, matching columns by name", async (fmt) => {
    await writeFile(join(dir, "foreign.arrow"), A.tableToIPC(foreignTable(), fmt));
    const rows = await drain(
      await openSource("foreign.arrow", [...foreignFields, f("fname", T.string())], { fname: "file.name" }),
    );
    expect(rows.map((r) => r[1])).toEqual([
      [1, "a", 123450n, 1000, "foreign.arrow"],
      [2, null, null, 2000, "foreign.arrow"],
      [3, "c", -50n, -1, "foreign.arrow"],
    ]);
  });

  it("reads every file of a directory as its own split, in name order", async () => {
    await writeFile(join(dir, "b.arrow"), A.tableToIPC(foreignTable(), "file"));
    await writeFile(join(dir, "a.arrow"), A.tableToIPC(foreignTable().slice(2), "stream"));
    const rows = await drain(await openSource(".", [f("id", T.bigint())]));
    expect(rows).toEqual([
      ["a.arrow", [3]],
      ["b.arrow", [1]],
      ["b.arrow", [2]],
      ["b.arrow", [3]],
    ]);
  });

  it("reads an Int64 column as BIGINT exactly over the whole 64-bit range (a bigint beyond ±(2^53 − 1))", async () => {
    await writeFile(join(dir, "foreign.arrow"), A.tableToIPC(foreignTable(), "file"));
    const rows = await drain(await openSource("foreign.arrow", [f("big", T.bigint())]));
    expect(rows.map((r) => r[1])).toEqual([[0], [-(2 ** 53 - 1)], [2n ** 53n]]);
  });

  const MISMATCHES: readonly { field: Field; message: string }[] = [
    {
      field: f("gone", T.int()),
      message: "file foreign.arrow: column 'gone' is missing (the file has: extra, price, ts, name, id, big)",
    },
    {
      field: f("id", T.tinyint()),
      message: "column 'id': cannot read Arrow type Int16 as TINYINT (values may not fit)",
    },
    { field: f("extra", T.int()), message: "column 'extra': cannot read Arrow type Utf8 as INT" },
    {
      field: f("price", T.decimal(12, 1)),
      message: "column 'price': cannot read Arrow type Decimal[9e+2] as DECIMAL(12, 1) (values may not fit)",
    },
    { field: f("ts", T.timestampLtz(3)), message: "as TIMESTAMP_LTZ(3) (a timestamp without a time zone" },
    {
      field: f("name", T.string(false)),
      message: "file foreign.arrow batch 0 row 1: column 'name' is NOT NULL",
    },
  ];

  it.each(MISMATCHES)("fails clearly for $field.name as $field.type.kind", async ({ field, message }) => {
    await writeFile(join(dir, "foreign.arrow"), A.tableToIPC(foreignTable(), "file"));
    const err = await drain(await openSource("foreign.arrow", [field])).catch((e) => e);
    expect(err).toBeInstanceOf(ConnectorError);
    expect(err.domain).toBe("user");
    expect(err.message).toContain(message);
    expect(err.message).toMatch(/^file foreign\.arrow/);
  });

  it("fails clearly on a file that is not Arrow", async () => {
    await writeFile(join(dir, "x.arrow"), '{"id":1}\n');
    const err = await drain(await openSource("x.arrow", [f("id", T.int())])).catch((e) => e);
    expect(err).toBeInstanceOf(ConnectorError);
    expect(err.message).toMatch(/^file x\.arrow: not an Arrow IPC file or stream/);
  });
});

describe("arrow format: position and restore", () => {
  const fields = [f("id", T.int()), f("tag", T.string())];
  const rowsOf = (from: number, to: number): Row[] =>
    Array.from({ length: to - from }, (_, k) => [from + k, `t${from + k}`]);

  it.each([
    ["in the middle of a batch", 3],
    ["at a batch boundary", 5],
    ["in the last batch", 11],
    ["after the first file", 12],
    ["in the second file", 14],
  ])("resumes exactly %s", async (_label, stopAfter) => {
    // two files: batches of 5, 5, 2 rows, then 4 rows
    await writeRows("in/a.arrow", fields, [rowsOf(0, 5), rowsOf(5, 10), rowsOf(10, 12)]);
    await writeRows("in/b.arrow", fields, [rowsOf(12, 16)]);
    const expected = rowsOf(0, 16);

    const first = await openSource("in", fields);
    const head = await drain(first, 2, stopAfter);
    const saved = JSON.parse(JSON.stringify(first.position())) as Json;
    await first.close();
    expect(head.map((r) => r[1])).toEqual(expected.slice(0, stopAfter));

    const second = await openSource("in", fields);
    await second.restore(saved);
    const tail = await drain(second, 3);
    expect(tail.map((r) => r[1])).toEqual(expected.slice(stopAfter));
    await second.close();
  });

  it("records (batch, row) per file", async () => {
    await writeRows("a.arrow", fields, [rowsOf(0, 5), rowsOf(5, 10)]);
    const reader = await openSource("a.arrow", fields);
    await drain(reader, 7, 7);
    expect(reader.position()).toEqual({ files: { "a.arrow": { batch: 1, row: 2, done: false } } });
    await drain(reader);
    expect(reader.position()).toEqual({ files: { "a.arrow": { batch: 2, row: 0, done: true } } });
  });
});

describe("arrow format: a lookup join's dimension table (FULL cache)", () => {
  it("loads every batch of the file into the index on the lookup key", async () => {
    const fields = [f("id", T.bigint()), f("tier", T.string())];
    await writeRows("dim.arrow", fields, [
      [
        [1, "gold"],
        [2, "silver"],
      ],
      [
        [2, "silver-b"],
        [null, "no-key"],
      ],
    ]);
    const node: LookupJoinNode = {
      kind: "lookup-join",
      id: 7,
      inputs: [6],
      schema: [f("customer", T.bigint()), ...fields],
      changelogMode: { kind: "insert-only" },
      streamKey: null,
      watermarkColumn: null,
      joinType: "inner",
      table: "dim",
      connector: "filesystem",
      options: { connector: "filesystem", format: "arrow", path: "dim.arrow" },
      dimSchema: fields,
      leftKeys: [0],
      dimKeys: [0],
      condition: null,
      lookup: {
        cache: null,
        full: { reloadIntervalMs: null, fixedRate: false },
        maxRetries: 3,
        bufferCapacity: 100,
        timeoutMs: 180_000,
        ordered: true,
      },
    };
    const source = registry.lookup!(node, { settings: {}, cwd: dir });
    await source.open();
    try {
      expect(source.cacheSize).toBe(2);
      expect(source.lookupNow!([1])).toEqual([[1, "gold"]]);
      expect(source.lookupNow!([2])).toEqual([
        [2, "silver"],
        [2, "silver-b"],
      ]);
      expect(source.lookupNow!([3])).toEqual([]);
    } finally {
      await source.close();
    }
  });
});
