import type { LookupJoinNode, SinkNode, SourceNode } from "../physical.js";
import { type DataType, formatType } from "../types.js";
import type {
  ConnectorSpec,
  FormatSpec,
  OptionProblem,
  OptionSpec,
  Options,
  OptionType,
  Parsed,
  TableShape,
} from "./connector-spec.js";
import { parseDuration, parseMemorySize } from "./durations.js";
import { QUALITY_CHECK_PREFIX, QUALITY_OPTIONS, QUALITY_PREFIX } from "./quality.js";
import { nearest } from "./settings.js";

const duration = { kind: "duration" } as const;
const oneOf = (...values: string[]): OptionType => ({ kind: "enum", values });

/**
 * The options every source takes, whatever its connector (docs/time-and-watermarks.md): the
 * planner reads them (idle timeouts at the scan, `late.ts`, `quality.ts`), so they are the
 * planner's and are added to each source spec's own.
 */
export const SOURCE_OPTIONS: readonly OptionSpec[] = [
  {
    key: "scan.watermark.idle-timeout",
    type: duration,
    description: "a split without data for this long stops holding the watermark back",
  },
  {
    key: "scan.watermark.idle-advance",
    type: duration,
    description:
      "once every split has been without data for this long, the watermark advances with processing time (quiet streams)",
  },
  {
    key: "late.policy",
    type: oneOf("drop", "side-output", "update", "retract"),
    description:
      "what event-time operators do with late rows of this table: drop (default), side-output to 'late.side-output', update (upserts) or retract (-U/+U) within 'late.allowed-lateness'",
  },
  {
    key: "late.side-output",
    type: { kind: "string" },
    description:
      "the table late rows are written to, with observed_at, current_watermark, lateness_ms, reason",
  },
  {
    key: "late.allowed-lateness",
    type: duration,
    description:
      "with 'update' or 'retract': how long after a window's end late rows still correct its result",
  },
  {
    key: "scan.watermark.emit.strategy",
    type: oneOf("on-event", "on-periodic"),
    description: "emit the watermark after each row that advances it (default) or once per read batch",
  },
];

/** Flink's `sink.parallelism` (FactoryUtil): Weir's sinks write with one writer. */
export const SINK_PARALLELISM_OPTION: OptionSpec = {
  key: "sink.parallelism",
  type: oneOf("1"),
  description: "one writer (Weir writes with parallelism 1)",
};

/** A connector's spec and the config it parsed from a table's options. */
export interface ConfiguredConnector {
  readonly spec: ConnectorSpec;
  readonly config: unknown;
  readonly problems: readonly OptionProblem[];
}

/**
 * The connectors and formats a session knows, as `@weir/connectors` lists them: what CREATE
 * TABLE validates a table's options against, and where the planner, the runtime's registry and
 * `weir check` find a table's connector spec and its parsed config. The planner receives it
 * through the `Catalog` and names no connector itself.
 */
export class ConnectorCatalog {
  private readonly connectors = new Map<string, ConnectorSpec>();
  private readonly formatSpecs = new Map<string, FormatSpec>();
  private readonly formatOf = (name: string): FormatSpec | undefined => this.formatSpecs.get(name);

  constructor(connectors: readonly ConnectorSpec[], formats: readonly FormatSpec[]) {
    for (const c of connectors) {
      if (this.connectors.has(c.name)) throw new Error(`two connector specs are named '${c.name}'`);
      this.connectors.set(c.name, c);
    }
    for (const f of formats) {
      if (this.formatSpecs.has(f.name)) throw new Error(`two format specs are named '${f.name}'`);
      this.formatSpecs.set(f.name, f);
    }
  }

  /** Every connector spec, in the order of the list that made the catalog. */
  get specs(): readonly ConnectorSpec[] {
    return [...this.connectors.values()];
  }

  get formats(): readonly FormatSpec[] {
    return [...this.formatSpecs.values()];
  }

