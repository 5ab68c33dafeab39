import { type Field, T } from "@weir/planner";
import { ChangeBatchBuilder } from "@weir/runtime";
import { describe, expect, it } from "vitest";
import { jsonLineParser, jsonValueOptions } from "../src/formats/json.js";
import { compileByteRowReader } from "../src/formats/json-bytes.js";
import { compileFastRowReader } from "../src/formats/json-fast.js";
import { compileRowDecoder } from "../src/formats/json-values.js";
import { fastDate, fastDateBytes, fastTimestamp, fastTimestampBytes } from "../src/formats/temporal-fast.js";
import {
  FormatOptions,
  jsonFormat,
  messageDecoder,
  type NestedProjection,
  nestedProjectionOf,
  parseDate,
  parseTimestamp,
} from "../src/index.js";

/**
 * The fast JSON reader must give exactly what the full path (`JSON.parse` or the exact parser,
 * then `compileRowDecoder`) gives: the same row, or — when it gives up — the full path runs and
 * words the error. Every case compares the `json` format's decoder with the full path itself.
 */

type Outcome = { row: unknown[] } | { error: string };

function fullPath(
  fields: Field[],
  options: Record<string, string>,
  projection?: Set<number>,
  nested?: ReadonlyMap<number, NestedProjection>,
) {
  const o = new FormatOptions(options, "json", projection);
  const parse = jsonLineParser(fields, projection);
  const toRow = compileRowDecoder(fields, jsonValueOptions(o), projection, nested);
  return (line: string): Outcome => {
    try {
      return { row: toRow(parse(line)) };
    } catch (e) {
      return { error: (e as Error).message };
    }
  };
}

function formatPath(
  fields: Field[],
  options: Record<string, string>,
  projection?: Set<number>,
  fromBytes = false,
  /** Straight from the bytes first (`decodeBytes`, as the Kafka codec), then the text paths. */
  bytesFirst = false,
  nested?: ReadonlyMap<number, NestedProjection>,
) {
  const dec = jsonFormat.decoder(fields, new FormatOptions(options, "json", projection, 0, nested));
  return (line: string): Outcome => {
    const out = new ChangeBatchBuilder(2);
    try {
      // As the file source and the Kafka codec call it: with the bytes when one byte per unit.
      const bytes = Buffer.from(line, "utf8");
      if (bytesFirst && dec.decodeBytes?.(bytes, 0, bytes.length, out))
        return { row: out.finish().rows[0] as unknown[] };
      if (fromBytes && bytes.length === line.length) dec.decodeFrom!(line, { buffer: bytes, start: 0 }, out);
      else dec.decode(line, out);
    } catch (e) {
      return { error: (e as Error).message };
    }
    const b = out.finish();
    return { row: b.rows[0] as unknown[] };
  };
}

/** Object.is per value, recursively (so -0, NaN and bigint compare exactly). */
function same(a: unknown, b: unknown): boolean {
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => same(x, b[i]));
  if (a instanceof Map && b instanceof Map) {
    if (a.size !== b.size) return false;
    const bs = [...b];
    return [...a].every(([k, v], i) => same(k, bs[i]![0]) && same(v, bs[i]![1]));
  }
  if (a instanceof Uint8Array && b instanceof Uint8Array) return Buffer.from(a).equals(Buffer.from(b));
  return Object.is(a, b);
}

function expectSame(
  fields: Field[],
  lines: string[],
  options: Record<string, string> = {},
  proj?: Set<number>,
  nested?: ReadonlyMap<number, NestedProjection>,
) {
  const full = fullPath(fields, options, proj, nested);
  for (const fmt of [
    formatPath(fields, options, proj, false, false, nested),
    formatPath(fields, options, proj, true, false, nested),
    formatPath(fields, options, proj, true, true, nested),
  ]) {
    for (const line of lines) {
      // A blank line is no record for the format (before either path runs).
      if (line.trim() === "") continue;
      const a = fmt(line);
      const b = full(line);
      if ("row" in a && "row" in b) {
        if (!same(a.row, b.row)) expect({ line, row: a.row }).toEqual({ line, row: b.row });
      } else {
        expect({ line, ...a }).toEqual({ line, ...b });
      }
    }
  }
}

