import { type DataType, type Field, T } from "@weir/planner";
import { describe, expect, it } from "vitest";
import { ByteOut } from "../src/formats/byte-out.js";
import { compileRowEncoder, type JsonValueOptions } from "../src/formats/json-values.js";
import { compileRowWriter } from "../src/formats/json-writer.js";
import { f } from "./helpers.js";

/** A deterministic generator (the same values on every run). */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/** Characters that take every branch of the string writer. */
const UNITS = [
  "a",
  "Z",
  " ",
  "~",
  "\x7f",
  '"',
  "\\",
  "/",
  "\n",
  "\r",
  "\t",
  "\b",
  "\f",
  "\x00",
  "\x01",
  "\x1f",
  "é",
  "ß",
  "\u07ff",
  "\u0800",
  "中",
  "\uffff",
  "😀",
  "\ud800",
  "\udbff",
  "\udc00",
  "\udfff",
];

function randomString(r: () => number, max: number): string {
  const n = Math.floor(r() * max);
  let s = "";
  for (let i = 0; i < n; i++) s += UNITS[Math.floor(r() * UNITS.length)];
  return s;
}

const opts: JsonValueOptions = {
  timestampStandard: "SQL",
  failOnMissingField: false,
  mapNullKeyMode: "FAIL",
  mapNullKeyLiteral: "null",
  decimalAsPlainNumber: false,
  optionPrefix: "json",
};
const iso: JsonValueOptions = {
  ...opts,
  timestampStandard: "ISO-8601",
  mapNullKeyMode: "LITERAL",
  mapNullKeyLiteral: "nul\u00e9",
  decimalAsPlainNumber: true,
};

/** Writes `rows` one per line through the byte writer (into chunks of `chunk` bytes) and through the string encoder. */
function both(fields: readonly Field[], rows: unknown[][], o = opts, chunk = 64) {
  const toText = compileRowEncoder(fields, o);
  const toBytes = compileRowWriter(fields, o);
  const out = new ByteOut(chunk);
  for (const row of rows) {
    toBytes(row, out);
    out.byte(0x0a);
  }
  const bytes = Buffer.concat(out.take());
  const expected = Buffer.from(rows.map((row) => `${toText(row)}\n`).join(""), "utf8");
  return { bytes, expected };
}

