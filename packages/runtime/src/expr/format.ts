import type { DataType } from "@weir/planner";
import { formatDate, formatTime, formatTimestamp, MS_PER_DAY } from "./datetime.js";
import { formatDecimal } from "./decimal.js";
import { formatPrecise } from "./timestamp-precision.js";
import type { Zone } from "./timezone.js";
import { instantToLocal } from "./timezone.js";

/** Java's `Double.toString`: `1.0`, `0.001`, `1.0E7`, `1.234E-5`, `NaN`, `Infinity`. */
export function javaDoubleToString(x: number): string {
  if (Number.isNaN(x)) return "NaN";
  if (!Number.isFinite(x)) return x > 0 ? "Infinity" : "-Infinity";
  if (x === 0) return Object.is(x, -0) ? "-0.0" : "0.0";
  const abs = Math.abs(x);
  if (abs >= 1e-3 && abs < 1e7) {
    const s = String(x);
    return s.includes(".") ? s : `${s}.0`;
  }
  const [mantissa, exp] = x.toExponential().split("e");
  return `${mantissa.includes(".") ? mantissa : `${mantissa}.0`}E${exp.startsWith("+") ? exp.slice(1) : exp}`;
}

/** Java's `Float.toString` for a FLOAT value: the shortest digits that round-trip through float32. */
export function javaFloatToString(x: number): string {
  const f = Math.fround(x);
  if (!Number.isFinite(f) || f === 0) return javaDoubleToString(f);
  for (let digits = 1; digits <= 9; digits++) {
    const candidate = Number(f.toPrecision(digits));
    if (Math.fround(candidate) === f) return javaDoubleToString(candidate);
  }
  return javaDoubleToString(f);
}

/** Flink's interval text: `+1 02:03:04.005` (day-time) or `+1-02` (year-month). */
export function formatInterval(value: number, kind: "INTERVAL_DAY_TIME" | "INTERVAL_YEAR_MONTH"): string {
  const sign = value < 0 ? "-" : "+";
  const abs = Math.abs(value);
  if (kind === "INTERVAL_YEAR_MONTH") {
    return `${sign}${Math.floor(abs / 12)}-${String(abs % 12).padStart(2, "0")}`;
  }
  const days = Math.floor(abs / MS_PER_DAY);
  return `${sign}${days} ${formatTime(abs - days * MS_PER_DAY, 3)}`;
}

const hex = (bytes: Uint8Array) =>
  Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("hex");

/**
 * A non-null value of `type` as Flink's CAST(... AS STRING) prints it. Containers print as
 * `[a, b]`, `{k=v}` and `(a, b)`, with NULL elements as `NULL`.
 */
export function formatSqlValue(value: unknown, type: DataType, zone: Zone): string {
  switch (type.kind) {
    case "BOOLEAN":
      return value ? "TRUE" : "FALSE";
    case "TINYINT":
    case "SMALLINT":
    case "INT":
    case "BIGINT":
      return String(value);
    case "FLOAT":
      return javaFloatToString(value as number);
    case "DOUBLE":
      return javaDoubleToString(value as number);
    case "DECIMAL":
      return formatDecimal(value as bigint, type.scale);
    case "CHAR":
    case "VARCHAR":
      return value as string;
    case "BINARY":
    case "VARBINARY":
      return new TextDecoder().decode(value as Uint8Array);
    case "DATE":
      return formatDate(value as number);
    case "TIME":
      return formatTime(value as number, type.precision);
    case "TIMESTAMP":
      if (typeof value === "bigint") return formatPrecise(value, type, zone);
      return formatTimestamp(value as number, type.precision);
    case "TIMESTAMP_LTZ":
      if (typeof value === "bigint") return formatPrecise(value, type, zone);
      return formatTimestamp(instantToLocal(value as number, zone), type.precision);
    case "INTERVAL_DAY_TIME":
    case "INTERVAL_YEAR_MONTH":
      return formatInterval(value as number, type.kind);
    case "ARRAY":
      return `[${(value as unknown[]).map((v) => formatNullable(v, type.element, zone)).join(", ")}]`;
    case "MULTISET": {
      const parts: string[] = [];
      for (const [k, n] of value as Map<unknown, number>)
        parts.push(`${formatNullable(k, type.element, zone)}=${n}`);
      return `{${parts.join(", ")}}`;
    }
    case "MAP": {
      const parts: string[] = [];
      for (const [k, v] of value as Map<unknown, unknown>) {
        parts.push(`${formatNullable(k, type.key, zone)}=${formatNullable(v, type.value, zone)}`);
      }
      return `{${parts.join(", ")}}`;
    }
    case "ROW":
      return `(${(value as unknown[]).map((v, i) => formatNullable(v, type.fields[i].type, zone)).join(", ")})`;
    case "NULL":
      return "NULL";
    default: {
      const _exhaustive: never = type;
      return _exhaustive;
    }
  }
}

function formatNullable(value: unknown, type: DataType, zone: Zone): string {
  return value === null || value === undefined ? "NULL" : formatSqlValue(value, type, zone);
}

export { hex as bytesToHex };
