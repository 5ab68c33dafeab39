import { type DataType, T } from "@weir/planner";
import { ChangeBatchBuilder, ConnectorError, Op, type Row } from "@weir/runtime";
import { describe, expect, it } from "vitest";
import {
  ByteOut,
  changelogJsonFormat,
  debeziumJsonFormat,
  FormatError,
  type FormatFactory,
  FormatOptions,
  jsonFormat,
  parseJsonExact,
} from "../src/index.js";
import { f } from "./helpers.js";

function codec(format: FormatFactory, type: DataType, options: Record<string, string> = {}) {
  const fields = [f("v", type)];
  const o = new FormatOptions(options, format.name);
  return { enc: format.encoder(fields, o), dec: format.decoder(fields, o) };
}

function decodeAll(
  format: FormatFactory,
  fields: Parameters<FormatFactory["decoder"]>[0],
  lines: string[],
  options: Record<string, string> = {},
) {
  const dec = format.decoder(fields, new FormatOptions(options, format.name));
  const out = new ChangeBatchBuilder();
  for (const l of lines) dec.decode(l, out);
  const b = out.finish();
  return Array.from({ length: b.length }, (_, i) => [b.ops[i], b.rows[i]] as [number, Row]);
}

const ts = (s: string) => Date.parse(`${s}Z`);

