import { describe, expect, it } from "vitest";
import { dateParser, fixedLayoutParser, greedyMatcher, tokenize } from "../src/expr/date-format.js";

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

describe("lenient date parser: the fixed-layout parser agrees with the regex", () => {
  const patterns = [
    ...PATTERNS,
    "yyyy-MM-dd'T'HH:mm:ss",
    "hh:mm:ss yyyy-MM-dd",
    "kk:mm K",
    "yyyy D",
    "yyyy-MM-dd'T'HH:mm:ss.SSSxxx",
    "yyyyMMdd'T'HHmmssX",
  ];
  // Text in the pattern's layout from a seeded generator, then damaged: a character replaced,
  // dropped or doubled, digits, separators, signs, spaces and zones swapped in.
  let seed = 12345;
  const rand = (n: number) => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed % n;
  };
  const sample = (pattern: string): string => {
    let out = "";
    for (const t of tokenize(pattern)) {
      if ("literal" in t) out += t.literal;
      else if (t.letter === "X" || t.letter === "x" || t.letter === "Z")
        out += ["Z", "+09:00", "-0130", "+05", "-00:00", "+14:00"][rand(6)];
      else for (let k = 0; k < t.count; k++) out += String(rand(10));
    }
    return out;
  };
  const CHARS = "0123456789-+:T Z.x\t";
  const damage = (text: string): string => {
    const i = rand(text.length + 1);
    const c = CHARS[rand(CHARS.length)];
    switch (rand(5)) {
      case 0:
        return text.slice(0, i) + c + text.slice(i + 1);
      case 1:
        return text.slice(0, i) + text.slice(i + 1);
      case 2:
        return text.slice(0, i) + c + text.slice(i);
      case 3:
        return text.slice(0, i);
      default:
        return text;
    }
  };
  for (const pattern of patterns) {
    it(pattern, () => {
      const parse = dateParser(pattern, true);
      const fixed = fixedLayoutParser(tokenize(pattern));
      let taken = 0;
      for (let n = 0; n < 3000; n++) {
        let text = sample(pattern);
        for (let d = rand(3); d > 0; d--) text = damage(text);
        if (fixed !== null && !Number.isNaN(fixed(text, new Float64Array(1)))) taken++;
        const quick = parse(text);
        const quickOffset = quick === null ? undefined : parse.lastOffsetMs;
        // a leading space: the regex reads it (the fast paths decline leading whitespace)
        const slow = parse(` ${text}`);
        const slowOffset = slow === null ? undefined : parse.lastOffsetMs;
        expect({ text, v: quick, offset: quickOffset }).toEqual({ text, v: slow, offset: slowOffset });
      }
      // the layout is read by the fixed path (the test is about it), except for patterns without one
      if (fixed !== null) expect(taken).toBeGreaterThan(300);
    });
  }

  it("has a fixed layout for numeric patterns only, with the zone last", () => {
    expect(fixedLayoutParser(tokenize("yyyy-MM-dd'T'HH:mm:ssXXX"))).not.toBeNull();
    expect(fixedLayoutParser(tokenize("yyyy-MM-dd HH:mm:ss"))).not.toBeNull();
    expect(fixedLayoutParser(tokenize("dd MMM yyyy"))).toBeNull();
    expect(fixedLayoutParser(tokenize("hh:mm a"))).toBeNull();
    expect(fixedLayoutParser(tokenize("XXX yyyy"))).toBeNull();
    const zone = new Float64Array(1);
    const p = fixedLayoutParser(tokenize("yyyy-MM-dd'T'HH:mm:ssXXX"))!;
    expect(p("2026-06-24T09:30:15+09:00", zone)).toBe(Date.UTC(2026, 5, 24, 9, 30, 15));
    expect(zone[0]).toBe(9 * 3_600_000);
    // lenient: month 13 is January of the next year
    expect(p("2026-13-01T00:00:00Z", zone)).toBe(Date.UTC(2027, 0, 1));
    expect(p("20260-06-24T09:30:15Z", zone)).toBeNaN(); // five year digits: not the layout
    expect(p("2026-06-24T09:30:15", zone)).toBeNaN(); // no zone
  });
});
