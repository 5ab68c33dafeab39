import { describe, expect, it } from "vitest";
import { dateParser, greedyMatcher, tokenize } from "../src/expr/dateFormat.js";

/**
 * The lenient parser (UNIX_TIMESTAMP) reads common patterns without its regex. A leading space
 * sends the same text through the regex (`^\s*` skips it; the greedy matcher declines leading
 * whitespace), so `parse(text)` and `parse(" " + text)` must agree, offset included.
 */
const PATTERNS = [
  "yyyy-MM-dd HH:mm:ss",
  "yyyy-MM-dd'T'HH:mm:ssXXX",
  "yyyy-MM-dd'T'HH:mm:ss.SSSX",
  "yyyyMMddHHmmss",
  "yy-M-d H:m",
  "dd/MM/yyyy",
  "yyyy-MM-dd HH:mm:ss.SSSZ",
  "HH:mm:ss.S",
];
const TEXTS = [
  "2026-06-24 00:00:00",
  "2026-06-24T09:30:15+09:00",
  "2026-06-24T09:30:15-0130",
  "2026-06-24T09:30:15+05",
  "2026-06-24T09:30:15Z",
  "2026-06-24T09:30:15z",
  "2026-06-24T09:30:15+5",
  "2026-06-24T09:30:15+05:",
  "2026-06-24T09:30:15+05:3",
  "2026-06-24T09:30:15.1+01:00",
  "2026-06-24T09:30:15.12345Z",
  "2026-06-24 09:30:15.9-08:00 trailing",
  "2024-02-29 23:59:59",
  "2023-02-29 23:59:59",
  "2026-13-45 25:61:61",
  "-0044-03-15 12:00:00",
  "20260624093015",
  "2026062409301",
  "26-6-4 7:5",
  "24/06/2026",
  "2026-06-24  00:00:00",
  "2026-06-24\t00:00:00",
  "2026-06-24 \u00a000:00:00",
  "99999999999999999999-01-01 00:00:00",
  "00000000000000000000002026-06-24 00:00:00",
  "2026-06-24",
  "x2026-06-24 00:00:00",
  "09:30:15.5",
  "09:30:15.123456",
  "",
];

describe("lenient date parser: the greedy matcher agrees with the regex", () => {
  for (const pattern of PATTERNS) {
    it(pattern, () => {
      const parse = dateParser(pattern, true);
      for (const text of TEXTS) {
        const quick = parse(text);
        const quickOffset = quick === null ? undefined : parse.lastOffsetMs;
        const slow = parse(` ${text}`);
        const slowOffset = slow === null ? undefined : parse.lastOffsetMs;
        expect({ text, v: quick, offset: quickOffset }).toEqual({ text, v: slow, offset: slowOffset });
      }
    });
  }

  it("reads the common shapes itself", () => {
    const m = greedyMatcher(tokenize("yyyy-MM-dd'T'HH:mm:ssXXX"))!;
    expect(m("2026-06-24T09:30:15+09:00")).toEqual([2026, 6, 24, 9, 30, 15, 9 * 3_600_000]);
    expect(m("2026-06-24T09:30:15-01:30")).toEqual([2026, 6, 24, 9, 30, 15, -5_400_000]);
    expect(m(" 2026-06-24T09:30:15Z")).toBeUndefined();
    expect(greedyMatcher(tokenize("dd MMM yyyy"))).toBeNull();
    // S is SimpleDateFormat's count of milliseconds, not a fraction: `.5` is 5 ms, `.123456` 123.456 s
    const ms = greedyMatcher(tokenize("yyyy-MM-dd HH:mm:ss.SSS"))!;
    expect(ms("2026-06-24 00:00:00.5")).toEqual([2026, 6, 24, 0, 0, 0, 5]);
    expect(ms("2026-06-24 00:00:00.123456")).toEqual([2026, 6, 24, 0, 0, 0, 123456]);
    // and the same instant as the regex path (which UNIX_TIMESTAMP takes when the matcher declines)
    const unix = dateParser("yyyy-MM-dd HH:mm:ss.SSS", true);
    expect(unix("2026-06-24 00:00:00.123456")).toBe(Date.UTC(2026, 5, 24) + 123456);
  });
});