describe("json format: values", () => {
  // [type, value, encoded JSON text of the value, options]
  const cases: [string, DataType, unknown, string, Record<string, string>?][] = [
    ["boolean", T.boolean(), true, "true"],
    ["int", T.int(), -42, "-42"],
    ["bigint max safe", T.bigint(), 9007199254740991, "9007199254740991"],
    ["bigint beyond 2^53", T.bigint(), 9007199254740993n, "9007199254740993"],
    ["bigint max", T.bigint(), 9223372036854775807n, "9223372036854775807"],
    ["bigint min", T.bigint(), -9223372036854775808n, "-9223372036854775808"],
    ["double", T.double(), 0.1, "0.1"],
    ["decimal keeps scale", T.decimal(10, 2), 1230n, "12.30"],
    ["decimal 0.30", T.decimal(10, 2), 30n, "0.30"],
    ["decimal negative small", T.decimal(10, 3), -5n, "-0.005"],
    [
      "decimal beyond double precision",
      T.decimal(38, 18),
      123456789012345678901234567890123456n,
      "123456789012345678.901234567890123456",
    ],
    // Flink writes Java's BigDecimal.toString(): an exponent when the value is below 10^-6.
    ["decimal below 10^-6: BigDecimal.toString", T.decimal(10, 8), 12n, "1.2E-7"],
    ["decimal zero at scale 8", T.decimal(10, 8), 0n, "0E-8"],
    ["decimal -10^-7", T.decimal(10, 7), -1n, "-1E-7"],
    ["decimal at 10^-6 is plain", T.decimal(10, 8), 100n, "0.00000100"],
    ["decimal 0.1 at scale 7 is plain", T.decimal(10, 7), 1_000_000n, "0.1000000"],
    [
      "decimal-as-plain-number",
      T.decimal(10, 8),
      12n,
      "0.00000012",
      { "json.encode.decimal-as-plain-number": "true" },
    ],
    [
      "decimal-as-plain-number zero",
      T.decimal(10, 8),
      0n,
      "0.00000000",
      { "json.encode.decimal-as-plain-number": "true" },
    ],
    ["string with escapes", T.string(), 'a"b\n\u00e9', JSON.stringify('a"b\n\u00e9')],
    ["bytes base64", T.bytes(), new Uint8Array([0, 255, 16]), '"AP8Q"'],
    ["date", T.date(), 19723, '"2024-01-01"'],
    ["time(0)", T.time(0), 45_296_000, '"12:34:56"'],
    ["time(3)", T.time(3), 45_296_007, '"12:34:56.007"'],
    ["timestamp SQL", T.timestamp(3), ts("2024-01-01T12:00:00.000"), '"2024-01-01 12:00:00.000"'],
    ["timestamp pre-epoch", T.timestamp(3), ts("1969-12-31T23:59:59.999"), '"1969-12-31 23:59:59.999"'],
    [
      "timestamp ISO",
      T.timestamp(3),
      ts("2024-01-01T12:00:00.250"),
      '"2024-01-01T12:00:00.250"',
      { "json.timestamp-format.standard": "ISO-8601" },
    ],
    ["ltz SQL", T.timestampLtz(3), ts("2024-01-01T12:00:00.000"), '"2024-01-01 12:00:00.000Z"'],
    [
      "timestamp(9) with all nine digits",
      T.timestamp(9),
      BigInt(ts("2024-01-01T12:00:00.123")) * 1_000_000n + 456_789n,
      '"2024-01-01 12:00:00.123456789"',
    ],
    [
      "timestamp(6) pads to six digits",
      T.timestamp(6),
      BigInt(ts("2024-01-01T12:00:00.000")) * 1_000_000n,
      '"2024-01-01 12:00:00.000000"',
    ],
    ["timestamp(6) pre-epoch", T.timestamp(6), -1000n, '"1969-12-31 23:59:59.999999"'],
    [
      "ltz(6) ISO",
      T.timestampLtz(6),
      BigInt(ts("2024-01-01T12:00:00.000")) * 1_000_000n + 7000n,
      '"2024-01-01T12:00:00.000007Z"',
      { "json.timestamp-format.standard": "ISO-8601" },
    ],
    [
      "ltz ISO",
      T.timestampLtz(3),
      ts("2024-01-01T12:00:00.000"),
      '"2024-01-01T12:00:00.000Z"',
      { "json.timestamp-format.standard": "ISO-8601" },
    ],
    ["array with null", T.array(T.int()), [1, null, 3], "[1,null,3]"],
    [
      "map",
      T.map(T.string(), T.decimal(5, 1)),
      new Map([
        ["a", 15n],
        ["b", null],
      ]),
      '{"a":1.5,"b":null}',
    ],
    ["map int keys", T.map(T.int(), T.string()), new Map([[1, "x"]]), '{"1":"x"}'],
    [
      "row",
      T.row([
        { name: "x", type: T.int() },
        { name: "y", type: T.array(T.string()) },
      ]),
      [1, ["a"]],
      '{"x":1,"y":["a"]}',
    ],
    [
      "nested rows",
      T.row([{ name: "r", type: T.row([{ name: "d", type: T.decimal(4, 2) }]) }]),
      [[199n]],
      '{"r":{"d":1.99}}',
    ],
    ["null", T.int(), null, "null"],
  ];
  it.each(cases)("%s round-trips", (_name, type, value, text, options = {}) => {
    const { enc, dec } = codec(jsonFormat, type, options);
    const line = enc.encode(Op.INSERT, [value]);
    expect(line).toBe(`{"v":${text}}`);
    const out = new ChangeBatchBuilder();
    dec.decode(line, out);
    expect(out.finish().rows[0]).toEqual([value]);
  });

  const decodes: [string, DataType, string, unknown][] = [
    ["decimal read exactly (no double)", T.decimal(38, 20), "0.12345678901234567890", 12345678901234567890n],
    ["decimal 0.1 + 0.2 style values", T.decimal(10, 2), "0.3", 30n],
    ["decimal rounds half up to scale", T.decimal(10, 1), "1.25", 13n],
    ["decimal with exponent", T.decimal(10, 2), "1.5e2", 15000n],
    ["decimal from string", T.decimal(10, 2), '"7.5"', 750n],
    ["int from numeric string", T.int(), '"12"', 12],
    ["boolean from string", T.boolean(), '"true"', true],
    ["timestamp SQL without millis", T.timestamp(3), '"2024-01-01 12:00:00"', ts("2024-01-01T12:00:00")],
    [
      "timestamp with T in SQL mode",
      T.timestamp(3),
      '"2024-01-01T12:00:00.5"',
      ts("2024-01-01T12:00:00.500"),
    ],
    [
      "timestamp(6) keeps the micros (bigint epoch nanos)",
      T.timestamp(6),
      '"2024-01-01 12:00:00.123456"',
      BigInt(ts("2024-01-01T12:00:00.123")) * 1_000_000n + 456_000n,
    ],
    [
      "timestamp(6) truncates nanos beyond its precision",
      T.timestamp(6),
      '"2024-01-01 12:00:00.123456789"',
      BigInt(ts("2024-01-01T12:00:00.123")) * 1_000_000n + 456_000n,
    ],
    [
      "timestamp(9) keeps the nanos",
      T.timestamp(9),
      '"2024-01-01T12:00:00.123456789"',
      BigInt(ts("2024-01-01T12:00:00.123")) * 1_000_000n + 456_789n,
    ],
    [
      "timestamp_ltz(9) with an offset",
      T.timestampLtz(9),
      '"2024-01-01 21:00:00.000000001+09:00"',
      BigInt(ts("2024-01-01T12:00:00")) * 1_000_000n + 1n,
    ],
    ["timestamp(6) before 1970", T.timestamp(6), '"1969-12-31 23:59:59.999999"', -1000n],
    ["ltz with +09:00 offset", T.timestampLtz(3), '"2024-01-01T21:00:00+09:00"', ts("2024-01-01T12:00:00")],
    ["ltz with -0130 offset", T.timestampLtz(3), '"2024-01-01 10:30:00.000-0130"', ts("2024-01-01T12:00:00")],
    ["ltz Z", T.timestampLtz(3), '"2024-01-01 12:00:00Z"', ts("2024-01-01T12:00:00")],
    ["string from a number", T.string(), "12", "12"],
    ["string from an object", T.string(), '{"a":1}', '{"a":1}'],
  ];
  it.each(decodes)("%s", (_name, type, text, value) => {
    const rows = decodeAll(jsonFormat, [f("v", type)], [`{"v":${text}}`]);
    expect(rows).toEqual([[Op.INSERT, [value]]]);
  });

  const errors: [string, DataType, string, RegExp][] = [
    ["bigint beyond 2^63", T.bigint(), "9223372036854775808", /out of range for BIGINT/],
    ["bigint below -2^63", T.bigint(), '"-9223372036854775809"', /out of range for BIGINT/],
    ["int overflow", T.int(), "2147483648", /out of range for INT/],
    ["fraction into int", T.int(), "1.5", /cannot read 1.5 as INT/],
    ["string into int", T.int(), '"abc"', /cannot read "abc" as INT/],
    ["bad date", T.date(), '"2024-02-30"', /invalid date/],
    ["zone on a TIMESTAMP", T.timestamp(3), '"2024-01-01T00:00:00Z"', /no time zone/],
    ["array expected", T.array(T.int()), "1", /as ARRAY<INT>/],
    // Flink reads these as NULL; Weir fails the record (or skips and counts it).
    ["decimal overflow", T.decimal(3, 1), "1234.5", /1234.5 does not fit DECIMAL\(3, 1\)/],
    ["decimal overflow by exponent", T.decimal(18, 2), "1e300", /does not fit DECIMAL\(18, 2\)/],
  ];
  it.each(errors)("rejects %s", (_name, type, text, message) => {
    expect(() => decodeAll(jsonFormat, [f("v", type)], [`{"v":${text}}`])).toThrow(message);
  });
});

