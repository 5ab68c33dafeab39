import { userInfo } from "node:os";
import type { DataType } from "@weir/planner";
import { T } from "@weir/planner";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mulberry32 } from "../../../test/support/random.js";
import { BinaryArrayWriter, binaryElementOf } from "../src/postgres/binary-array.js";
import { compileValueEncoder, NulInText } from "../src/postgres/values.js";

/**
 * The binary arrays of the Postgres sink's `unnest` statements (binary-array.ts), against the real
 * server: every value is sent twice in one statement, once in a binary array and once in the
 * array text literal the sink writes for the other columns (values.ts's text, quoted and
 * escaped), and the server must read both as the same value (compared as Postgres's own text
 * output of each).
 */
const URL =
  process.env.WEIR_TEST_PG_URL ??
  `postgres://${encodeURIComponent(process.env.PGUSER || process.env.USER || userInfo().username)}@127.0.0.1:5432/test`;

let client: pg.Client;

beforeAll(async () => {
  client = new pg.Client({ connectionString: URL });
  await client.connect();
  await client.query("SET TimeZone = 'UTC'");
  const names = [
    "bool",
    "bytea",
    "int8",
    "int2",
    "int4",
    "text",
    "float4",
    "float8",
    "bpchar",
    "varchar",
    "date",
    "timestamp",
    "timestamptz",
    "numeric",
    "time",
  ];
  const r = await client.query(
    "SELECT typname, oid::int FROM pg_type WHERE typname = ANY($1) AND typnamespace = 'pg_catalog'::regnamespace",
    [names],
  );
  for (const row of r.rows) OIDS[row.typname] = row.oid;
  expect(Object.keys(OIDS).sort()).toEqual([...names].sort());
});

afterAll(async () => {
  await client.end();
});

const rng = mulberry32;

/** The OIDs of the built-in types, as the server has them (binary-array.ts has them written out). */
const OIDS: Record<string, number> = {};

