import { T } from "@weir/planner";
import { describe, expect, it } from "vitest";
import { mulberry32 } from "../../../test/support/random.js";
import { compileValueEncoder, formatPgTimestamp, formatPgTimestampUtc } from "../src/postgres/values.js";

const random = mulberry32;

/** Postgres' text of a timestamp, from `Date` (year 0 and before are 1 BC and before). */
function reference(ms: number): string {
  const d = new Date(ms);
  const y = d.getUTCFullYear();
  const p = (n: number, w: number) => String(n).padStart(w, "0");
  const bc = y <= 0;
  return `${p(bc ? 1 - y : y, 4)}-${p(d.getUTCMonth() + 1, 2)}-${p(d.getUTCDate(), 2)} ${p(d.getUTCHours(), 2)}:${p(d.getUTCMinutes(), 2)}:${p(d.getUTCSeconds(), 2)}.${p(d.getUTCMilliseconds(), 3)}${bc ? " BC" : ""}`;
}

describe("Postgres parameter text of timestamps (cached per second and day)", () => {
  it("equals the calendar's text for instants across the whole range, in and out of order", () => {
    const next = random(7);
    const instants: number[] = [
      0, -1, 1, -999, -1000, -1001, 86_399_999, 86_400_000, -86_400_000, -62_135_596_800_001,
    ];
    for (let i = 0; i < 20_000; i++) instants.push(Math.floor((next() - 0.5) * 2 * 8.64e15));
    // Runs within one second and across second, day and year boundaries (the caches' edges).
    for (const base of [1_700_000_000_000, 1_703_980_799_000, -62_135_596_800_000, 253_402_300_799_000]) {
      for (let i = -1500; i < 1500; i += 7) instants.push(base + i);
    }
    for (const ms of instants) {
      expect(formatPgTimestamp(ms), String(ms)).toBe(reference(ms));
      expect(formatPgTimestampUtc(ms), String(ms)).toBe(`${reference(ms)}+00`);
      // The other function right after, on the same second and the next: the caches are shared.
      expect(formatPgTimestamp(ms + 1), String(ms + 1)).toBe(reference(ms + 1));
    }
  });

  it("the TIMESTAMP and TIMESTAMP_LTZ encoders write those texts", () => {
    expect(compileValueEncoder(T.timestamp(3))(1_700_000_000_123)).toBe("2023-11-14 22:13:20.123");
    expect(compileValueEncoder(T.timestampLtz(3))(1_700_000_000_123)).toBe("2023-11-14 22:13:20.123+00");
    expect(compileValueEncoder(T.timestampLtz(3))(-62_135_596_800_001)).toBe("0001-12-31 23:59:59.999 BC+00");
  });
});