describe("json formats: a MAP with a NULL key (map-null-key.mode)", () => {
  const fields = [
    f("id", T.int()),
    f("m", T.map(T.string(), T.int())),
    f("r", T.row([{ name: "tags", type: T.multiset(T.string()) }])),
  ];
  const row = [
    1,
    new Map<string | null, number>([
      ["a", 1],
      [null, 2],
    ]),
    [new Map<string | null, number>([[null, 3]])],
  ];
  const clean = [1, new Map([["a", 1]]), [new Map([["b", 1]])]];
  /** `encode` and `encodeTo` of the format with `options`: the line, or the error. */
  function write(format: FormatFactory, options: Record<string, string>, r: unknown[]) {
    const enc = format.encoder(fields, new FormatOptions(options, format.name));
    const attempt = (fn: () => string): string => {
      try {
        return fn();
      } catch (e) {
        return `error: ${(e as Error).message}`;
      }
    };
    const text = attempt(() => enc.encode(Op.INSERT, r));
    if (enc.encodeTo) {
      const bytes = attempt(() => {
        const out = new ByteOut(16);
        enc.encodeTo!(Op.INSERT, r, out);
        return Buffer.concat(out.take()).toString("utf8");
      });
      expect(bytes).toBe(text);
    }
    return text;
  }
  const failure = (prefix: string, column: string) =>
    `error: column '${column}': JSON format doesn't support to serialize map data with null keys. You can drop null key entries or encode null in literals by setting '${prefix}.map-null-key.mode' to 'DROP' or 'LITERAL' (the key is then '${prefix}.map-null-key.literal', default 'null')`;

  it("FAIL (Flink's default) fails naming the column and the option; a map without a NULL key is written", () => {
    expect(write(jsonFormat, {}, row)).toBe(failure("json", "m"));
    expect(write(jsonFormat, { "json.map-null-key.mode": "FAIL" }, [1, null, row[2]])).toBe(
      failure("json", "r.tags"),
    );
    expect(write(jsonFormat, {}, clean)).toBe('{"id":1,"m":{"a":1},"r":{"tags":{"b":1}}}');
    expect(write(debeziumJsonFormat, {}, row)).toBe(failure("debezium-json", "m"));
    expect(write(changelogJsonFormat, {}, row)).toBe(failure("changelog-json", "m"));
  });
  it("DROP drops the entry; LITERAL writes the literal ('null' by default)", () => {
    expect(write(jsonFormat, { "json.map-null-key.mode": "DROP" }, row)).toBe(
      '{"id":1,"m":{"a":1},"r":{"tags":{}}}',
    );
    expect(write(jsonFormat, { "json.map-null-key.mode": "LITERAL" }, row)).toBe(
      '{"id":1,"m":{"a":1,"null":2},"r":{"tags":{"null":3}}}',
    );
    expect(
      write(jsonFormat, { "json.map-null-key.mode": "LITERAL", "json.map-null-key.literal": 'N/"A' }, row),
    ).toBe('{"id":1,"m":{"a":1,"N/\\"A":2},"r":{"tags":{"N/\\"A":3}}}');
    expect(write(debeziumJsonFormat, { "debezium-json.map-null-key.mode": "DROP" }, row)).toBe(
      '{"before":null,"after":{"id":1,"m":{"a":1},"r":{"tags":{}}},"op":"c"}',
    );
  });
});

