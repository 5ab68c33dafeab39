import { describe, expect, it } from "vitest";
import { ConnectorCatalog, OptionReader, orList, tableShapeOf } from "../src/catalog/connector-catalog.js";
import {
  type ConnectorSpec,
  deliveryProblem,
  EXACTLY_ONCE_NEEDS_CHECKPOINTS,
  type FormatSpec,
  readDeliveryGuarantee,
  type TableShape,
} from "../src/catalog/connector-spec.js";
import type { SinkNode, SourceNode } from "../src/physical.js";
import { T } from "../src/types.js";

/**
 * The catalog's generic part (option names, types, formats, metadata, the source options every
 * source takes) over small connector specs of this test: the planner knows no real connector
 * (those are tested with their specs in `@weir/connectors`).
 */

const lines: FormatSpec = {
  name: "lines",
  changelog: "insert-only",
  options: [{ key: "strict", type: { kind: "boolean" }, description: "fail on a bad line" }],
  checkOption: (option, key, value) =>
    option === "strict" && value === "TRUE"
      ? { at: "value", message: `option '${key}': write 'true' in lower case` }
      : undefined,
};
const changes: FormatSpec = { name: "changes", changelog: "retract", options: [] };

interface TapConfig {
  readonly rows: number | undefined;
  readonly format: string | undefined;
}

const tap: ConnectorSpec<TapConfig> = {
  name: "tap",
  options: [
    { key: "rows", type: { kind: "int", min: 1 }, description: "rows to read" },
    { key: "format", type: { kind: "string" }, description: "record format" },
    { key: "mode", type: { kind: "enum", values: ["a", "b"] }, description: "a mode" },
    { key: "every", type: { kind: "duration" }, description: "an interval" },
    { key: "legacy", type: { kind: "refused", reason: "it never worked" }, description: "old" },
  ],
  prefixes: ["extra."],
  formats: { value: ["lines", "changes"] },
  metadata: { offset: { type: "BIGINT", accepts: (t) => t.kind === "BIGINT" } },
  parse(options) {
    const r = new OptionReader(options);
    const config = { rows: r.int("rows"), format: r.string("format") };
    const problems =
      config.rows === 13 ? [{ key: "rows", at: "value" as const, message: "option 'rows': not 13" }] : [];
    return { config, problems };
  },
  source: { changelog: () => "insert-only", bounded: (c) => c.rows !== undefined },
};

const drain: ConnectorSpec<{ path: string | undefined }> = {
  name: "drain",
  options: [{ key: "path", type: { kind: "string" }, required: true, description: "where" }],
  parse: (options) => ({ config: { path: options.path }, problems: [] }),
  sink: {
    kind: "file",
    accepts: () => ({ updates: false, why: "it appends" }),
    delivery: () => "exactly-once",
    exactlyOnceProblem: (c) => (c.path === "/dev/null" ? "not into /dev/null" : null),
  },
};

const hidden: ConnectorSpec<null> = {
  name: "hidden",
  internal: true,
  options: [],
  parse: () => ({ config: null, problems: [] }),
  sink: { kind: "console", accepts: () => ({ updates: true }), delivery: () => "none" },
};

const catalog = new ConnectorCatalog([tap, drain, hidden], [lines, changes]);
const TABLE: TableShape = {
  name: "t",
  columns: [{ name: "a", type: T.int(), kind: "physical" }],
  primaryKey: null,
};
const messages = (options: Record<string, string>, usage: "source" | "sink" | "declared" = "declared") =>
  catalog.validate(options, usage, TABLE).map((p) => p.message);

