import type { FormatSpec, OptionSpec, OptionType } from "@weir/planner";

/**
 * What each format accepts as `<format>.<option>` and the changelog its records carry, checked
 * at plan time (the planner's `ConnectorCatalog`); the codecs of this folder read the same keys
 * (`FormatOptions`). Imports no codec and no client library.
 */

const str = { kind: "string" } as const;
const bool = { kind: "boolean" } as const;
const oneOf = (...values: string[]): OptionType => ({ kind: "enum", values });

const timestampStandard: OptionSpec = {
  key: "timestamp-format.standard",
  type: oneOf("SQL", "ISO-8601"),
  description: "how TIMESTAMP values are written: 'SQL' (yyyy-MM-dd HH:mm:ss.SSS) or 'ISO-8601'",
};

const ignoreParseErrors: OptionSpec = {
  key: "ignore-parse-errors",
  type: bool,
  description: "skip (and count) malformed records",
};

/** How the JSON formats write MAP keys and DECIMAL values (Flink's options of the same names). */
const jsonEncodingOptions: readonly OptionSpec[] = [
  {
    key: "map-null-key.mode",
    type: oneOf("FAIL", "DROP", "LITERAL"),
    description: "a MAP entry with a NULL key: FAIL the job (default), DROP the entry, or write the LITERAL",
  },
  {
    key: "map-null-key.literal",
    type: str,
    description: "the key written for NULL in LITERAL mode, default 'null'",
  },
  {
    key: "encode.decimal-as-plain-number",
    type: bool,
    description: "DECIMAL always in plain notation (default false: Java's BigDecimal.toString, 1E-7)",
  },
];

/** The options of a JSON format: the parse-error policy, its own, the timestamp standard and the encoding options. */
const jsonOptions = (...own: OptionSpec[]): OptionSpec[] => [
  ignoreParseErrors,
  ...own,
  timestampStandard,
  ...jsonEncodingOptions,
];

export const jsonFormatSpec: FormatSpec = {
  name: "json",
  changelog: "insert-only",
  options: jsonOptions({
    key: "fail-on-missing-field",
    type: bool,
    description: "fail when a field is missing",
  }),
};

export const csvFormatSpec: FormatSpec = {
  name: "csv",
  changelog: "insert-only",
  options: [
    { key: "field-delimiter", type: str, description: "field delimiter, default ','" },
    { key: "quote-character", type: str, description: "quote character, default '\"'" },
    { key: "disable-quote-character", type: bool, description: "no quoting" },
    { key: "allow-comments", type: bool, description: "skip lines starting with '#'" },
    ignoreParseErrors,
    { key: "array-element-delimiter", type: str, description: "array element delimiter, default ';'" },
    { key: "escape-character", type: str, description: "escape character" },
    { key: "null-literal", type: str, description: "text read as NULL" },
    { key: "header", type: bool, description: "first line is a header (Weir extension)" },
  ],
};

export const rawFormatSpec: FormatSpec = {
  name: "raw",
  changelog: "insert-only",
  options: [
    { key: "charset", type: str, description: "charset of text values: UTF-8 only (others are refused)" },
    {
      key: "endianness",
      type: oneOf("big-endian", "little-endian"),
      description: "byte order of numeric raw values; STRING and BYTES (Weir's raw types) have none",
    },
  ],
  checkOption(option, key, value) {
    // Flink's raw.charset takes any Java charset; Weir's line readers and writers are UTF-8.
    if (option !== "charset" || /^utf-?8$/i.test(value.trim())) return undefined;
    return {
      at: "value",
      message: `option '${key}' = '${value}' is not supported: Weir reads and writes raw text as UTF-8 only (lines are split and decoded as UTF-8 before the format sees them)`,
      hint: "remove the option or set it to 'UTF-8' (and convert the data to UTF-8)",
    };
  },
};

export const changelogJsonFormatSpec: FormatSpec = {
  name: "changelog-json",
  changelog: "retract",
  options: jsonOptions(),
};

export const debeziumJsonFormatSpec: FormatSpec = {
  name: "debezium-json",
  changelog: "retract",
  options: jsonOptions({
    key: "schema-include",
    type: bool,
    description: "messages carry a schema envelope",
  }),
};

/** Arrow IPC files: a file format of the filesystem connector (no line codec). */
export const arrowFormatSpec: FormatSpec = { name: "arrow", changelog: "insert-only", options: [] };

/** Every format, in the order the docs list them. */
export const FORMAT_SPECS: readonly FormatSpec[] = [
  jsonFormatSpec,
  csvFormatSpec,
  rawFormatSpec,
  changelogJsonFormatSpec,
  debeziumJsonFormatSpec,
  arrowFormatSpec,
];