describe("json formats: nesting deeper than 1000 levels is a bad record for every reader", () => {
  const nest = (n: number) => `${"[".repeat(n)}${"]".repeat(n)}`;
  const message = (column: number) =>
    `malformed JSON at column ${column}: objects and arrays nested deeper than 1000 levels`;
  /** Every way the json format reads `line`: from text, from bytes (falling back to text). */
  function readAll(fields: Parameters<FormatFactory["decoder"]>[0], line: string): string[] {
    const dec = jsonFormat.decoder(fields, new FormatOptions({}, "json"));
    const outcome = (fn: (out: ChangeBatchBuilder) => void): string => {
      const out = new ChangeBatchBuilder();
      try {
        fn(out);
        return `rows ${out.finish().length}`;
      } catch (e) {
        return (e as Error).message;
      }
    };
    const bytes = Buffer.from(line);
    return [
      outcome((out) => dec.decode(line, out)),
      outcome((out) => {
        if (!dec.decodeBytes!(bytes, 0, bytes.length, out)) dec.decode(line, out);
      }),
    ];
  }
  const schemas: [string, Parameters<FormatFactory["decoder"]>[0]][] = [
    ["DECIMAL (exact parser)", [f("id", T.int()), f("d", T.decimal(10, 2))]],
    ["no DECIMAL (JSON.parse)", [f("id", T.int())]],
    ["a STRING column reading the value", [f("id", T.int()), f("junk", T.string())]],
  ];
  it.each(schemas)("%s: 1000 levels read, 1001 refused, with or without an escape", (_name, fields) => {
    for (const tail of ["", ',"e":"\\n"']) {
      // The record's object is the first level.
      expect(readAll(fields, `{"id":1,"junk":${nest(999)}${tail}}`)).toEqual(["rows 1", "rows 1"]);
      const deep = `{"id":1,"junk":${nest(1000)}${tail}}`;
      expect(readAll(fields, deep)).toEqual([message(1015), message(1015)]);
    }
  });
  it("changelog-json and debezium-json have the limit too", () => {
    const fields = [f("id", T.int())];
    const line = `{"op":"+I","data":{"id":1,"junk":${nest(1000)}}}`;
    const dec = changelogJsonFormat.decoder(fields, new FormatOptions({}, "changelog-json"));
    expect(() => dec.decode(line, new ChangeBatchBuilder())).toThrow(/nested deeper than 1000 levels/);
    const deb = debeziumJsonFormat.decoder(fields, new FormatOptions({}, "debezium-json"));
    expect(() =>
      deb.decode(`{"before":null,"after":{"id":1,"junk":${nest(1000)}},"op":"c"}`, new ChangeBatchBuilder()),
    ).toThrow(/nested deeper than 1000 levels/);
  });
});

