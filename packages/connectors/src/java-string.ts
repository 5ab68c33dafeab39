import type { DataType } from "@weir/planner";
import { nanoOfMilli, nanosToMillis } from "@weir/runtime";
import { formatDate, formatTime } from "./formats/temporal.js";

/**
 * How Flink's `print` connector shows a value: the `toString()` of its Java external type, as
 * `Row.toString` prints it (`+I[1, a]`). LocalDateTime prints `2024-01-01T12:00` (seconds only
 * when non-zero), Instant `2024-01-01T12:00:00Z`, BigDecimal keeps its scale, doubles print the
 * Java way (`1.0`, `1.0E10`), byte arrays as signed bytes `[1, -1]`, maps `{k=v}`.
 */
export function javaString(value: unknown, type: DataType): string {
  if (value === null || value === undefined) return "null";
  switch (type.kind) {
    case "BOOLEAN":
    case "TINYINT":
    case "SMALLINT":
    case "INT":
    case "BIGINT":
    case "CHAR":
    case "VARCHAR":
      return String(value);
    case "FLOAT":
      return javaDouble(value as number, true);
    case "DOUBLE":
      return javaDouble(value as number, false);
    case "DECIMAL":
      return javaBigDecimal(value as bigint, type.scale);
    case "BINARY":
    case "VARBINARY":
      return `[${Array.from(value as Uint8Array, (b) => (b > 127 ? b - 256 : b)).join(", ")}]`;
    case "DATE":
      return formatDate(value as number);
    case "TIME":
      return javaLocalTime(value as number);
    case "TIMESTAMP":
    case "TIMESTAMP_LTZ":
      if (typeof value === "bigint" && nanoOfMilli(value) !== 0) return javaNanos(value, type.kind);
      return javaStringMillis(typeof value === "bigint" ? nanosToMillis(value) : value, type);
    default:
      break;
  }
  return javaStringMillis(value, type);
}

/** LocalDateTime / Instant toString of a value with a sub-millisecond part: 6 or 9 fraction digits. */
function javaNanos(ns: bigint, kind: "TIMESTAMP" | "TIMESTAMP_LTZ"): string {
  const ms = nanosToMillis(ns);
  const days = Math.floor(ms / 86_400_000);
  const sub = nanoOfMilli(ns);
  const extra = sub % 1000 === 0 ? String(sub / 1000).padStart(3, "0") : String(sub).padStart(6, "0");
  return `${formatDate(days)}T${formatTime(ms - days * 86_400_000, 3)}${extra}${kind === "TIMESTAMP_LTZ" ? "Z" : ""}`;
}

function javaStringMillis(value: unknown, type: DataType): string {
  switch (type.kind) {
    case "TIMESTAMP": {
      const ms = value as number;
      const days = Math.floor(ms / 86_400_000);
      return `${formatDate(days)}T${javaLocalTime(ms - days * 86_400_000)}`;
    }
    case "TIMESTAMP_LTZ": {
      const ms = value as number;
      const days = Math.floor(ms / 86_400_000);
      const t = ms - days * 86_400_000;
      return `${formatDate(days)}T${formatTime(t, 0)}${t % 1000 === 0 ? "" : `.${formatTime(t, 3).slice(-3)}`}Z`;
    }
    case "INTERVAL_DAY_TIME":
      return javaDuration(value as number);
    case "INTERVAL_YEAR_MONTH":
      return javaPeriod(value as number);
    case "ARRAY":
      return `[${(value as unknown[]).map((v) => javaString(v, type.element)).join(", ")}]`;
    case "MAP":
      return `{${[...(value as Map<unknown, unknown>)].map(([k, v]) => `${javaString(k, type.key)}=${javaString(v, type.value)}`).join(", ")}}`;
    case "MULTISET":
      return `{${[...(value as Map<unknown, number>)].map(([k, n]) => `${javaString(k, type.element)}=${n}`).join(", ")}}`;
    case "ROW":
      return `+I[${type.fields.map((f, i) => javaString((value as unknown[])[i], f.type)).join(", ")}]`;
    case "NULL":
      return "null";
    default:
      return String(value);
  }
}