describe("the JSON byte writer", () => {
  it("writes the string encoder's bytes for every scalar type, edge values included", () => {
    const cases: [DataType, unknown[]][] = [
      [T.boolean(), [true, false]],
      [T.int(), [0, -0, 1, 9, 10, -10, 99, 100, 2147483647, -2147483648]],
      [
        T.bigint(),
        [
          Number.MAX_SAFE_INTEGER,
          Number.MIN_SAFE_INTEGER,
          1_000_000_000_000,
          9_007_199_254_740_990,
          9223372036854775807n,
          -9223372036854775808n,
          12n,
        ],
      ],
      [T.double(), [0, -0, 0.1, -1.5e-7, 1e21, 123456789.125, Number.NaN, Infinity, -Infinity]],
      [T.float(), [Math.fround(0.1), 3]],
      [T.decimal(10, 2), [0n, 1n, -1n, 12345n, -99999999n]],
      [T.decimal(5, 0), [7n, -7n]],
      [T.decimal(12, 9), [0n, 1n, -12n, 999n, 1000n, 123456789012n]],
      [T.date(), [0, -1, 1, 16_436, -719_528, 2_932_896, -800_000, 16_436, 16_437]],
      [T.time(0), [0, 1_000, 86_399_000]],
      [T.time(3), [0, 1, 86_399_999]],
      [
        T.timestamp(3),
        [
          0,
          -1,
          1,
          999,
          1_000,
          59_999,
          86_399_999,
          86_400_000,
          1_436_918_400_123,
          1_436_918_400_124,
          -62_135_596_800_000,
          -62_135_596_800_001,
          253_402_300_800_000,
          8_640_000_000_000_000,
          9_000_000_000_000_000,
          1.5,
          Number.NaN,
        ],
      ],
      [T.timestampLtz(3), [0, -1, 1_436_918_400_123]],
      [T.timestamp(9), [0n, 1_436_918_400_123_456_789n, -1n]],
      [T.timestampLtz(6), [1_436_918_400_123_456_000n]],
      [T.intervalDayTime(), [0, -86_400_000, 90_061_001]],
      [T.intervalYearMonth(), [0, 14, -14]],
      [T.bytes(), [new Uint8Array([]), new Uint8Array([0, 255, 1, 2, 3])]],
      [T.array(T.string()), [[], ["a", null, 'q"\\é😀\ud800']]],
      [T.map(T.string(), T.int()), [new Map([["k", 1]]), new Map<string, number | null>([["é\n", null]])]],
      [T.multiset(T.int()), [new Map([[3, 2]])]],
      [T.null(), [null]],
    ];
    for (const o of [opts, iso]) {
      for (const [type, values] of cases) {
        const fields = [f("v", type), f("n", T.int())];
        const { bytes, expected } = both(
          fields,
          values.map((v) => [v, 1]),
          o,
        );
        expect(bytes.toString("latin1"), JSON.stringify(type)).toBe(expected.toString("latin1"));
      }
    }
  });

  it("writes strings byte for byte as JSON.stringify and UTF-8 do: escapes, surrogates, long strings", () => {
    const r = rng(18);
    const values: string[] = ["", '"', "\\", "\ud800", "\udfff", "a\ud83d", "\ude00b", "😀😀"];
    for (let i = 0; i < 2000; i++) values.push(randomString(r, 40));
    for (let i = 0; i < 20; i++) values.push(randomString(r, 9000));
    const fields = [f("s", T.string()), f("c", T.char(3))];
    for (const chunk of [8, 64, 256 * 1024]) {
      const { bytes, expected } = both(
        fields,
        values.map((v, i) => [v, i % 3 === 0 ? null : "abc"]),
        opts,
        chunk,
      );
      expect(bytes.equals(expected)).toBe(true);
    }
  });

  it("writes nested rows, quoted field names, empty rows and NULLs as the string encoder does", () => {
    const inner = T.row([
      { name: "a", type: T.int() },
      { name: 'q"é', type: T.string() },
      { name: "t", type: T.timestamp(3) },
    ]);
    const fields = [
      f("id", T.bigint()),
      f("nested", inner),
      f("empty", T.row([])),
      f("list", T.array(inner)),
      f('we"ird\\name', T.string()),
    ];
    const rows: unknown[][] = [
      [1, [2, "x", 0], [], [[3, null, 1]], "y"],
      [null, null, null, null, null],
      [-5, [null, '"', -1], [], [], ""],
    ];
    const { bytes, expected } = both(fields, rows);
    expect(bytes.toString("utf8")).toBe(expected.toString("utf8"));
    const none = both([], [[], []]);
    expect(none.bytes.toString()).toBe("{}\n{}\n");
    expect(none.expected.toString()).toBe("{}\n{}\n");
  });

  it("writes random rows of the Nexmark bid shape identically into any chunk size", () => {
    const r = rng(7);
    const fields = [
      f("auction", T.bigint()),
      f("bidder", T.bigint()),
      f("price", T.bigint()),
      f("dateTime", T.timestamp(3)),
      f("extra", T.string()),
      f("dt", T.string()),
      f("hm", T.string()),
    ];
    const rows: unknown[][] = [];
    let ts = 1_436_918_400_000;
    for (let i = 0; i < 3000; i++) {
      ts += Math.floor(r() * 50_000_000);
      rows.push([
        Math.floor(r() * 1e6),
        Math.floor(r() * 1e12) - 5e11,
        Math.floor(r() * 1e4),
        ts,
        randomString(r, 60),
        "2015-07-15",
        "00:00",
      ]);
    }
    for (const chunk of [1, 100, 4096]) {
      const { bytes, expected } = both(fields, rows, opts, chunk);
      expect(bytes.equals(expected)).toBe(true);
    }
  });
});

describe("ByteOut", () => {
  it("keeps bytes in order across chunks, cuts a record back to its mark, and reuses released chunks", () => {
    const out = new ByteOut(8);
    out.ascii("abc");
    out.mark();
    out.ascii("defghijklmnop");
    out.utf8("é😀");
    out.rollback();
    expect(out.length).toBe(3);
    out.ascii("DEF");
    out.mark();
    out.rollback();
    out.utf8("é");
    out.bytes(Buffer.from("0123456789"));
    out.byte(0x21);
    expect(out.length).toBe(3 + 3 + 2 + 10 + 1);
    const taken = out.take();
    expect(Buffer.concat(taken).toString("utf8")).toBe("abcDEFé0123456789!");
    expect(out.length).toBe(0);
    out.release(taken);
    out.ascii("xyz");
    out.mark();
    out.ascii("0123456789abcdefghij");
    out.rollback();
    out.ascii("!");
    expect(Buffer.concat(out.take()).toString()).toBe("xyz!");
    expect(out.take()).toEqual([]);
  });
});
