import { T } from "@weir/planner";
import { describe, expect, it } from "vitest";
import {
  formatTimestampNanos,
  nanoOfMilli,
  nanosToMillis,
  parseTimestampNanos,
  truncateNanos,
  viaMillis,
} from "../src/expr/timestamp-precision.js";
import { keyCodec } from "../src/state/keys.js";
import { decodeRow, encodeRow } from "../src/state/row-codec.js";

describe("TIMESTAMP(4..9) values (bigint epoch nanos)", () => {
  it("splits nanos into the millisecond (floor) and the nanos within it, before 1970 too", () => {
    expect(nanosToMillis(1_782_304_496_123_456_789n)).toBe(1_782_304_496_123);
    expect(nanoOfMilli(1_782_304_496_123_456_789n)).toBe(456_789);
    expect(nanosToMillis(-1n)).toBe(-1);
    expect(nanoOfMilli(-1n)).toBe(999_999);
    expect(nanosToMillis(-1_000_000n)).toBe(-1);
    expect(nanoOfMilli(-1_000_000n)).toBe(0);
  });

  it("truncates to a precision toward the past (Flink's cast)", () => {
    expect(truncateNanos(1_782_304_496_123_456_789n, 6)).toBe(1_782_304_496_123_456_000n);
    expect(truncateNanos(1_782_304_496_123_456_789n, 4)).toBe(1_782_304_496_123_400_000n);
    expect(truncateNanos(-1n, 6)).toBe(-1000n);
    expect(truncateNanos(-1n, 9)).toBe(-1n);
  });

  it("parses and prints exactly p digits, one value per spelling", () => {
    expect(parseTimestampNanos("2026-06-24 12:34:56.123456789")).toBe(1_782_304_496_123_456_789n);
    expect(parseTimestampNanos("2026-06-24 12:34:56.123")).toBe(
      parseTimestampNanos("2026-06-24 12:34:56.123000000"),
    );
    expect(parseTimestampNanos("1969-12-31 23:59:59.999999999")).toBe(-1n);
    expect(parseTimestampNanos("2026-06-24 12:34:56.1234567891")).toBeNull();
    expect(formatTimestampNanos(-1n, 9)).toBe("1969-12-31 23:59:59.999999999");
    expect(formatTimestampNanos(1_782_304_496_100_000_000n, 9)).toBe("2026-06-24 12:34:56.100000000");
    expect(formatTimestampNanos(1_782_304_496_123_456_789n, 6)).toBe("2026-06-24 12:34:56.123456");
  });

  it("shifts by whole milliseconds (a zone offset) keeping the nanos", () => {
    expect(viaMillis(1_782_304_496_123_456_789n, (ms) => ms + 3_600_000)).toBe(1_782_308_096_123_456_789n);
    expect(viaMillis(-1n, (ms) => ms + 1)).toBe(999_999n);
  });

  it("is its own state key: one key per value, and the key decodes back to the bigint", () => {
    const single = keyCodec([0], [T.timestamp(9)]);
    const k1 = single.encode([1_782_304_496_123_456_789n]);
    const k2 = single.encode([1_782_304_496_123_456_788n]);
    expect(k1).not.toBe(k2);
    expect(single.encode([1_782_304_496_123_456_789n])).toBe(k1);
    expect(single.decode(k1)).toEqual([1_782_304_496_123_456_789n]);
    expect(single.decode(single.encode([null]))).toEqual([null]);
    const millis = keyCodec([0], [T.timestamp(3)]);
    expect(millis.decode(millis.encode([1_782_304_496_123]))).toEqual([1_782_304_496_123]);
    const pair = keyCodec([0, 1], [T.timestampLtz(6), T.string()]);
    expect(pair.decode(pair.encode([-1000n, "a"]))).toEqual([-1000n, "a"]);
  });

  it("round-trips through the row codec", () => {
    const row = [1_782_304_496_123_456_789n, -1n, 1_782_304_496_123, null];
    expect(decodeRow(encodeRow(row))).toEqual(row);
  });
});