  spec(name: string): ConnectorSpec | undefined {
    return this.connectors.get(name);
  }

  format(name: string): FormatSpec | undefined {
    return this.formatSpecs.get(name);
  }

  /** The connectors a CREATE TABLE may name. */
  declarable(): string[] {
    return this.specs.filter((s) => !s.internal).map((s) => s.name);
  }

  /**
   * The spec of `options`' connector and the config it parses (with the problems only the
   * connector knows); undefined for an unknown connector. What the planner, the runtime and
   * `weir check` read a table's options through.
   */
  configure(options: Options, table: TableShape): ConfiguredConnector | undefined {
    const spec = this.connectors.get(options.connector ?? "");
    if (spec === undefined) return undefined;
    const parsed: Parsed<unknown> = spec.parse(options, { table, format: this.formatOf });
    return { spec, config: parsed.config, problems: parsed.problems };
  }

  /** {@link configure} of a plan node's connector and options, its table as the node carries it. */
  configureNode(node: SourceNode | SinkNode | LookupJoinNode): ConfiguredConnector | undefined {
    return this.configure({ ...node.options, connector: node.connector }, tableShapeOf(node));
  }

  /**
   * Checks a table's options against its connector and formats: every key known (the
   * connector's, its source options, its formats'), every value of its type, required options
   * present, then the connector's own problems (`spec.parse`). `usage` says how the table is used
   * in this plan (a source-only connector used as a sink is an error).
   */
  validate(options: Options, usage: "source" | "sink" | "declared", table: TableShape): OptionProblem[] {
    const problems: OptionProblem[] = [];
    const connectorName = options.connector;
    const names = this.declarable();
    if (connectorName === undefined) {
      problems.push({
        key: "connector",
        at: "table",
        message: "the table has no 'connector' option",
        hint: `add WITH ('connector' = '...'); known connectors: ${names.join(", ")}`,
      });
      return problems;
    }
    const spec = this.connectors.get(connectorName);
    if (!spec || spec.internal) {
      problems.push({
        key: "connector",
        at: "value",
        message: `unknown connector '${connectorName}'`,
        hint: suggest(connectorName, names, "known connectors"),
      });
      return problems;
    }
    const isSource = spec.source !== undefined;
    if (usage === "source" && !isSource) {
      problems.push({
        key: "connector",
        at: "value",
        message: `connector '${spec.name}' can only be written to`,
      });
    }
    if (usage === "sink" && spec.sink === undefined) {
      problems.push({
        key: "connector",
        at: "value",
        message: `connector '${spec.name}' can only be read from`,
      });
    }

    const known = new Map<string, OptionSpec>();
    for (const o of spec.options) known.set(o.key, o);
    if (isSource) for (const o of SOURCE_OPTIONS) if (!known.has(o.key)) known.set(o.key, o);
    const formats = spec.formats;
    /** Format options as written → their format and their own key. */
    const formatOptions = new Map<string, { readonly format: FormatSpec; readonly option: string }>();
    for (const fk of ["format", "value.format", "key.format"]) {
      const fmt = options[fk];
      if (fmt === undefined || !formats) continue;
      const allowed = fk === "key.format" ? (formats.key ?? []) : formats.value;
      const fspec = this.formatSpecs.get(fmt);
      if (!fspec || !allowed.includes(fmt)) {
        problems.push({
          key: fk,
          at: "value",
          message: `connector '${spec.name}' does not support format '${fmt}'`,
          hint: `supported: ${allowed.join(", ")}`,
        });
        continue;
      }
      const prefix =
        fk === "key.format" ? `key.${fmt}.` : fk === "value.format" ? `value.${fmt}.` : `${fmt}.`;
      for (const o of fspec.options) {
        known.set(prefix + o.key, o);
        formatOptions.set(prefix + o.key, { format: fspec, option: o.key });
        if (fk === "value.format") {
          known.set(`${fmt}.${o.key}`, o);
          formatOptions.set(`${fmt}.${o.key}`, { format: fspec, option: o.key });
        }
      }
    }
    if (isSource) for (const o of QUALITY_OPTIONS) known.set(o.key, o);

    for (const [key, value] of Object.entries(options)) {
      if (key === "connector") continue;
      if (isSource && key.startsWith(QUALITY_CHECK_PREFIX)) {
        const name = key.slice(QUALITY_CHECK_PREFIX.length);
        if (!/^[A-Za-z_][A-Za-z0-9_-]*$/.test(name)) {
          problems.push({
            key,
            at: "key",
            message: `option '${key}': a check name is letters, digits, '_' and '-', starting with a letter`,
          });
        } else if (value.trim() === "") {
          problems.push({ key, at: "value", message: `option '${key}': expected a SQL boolean expression` });
        }
        continue;
      }
      if (!isSource && key.startsWith(QUALITY_PREFIX)) {
        problems.push({
          key,
          at: "key",
          message: `option '${key}': quality rules apply to sources, and connector '${spec.name}' can only be written to`,
        });
        continue;
      }
      const o = known.get(key);
      if (!o) {
        if ((spec.prefixes ?? []).some((p) => key.startsWith(p) && key.length > p.length)) continue;
        problems.push({
          key,
          at: "key",
          message: `unsupported option '${key}' for connector '${spec.name}'`,
          hint: suggest(key, [...known.keys()], "supported options"),
        });
        continue;
      }
      const bad = checkValue(o.type, value);
      if (bad) problems.push({ key, at: "value", message: `option '${key}': ${bad}` });
    }
    for (const o of spec.options) {
      if (o.required && options[o.key] === undefined) {
        problems.push({
          key: o.key,
          at: "table",
          message: `connector '${spec.name}' requires the option '${o.key}' (${o.description})`,
        });
      }
    }
    const requiresFormatOption = spec.options.some(
      (o) => (o.key === "format" || o.key === "value.format") && o.required,
    );
    if (
      formats &&
      !requiresFormatOption &&
      options.format === undefined &&
      options["value.format"] === undefined
    ) {
      problems.push({
        key: "format",
        at: "table",
        message: `connector '${spec.name}' requires 'format' (or 'value.format')`,
        hint: `one of: ${formats.value.join(", ")}`,
      });
    }
    for (const [key, value] of Object.entries(options)) {
      const f = formatOptions.get(key);
      const bad = f?.format.checkOption?.(f.option, key, value);
      if (bad) problems.push({ key, ...bad });
    }
    problems.push(...spec.parse(options, { table, format: this.formatOf }).problems);
    return problems;
  }