/** The text literal of the sink's text path for `values` of type `t`. */
function textLiteral(t: DataType, values: readonly unknown[]): string {
  const enc = compileValueEncoder(t);
  return `{${values
    .map((v) => (v === null ? "NULL" : `"${(enc(v) as string).replace(/["\\]/g, "\\$&")}"`))
    .join(",")}}`;
}

async function roundTrip(t: DataType, udt: string, values: readonly unknown[]): Promise<void> {
  const el = binaryElementOf(t, OIDS[udt]);
  expect(el, `${udt} is written in binary`).not.toBeNull();
  const w = new BinaryArrayWriter(el!.oid, 16);
  for (const v of values) {
    if (v === null) w.null();
    else el!.write(w, v);
  }
  const r = await client.query({
    text: `SELECT b::text, t::text FROM unnest($1::"${udt}"[], $2::"${udt}"[]) WITH ORDINALITY AS u(b, t, n) ORDER BY n`,
    values: [w.finish(), textLiteral(t, values)],
    rowMode: "array",
  });
  expect(r.rows.length).toBe(values.length);
  const diffs = r.rows
    .map((row, i) => ({ i, value: values[i], binary: row[0], text: row[1] }))
    .filter((d) => d.binary !== d.text);
  expect(diffs.slice(0, 5)).toEqual([]);
}

describe("binary unnest arrays equal the text literals", () => {
  it("integers, at their limits and at random, into int2, int4 and int8 columns", async () => {
    const r = rng(1);
    const ints = (lo: number, hi: number) => [
      lo,
      hi,
      0,
      -1,
      1,
      null,
      ...Array.from({ length: 500 }, () => Math.floor(lo + r() * (hi - lo))),
    ];
    await roundTrip(T.smallint(), "int2", ints(-32768, 32767));
    await roundTrip(T.smallint(), "int4", ints(-32768, 32767));
    await roundTrip(T.int(), "int4", ints(-2147483648, 2147483647));
    await roundTrip(T.int(), "int8", ints(-2147483648, 2147483647));
    await roundTrip(T.bigint(), "int8", [
      ...ints(-(2 ** 53) + 1, 2 ** 53 - 1),
      2 ** 32,
      -(2 ** 32),
      2 ** 32 - 1,
      -(2 ** 32) - 1,
      // beyond ±(2^53 − 1) a BIGINT is a bigint
      9223372036854775807n,
      -9223372036854775808n,
      9007199254740993n,
    ]);
  });

  it("floats, with -0, NaN, infinities and subnormals", async () => {
    const r = rng(2);
    const specials = [0, -0, Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, null];
    const doubles = [
      ...specials,
      Number.MIN_VALUE,
      Number.MAX_VALUE,
      -Number.MIN_VALUE,
      0.1,
      1e-310,
      ...Array.from({ length: 500 }, () => (r() - 0.5) * 10 ** Math.floor(r() * 40 - 20)),
    ];
    await roundTrip(T.double(), "float8", doubles);
    const floats = doubles.map((d) => (d === null ? null : Math.fround(d)));
    await roundTrip(T.float(), "float4", floats);
    await roundTrip(T.float(), "float8", floats);
  });

  it("decimals at every scale, near 2^53 and far beyond it", async () => {
    const r = rng(3);
    for (const scale of [0, 1, 2, 3, 4, 5, 7, 8, 9, 12, 13, 18]) {
      const values: (bigint | null)[] = [0n, 1n, -1n, 10n ** BigInt(scale), null];
      for (const edge of [2n ** 53n - 1n, 2n ** 53n, 2n ** 53n + 1n, 9999999999999999n, 10n ** 17n])
        values.push(edge, -edge);
      for (let i = 0; i < 300; i++) {
        const digits = 1 + Math.floor(r() * 38);
        let s = "";
        for (let d = 0; d < digits; d++) s += Math.floor(r() * 10);
        // zero runs: digit groups of 0000 inside, leading and trailing
        if (r() < 0.3) s = s.replace(/\d{4}$/, "0000");
        if (r() < 0.3) s = `${s.slice(0, 1)}0000${s.slice(1)}`;
        const v = BigInt(s.slice(0, 38));
        values.push(r() < 0.5 ? -v : v);
      }
      await roundTrip(T.decimal(38, scale), "numeric", values);
      // up to 15 digits the values are written from doubles
      if (scale <= 12) {
        const small = values.filter((v) => v === null || (v < 10n ** 15n && v > -(10n ** 15n)));
        await roundTrip(T.decimal(15, scale), "numeric", [...small, 10n ** 15n - 1n, 1n - 10n ** 15n]);
      }
    }
  });

  it("text: empty, quotes, backslashes, braces, commas, two- to four-byte characters, long strings", async () => {
    const r = rng(4);
    const alphabet = ['"', "\\", "{", "}", ",", " ", "NULL", "a", "é", "€", "😀", "\t", "\n", "ÿ", "\u0080"];
    const values: (string | null)[] = ["", "NULL", "null", " lead", "trail ", null, "x".repeat(100_000)];
    for (let i = 0; i < 500; i++) {
      const n = Math.floor(r() * 80);
      let s = "";
      for (let k = 0; k < n; k++) s += alphabet[Math.floor(r() * alphabet.length)];
      values.push(s);
    }
    for (const udt of ["text", "varchar", "bpchar"]) await roundTrip(T.string(), udt, values);
  });

  it("text with a NUL is refused, as in the text path", () => {
    const el = binaryElementOf(T.string(), OIDS.text)!;
    const w = new BinaryArrayWriter(el.oid);
    expect(() => el.write(w, "a\u0000b")).toThrow(NulInText);
    expect(() => el.write(w, `é${"\u0000"}`)).toThrow(NulInText);
    expect(() => el.write(w, `${"x".repeat(100)}\u0000`)).toThrow(NulInText);
  });

  it("bytea, booleans and dates (BC too)", async () => {
    const r = rng(5);
    await roundTrip(T.bytes(), "bytea", [
      new Uint8Array(0),
      null,
      new Uint8Array([0, 255, 34, 92]),
      ...Array.from(
        { length: 200 },
        () => new Uint8Array(Array.from({ length: Math.floor(r() * 50) }, () => Math.floor(r() * 256))),
      ),
    ]);
    await roundTrip(T.boolean(), "bool", [true, false, null, true]);
    await roundTrip(T.date(), "date", [
      0,
      -1,
      10_957,
      -719_528, // 0001-01-01
      -719_529, // 0001-12-31 BC
      -2_440_000,
      2_932_896, // 9999-12-31
      null,
      ...Array.from({ length: 300 }, () => Math.floor((r() - 0.5) * 4_800_000)),
    ]);
  });

  it("timestamps and instants, before 1970, before 2000, BC and far in the future", async () => {
    const r = rng(6);
    const ms = [
      0,
      -1,
      1,
      946_684_800_000,
      946_684_799_999,
      -62_135_596_800_000, // 0001-01-01
      -62_135_596_800_001, // 1 BC
      -210_000_000_000_000,
      9_000_000_000_000, // beyond the exact microseconds of a double
      253_402_300_799_999, // 9999-12-31 23:59:59.999
      8_000_000_000_000_000,
      null,
      ...Array.from({ length: 500 }, () => Math.floor((r() - 0.5) * 4e14)),
    ];
    await roundTrip(T.timestamp(3), "timestamp", ms);
    await roundTrip(T.timestampLtz(3), "timestamptz", ms);
  });

  it("types and columns without a binary form keep the text literal", () => {
    expect(binaryElementOf(T.timestamp(6), OIDS.timestamp)).toBeNull(); // bigint nanos
    expect(binaryElementOf(T.int(), OIDS.numeric)).toBeNull();
    expect(binaryElementOf(T.time(3), OIDS.time)).toBeNull();
    expect(binaryElementOf(T.string(), undefined)).toBeNull();
    expect(binaryElementOf(T.string(), 123_456)).toBeNull(); // a domain or citext
    expect(binaryElementOf(T.timestamp(3), OIDS.timestamptz)).toBeNull();
  });
});
