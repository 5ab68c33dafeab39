import { T } from "@weir/planner";
import { describe, expect, it } from "vitest";
import { type KafkaColumn, kafkaLayout, parseSpecificOffsets } from "../src/kafka/options.js";

describe("parseSpecificOffsets", () => {
  it.each([
    [
      "partition:0,offset:42;partition:1,offset:300",
      [
        [0, 42],
        [1, 300],
      ],
    ],
    [" partition : 2 , offset : 0 ; ", [[2, 0]]],
    ["", []],
  ])("%j", (text, expected) => {
    expect([...parseSpecificOffsets(text, "k")]).toEqual(expected);
  });

  it.each(["partition:0", "offset:1,partition:0", "partition:-1,offset:3"])("rejects %j", (text) => {
    expect(() => parseSpecificOffsets(text, "k")).toThrow(/option 'k'/);
  });
});

const columns: KafkaColumn[] = [
  { name: "k_id", type: T.int(), kind: "physical" },
  { name: "name", type: T.string(), kind: "physical" },
  { name: "off", type: T.bigint(), kind: "metadata" },
  { name: "v", type: T.int(), kind: "physical" },
];
const names = (fields: readonly { name: string; column: number }[] | undefined) =>
  fields?.map((f) => `${f.name}@${f.column}`);

interface LayoutCase {
  readonly what: string;
  readonly connector: "kafka" | "upsert-kafka";
  readonly options: Record<string, string>;
  readonly pk: number[] | null;
  readonly key: string[] | undefined;
  readonly value: string[];
}

describe("kafkaLayout (Flink's key/value column rules)", () => {
  it.each<LayoutCase>([
    {
      what: "value only",
      connector: "kafka",
      options: { format: "json" },
      pk: null,
      key: undefined,
      value: ["k_id@0", "name@1", "v@3"],
    },
    {
      what: "key fields with ALL",
      connector: "kafka",
      options: { format: "json", "key.format": "json", "key.fields": "name;k_id" },
      pk: null,
      key: ["name@1", "k_id@0"],
      value: ["k_id@0", "name@1", "v@3"],
    },
    {
      what: "prefix and EXCEPT_KEY",
      connector: "kafka",
      options: {
        "value.format": "json",
        "key.format": "json",
        "key.fields": "k_id",
        "key.fields-prefix": "k_",
        "value.fields-include": "EXCEPT_KEY",
      },
      pk: null,
      key: ["id@0"],
      value: ["name@1", "v@3"],
    },
    {
      what: "upsert-kafka keys by the primary key",
      connector: "upsert-kafka",
      options: { "value.format": "json", "key.format": "csv" },
      pk: [1],
      key: ["name@1"],
      value: ["k_id@0", "name@1", "v@3"],
    },
  ])("$what", ({ connector, options, pk, key, value }) => {
    const layout = kafkaLayout("t", connector, options, columns, pk);
    expect(names(layout.key?.fields)).toEqual(key);
    expect(names(layout.value.fields)).toEqual(value);
    expect(layout.width).toBe(4);
  });

  it.each([
    [{ format: "json", "key.fields": "k_id" }, /requires 'key.format'/],
    [{ format: "json", "key.format": "json" }, /requires 'key.fields'/],
    [{ format: "json", "key.format": "json", "key.fields": "off" }, /not a physical column/],
    [{ format: "json", "key.format": "json", "key.fields": "k_id", "key.fields-prefix": "k_" }, /EXCEPT_KEY/],
    [
      {
        format: "json",
        "key.format": "json",
        "key.fields": "name",
        "key.fields-prefix": "k_",
        "value.fields-include": "EXCEPT_KEY",
      },
      /must start with/,
    ],
  ])("rejects %j", (options, message) => {
    expect(() => kafkaLayout("t", "kafka", options as Record<string, string>, columns, null)).toThrow(
      message,
    );
  });
});