/** LocalTime.toString: `HH:mm`, then `:ss` when seconds or millis are non-zero, then `.SSS` when millis are. */
function javaLocalTime(ms: number): string {
  const full = formatTime(ms, 3);
  if (ms % 1000 !== 0) return full;
  return ms % 60_000 !== 0 ? full.slice(0, 8) : full.slice(0, 5);
}

/** Double.toString / Float.toString: plain in [1e-3, 1e7), else `d.dddE±n`; always a fraction digit. */
export function javaDouble(v: number, float: boolean): string {
  if (Number.isNaN(v)) return "NaN";
  if (!Number.isFinite(v)) return v > 0 ? "Infinity" : "-Infinity";
  if (v === 0) return Object.is(v, -0) ? "-0.0" : "0.0";
  // `d.ddde±n` with the shortest digits that round-trip (for FLOAT: through float32).
  const [mant, expText] = (float ? shortestFloat(v) : v.toExponential()).split("e");
  const exp = Number(expText);
  const abs = Math.abs(v);
  if (abs >= 1e-3 && abs < 1e7) {
    const neg = mant.startsWith("-");
    const ds = mant.replace("-", "").replace(".", "");
    let out: string;
    if (exp >= 0) {
      const intPart = ds.slice(0, exp + 1).padEnd(exp + 1, "0");
      const frac = ds.slice(exp + 1) || "0";
      out = `${intPart}.${frac}`;
    } else {
      out = `0.${"0".repeat(-exp - 1)}${ds}`;
    }
    return neg ? `-${out}` : out;
  }
  const m = mant.includes(".") ? mant : `${mant}.0`;
  return `${m}E${exp}`;
}

function shortestFloat(v: number): string {
  for (let p = 1; p <= 9; p++) {
    const s = v.toExponential(p - 1);
    if (Math.fround(Number(s)) === v) return s;
  }
  return v.toExponential(8);
}

/** BigDecimal.toString: plain unless the adjusted exponent is below −6 (then `1.23E-7`). */
export function javaBigDecimal(unscaled: bigint, scale: number): string {
  const neg = unscaled < 0n;
  const digits = (neg ? -unscaled : unscaled).toString();
  const adjusted = digits.length - 1 - scale;
  let out: string;
  if (scale >= 0 && adjusted >= -6) {
    if (scale === 0) out = digits;
    else {
      const padded = digits.padStart(scale + 1, "0");
      out = `${padded.slice(0, padded.length - scale)}.${padded.slice(padded.length - scale)}`;
    }
  } else {
    const mant = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    out = `${mant}E${adjusted >= 0 ? "+" : ""}${adjusted}`;
  }
  return neg ? `-${out}` : out;
}

/** java.time.Duration.toString: `PT8H6M12.345S`, `PT0S`. */
function javaDuration(ms: number): string {
  if (ms === 0) return "PT0S";
  const neg = ms < 0;
  let rest = Math.abs(ms);
  const h = Math.floor(rest / 3_600_000);
  rest -= h * 3_600_000;
  const m = Math.floor(rest / 60_000);
  rest -= m * 60_000;
  const sign = neg ? "-" : "";
  let out = "PT";
  if (h) out += `${sign}${h}H`;
  if (m) out += `${sign}${m}M`;
  if (rest) {
    const s = Math.floor(rest / 1000);
    const frac = rest % 1000;
    out += `${sign}${s}${frac ? `.${String(frac).padStart(3, "0").replace(/0+$/, "")}` : ""}S`;
  }
  return out;
}

/** java.time.Period.toString of Period.of(months / 12, months % 12, 0): `P1Y2M`, `P0D`. */
function javaPeriod(months: number): string {
  if (months === 0) return "P0D";
  const y = Math.trunc(months / 12);
  const m = months % 12;
  return `P${y ? `${y}Y` : ""}${m ? `${m}M` : ""}`;
}