describe("json format: records", () => {
  const fields = [f("id", T.int()), f("name", T.string())];

  it("reads a missing field as NULL, and fails with fail-on-missing-field", () => {
    expect(decodeAll(jsonFormat, fields, ['{"id":1}'])).toEqual([[Op.INSERT, [1, null]]]);
    expect(() =>
      decodeAll(jsonFormat, fields, ['{"id":1}'], { "json.fail-on-missing-field": "true" }),
    ).toThrow("field 'name' is missing");
  });

  it("skips blank lines and rejects malformed lines and non-objects", () => {
    expect(decodeAll(jsonFormat, fields, ["", "  "])).toEqual([]);
    expect(() => decodeAll(jsonFormat, fields, ['{"id":1'])).toThrow(FormatError);
    expect(() => decodeAll(jsonFormat, fields, ["[1]"])).toThrow("expected a JSON object");
    const dec = [f("d", T.decimal(5, 2))];
    expect(() => decodeAll(jsonFormat, dec, ['{"d":1.0'])).toThrow(/malformed JSON at column/);
    expect(() => decodeAll(jsonFormat, dec, ['{"d":1.0} x'])).toThrow(/unexpected text/);
  });

  it("rejects both fail-on-missing-field and ignore-parse-errors", () => {
    expect(() =>
      decodeAll(jsonFormat, fields, [], {
        "json.fail-on-missing-field": "true",
        "json.ignore-parse-errors": "true",
      }),
    ).toThrow(/cannot both be true/);
  });

  it("refuses to write a retraction (internal error)", () => {
    const enc = jsonFormat.encoder(fields, new FormatOptions({}, "json"));
    expect(enc.encode(Op.UPDATE_AFTER, [1, "a"])).toBe('{"id":1,"name":"a"}');
    expect(() => enc.encode(Op.DELETE, [1, "a"])).toThrow(ConnectorError);
  });
});

describe("exact JSON parser", () => {
  it("agrees with JSON.parse apart from numbers", () => {
    const text = '{"a":[1,-2.5e3,{"b":"x\\u00e9\\n"}],"c":true,"d":null,"e":""}';
    const plain = JSON.parse(
      JSON.stringify(parseJsonExact(text), (_k, v) => (v?.text !== undefined ? Number(v.text) : v)),
    );
    expect(plain).toEqual(JSON.parse(text));
  });
});

describe("changelog-json format", () => {
  const fields = [f("k", T.string()), f("amount", T.decimal(10, 2))];
  it("writes and reads every op", () => {
    const enc = changelogJsonFormat.encoder(fields, new FormatOptions({}, "changelog-json"));
    const changes: [Op, Row][] = [
      [Op.INSERT, ["a", 10n]],
      [Op.UPDATE_BEFORE, ["a", 10n]],
      [Op.UPDATE_AFTER, ["a", 30n]],
      [Op.DELETE, ["a", 30n]],
    ];
    const lines = changes.map(([op, row]) => enc.encode(op, row));
    expect(lines).toEqual([
      '{"op":"+I","data":{"k":"a","amount":0.10}}',
      '{"op":"-U","data":{"k":"a","amount":0.10}}',
      '{"op":"+U","data":{"k":"a","amount":0.30}}',
      '{"op":"-D","data":{"k":"a","amount":0.30}}',
    ]);
    expect(decodeAll(changelogJsonFormat, fields, lines)).toEqual(changes);
  });
  it("rejects an unknown op", () => {
    expect(() => decodeAll(changelogJsonFormat, fields, ['{"op":"+X","data":{}}'])).toThrow(
      /unknown changelog op/,
    );
  });
});