const S = T.string();
const ORDER: Field[] = [
  { name: "event_id", type: S },
  { name: "n", type: T.bigint() },
  { name: "amount", type: T.decimal(18, 2) },
  { name: "paid_at", type: T.timestamp(3) },
  { name: "at_ltz", type: T.timestampLtz(3) },
  { name: "day", type: T.date() },
  { name: "ok", type: T.boolean() },
  { name: "x", type: T.double() },
  { name: "f", type: T.float() },
  { name: "small", type: T.tinyint() },
  { name: "d5", type: T.decimal(5, 2) },
];
const NESTED: Field[] = [
  { name: "event_type", type: T.int() },
  {
    name: "bid",
    type: T.row([
      { name: "auction", type: T.bigint() },
      { name: "url", type: S },
      { name: "dateTime", type: T.timestamp(3) },
    ]),
  },
  { name: "tags", type: T.array(S) },
  { name: "attrs", type: T.map(S, T.int()) },
  { name: "extra", type: S },
];

const VALID = [
  '{"event_id":"e1","n":12,"amount":12.3,"paid_at":"2024-02-29 23:59:59.999","at_ltz":"2024-02-29T23:59:59.5+09:00","day":"2024-02-29","ok":true,"x":1.5e3,"f":0.1,"small":-128}',
  '{"small":127,"f":-0,"x":-0,"ok":false,"day":"1970-01-01","at_ltz":"1969-12-31T23:59:59Z","paid_at":"1900-03-01T00:00","amount":-0.05,"n":-9007199254740991,"event_id":"e2"}',
  ' { "event_id" : "a \\"quoted\\" {brace} [x] \\\\ \\u00e9\\ud83d\\ude00" , "n" : 0 } ',
  '{"event_id":null,"n":null,"amount":null,"paid_at":null,"at_ltz":null,"day":null,"ok":null,"x":null,"f":null,"small":null}',
  "{}",
  '{"unknown":{"a":[1,2,{"b":"}\\"]"}],"c":null},"event_id":"after","n":1}',
  '{"n":1,"n":2}',
  '{"n":9223372036854775807,"event_id":"max"}',
  '{"n":-9223372036854775808}',
  '{"n":9007199254740993}',
  '{"n":-9007199254740992}',
  '{"n":9223372036854775808}',
  '{"n":-9223372036854775809}',
  '{"n":1234567890123456789.0}',
  '{"n":1.2345678901234567e18}',
  '{"n":"1234567890123456789"}',
  '{"n":" -9223372036854775808 "}',
  '{"n":"x","n":3}',
  '{"amount":123456789012345.67}',
  '{"amount":1234567890123456.78}',
  '{"amount":9999999999999999.99}',
  '{"amount":99999999999999999.99}',
  '{"amount":1.005}',
  '{"amount":1.004}',
  '{"amount":1e2}',
  '{"amount":-1.5E-1}',
  '{"amount":"12.30"}',
  '{"amount":0.000}',
  '{"d5":999.99}',
  '{"d5":1000}',
  '{"d5":-1000.00}',
  '{"d5":999.995}',
  '{"d5":0.001}',
  '{"amount":00.1}',
  '{"n":1.0}',
  '{"n":1e3}',
  '{"n":12345678901234567890}',
  '{"n":9007199254740992}',
  '{"n":"42"}',
  '{"small":128}',
  '{"x":"NaN"}',
  '{"x":1e400}',
  '{"event_id":123}',
  '{"event_id":1e2}',
  '{"event_id":[1,"a"]}',
  '{"event_id":{"k":true}}',
  '{"event_id":true}',
  '{"ok":"true"}',
  '{"paid_at":"2023-02-29 00:00:00"}',
  '{"paid_at":"1900-02-29 00:00:00"}',
  '{"paid_at":"2000-02-29 00:00:00"}',
  '{"paid_at":"2024-13-01 00:00:00"}',
  '{"paid_at":"2024-04-31 00:00:00"}',
  '{"paid_at":"2024-01-01 24:00:00"}',
  '{"paid_at":"2024-01-01 23:60:00"}',
  '{"paid_at":"2024-01-01 23:59:60"}',
  '{"paid_at":"2024-01-01 00:00:00.1234567891"}',
  '{"paid_at":"2024-01-01 00:00:00."}',
  '{"paid_at":"2024-01-01 00:00:00Z"}',
  '{"paid_at":"2024-01-01 00:00:"}',
  '{"paid_at":"2024-01-01"}',
  '{"paid_at":"0099-01-01 00:00:00"}',
  '{"paid_at":"12345-01-01 00:00:00"}',
  '{"paid_at":"-0001-01-01 00:00:00"}',
  '{"paid_at":" 2024-01-01 00:00:00"}',
  '{"paid_at":"2024-01-01 00:00:00 "}',
  '{"paid_at":"2024\\u002d01-01 00:00:00"}',
  '{"at_ltz":"2024-01-01T00:00:00-0130"}',
  '{"at_ltz":"2024-01-01T00:00:00+05"}',
  '{"at_ltz":"2024-01-01T00:00:00z"}',
  '{"at_ltz":"2024-01-01T00:00:00+5"}',
  '{"at_ltz":"2024-01-01T00:00:00+05:3"}',
  '{"at_ltz":"2024-01-01T00:00:00+99:99"}',
  '{"at_ltz":"2024-01-01T00:00+01:00"}',
  '{"at_ltz":"2024-01-01T00:00:00.12+01:00"}',
  '{"day":"2024-1-01"}',
  '{"day":"2024-02-30"}',
  '{"day":"20240101"}',
  '{"\\u0065vent_id":"escaped key"}',
  '{"event_id":"line\\nbreak","n":7}',
  // escapes resolved by the byte reader itself (one byte per value) or handed to JSON.parse
  '{"event_id":"\\t\\/\\b\\f\\r\\\\\\" \\u0041\\u00e9\\u00FF\\u00fF end"}',
  '{"event_id":"\\u0000\\u001f\\u007F"}',
  '{"event_id":"wide \\u0100 \\uD800 \\udfff \\u20AC"}',
  `{"event_id":"${'ab\\\\cd\\"'.repeat(150)}","n":3}`,
  '{"event_id":"\\u00"}',
  '{"event_id":"\\u00G1"}',
  '{"event_id":"\\u00e"}',
  '{"event_id":"bad \\U0041"}',
  '{"event_id":"bad \\\u0001"}',
  '{"event_id":"ends in \\\\"}',
  '{"event_id":"ends in \\"}',
  '{"unknown":"\\u00e9 \\" \\\\","event_id":"\\"x\\""}',
  '{"event_id":"bad \\x escape"}',
  '{"event_id":"control \u0001 char"}',
  '{"event_id":"unterminated}',
  // plain strings (scanned in place by the byte reader's object loop), read and skipped, at the edges
  '{"event_id":"","unknown":"","n":1}',
  '{"event_id":"café","n":1}',
  '{"unknown":"naïve","event_id":"x"}',
  '{"unknown":"😀","event_id":"😀"}',
  '{"unknown":"ctl \\u0002 raw \u0002","event_id":"x"}',
  '{"event_id":"raw\ttab"}',
  // a control or non-ASCII byte ends no string: what follows it must not be read as JSON
  '{"event_id":"x\u0001,"n":2}',
  '{"unknown":"x\u0001,"n":2}',
  '{"event_id":"x\u0080,"n":2}',
  '{"unknown":"x\u00e9,"n":2}',
  '{"unknown":"unterminated}',
  '{"unknown":"x"',
  '{"event_id":"x"',
  '{"event_id":"a\\","unknown":"b\\"}',
  '{"event_id":"a\\\\","unknown":"b\\\\"}',
  '{"unknown":"a value well over twelve bytes long","event_id":"another value well over twelve bytes"}',
  '{"event_id":"e"',
  '{"event_id":"e",}',
  '{"event_id":"e" "n":1}',
  '{"event_id" "e"}',
  '{event_id:"e"}',
  "[1,2]",
  '"text"',
  "null",
  "42",
  '{"n":1} x',
  '{"n":-}',
  '{"n":01}',
  '{"n":1.}',
  '{"n":.5}',
  '{"n":1e}',
  '{"n":+1}',
  '{"ok":tru}',
  '{"ok":nulll}',
  '{"unknown":[1,2,}',
  '{"unknown":{"a" 1}}',
  '{"unknown":"\\q"}',
  '{"unknown":01}',
  `{"unknown":${"[".repeat(1200)}${"]".repeat(1200)},"n":1}`,
  "   ",
  "",
];