describe("ConnectorCatalog.validate", () => {
  it("accepts a table its spec accepts", () => {
    expect(messages({ connector: "tap", rows: "5", format: "lines", "lines.strict": "true" })).toEqual([]);
  });

  it("names a missing or unknown connector, never an internal one", () => {
    expect(catalog.validate({}, "declared", TABLE)).toEqual([
      {
        key: "connector",
        at: "table",
        message: "the table has no 'connector' option",
        hint: "add WITH ('connector' = '...'); known connectors: tap, drain",
      },
    ]);
    expect(catalog.validate({ connector: "tpa", format: "lines" }, "declared", TABLE)[0]).toMatchObject({
      message: "unknown connector 'tpa'",
      hint: "did you mean 'tap'?",
    });
    expect(messages({ connector: "hidden" })).toEqual(["unknown connector 'hidden'"]);
  });

  it("checks each value against its option's type", () => {
    expect(
      messages({ connector: "tap", format: "lines", rows: "0", mode: "c", every: "soon", legacy: "x" }),
    ).toEqual([
      "option 'rows': must be at least 1, got 0",
      "option 'mode': expected one of a, b, got 'c'",
      "option 'every': expected a duration such as '10 s', '5 min' or '100 ms', got 'soon'",
      "option 'legacy': not supported: it never worked",
    ]);
  });

  it("suggests the nearest known option and lets prefixed families through", () => {
    const [p] = catalog.validate(
      { connector: "tap", format: "lines", rowz: "1", "extra.x": "y" },
      "source",
      TABLE,
    );
    expect(p).toEqual({
      key: "rowz",
      at: "key",
      message: "unsupported option 'rowz' for connector 'tap'",
      hint: "did you mean 'rows'?",
    });
  });

  it("adds the options every source takes to a source's, and quality rules only there", () => {
    expect(
      messages({
        connector: "tap",
        format: "lines",
        "late.policy": "drop",
        "scan.watermark.idle-timeout": "5 s",
        "quality.max-age": "1 d",
      }),
    ).toEqual([]);
    expect(
      messages({ connector: "drain", path: "p", "late.policy": "drop", "quality.max-age": "1 d" }),
    ).toEqual([
      "unsupported option 'late.policy' for connector 'drain'",
      "option 'quality.max-age': quality rules apply to sources, and connector 'drain' can only be written to",
    ]);
  });

  it("knows the formats a connector lists, with their options and checks", () => {
    expect(messages({ connector: "tap" })).toEqual(["connector 'tap' requires 'format' (or 'value.format')"]);
    expect(messages({ connector: "tap", format: "csv" })).toEqual([
      "connector 'tap' does not support format 'csv'",
    ]);
    expect(messages({ connector: "tap", format: "lines", "lines.strict": "TRUE" })).toEqual([
      "option 'lines.strict': write 'true' in lower case",
    ]);
    expect(messages({ connector: "tap", format: "changes", "lines.strict": "true" })).toEqual([
      "unsupported option 'lines.strict' for connector 'tap'",
    ]);
  });

  it("reports required options, the usage, then the spec's own problems", () => {
    expect(messages({ connector: "drain" }, "source")).toEqual([
      "connector 'drain' can only be written to",
      "connector 'drain' requires the option 'path' (where)",
    ]);
    expect(messages({ connector: "tap", format: "lines" }, "sink")).toEqual([
      "connector 'tap' can only be read from",
    ]);
    expect(messages({ connector: "tap", format: "lines", rows: "13" })).toEqual(["option 'rows': not 13"]);
  });

  it("checks metadata columns against the spec's keys and types", () => {
    expect(catalog.checkMetadataColumn("tap", "o", "offset", T.bigint())).toBeUndefined();
    expect(catalog.checkMetadataColumn("tap", "o", "offest", T.bigint())?.hint).toBe(
      "did you mean 'offset'?",
    );
    expect(catalog.checkMetadataColumn("tap", "o", "offset", T.int())?.message).toBe(
      "metadata column 'o' (key 'offset') must be declared BIGINT, not INT",
    );
    expect(catalog.checkMetadataColumn("drain", "o", "offset", T.int())?.message).toBe(
      "connector 'drain' has no metadata columns (column 'o' reads 'offset')",
    );
  });
});

describe("configure", () => {
  it("parses a plan node's options with its table as the node carries it", () => {
    const schema = [
      { name: "a", type: T.int() },
      { name: "o", type: T.bigint() },
    ];
    const plain = {
      schema,
      changelogMode: { kind: "insert-only" },
      streamKey: null,
      watermarkColumn: null,
    } as const;
    const source: SourceNode = {
      ...plain,
      ...{ kind: "source", id: 0, inputs: [], table: "t", connector: "tap", primaryKey: null },
      options: { connector: "tap", rows: "3", format: "lines" },
      columns: [
        { kind: "physical", name: "a" },
        { kind: "metadata", key: "offset", virtual: true },
      ],
      ...{ watermark: null, idleTimeoutMs: 0, projectedColumns: null },
    };
    const c = catalog.configureNode(source);
    expect(c?.spec).toBe(tap);
    expect(c?.config).toEqual({ rows: 3, format: "lines" });
    expect(tableShapeOf(source).columns.map((x) => x.kind)).toEqual(["physical", "metadata"]);
    const sink: SinkNode = {
      ...plain,
      ...{ kind: "sink", id: 1, inputs: [0], table: "out", connector: "drain", primaryKey: [0] },
      options: { connector: "drain", path: "p" },
      ...{
        tableSchema: schema,
        inputMode: plain.changelogMode,
        metadataColumns: [{ column: 1, key: "offset" }],
      },
    };
    expect(tableShapeOf(sink)).toEqual({
      name: "out",
      columns: [
        { name: "a", type: T.int(), kind: "physical" },
        { name: "o", type: T.bigint(), kind: "metadata" },
      ],
      primaryKey: [0],
    });
    expect(catalog.configure({ connector: "nope" }, TABLE)).toBeUndefined();
  });
});

describe("delivery", () => {
  it("reads 'sink.delivery-guarantee' one way: Flink's values, any case, default at-least-once", () => {
    expect(readDeliveryGuarantee({})).toBe("at-least-once");
    expect(readDeliveryGuarantee({ "sink.delivery-guarantee": " Exactly-Once " })).toBe("exactly-once");
    expect(readDeliveryGuarantee({ "sink.delivery-guarantee": "none" })).toBe("none");
    expect(readDeliveryGuarantee({ "sink.delivery-guarantee": "twice" })).toBe("at-least-once");
  });

  it("asks the connector first, then needs checkpoints for exactly-once", () => {
    const sink = drain.sink!;
    expect(deliveryProblem(sink, { path: "/dev/null" }, 0)).toBe("not into /dev/null");
    expect(deliveryProblem(sink, { path: "f" }, 0)).toBe(EXACTLY_ONCE_NEEDS_CHECKPOINTS);
    expect(deliveryProblem(sink, { path: "f" }, 1000)).toBeNull();
    expect(deliveryProblem(hidden.sink!, null, 0)).toBeNull();
  });
});

it("orList lists as hints do", () => {
  expect([orList([]), orList(["a"]), orList(["a", "b"]), orList(["a", "b", "c"])]).toEqual([
    "",
    "a",
    "a or b",
    "a, b or c",
  ]);
});
