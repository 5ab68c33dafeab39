import { T, type TableShape } from "@weir/planner";
import { describe, expect, it } from "vitest";
import { connectorCatalog } from "../src/index.js";

/**
 * The catalog's validation of a table's options against the real connectors' specs (each
 * folder's `spec.ts`): what CREATE TABLE reports.
 */
const TABLE: TableShape = {
  name: "t",
  columns: [{ name: "id", type: T.bigint(), kind: "physical" }],
  primaryKey: null,
};

const validateOptions = (options: Record<string, string>, usage: "source" | "sink") =>
  connectorCatalog().validate(options, usage, TABLE);
const opts = (o: Record<string, string>) => o;

describe("validateOptions", () => {
  it("raw.charset: UTF-8 in any spelling is accepted, another charset is refused", () => {
    const raw = (o: Record<string, string>) =>
      validateOptions(opts({ connector: "filesystem", path: "a.txt", format: "raw", ...o }), "source");
    expect(raw({ "raw.charset": "utf8" })).toEqual([]);
    expect(raw({ "raw.charset": "UTF-8", "raw.endianness": "little-endian" })).toEqual([]);
    expect(raw({ "raw.charset": "ISO-8859-1" }).map((p) => [p.key, p.message])).toEqual([
      [
        "raw.charset",
        "option 'raw.charset' = 'ISO-8859-1' is not supported: Weir reads and writes raw text as UTF-8 only (lines are split and decoded as UTF-8 before the format sees them)",
      ],
    ]);
    const kafka = validateOptions(
      opts({
        connector: "kafka",
        topic: "t",
        "properties.bootstrap.servers": "x:9092",
        "key.format": "raw",
        "key.raw.charset": "UTF-16",
        "key.fields": "k",
        "value.format": "json",
      }),
      "source",
    );
    expect(kafka.map((p) => p.key)).toEqual(["key.raw.charset"]);
  });
  it("accepts a complete filesystem table with json options", () => {
    expect(
      validateOptions(
        opts({
          connector: "filesystem",
          path: "a.jsonl",
          format: "json",
          "json.ignore-parse-errors": "true",
        }),
        "source",
      ),
    ).toEqual([]);
  });

  it.each<[Record<string, string>, "source" | "sink", string]>([
    [{ path: "x" }, "source", "the table has no 'connector' option"],
    [{ connector: "filesytem", path: "x", format: "json" }, "source", "unknown connector 'filesytem'"],
    [{ connector: "filesystem", format: "json" }, "source", "requires the option 'path'"],
    [{ connector: "filesystem", path: "x" }, "source", "requires the option 'format'"],
    [
      { connector: "filesystem", path: "x", format: "parquet" },
      "source",
      "does not support format 'parquet'",
    ],
    [
      { connector: "filesystem", path: "x", format: "arrow", "source.monitor-interval": "10 s" },
      "source",
      "'source.monitor-interval' is not supported with format 'arrow'",
    ],
    [
      { connector: "filesystem", path: "x", format: "json", paht: "y" },
      "source",
      "unsupported option 'paht'",
    ],
    [
      { connector: "filesystem", path: "x", format: "json", "sink.rolling-policy.rollover-interval": "1min" },
      "sink",
      "option 'sink.rolling-policy.rollover-interval': not supported: Weir's filesystem sink writes one file and does not roll part files",
    ],
    [
      { connector: "filesystem", path: "x", format: "json", "sink.rolling-policy.check-interval": "1min" },
      "sink",
      "does not roll part files",
    ],
    [{ connector: "datagen", "number-of-rows": "ten" }, "source", "expected an integer"],
    [{ connector: "datagen", "number-of-rows": "-3" }, "source", "must be at least 0"],
    [{ connector: "print", "standard-error": "yes" }, "sink", "expected 'true' or 'false'"],
    [{ connector: "print" }, "source", "can only be written to"],
    [{ connector: "jdbc", url: "jdbc:mysql://h/db", "table-name": "t" }, "sink", "is not a PostgreSQL URL"],
    [{ connector: "postgres", url: "localhost:5432" }, "sink", "is not a PostgreSQL URL"],
    [{ connector: "datagen" }, "sink", "can only be read from"],
    [{ connector: "kafka", format: "json" }, "source", "requires 'topic' or 'topic-pattern'"],
    [
      { connector: "kafka", topic: "t", format: "json", "scan.startup.mode": "earliest" },
      "source",
      "expected one of earliest-offset",
    ],
    [
      { connector: "filesystem", path: "x", format: "json", "scan.watermark.idle-timeout": "soon" },
      "source",
      "expected a duration",
    ],
  ])("%j as %s: %s", (options, usage, message) => {
    const problems = validateOptions(opts(options), usage);
    expect(problems.map((p) => p.message).join("\n")).toContain(message);
  });

  it("suggests the nearest option for a typo", () => {
    const [p] = validateOptions(
      opts({ connector: "filesystem", path: "x", format: "json", paht: "y" }),
      "source",
    );
    expect(p?.hint).toBe("did you mean 'path'?");
    expect(p?.at).toBe("key");
  });

  it("lets free-form families through (properties.*, fields.*)", () => {
    expect(
      validateOptions(
        opts({
          connector: "kafka",
          topic: "t",
          format: "json",
          "properties.bootstrap.servers": "localhost:9092",
          "properties.group.id": "g",
        }),
        "source",
      ),
    ).toEqual([]);
    expect(validateOptions(opts({ connector: "datagen", "fields.id.kind": "sequence" }), "source")).toEqual(
      [],
    );
  });

  it("knows key and value format options of kafka", () => {
    expect(
      validateOptions(
        opts({
          connector: "upsert-kafka",
          topic: "t",
          "key.format": "json",
          "value.format": "json",
          "value.json.ignore-parse-errors": "true",
          "key.json.ignore-parse-errors": "true",
        }),
        "sink",
      ),
    ).toEqual([]);
  });
});