describe("the fast reader and 64-bit BIGINT", () => {
  it("reads an integer beyond ±(2^53 − 1) exactly itself (no fallback to the full path)", () => {
    const fields: Field[] = [{ name: "id", type: T.bigint() }];
    const o = new FormatOptions({}, "json", undefined);
    const fast = compileFastRowReader(fields, jsonValueOptions(o), undefined, false)!;
    expect(fast('{"id":9223372036854775807}')).toEqual([9223372036854775807n]);
    expect(fast('{"id":-1234567890123456789}')).toEqual([-1234567890123456789n]);
    expect(fast('{"id":9007199254740991}')).toEqual([9007199254740991]);
    expect(fast('{"id":9223372036854775808}')).toBeUndefined(); // out of range: the full path words the error
  });

  it("the byte reader (the Kafka path) reads them exactly too", () => {
    const fields: Field[] = [{ name: "id", type: T.bigint() }];
    const o = jsonValueOptions(new FormatOptions({}, "json", undefined));
    const read = compileByteRowReader(fields, o, undefined, false)!;
    const at = (line: string) => read(Buffer.from(line), 0, line.length);
    expect(at('{"id":9223372036854775807}')).toEqual([9223372036854775807n]);
    expect(at('{"id":-9223372036854775808}')).toEqual([-9223372036854775808n]);
    expect(at('{"id":1234567890123456789}')).toEqual([1234567890123456789n]);
    expect(at('{"id":9007199254740991}')).toEqual([9007199254740991]);
    expect(at('{"id":9223372036854775808}')).toBeUndefined();
  });
});

