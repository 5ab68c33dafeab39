import type { DataType } from "@weir/planner";
import { isPreciseTimestamp, millisToNanos, nanoOfMilli, nanosToMillis } from "@weir/runtime";
import { formatTimestamp, parseTimestamp } from "./temporal.js";

/**
 * Text forms of TIMESTAMP(4..9) / TIMESTAMP_LTZ(4..9) values, which are bigint epoch nanos at run
 * time (runtime `expr/timestamp-precision.ts`); TIMESTAMP(0..3) stays on `temporal.ts`' millis.
 * Written with exactly `precision` fraction digits (Flink's `yyyy-MM-dd HH:mm:ss.s{precision}`);
 * read with up to nine, the digits beyond the column's precision truncated.
 */

export { isPreciseTimestamp };

const SUB_MILLIS = /:\d{2}\.\d{3}(\d{1,6})/;

/** `parseTimestamp` of `temporal.ts`, keeping the digits beyond the millisecond: epoch nanos. */
export function parseTimestampNanos(text: string, zone: "forbidden" | "optional", precision: number): bigint {
  const ms = parseTimestamp(text, zone);
  const m = SUB_MILLIS.exec(text);
  const sub =
    m === null
      ? 0
      : Number(
          m[1]
            .padEnd(6, "0")
            .slice(0, Math.max(0, precision - 3))
            .padEnd(6, "0"),
        );
  return millisToNanos(ms, sub);
}

/** `yyyy-MM-dd{sep}HH:mm:ss.fffffffff` with exactly `precision` (4..9) fraction digits. */
export function formatTimestampNanos(ns: bigint, sep: " " | "T", precision: number): string {
  const base = formatTimestamp(nanosToMillis(ns), sep, 3);
  return (
    base +
    String(nanoOfMilli(ns))
      .padStart(6, "0")
      .slice(0, precision - 3)
  );
}

export function precisionOf(t: DataType): number {
  return (t as { precision: number }).precision;
}
