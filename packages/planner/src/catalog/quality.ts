import type { Expr } from "../expr.js";
import type { DataType } from "../types.js";
import type { OptionSpec } from "./connector-spec.js";

/**
 * Timestamp-quality rules on a source table (issue 14): `'quality.*'` options. A row that breaks
 * a rule — or whose event time is NULL or cannot be computed — never reaches the query and never
 * moves the watermark; it goes to the quarantine table (`'quality.quarantine'`) with the rule, the
 * raw record and its position, or, without one, is dropped and counted or fails the job
 * (`'quality.on-violation'`).
 */
export interface TableQuality {
  /** `'quality.max-future-skew'`: an event time later than processing time + this breaks `max-future-skew`. */
  readonly maxFutureSkewMs: number | null;
  /** `'quality.max-age'`: an event time earlier than processing time − this breaks `max-age`. */
  readonly maxAgeMs: number | null;
  /**
   * `'quality.require-zone'`: the STRING columns the event time is computed from must be
   * ISO-8601 timestamps with a zone (`Z`, `+09:00`); table column indexes.
   */
  readonly requireZoneColumns: readonly number[];
  /** `'quality.check.<name>'`: row predicates over the table row (computed columns included); a row passes when TRUE. */
  readonly checks: readonly QualityCheck[];
  /** `'quality.quarantine'`: the sink table that takes the rows that break a rule. */
  readonly quarantine: string | null;
  /** Without a quarantine: `fail` (the default, as Flink on bad records) or `drop` (count and skip). */
  readonly onViolation: "fail" | "drop";
}

export interface QualityCheck {
  readonly name: string;
  readonly expr: Expr;
  readonly sql: string;
}

/** The rule names a quarantined row carries besides the check names. */
export const BUILTIN_QUALITY_RULES = [
  "null-event-time",
  "invalid-event-time",
  "invalid-record",
  "max-future-skew",
  "max-age",
  "require-zone",
] as const;

export const QUALITY_PREFIX = "quality.";
export const QUALITY_CHECK_PREFIX = "quality.check.";

export const QUALITY_OPTIONS: readonly OptionSpec[] = [
  {
    key: "quality.max-future-skew",
    type: { kind: "duration" },
    description: "an event time more than this ahead of processing time breaks the rule (e.g. '24 h')",
  },
  {
    key: "quality.max-age",
    type: { kind: "duration" },
    description: "an event time more than this behind processing time breaks the rule (e.g. '30 d')",
  },
  {
    key: "quality.require-zone",
    type: { kind: "boolean" },
    description: "the text the event time is computed from must be ISO-8601 with a time zone",
  },
  {
    key: "quality.quarantine",
    type: { kind: "string" },
    description: "the sink table that takes rows that break a rule, with the rule, raw record and position",
  },
  {
    key: "quality.on-violation",
    type: { kind: "enum", values: ["fail", "drop"] },
    description: "without a quarantine: fail the job (default) or drop and count the row",
  },
];

/** The side-output port on which a source routes its quarantined rows ({@link QUARANTINE_FIELDS}). */
export const QUARANTINE_PORT = "quarantine";

/**
 * The fixed schema of the quarantine channel: a quarantine table declares any of these columns,
 * by name, in any order.
 */
export const QUARANTINE_FIELDS: readonly { readonly name: string; readonly kind: "text" | "time" }[] = [
  { name: "rule", kind: "text" },
  { name: "reason", kind: "text" },
  { name: "source_table", kind: "text" },
  { name: "position", kind: "text" },
  { name: "raw", kind: "text" },
  { name: "event_time", kind: "time" },
  { name: "watermark", kind: "time" },
  { name: "quarantined_at", kind: "time" },
];

/** Whether `t` can hold a quarantine field of `kind`. */
export function quarantineTypeFits(kind: "text" | "time", t: DataType): boolean {
  if (kind === "text") return t.kind === "VARCHAR" || t.kind === "CHAR";
  return (t.kind === "TIMESTAMP_LTZ" || t.kind === "TIMESTAMP") && t.precision >= 3;
}