describe("json fast path: same rows and errors as the full path", () => {
  it("reads the common shapes itself (it is the path taken)", () => {
    const o = jsonValueOptions(new FormatOptions({}, "json"));
    const fast = compileFastRowReader(ORDER, o, undefined, true)!;
    expect(fast(VALID[0]!)).toEqual((fullPath(ORDER, {})(VALID[0]!) as { row: unknown[] }).row);
    expect(fast(VALID[0]!)).toBeDefined();
    expect(fast(VALID[2]!)).toBeDefined();
    expect(fast(VALID[5]!)).toBeDefined();
    expect(fast('{"event_id":"bad \\x escape"}')).toBeUndefined();
    const nested = compileFastRowReader(NESTED, o, undefined, false)!;
    expect(
      nested('{"event_type":2,"bid":{"auction":1,"url":"u","dateTime":"2024-01-01 00:00:00.000"}}'),
    ).toEqual([2, [1, "u", Date.UTC(2024, 0, 1)], null, null, null]);
  });

  it("every edge case, every column read", () => {
    expectSame(ORDER, VALID);
  });

  it("every edge case, a projection (skipped values are checked, never built)", () => {
    expectSame(ORDER, VALID, {}, new Set([0, 3]));
    expectSame(ORDER, VALID, {}, new Set([1]));
  });

  it("with a spare slot per row (the Kafka source's cached rowtime): the same rows, of the fields' length", () => {
    const o = jsonValueOptions(new FormatOptions({}, "json"));
    for (const proj of [undefined, new Set([0, 3])]) {
      const spare = compileFastRowReader(ORDER, o, proj, true, 1)!;
      const plain = compileFastRowReader(ORDER, o, proj, true)!;
      for (const line of VALID) {
        const a = spare(line);
        const b = plain(line);
        expect(a === undefined ? undefined : same(a, b)).toBe(b === undefined ? undefined : true);
        if (a === undefined) continue;
        expect(a.length).toBe(ORDER.length);
        a.push("rowtime");
        expect(a.length).toBe(ORDER.length + 1);
        expect(a.at(-1)).toBe("rowtime");
      }
    }
  });

  it("the byte reader with a spare slot: the same rows, of the fields' length, each an array of its own", () => {
    const o = jsonValueOptions(new FormatOptions({}, "json"));
    for (const proj of [undefined, new Set([0, 3])]) {
      const spare = compileByteRowReader(ORDER, o, proj, true, 1)!;
      const plain = compileByteRowReader(ORDER, o, proj, true)!;
      for (const line of VALID) {
        const bytes = Buffer.from(line);
        const a = spare(bytes, 0, bytes.length);
        const b = plain(bytes, 0, bytes.length);
        expect(a === undefined ? undefined : same(a, b)).toBe(b === undefined ? undefined : true);
        if (a === undefined || b === undefined) continue;
        expect(a.length).toBe(ORDER.length);
        a.push("rowtime");
        a[0] = "changed";
        b[1] = "changed";
        // the next rows are fresh: nothing written to one row shows in another
        const again = plain(bytes, 0, bytes.length)!;
        expect(again.length).toBe(ORDER.length);
        expect(again).not.toContain("changed");
        expect(spare(bytes, 0, bytes.length)!.length).toBe(ORDER.length);
      }
    }
    const nested = compileByteRowReader(NESTED, o, undefined, false, 1)!;
    const bytes = Buffer.from(
      '{"event_type":2,"bid":{"auction":1,"url":"u","dateTime":"2024-01-01 00:00:00.000"}}',
    );
    const row = nested(bytes, 0, bytes.length)!;
    expect(row).toEqual([2, [1, "u", Date.UTC(2024, 0, 1)], null, null, null]);
    (row[1] as unknown[])[0] = 9;
    expect(nested(bytes, 0, bytes.length)).toEqual([2, [1, "u", Date.UTC(2024, 0, 1)], null, null, null]);
  });

  it("with fail-on-missing-field and ISO-8601 timestamps", () => {
    expectSame(ORDER, VALID, { "json.fail-on-missing-field": "true" });
    expectSame(ORDER, VALID, { "json.fail-on-missing-field": "true" }, new Set([0, 1]));
    expectSame(ORDER, VALID, { "json.timestamp-format.standard": "ISO-8601" });
  });

  const NESTED_LINES = [
    '{"event_type":2,"bid":{"auction":1,"url":"{\\"}","dateTime":"2024-01-01 00:00:00.000"},"tags":["a",null,"}"],"attrs":{"k":1,"j":null},"extra":"x"}',
    '{"event_type":0,"bid":null,"tags":null,"attrs":null}',
    '{"bid":{"url":"u"},"tags":[],"attrs":{}}',
    '{"bid":[1,2]}',
    '{"bid":{"auction":"x"}}',
    '{"event_type":2,"bid":{"auction":1234567890123456789,"url":"u"},"extra":"9223372036854775807"}',
    '{"bid":{"auction":-9223372036854775808},"attrs":{"k":2147483647}}',
    '{"bid":{"auction":1,"auction":2,"extra_field":[{"}":"{"}]}}',
    '{"tags":"a"}',
    '{"tags":[1,2]}',
    '{"attrs":{"k":"v"}}',
    '{"bid":{"dateTime":"2024-02-30 00:00:00"}}',
    '{"bid":{"auction":1}',
  ];

  it("nested rows, arrays, maps", () => {
    expectSame(NESTED, NESTED_LINES);
    expectSame(NESTED, NESTED_LINES, {}, new Set([0, 1]));
    expectSame(NESTED, NESTED_LINES, {}, new Set([4]));
    expectSame(NESTED, NESTED_LINES, { "json.fail-on-missing-field": "true" });
  });

  it("nested projection: only the fields read of a row are built, the others syntax-checked", () => {
    // bid.url and bid.dateTime read; bid.auction skipped (paths as the planner gives them)
    const nested = nestedProjectionOf(
      [
        [1, 1],
        [1, 2],
      ],
      (c) => c,
    )!;
    expect([...nested.get(1)!.keys()]).toEqual([1, 2]);
    const proj = new Set([0, 1]);
    expectSame(NESTED, NESTED_LINES, {}, proj, nested);
    expectSame(NESTED, NESTED_LINES, { "json.fail-on-missing-field": "true" }, proj, nested);
    const o = jsonValueOptions(new FormatOptions({}, "json"));
    const line =
      '{"event_type":2,"bid":{"auction":"not a number","url":"u","dateTime":"2024-01-01 00:00:00.000"}}';
    const expected = [2, [null, "u", Date.UTC(2024, 0, 1)], null, null, null];
    // every path leaves the skipped field NULL without converting it (the fast paths are taken)
    expect(compileFastRowReader(NESTED, o, proj, false, 0, nested)!(line)).toEqual(expected);
    const bytes = Buffer.from(line);
    expect(compileByteRowReader(NESTED, o, proj, false, 0, nested)!(bytes, 0, bytes.length)).toEqual(
      expected,
    );
    expect(fullPath(NESTED, {}, proj, nested)(line)).toEqual({ row: expected });
    // read whole, the same field is an error
    expect(fullPath(NESTED, {}, proj)(line)).toEqual({ error: expect.stringMatching(/auction/) });
    // bad JSON inside a skipped nested field is still the error it was without the projection
    for (const bad of [
      '{"event_type":2,"bid":{"auction":1x,"url":"u"}}',
      '{"event_type":2,"bid":{"auction":[1,,"url":"u"}}',
      '{"event_type":2,"bid":{"auction":"unterminated,"url":"u"}',
    ]) {
      const before = fullPath(NESTED, {}, proj)(bad);
      expect(before).toHaveProperty("error");
      for (const path of [
        formatPath(NESTED, {}, proj, false, false, nested),
        formatPath(NESTED, {}, proj, true, true, nested),
      ]) {
        expect(path(bad)).toEqual(before);
      }
    }
    // a missing skipped nested field is no error with fail-on-missing-field (as a skipped column);
    // a missing read one still is
    const strict = formatPath(NESTED, { "json.fail-on-missing-field": "true" }, proj, true, true, nested);
    expect(
      strict('{"event_type":2,"bid":{"url":"u","dateTime":null},"tags":[],"attrs":{},"extra":""}'),
    ).toEqual({
      row: [2, [null, "u", null], null, null, null],
    });
    expect(strict('{"event_type":2,"bid":{"auction":1,"dateTime":null}}')).toEqual({
      error: expect.stringMatching(/url/),
    });
  });

  it("random damage to valid lines gives the same outcome on both paths", () => {
    const alphabet = '{}[]":,\\ 0123456789eE.-+ntfrualsx\u0001Z:T';
    let seed = 12345;
    const rnd = (n: number) => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed % n;
    };
    const base = [...VALID.slice(0, 6), ...NESTED_LINES.slice(0, 3)];
    const damaged: string[] = [];
    for (let i = 0; i < 4000; i++) {
      let line = base[rnd(base.length)]!;
      for (let k = 0, edits = 1 + rnd(3); k < edits; k++) {
        const at = rnd(line.length + 1);
        const c = alphabet[rnd(alphabet.length)]!;
        const op = rnd(3);
        line =
          op === 0
            ? line.slice(0, at) + c + line.slice(at)
            : op === 1
              ? line.slice(0, at) + line.slice(at + 1)
              : line.slice(0, at) + c + line.slice(at + 1);
      }
      damaged.push(line);
    }
    const orderLines = damaged.filter((_, i) => i % 2 === 0);
    expectSame(ORDER, orderLines);
    expectSame(ORDER, orderLines, {}, new Set([2, 3]));
    expectSame(
      NESTED,
      damaged.filter((_, i) => i % 2 === 1),
    );
    expectSame(
      NESTED,
      damaged.filter((_, i) => i % 2 === 1),
      {},
      new Set([0, 1]),
      new Map([[1, new Map([[2, null]])]]),
    );
  });

  it("strings copied out of the bytes equal the line's, non-ASCII and invalid UTF-8 included", () => {
    const fields: Field[] = [
      { name: "a", type: S },
      { name: "b", type: S },
    ];
    const dec = messageDecoder({
      name: "json",
      fields: fields.map((x, i) => ({ ...x, column: i })),
      options: new FormatOptions({}, "json"),
    });
    const lines = [
      Buffer.from('{"a":"a long ascii value here","b":"short"}\n'),
      Buffer.from('{"a":"a long value with é inside","b":"another long ascii value"}'),
      Buffer.concat([
        Buffer.from('{"a":"invalid byte \x80 in a long value","b":"'),
        Buffer.from([0x80]),
        Buffer.from('xxxxxxxxxxxxxx"}'),
      ]),
      Buffer.concat([
        Buffer.from('{"a":"'),
        Buffer.from([0xc3]),
        Buffer.from('truncated sequence here","b":null}'),
      ]),
    ];
    const full = fullPath(fields, {});
    for (const bytes of lines) {
      const out = new ChangeBatchBuilder(1);
      dec.decode(bytes, out);
      const expected = full(bytes.toString("utf8").replace(/\n$/, "")) as { row: unknown[] };
      expect(out.finish().rows[0]).toEqual(expected.row);
    }
  });

  it("the byte reader reads only its range of a larger buffer, and gives up on non-ASCII bytes", () => {
    const o = jsonValueOptions(new FormatOptions({}, "json"));
    const read = compileByteRowReader(ORDER, o, undefined, true)!;
    const record = '{"event_id":"a value longer than twelve","n":7}';
    const buf = Buffer.from(`{"n":1}${record}{"n":2`);
    const row = read(buf, 7, 7 + record.length)!;
    expect(row[0]).toBe("a value longer than twelve");
    expect(row[1]).toBe(7);
    expect(read(buf, 7, 7 + record.length - 1)).toBeUndefined(); // cut before the closing brace
    expect(read(Buffer.from('{"event_id":"é"}'), 0, 17)).toBeUndefined();
    expect(compileByteRowReader([{ name: "toString", type: S }], o, undefined, false)).toBeNull();
  });

  it("a schema with a field named like an Object.prototype member keeps the full path", () => {
    const o = jsonValueOptions(new FormatOptions({}, "json"));
    expect(compileFastRowReader([{ name: "toString", type: S }], o, undefined, false)).toBeNull();
    expectSame([{ name: "constructor", type: S }], ['{"constructor":"c"}', "{}"]);
  });
});

