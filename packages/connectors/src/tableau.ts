import type { DataType, Field } from "@weir/planner";
import { type ChangeBatch, type Op, opDisplay, type Row, viaMillis } from "@weir/runtime";
import { formatDecimal } from "./formats/decimal.js";
import { formatDate, formatTime, formatTimestamp } from "./formats/temporal.js";
import { formatTimestampNanos } from "./formats/temporal-precision.js";
import { javaDouble } from "./java-string.js";

/**
 * Values and tables as Flink's SQL client prints query results in `tableau` mode: values are
 * shown as `CAST(x AS STRING)` would print them (TIMESTAMP(3) `2024-01-01 12:00:00.000`,
 * DECIMAL with its scale, `TRUE`/`FALSE`, bytes `x'0aff'`, rows `(1, a)`), NULL as `<NULL>`.
 */

export interface TableauOptions {
  /** Zone for TIMESTAMP_LTZ values (`'table.local-time-zone'`); default UTC. */
  readonly timeZone?: string;
}

export function formatValue(value: unknown, type: DataType, options: TableauOptions = {}): string {
  return value === null || value === undefined ? "<NULL>" : castString(value, type, options, false);
}

function castString(value: unknown, type: DataType, o: TableauOptions, nested: boolean): string {
  if (value === null || value === undefined) return nested ? "NULL" : "<NULL>";
  switch (type.kind) {
    case "BOOLEAN":
      return value ? "TRUE" : "FALSE";
    case "TINYINT":
    case "SMALLINT":
    case "INT":
    case "BIGINT":
    case "CHAR":
    case "VARCHAR":
      return String(value);
    case "FLOAT":
    case "DOUBLE":
      return javaDouble(value as number, type.kind === "FLOAT");
    case "DECIMAL":
      return formatDecimal(value as bigint, type.scale);
    case "BINARY":
    case "VARBINARY":
      return `x'${Buffer.from(value as Uint8Array).toString("hex")}'`;
    case "DATE":
      return formatDate(value as number);
    case "TIME":
      return formatTime(value as number, type.precision);
    case "TIMESTAMP":
      if (typeof value === "bigint") return formatTimestampNanos(value, " ", type.precision);
      return formatTimestamp(value as number, " ", type.precision);
    case "TIMESTAMP_LTZ":
      if (typeof value === "bigint")
        return formatTimestampNanos(
          viaMillis(value, (ms) => ms + zoneOffsetMs(ms, o.timeZone)),
          " ",
          type.precision,
        );
      return formatTimestamp(
        (value as number) + zoneOffsetMs(value as number, o.timeZone),
        " ",
        type.precision,
      );
    case "INTERVAL_DAY_TIME":
      return intervalDayTime(value as number);
    case "INTERVAL_YEAR_MONTH": {
      const m = value as number;
      const a = Math.abs(m);
      return `${m < 0 ? "-" : "+"}${Math.floor(a / 12)}-${String(a % 12).padStart(2, "0")}`;
    }
    case "ARRAY":
      return `[${(value as unknown[]).map((v) => castString(v, type.element, o, true)).join(", ")}]`;
    case "MAP":
      return `{${[...(value as Map<unknown, unknown>)].map(([k, v]) => `${castString(k, type.key, o, true)}=${castString(v, type.value, o, true)}`).join(", ")}}`;
    case "MULTISET":
      return `{${[...(value as Map<unknown, number>)].map(([k, n]) => `${castString(k, type.element, o, true)}=${n}`).join(", ")}}`;
    case "ROW":
      return `(${type.fields.map((f, i) => castString((value as unknown[])[i], f.type, o, true)).join(", ")})`;
    case "NULL":
      return nested ? "NULL" : "<NULL>";
    default: {
      const _exhaustive: never = type;
      return _exhaustive;
    }
  }
}

/** Flink's `+d hh:mm:ss.SSS` form of a day-time interval. */
function intervalDayTime(ms: number): string {
  const a = Math.abs(ms);
  const days = Math.floor(a / 86_400_000);
  return `${ms < 0 ? "-" : "+"}${days} ${formatTime(a - days * 86_400_000, 3)}`;
}

const offsetFormatters = new Map<string, Intl.DateTimeFormat>();

/** The zone's UTC offset at `instant`, in ms (0 for UTC or no zone). */
function zoneOffsetMs(instant: number, zone: string | undefined): number {
  if (zone === undefined || zone === "UTC" || zone === "Z") return 0;
  let f = offsetFormatters.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat("en-US", {
      timeZone: zone,
      hourCycle: "h23",
      year: "numeric",
      month: "numeric",
      day: "numeric",
      hour: "numeric",
      minute: "numeric",
      second: "numeric",
    });
    offsetFormatters.set(zone, f);
  }
  const p: Record<string, number> = {};
  for (const part of f.formatToParts(new Date(instant))) p[part.type] = Number(part.value);
  const local = Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second);
  return local - (instant - (((instant % 1000) + 1000) % 1000));
}

/** Display width of a cell: East Asian wide characters take two columns, as in Flink's client. */
function width(s: string): number {
  let w = 0;
  for (const ch of s) {
    const c = ch.codePointAt(0) as number;
    w +=
      (c >= 0x1100 && c <= 0x115f) ||
      (c >= 0x2e80 && c <= 0xa4cf) ||
      (c >= 0xac00 && c <= 0xd7a3) ||
      (c >= 0xf900 && c <= 0xfaff) ||
      (c >= 0xfe30 && c <= 0xfe4f) ||
      (c >= 0xff00 && c <= 0xff60) ||
      (c >= 0xffe0 && c <= 0xffe6) ||
      (c >= 0x20000 && c <= 0x3fffd)
        ? 2
        : 1;
  }
  return w;
}

/**
 * Flink's streaming tableau: an `op` column then one column per field, values right-aligned,
 * each column as wide as its widest cell, and a `Received a total of N rows` footer. Lines end
 * in `\n`.
 */
export function renderTableau(
  schema: readonly Field[],
  changes: ChangeBatch | readonly (readonly [Op, Row])[],
  options: TableauOptions = {},
): string {
  const pairs: (readonly [Op, Row])[] = [];
  if ("ops" in changes) {
    for (let i = 0; i < changes.length; i++) pairs.push([changes.ops[i] as Op, changes.rows[i]]);
  } else {
    pairs.push(...changes);
  }
  const header = ["op", ...schema.map((f) => f.name)];
  const cells = pairs.map(([op, row]) => [
    opDisplay(op),
    ...schema.map((f, i) => formatValue(row[i], f.type, options)),
  ]);
  const widths = header.map((h, c) => Math.max(width(h), ...cells.map((r) => width(r[c]))));
  const rule = `+${widths.map((w) => "-".repeat(w + 2)).join("+")}+`;
  const line = (r: readonly string[]) =>
    `| ${r.map((v, c) => " ".repeat(widths[c] - width(v)) + v).join(" | ")} |`;
  const out = [rule, line(header), rule, ...cells.map(line), rule];
  out.push(`Received a total of ${pairs.length} ${pairs.length === 1 ? "row" : "rows"}`);
  return `${out.join("\n")}\n`;
}
