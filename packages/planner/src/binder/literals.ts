import type { IntervalLiteral, NumberLiteral, TypedLiteral } from "@weir/parser";
import type { Literal } from "../expr.js";
import { E } from "../expr.js";
import { T } from "../types.js";
import { isYearMonthUnit } from "./data-types.js";
import { fail } from "./errors.js";

const INT_MAX = 2147483647n;
const BIGINT_MAX = 9223372036854775807n;

/**
 * Flink's literal typing: an integer is INT NOT NULL (BIGINT, then DECIMAL(p, 0), when it does
 * not fit), a decimal point gives DECIMAL(p, s) NOT NULL with p and s from the digits, an
 * exponent gives DOUBLE NOT NULL.
 */
export function bindNumber(node: NumberLiteral, negative: boolean): Literal {
  const text = node.text;
  const sign = negative ? "-" : "";
  // an approximate literal goes through BigDecimal in Calcite: -0.0e0 is 0.0 (no negative zero)
  if (/[eE]/.test(text)) return E.literal(Number(sign + text) || 0, T.double(false));
  if (!text.includes(".")) {
    const n = BigInt(text);
    const limit = negative ? 1n : 0n;
    if (n <= INT_MAX + limit) return E.literal(Number(sign + text), T.int(false));
    if (n <= BIGINT_MAX + limit) {
      const v = negative ? -n : n;
      const safe = v <= BigInt(Number.MAX_SAFE_INTEGER) && v >= BigInt(Number.MIN_SAFE_INTEGER);
      return E.literal(safe ? Number(v) : v.toString(), T.bigint(false));
    }
    const digits = n.toString();
    if (digits.length > 38)
      fail("literal-out-of-range", `numeric literal ${text} is out of range`, node.span);
    return E.literal(sign + digits, T.decimal(digits.length, 0, false));
  }
  const [intPart, fracPart] = text.split(".") as [string, string];
  const scale = fracPart.length;
  const unscaled = BigInt((intPart || "0") + fracPart).toString();
  // Calcite's precision of an exact literal is its digit count as written, leading zeros
  // included: 0.1 is DECIMAL(2, 1), so 0.1 + 0.2 is DECIMAL(3, 1) as in Flink.
  const precision = Math.max(unscaled.length, text.length - 1, scale, 1);
  if (precision > 38)
    fail("literal-out-of-range", `numeric literal ${text} has more than 38 digits`, node.span);
  const intDigits = BigInt(intPart || "0").toString();
  const value = scale === 0 ? `${sign}${intDigits}` : `${sign}${intDigits}.${fracPart}`;
  return E.literal(value, T.decimal(precision, scale, false));
}

const MS: Record<string, number> = {
  DAY: 86_400_000,
  HOUR: 3_600_000,
  MINUTE: 60_000,
  SECOND: 1000,
  MILLISECOND: 1,
  WEEK: 7 * 86_400_000,
};

const UNIT_WORDS: Record<string, string> = {
  year: "YEAR",
  years: "YEAR",
  month: "MONTH",
  months: "MONTH",
  week: "WEEK",
  weeks: "WEEK",
  day: "DAY",
  days: "DAY",
  hour: "HOUR",
  hours: "HOUR",
  minute: "MINUTE",
  minutes: "MINUTE",
  second: "SECOND",
  seconds: "SECOND",
  millisecond: "MILLISECOND",
  milliseconds: "MILLISECOND",
};

/** An interval literal as milliseconds (INTERVAL DAY TO SECOND) or months (INTERVAL YEAR TO MONTH). */
export function bindInterval(node: IntervalLiteral, negative: boolean): Literal {
  let text = node.value.trim();
  let sign = node.negative !== negative ? -1 : 1;
  if (text.startsWith("-")) {
    sign = -sign;
    text = text.slice(1).trim();
  } else if (text.startsWith("+")) {
    text = text.slice(1).trim();
  }
  const bad = (expected: string): never =>
    fail("invalid-interval", `invalid interval literal '${node.value}': expected ${expected}`, node.span);
  let start: string;
  let end: string | undefined;
  if (node.qualifier) {
    start = node.qualifier.start;
    end = node.qualifier.end;
  } else {
    const m = /^(\d+(?:\.\d+)?)\s*([a-zA-Z]+)$/.exec(text);
    const unit = m ? UNIT_WORDS[m[2]!.toLowerCase()] : undefined;
    if (!m || unit === undefined) return bad("a number and a unit, e.g. '5 minutes'");
    start = unit;
    text = m[1]!;
  }
  const yearMonth = isYearMonthUnit(start as never);
  if (yearMonth) {
    if (start === "YEAR" && end === "MONTH") {
      const m = /^(\d+)-(\d+)$/.exec(text) ?? bad("'years-months'");
      return E.literal(sign * (Number(m[1]) * 12 + Number(m[2])), T.intervalYearMonth(false));
    }
    if (end !== undefined || !/^\d+$/.test(text)) bad("an integer");
    const factor = start === "YEAR" ? 12 : start === "QUARTER" ? 3 : start === "MONTH" ? 1 : 0;
    if (factor === 0) bad("YEAR, QUARTER or MONTH");
    return E.literal(sign * Number(text) * factor, T.intervalYearMonth(false));
  }
  const fields = end === undefined ? [start] : unitsBetween(start, end);
  if (fields === undefined) return bad(`a valid range of units (${start} TO ${end})`);
  // Day is separated by a space, the time fields by colons.
  const parts: string[] = [];
  let rest = text;
  if (fields[0] === "DAY" && fields.length > 1) {
    const m = /^(\d+)\s+(.*)$/.exec(rest) ?? bad(`'days ${fields.slice(1).join(":").toLowerCase()}'`);
    parts.push(m[1]!);
    rest = m[2]!;
    parts.push(...rest.split(":"));
  } else {
    parts.push(...rest.split(":"));
  }
  if (parts.length !== fields.length) bad(fields.join(" TO ").toLowerCase());
  let ms = 0;
  for (let i = 0; i < fields.length; i++) {
    const p = parts[i]!;
    const isLastSecond = fields[i] === "SECOND";
    if (!(isLastSecond ? /^\d+(\.\d+)?$/ : /^\d+$/).test(p)) bad(`a number for ${fields[i]}`);
    ms += Number(p) * MS[fields[i]!]!;
  }
  return E.literal(sign * Math.round(ms), T.intervalDayTime(false));
}

