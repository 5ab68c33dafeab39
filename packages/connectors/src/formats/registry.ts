import { ConnectorError } from "@weir/runtime";
import { changelogJsonFormat } from "./changelog-json.js";
import { csvFormat } from "./csv.js";
import { debeziumJsonFormat } from "./debezium-json.js";
import type { FormatFactory } from "./format.js";
import { jsonFormat } from "./json.js";
import { rawFormat } from "./raw.js";

const FORMATS: ReadonlyMap<string, FormatFactory> = new Map(
  [jsonFormat, csvFormat, changelogJsonFormat, debeziumJsonFormat, rawFormat].map((f) => [f.name, f]),
);

/** The format named by a table's `'format'` option. */
export function formatFactory(name: string | undefined): FormatFactory {
  if (name === undefined) throw new ConnectorError("option 'format' is required", "user");
  const f = FORMATS.get(name);
  if (!f)
    throw new ConnectorError(`unknown format '${name}' (known: ${[...FORMATS.keys()].join(", ")})`, "user");
  return f;
}