  /**
   * What is wrong with a metadata column of a table of `connector` (declared as `type`, reading
   * `key`), or undefined. The values are not cast: a metadata column is declared with its key's
   * type (any precision of a timestamp up to 3 — the values are milliseconds —, INT or BIGINT for
   * an INT key) and converted in a computed column or the query.
   */
  checkMetadataColumn(
    connector: string,
    column: string,
    key: string,
    type: DataType,
  ): { message: string; hint?: string } | undefined {
    const keys = this.connectors.get(connector)?.metadata;
    if (keys === undefined || Object.keys(keys).length === 0)
      return {
        message: `connector '${connector}' has no metadata columns (column '${column}' reads '${key}')`,
        hint: "declare it as a physical column, or compute it",
      };
    const spec = keys[key];
    if (spec === undefined)
      return {
        message: `unknown metadata key '${key}' for connector '${connector}' (column '${column}')`,
        hint: `${suggest(key, Object.keys(keys), "known keys")}`,
      };
    if (!spec.accepts(type))
      return {
        message: `metadata column '${column}' (key '${key}') must be declared ${spec.type}, not ${formatType(type)}`,
        hint: `declare it as ${spec.type} and convert it where it is used (e.g. a computed column CAST(${column} AS ...))`,
      };
    return undefined;
  }
}