function unitsBetween(start: string, end: string): string[] | undefined {
  const order = ["DAY", "HOUR", "MINUTE", "SECOND"];
  const a = order.indexOf(start);
  const b = order.indexOf(end);
  if (a < 0 || b <= a) return undefined;
  return order.slice(a, b + 1);
}

/** `DATE 'yyyy-MM-dd'`, `TIME 'HH:mm:ss[.SSS]'`, `TIMESTAMP 'yyyy-MM-dd HH:mm:ss[.SSS]'`. */
export function bindTypedLiteral(node: TypedLiteral): Literal {
  const v = node.value.trim();
  switch (node.type) {
    case "DATE": {
      const days = parseDate(v);
      if (days === undefined)
        fail("invalid-literal", `invalid DATE literal '${node.value}'`, node.span, "use 'yyyy-MM-dd'");
      return E.literal(days, T.date(false));
    }
    case "TIME": {
      const t = parseTime(v);
      if (t === undefined)
        fail("invalid-literal", `invalid TIME literal '${node.value}'`, node.span, "use 'HH:mm:ss'");
      return E.literal(t.ms, T.time(Math.min(3, t.precision), false));
    }
    case "TIMESTAMP": {
      const m = /^(\d{4}-\d{1,2}-\d{1,2})(?:[ T](.+))?$/.exec(v);
      const days = m ? parseDate(m[1]!) : undefined;
      const t = m?.[2] !== undefined ? parseTime(m[2]) : { ms: 0, precision: 0, subMillisNanos: 0 };
      if (days === undefined || t === undefined) {
        fail(
          "invalid-literal",
          `invalid TIMESTAMP literal '${node.value}'`,
          node.span,
          "use 'yyyy-MM-dd HH:mm:ss[.SSS]'",
        );
      }
      const ms = days * 86_400_000 + t.ms;
      // TIMESTAMP(4..9) values are bigint epoch nanos at run time: the literal carries their digits
      if (t.precision > 3) {
        const nanos = BigInt(ms) * 1_000_000n + BigInt(t.subMillisNanos);
        return E.literal(String(nanos), T.timestamp(t.precision, false));
      }
      return E.literal(ms, T.timestamp(t.precision, false));
    }
    default: {
      const _exhaustive: never = node.type;
      return _exhaustive;
    }
  }
}

function parseDate(s: string): number | undefined {
  const m = /^(\d{4})-(\d{1,2})-(\d{1,2})$/.exec(s);
  if (!m) return undefined;
  const y = Number(m[1]);
  const mo = Number(m[2]);
  const d = Number(m[3]);
  // setUTCFullYear, not Date.UTC: Date.UTC reads years 0–99 as 1900–1999 (DATE '0001-01-01')
  const back = new Date(0);
  back.setUTCFullYear(y, mo - 1, d);
  const ms = back.getTime();
  if (back.getUTCFullYear() !== y || back.getUTCMonth() !== mo - 1 || back.getUTCDate() !== d)
    return undefined;
  return ms / 86_400_000;
}

function parseTime(s: string): { ms: number; precision: number; subMillisNanos: number } | undefined {
  const m = /^(\d{1,2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?$/.exec(s);
  if (!m) return undefined;
  const h = Number(m[1]);
  const mi = Number(m[2]);
  const sec = m[3] === undefined ? 0 : Number(m[3]);
  if (h > 23 || mi > 59 || sec > 59) return undefined;
  const frac = m[4] ?? "";
  const ms = Number(frac.padEnd(3, "0").slice(0, 3));
  const subMillisNanos = Number(frac.padEnd(9, "0").slice(3, 9));
  return { ms: ((h * 60 + mi) * 60 + sec) * 1000 + ms, precision: frac.length, subMillisNanos };
}
