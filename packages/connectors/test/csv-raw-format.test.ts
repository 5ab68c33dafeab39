import { type DataType, T } from "@weir/planner";
import { ChangeBatchBuilder, ConnectorError, Op, type Row } from "@weir/runtime";
import { describe, expect, it } from "vitest";
import { csvFormat, FormatOptions, rawFormat } from "../src/index.js";
import { f } from "./helpers.js";

function decode(
  fields: ReturnType<typeof f>[],
  lines: string[],
  options: Record<string, string> = {},
): Row[] {
  const dec = csvFormat.decoder(fields, new FormatOptions(options, "csv"));
  const out = new ChangeBatchBuilder();
  for (const l of lines) dec.decode(l, out);
  return out.finish().rows as Row[];
}

describe("csv format", () => {
  const ts = Date.parse("2024-01-01T12:00:00.123Z");
  const cases: [string, DataType, unknown, string][] = [
    ["int", T.int(), 7, "7"],
    ["bigint max", T.bigint(), 9223372036854775807n, "9223372036854775807"],
    ["bigint min", T.bigint(), -9223372036854775808n, "-9223372036854775808"],
    ["bigint safe", T.bigint(), -9007199254740991, "-9007199254740991"],
    ["decimal with scale", T.decimal(10, 2), 30n, "0.30"],
    ["string needing quotes", T.string(), 'a,"b"', '"a,""b"""'],
    ["timestamp", T.timestamp(3), ts, "2024-01-01 12:00:00.123"],
    ["ltz", T.timestampLtz(3), ts, "2024-01-01 12:00:00.123Z"],
    ["date", T.date(), 0, "1970-01-01"],
    ["bytes", T.bytes(), new Uint8Array([1, 2]), "AQI="],
    ["array", T.array(T.int()), [1, 2], "1;2"],
    ["boolean", T.boolean(), false, "false"],
    ["null int", T.int(), null, ""],
  ];
  it.each(cases)("%s round-trips", (_n, type, value, text) => {
    const fields = [f("a", T.int()), f("v", type)];
    const line = csvFormat.encoder(fields, new FormatOptions({}, "csv")).encode(Op.INSERT, [1, value]);
    expect(line).toBe(`1,${text}`);
    expect(decode(fields, [line])).toEqual([[1, value]]);
  });

  it("honours delimiter, quote, null-literal and comments", () => {
    const fields = [f("a", T.string()), f("b", T.int())];
    const o = {
      "csv.field-delimiter": "|",
      "csv.quote-character": "'",
      "csv.null-literal": "N/A",
      "csv.allow-comments": "true",
    };
    expect(decode(fields, ["# comment", "'x|y'|N/A", "N/A|3", "''|4"], o)).toEqual([
      ["x|y", null],
      [null, 3],
      ["", 4],
    ]);
    const enc = csvFormat.encoder(fields, new FormatOptions(o, "csv"));
    expect(enc.encode(Op.INSERT, ["x|y", null])).toBe("'x|y'|N/A");
  });

  it("reads an empty unquoted field as NULL except for strings", () => {
    expect(decode([f("a", T.string()), f("b", T.decimal(5, 1))], [","])).toEqual([["", null]]);
  });

  it("rejects wrong field counts and bad values", () => {
    const fields = [f("a", T.int()), f("b", T.int())];
    expect(() => decode(fields, ["1"])).toThrow("row length mismatch: 2 fields expected but was 1");
    expect(() => decode(fields, ["1,x"])).toThrow("field 'b': cannot read 'x' as INT");
    expect(() => decode(fields, ['"1,2'])).toThrow("unterminated quoted field");
    expect(() => decode([f("a", T.bigint())], ["9223372036854775808"])).toThrow(/out of range for BIGINT/);
  });

  it("does not support nested rows", () => {
    expect(() => csvFormat.decoder([f("r", T.row([]))], new FormatOptions({}, "csv"))).toThrow(
      ConnectorError,
    );
  });
});

describe("raw format", () => {
  it("reads and writes one string or bytes column", () => {
    const s = [f("line", T.string())];
    const dec = rawFormat.decoder(s, new FormatOptions({}, "raw"));
    const out = new ChangeBatchBuilder();
    dec.decode("hello, world", out);
    expect(out.finish().rows).toEqual([["hello, world"]]);
    const b = [f("line", T.bytes())];
    expect(
      rawFormat.encoder(b, new FormatOptions({}, "raw")).encode(Op.INSERT, [new Uint8Array([104, 105])]),
    ).toBe("hi");
    expect(() => rawFormat.decoder([f("a", T.int())], new FormatOptions({}, "raw"))).toThrow(
      /one STRING or BYTES/,
    );
  });
});