describe("debezium-json format", () => {
  const fields = [f("id", T.int()), f("ts", T.timestamp(3))];
  const t0 = ts("2024-01-01T00:00:00");
  it("writes as Flink does: +I/+U → c, -U/-D → d", () => {
    const enc = debeziumJsonFormat.encoder(fields, new FormatOptions({}, "debezium-json"));
    expect(enc.encode(Op.INSERT, [1, t0])).toBe(
      '{"before":null,"after":{"id":1,"ts":"2024-01-01 00:00:00.000"},"op":"c"}',
    );
    expect(enc.encode(Op.UPDATE_BEFORE, [1, t0])).toBe(
      '{"before":{"id":1,"ts":"2024-01-01 00:00:00.000"},"after":null,"op":"d"}',
    );
    expect(enc.encode(Op.UPDATE_AFTER, [2, t0])).toBe(
      '{"before":null,"after":{"id":2,"ts":"2024-01-01 00:00:00.000"},"op":"c"}',
    );
    expect(enc.encode(Op.DELETE, [2, null])).toBe('{"before":{"id":2,"ts":null},"after":null,"op":"d"}');
  });
  it("reads c, r, u and d", () => {
    const rows = decodeAll(debeziumJsonFormat, fields, [
      '{"before":null,"after":{"id":1,"ts":null},"op":"c"}',
      '{"before":null,"after":{"id":2,"ts":null},"op":"r"}',
      '{"before":{"id":1,"ts":null},"after":{"id":1,"ts":"2024-01-01 00:00:00"},"op":"u","source":{}}',
      '{"before":{"id":2,"ts":null},"after":null,"op":"d"}',
    ]);
    expect(rows).toEqual([
      [Op.INSERT, [1, null]],
      [Op.INSERT, [2, null]],
      [Op.UPDATE_BEFORE, [1, null]],
      [Op.UPDATE_AFTER, [1, t0]],
      [Op.DELETE, [2, null]],
    ]);
  });
  it("reads and writes 64-bit ids and microsecond timestamps (BIGINT) exactly", () => {
    const big = [f("id", T.bigint()), f("ts_us", T.bigint())];
    const rows = decodeAll(debeziumJsonFormat, big, [
      '{"before":null,"after":{"id":9223372036854775807,"ts_us":1764547200123456},"op":"c","ts_ms":1764547200123}',
      '{"before":{"id":-9223372036854775808,"ts_us":1},"after":{"id":1234567890123456789,"ts_us":9007199254740993},"op":"u"}',
    ]);
    expect(rows).toEqual([
      [Op.INSERT, [9223372036854775807n, 1764547200123456]],
      [Op.UPDATE_BEFORE, [-9223372036854775808n, 1]],
      [Op.UPDATE_AFTER, [1234567890123456789n, 9007199254740993n]],
    ]);
    const enc = debeziumJsonFormat.encoder(big, new FormatOptions({}, "debezium-json"));
    expect(enc.encode(Op.INSERT, [-9223372036854775808n, 9007199254740993n])).toBe(
      '{"before":null,"after":{"id":-9223372036854775808,"ts_us":9007199254740993},"op":"c"}',
    );
  });
  it("reads the payload with schema-include, and rejects a u without before", () => {
    const line = '{"schema":{},"payload":{"before":null,"after":{"id":3,"ts":null},"op":"c"}}';
    expect(decodeAll(debeziumJsonFormat, fields, [line], { "debezium-json.schema-include": "true" })).toEqual(
      [[Op.INSERT, [3, null]]],
    );
    const out = new ChangeBatchBuilder();
    const dec = debeziumJsonFormat.decoder(fields, new FormatOptions({}, "debezium-json"));
    expect(() => dec.decode('{"before":null,"after":{"id":1},"op":"u"}', out)).toThrow(/'before' field/);
    expect(() => dec.decode('{"before":{"id":1},"after":{"id":"x"},"op":"u"}', out)).toThrow(/cannot read/);
    expect(out.length).toBe(0);
  });
});

describe("json projection push-down", () => {
  it("converts only the projected fields; the others are NULL and never read", () => {
    const fields = [f("a", T.int()), f("amount", T.decimal(10, 2)), f("note", T.string())];
    const dec = jsonFormat.decoder(fields, new FormatOptions({}, "json", new Set([0, 2])));
    const out = new ChangeBatchBuilder();
    // `amount` is not a number here: it is not read, so no error.
    dec.decode('{"a": 1, "amount": "not a number", "note": "x"}', out);
    expect(out.finish().rows).toEqual([[1, null, "x"]]);
  });
});