describe("timestamp and date fast paths", () => {
  const cases = [
    "2024-02-29 23:59:59.999",
    "2023-02-28 00:00:00",
    "2023-02-29 00:00:00",
    "1900-02-29 00:00:00",
    "2000-02-29 12:30",
    "0000-01-01 00:00:00",
    "0099-12-31 23:59:59.9",
    "1969-12-31T23:59:59.99",
    "2024-06-24T00:00:00.123456789",
    "2024-06-24T00:00:00.1234567890",
    "2024-06-24T00:00:00.",
    "2024-06-24T00:00:00+09:00",
    "2024-06-24T00:00:00-0930",
    "2024-06-24T00:00:00+14",
    "2024-06-24T00:00:00Z",
    "2024-06-24T00:00:00z",
    "2024-06-24T00:00:00+9",
    "2024-06-24T00:00:00+09:0",
    "2024-06-24T00:00:00+0900x",
    "2024-06-24 24:00:00",
    "2024-06-24 00:60:00",
    "2024-06-24 00:00:60",
    "2024-06-24x00:00:00",
    "2024-6-24 00:00:00",
    "2024-06-24",
    "+2024-06-24 00:00:00",
  ];
  for (const zone of ["forbidden", "optional"] as const) {
    it(`matches parseTimestamp (zone ${zone}) wherever it answers`, () => {
      for (const c of cases) {
        const fast = fastTimestamp(`"${c}"`, 1, c.length + 1, zone === "optional");
        let slow: number | string;
        try {
          slow = parseTimestamp(c, zone);
        } catch (e) {
          slow = (e as Error).message;
        }
        if (!Number.isNaN(fast)) expect({ c, v: fast }).toEqual({ c, v: slow });
      }
      // It answers the plain shapes itself.
      expect(fastTimestamp("2024-02-29 23:59:59.999", 0, 23, false)).toBe(
        Date.UTC(2024, 1, 29, 23, 59, 59, 999),
      );
      expect(fastTimestamp("2024-06-24T00:00:00+09:00", 0, 25, true)).toBe(Date.UTC(2024, 5, 23, 15));
      expect(fastTimestamp("2024-06-24T00:00:00-0930", 0, 24, true)).toBe(Date.UTC(2024, 5, 24, 9, 30));
    });
  }

  it("the byte readers give what the text readers give, over the same bytes", () => {
    const texts = [...cases, "2024-02-29", "2023-02-29", "2024-1-01", "2024-06-24 00:00:5"];
    // a quote after each value, as in a record (the readers may look at the byte after the range)
    for (const zoneAllowed of [false, true]) {
      for (const c of texts) {
        const line = `{"t":"${c}"}`;
        const b = Buffer.from(line, "latin1");
        const at = 6;
        const end = at + c.length;
        expect({ c, v: fastTimestampBytes(b, at, end, zoneAllowed) }).toEqual({
          c,
          v: fastTimestamp(line, at, end, zoneAllowed),
        });
        expect({ c, v: fastDateBytes(b, at, end) }).toEqual({ c, v: fastDate(line, at, end) });
      }
    }
    expect(fastTimestampBytes(Buffer.from("2024-02-29 23:59:59.999"), 0, 23, false)).toBe(
      Date.UTC(2024, 1, 29, 23, 59, 59, 999),
    );
  });

  it("does not read past the end of its range", () => {
    // The range ends before the seconds and the zone that follow in the text.
    expect(fastTimestamp("2024-06-24 00:00:59", 0, 16, false)).toBe(Date.UTC(2024, 5, 24));
    expect(Number.isNaN(fastTimestamp("2024-06-24 00:00:5", 0, 18, false))).toBe(true);
    expect(Number.isNaN(fastTimestamp("2024-06-24 00:00:00+09:00", 0, 21, true))).toBe(true);
  });

  it("dates match parseDate wherever it answers", () => {
    for (const c of [
      "2024-02-29",
      "2023-02-29",
      "1970-01-01",
      "0001-01-01",
      "2024-13-01",
      "2024-00-10",
      "2024-01-32",
    ]) {
      const fast = fastDate(c, 0, c.length);
      let slow: number | string;
      try {
        slow = parseDate(c);
      } catch (e) {
        slow = (e as Error).message;
      }
      if (!Number.isNaN(fast)) expect(fast).toBe(slow);
    }
    expect(fastDate("2024-02-29", 0, 10)).toBe(Date.UTC(2024, 1, 29) / 86_400_000);
  });
});
