import type { DataType, Field } from "@weir/planner";
import { ConnectorError } from "@weir/runtime";
import { FormatOptions } from "../formats/format.js";
import type { KafkaConnectionConfig } from "./client.js";

/**
 * A Kafka table's options as the connectors use them. Column rules are Flink's:
 * - `key.fields` (or, for `upsert-kafka`, the PRIMARY KEY) are encoded with `key.format`; with
 *   `key.fields-prefix`, the key format sees the names without the prefix;
 * - the value carries every physical column (`'value.fields-include' = 'ALL'`, the default) or
 *   those not in the key (`EXCEPT_KEY`, required when a prefix is set);
 * - metadata columns are neither key nor value.
 */

/** A physical column and where it sits in the connector row (or the sink's table row). */
export interface KafkaField extends Field {
  readonly column: number;
}

export interface KafkaFormatSpec {
  readonly name: string;
  /** The fields the format encodes, named as the format sees them. */
  readonly fields: readonly KafkaField[];
  readonly options: FormatOptions;
}

export interface KafkaLayout {
  /** Columns of the connector row (physical and metadata). */
  readonly width: number;
  readonly value: KafkaFormatSpec;
  readonly key: KafkaFormatSpec | null;
  readonly valueFieldsIncludeAll: boolean;
}

export interface KafkaColumn {
  readonly name: string;
  readonly type: DataType;
  readonly kind: "physical" | "metadata";
}

export function connectionConfig(
  options: Readonly<Record<string, string>>,
  table: string,
): KafkaConnectionConfig {
  const servers = options["properties.bootstrap.servers"];
  if (servers === undefined || servers.trim() === "") {
    throw new ConnectorError(
      `table ${table}: option 'properties.bootstrap.servers' is required (e.g. 'localhost:9092')`,
      "user",
    );
  }
  const protocol = (options["properties.security.protocol"] ?? "PLAINTEXT").toUpperCase();
  if (protocol !== "PLAINTEXT" && protocol !== "SSL") {
    throw new ConnectorError(
      `table ${table}: 'properties.security.protocol' = '${protocol}' is not supported (PLAINTEXT or SSL)`,
      "user",
    );
  }
  return {
    brokers: servers
      .split(",")
      .map((s) => s.trim())
      .filter((s) => s !== ""),
    clientId: options["properties.client.id"] ?? `weir-${table}`,
    ssl: protocol === "SSL",
  };
}

/** `'topic'` as a list (`;`-separated, Flink's syntax). */
export function topicList(options: Readonly<Record<string, string>>): string[] {
  const t = options.topic;
  if (t === undefined) return [];
  return t
    .split(";")
    .map((s) => s.trim())
    .filter((s) => s !== "");
}

/** `partition:0,offset:42;partition:1,offset:300` → partition → offset. */
export function parseSpecificOffsets(text: string, key: string): Map<number, number> {
  const out = new Map<number, number>();
  for (const entry of text.split(";")) {
    if (entry.trim() === "") continue;
    const m = /^\s*partition\s*:\s*(\d+)\s*,\s*offset\s*:\s*(\d+)\s*$/.exec(entry);
    if (!m) {
      throw new ConnectorError(
        `option '${key}': expected 'partition:<n>,offset:<n>' entries separated by ';', got '${entry.trim()}'`,
        "user",
      );
    }
    out.set(Number(m[1]), Number(m[2]));
  }
  return out;
}

/** Options read under `prefix.` by the format: `<fmt>.x` and, when given, `<scope>.<fmt>.x`. */
function formatOptions(all: Readonly<Record<string, string>>, format: string, scope: "key" | "value") {
  const merged: Record<string, string> = {};
  if (scope === "value") {
    for (const [k, v] of Object.entries(all)) if (k.startsWith(`${format}.`)) merged[k] = v;
  }
  const scoped = `${scope}.${format}.`;
  for (const [k, v] of Object.entries(all)) {
    if (k.startsWith(scoped)) merged[`${format}.${k.slice(scoped.length)}`] = v;
  }
  return new FormatOptions(merged, format);
}

/**
 * The key/value layout of a Kafka table. `columns` are the connector row's columns (a source's
 * non-computed columns, or a sink's table columns); `primaryKey` indexes `columns`.
 */
export function kafkaLayout(
  table: string,
  connector: "kafka" | "upsert-kafka",
  options: Readonly<Record<string, string>>,
  columns: readonly KafkaColumn[],
  primaryKey: readonly number[] | null,
): KafkaLayout {
  const fail = (message: string): never => {
    throw new ConnectorError(`table ${table}: ${message}`, "user");
  };
  const valueFormat = options["value.format"] ?? options.format;
  if (valueFormat === undefined) fail(`connector '${connector}' requires 'value.format' (or 'format')`);
  const keyFormat = options["key.format"];
  const prefix = options["key.fields-prefix"] ?? "";
  const include = (options["value.fields-include"] ?? "ALL").toUpperCase();
  if (include !== "ALL" && include !== "EXCEPT_KEY") {
    fail(`'value.fields-include' must be ALL or EXCEPT_KEY, got '${include}'`);
  }
  if (prefix !== "" && include !== "EXCEPT_KEY") {
    fail("'key.fields-prefix' requires 'value.fields-include' = 'EXCEPT_KEY'");
  }
  const physical: KafkaField[] = [];
  columns.forEach((c, i) => {
    if (c.kind === "physical") physical.push({ name: c.name, type: c.type, column: i });
  });

  let keyColumns: KafkaField[] = [];
  if (connector === "upsert-kafka") {
    if (options["key.fields"] !== undefined) {
      fail("'upsert-kafka' takes its key from the PRIMARY KEY; remove 'key.fields'");
    }
    if (!primaryKey || primaryKey.length === 0) fail("'upsert-kafka' needs a PRIMARY KEY");
    if (keyFormat === undefined) fail("'upsert-kafka' requires 'key.format'");
    keyColumns = primaryKey!.map((i) => {
      const f = physical.find((p) => p.column === i);
      return f ?? fail(`PRIMARY KEY column '${columns[i]?.name}' is not a physical column`);
    });
  } else {
    const names = (options["key.fields"] ?? "")
      .split(";")
      .map((s) => s.trim())
      .filter((s) => s !== "");
    if (names.length > 0 && keyFormat === undefined) fail("'key.fields' requires 'key.format'");
    if (keyFormat !== undefined && names.length === 0) {
      fail("'key.format' requires 'key.fields' (the columns the key holds, separated by ';')");
    }
    keyColumns = names.map(
      (n) =>
        physical.find((p) => p.name === n) ??
        fail(`'key.fields' names '${n}', which is not a physical column of the table`),
    );
  }
  const keyFields = keyColumns.map((f) => {
    if (!f.name.startsWith(prefix)) {
      fail(`key column '${f.name}' must start with the 'key.fields-prefix' '${prefix}'`);
    }
    return { ...f, name: f.name.slice(prefix.length) };
  });
  const keyed = new Set(keyColumns.map((f) => f.column));
  const valueFields = include === "ALL" ? physical : physical.filter((f) => !keyed.has(f.column));
  return {
    width: columns.length,
    value: {
      name: valueFormat!,
      fields: valueFields,
      options: formatOptions(options, valueFormat!, "value"),
    },
    key:
      keyFormat === undefined || keyFields.length === 0
        ? null
        : { name: keyFormat, fields: keyFields, options: formatOptions(options, keyFormat, "key") },
    valueFieldsIncludeAll: include === "ALL",
  };
}