/** The table a plan node's connector writes or reads, as the node carries it (`TableShape`). */
export function tableShapeOf(node: SourceNode | SinkNode | LookupJoinNode): TableShape {
  switch (node.kind) {
    case "source":
      return {
        name: node.table,
        columns: node.columns.map((c, i) => ({
          name: node.schema[i]!.name,
          type: node.schema[i]!.type,
          kind: c.kind,
        })),
        primaryKey: node.primaryKey,
      };
    case "sink": {
      const metadata = new Set((node.metadataColumns ?? []).map((m) => m.column));
      return {
        name: node.table,
        columns: node.tableSchema.map((f, i) => ({
          name: f.name,
          type: f.type,
          kind: metadata.has(i) ? "metadata" : "physical",
        })),
        primaryKey: node.primaryKey,
      };
    }
    case "lookup-join":
      return {
        name: node.table,
        columns: node.dimSchema.map((f) => ({ name: f.name, type: f.type, kind: "physical" })),
        primaryKey: null,
      };
    default: {
      const _exhaustive: never = node;
      return _exhaustive;
    }
  }
}

/**
 * Typed reads of options whose names and types the catalog checks (`ConnectorCatalog.validate`),
 * for a spec's `parse`: a value that does not read as its type gives undefined (the catalog
 * reports it), so that a parse never throws.
 */
export class OptionReader {
  constructor(readonly options: Options) {}

  string(key: string): string | undefined {
    return this.options[key];
  }

  /** An integer (`-?\d+`, any size the number type holds). */
  int(key: string): number | undefined {
    const text = this.options[key]?.trim();
    return text !== undefined && /^-?\d+$/.test(text) ? Number(text) : undefined;
  }

  /** `true` / `false`, in any case. */
  bool(key: string): boolean | undefined {
    const text = this.options[key]?.trim().toLowerCase();
    return text === "true" ? true : text === "false" ? false : undefined;
  }

  /** Milliseconds of a Flink duration (`'10 s'`). */
  duration(key: string): number | undefined {
    const text = this.options[key];
    return text === undefined ? undefined : parseDuration(text);
  }

  has(key: string): boolean {
    return this.options[key] !== undefined;
  }
}

function checkValue(type: OptionType, value: string): string | undefined {
  switch (type.kind) {
    case "string":
      return undefined;
    case "int": {
      if (!/^-?\d+$/.test(value.trim())) return `expected an integer, got '${value}'`;
      const n = Number(value);
      if (type.min !== undefined && n < type.min) return `must be at least ${type.min}, got ${n}`;
      return undefined;
    }
    case "boolean":
      return /^(true|false)$/i.test(value) ? undefined : `expected 'true' or 'false', got '${value}'`;
    case "duration":
      return parseDuration(value) === undefined
        ? `expected a duration such as '10 s', '5 min' or '100 ms', got '${value}'`
        : undefined;
    case "memory":
      return parseMemorySize(value) === undefined
        ? `expected a size such as '128 mb', got '${value}'`
        : undefined;
    case "refused":
      return `not supported: ${type.reason}`;
    case "enum":
      return type.values.includes(value)
        ? undefined
        : `expected one of ${type.values.join(", ")}, got '${value}'`;
    default: {
      const _exhaustive: never = type;
      return _exhaustive;
    }
  }
}

/** `a`, `a or b`, `a, b or c`: the connectors (or formats) a hint lists. */
export function orList(items: readonly string[]): string {
  return items.length <= 1 ? items.join("") : `${items.slice(0, -1).join(", ")} or ${items.at(-1)}`;
}

/** "did you mean 'x'?" for the nearest candidate, else the list of candidates. */
export function suggest(word: string, candidates: readonly string[], what: string): string {
  const { best, distance } = nearest(word, candidates);
  if (best !== undefined && distance <= Math.max(2, Math.floor(word.length / 3))) {
    return `did you mean '${best}'?`;
  }
  return `${what}: ${[...candidates].sort().join(", ")}`;
}
