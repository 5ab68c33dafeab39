import { E, T } from "@weir/planner";
import { describe, expect, it } from "vitest";
import { compileExpr, defaultEvalContext, getZone, localToInstant } from "../src/expr/index.js";
import { call, col, ev, lit } from "./expr-helpers.js";

const s = lit.str;
const i = lit.int;

describe("string functions", () => {
  it("SPLIT_INDEX gives token i of a split on the whole separator, for any string, separator and index", () => {
    let seed = 3;
    const rand = (k: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % k;
    };
    const f = compileExpr(
      call("SPLIT_INDEX", col(0, T.string()), col(1, T.string()), col(2, T.int())),
      defaultEvalContext(),
    );
    const chars = ["a", "b", "/", ":", "é"];
    for (let n = 0; n < 2000; n++) {
      const str = Array.from({ length: rand(9) }, () => chars[rand(chars.length)]).join("");
      const sep = ["/", "::", "ab", "a", "/a/"][rand(5)]!;
      const index = rand(6) - 1;
      const parts = str.split(sep);
      const want = index < 0 || str === "" || index >= parts.length ? null : parts[index];
      expect(f([str, sep, index]), JSON.stringify([str, sep, index])).toBe(want);
    }
  });

  it("SPLIT_INDEX on one string several times (the separators kept between calls) gives each token as on its own", () => {
    let seed = 11;
    const rand = (k: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % k;
    };
    const f = compileExpr(
      call("SPLIT_INDEX", col(0, T.string()), col(1, T.string()), col(2, T.int())),
      defaultEvalContext(),
    );
    const chars = ["a", "/", ":", "😀"];
    for (let n = 0; n < 500; n++) {
      const str = Array.from({ length: rand(12) }, () => chars[rand(chars.length)]).join("");
      // An equal string that is another object, as the next row's value would be.
      const other = str.split("").join("");
      // Several calls in a row on the same value, indices up and down, the separator changing.
      for (let k = 0; k < 6; k++) {
        const sep = ["/", "a/", "aa", "😀"][rand(4)]!;
        const index = rand(8) - 1;
        const value = k % 2 === 0 ? str : other;
        const parts = value.split(sep);
        const want = index < 0 || value === "" || index >= parts.length ? null : parts[index];
        expect(f([value, sep, index]), JSON.stringify([value, sep, index])).toBe(want);
      }
    }
    // NULL in any argument is NULL, and the next call is not confused by it.
    expect(f(["a/b/c", null, 1])).toBeNull();
    expect(f([null, "/", 1])).toBeNull();
    expect(f(["a/b/c", "/", null])).toBeNull();
    expect(f(["a/b/c", "/", 2])).toBe("c");
    expect(f(["a/b/c", "/", 0])).toBe("a");
    expect(f(["a/b/c", "/", 3])).toBeNull();
    expect(f(["a/b/c/", "/", 3])).toBe("");
  });

  it("REPLACE is Java's literal String.replace, `$` patterns included", () => {
    let seed = 5;
    const rand = (k: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % k;
    };
    const f = compileExpr(
      call("REPLACE", col(0, T.string()), col(1, T.string()), col(2, T.string())),
      defaultEvalContext(),
    );
    const chars = ["a", "c", "$", "&", "😀"];
    const targets = ["c", "aa", "$", "$&", "😀", "ca"];
    const replacements = ["", "x", "$&", "$$", "$1", "$`", "$'", "c", "$<n>"];
    for (let n = 0; n < 2000; n++) {
      const str = Array.from({ length: rand(10) }, () => chars[rand(chars.length)]).join("");
      const from = targets[rand(targets.length)]!;
      const to = replacements[rand(replacements.length)]!;
      expect(f([str, from, to]), JSON.stringify([str, from, to])).toBe(str.split(from).join(to));
    }
    expect(f(["aaa", "aa", "b"])).toBe("ba"); // left to right, no overlaps
    expect(f(["ab", "", "$&"])).toBe("$&a$&b$&");
    expect(f(["", "", "-"])).toBe("-");
    expect(f([null, "c", ""])).toBeNull();
    expect(f(["c", null, ""])).toBeNull();
    expect(f(["c", "c", null])).toBeNull();
  });

  it.each([
    ["UPPER", [s("aBc")], "ABC"],
    ["LOWER", [s("aBc")], "abc"],
    ["INITCAP", [s("hello wORLD-x1y")], "Hello World-X1y"],
    ["TRIM", [lit.kw("BOTH"), s(" "), s("  ab  ")], "ab"],
    ["TRIM", [lit.kw("LEADING"), s("x"), s("xxabxx")], "abxx"],
    ["TRIM", [lit.kw("TRAILING"), s("xy"), s("xxabyx")], "xxab"],
    ["LTRIM", [s("  ab ")], "ab "],
    ["RTRIM", [s("  ab ")], "  ab"],
    ["SUBSTRING", [s("Hello World"), i(7)], "World"],
    ["SUBSTRING", [s("Hello World"), i(1), i(5)], "Hello"],
    ["SUBSTRING", [s("Hello World"), i(-5), i(3)], "Wor"],
    ["SUBSTRING", [s("Hello"), i(0), i(2)], "He"],
    ["SUBSTRING", [s("Hello"), i(10)], ""],
    ["SUBSTR", [s("😀ab"), i(2)], "ab"],
    ["CONCAT", [s("a"), s("b"), s("c")], "abc"],
    ["CONCAT", [s("a"), s(null)], null],
    ["CONCAT_WS", [s("~"), s("AA"), s(null), s("BB"), s("")], "AA~BB~"],
    ["CONCAT_WS", [s(null), s("AA")], null],
    ["||", [s("a"), s("b")], "ab"],
    ["CHAR_LENGTH", [s("héllo😀")], 6],
    ["POSITION", [s("lo"), s("hello lo")], 4],
    ["POSITION", [s("z"), s("hello")], 0],
    ["LOCATE", [s("lo"), s("hello lo"), i(5)], 7],
    ["REPLACE", [s("hello world"), s("world"), s("flink")], "hello flink"],
    ["OVERLAY", [s("This is an old string"), s(" new"), i(10), i(5)], "This is a new string"],
    ["REGEXP", [s("abc123"), s("\\d+")], true],
    ["REGEXP", [s("abc"), s("(?i)ABC")], true],
    ["REGEXP_EXTRACT", [s("foothebar"), s("foo(.*?)(bar)"), i(2)], "bar"],
    ["REGEXP_EXTRACT", [s("foothebar"), s("foo(.*?)(bar)")], "foothebar"], // group 0 by default
    ["REGEXP_EXTRACT", [s("foothebar"), s("foo(.*?)(bar)"), i(3)], null],
    ["REGEXP_EXTRACT", [s("abc"), s("(")], null], // invalid regex
    ["REGEXP_REPLACE", [s("foobar"), s("oo|ar"), s("")], "fb"],
    // Flink quotes the replacement (Matcher.quoteReplacement): `$1` is literal text
    ["REGEXP_REPLACE", [s("2024-01-02"), s("(\\d+)-(\\d+)-(\\d+)"), s("$3/$2/$1")], "$3/$2/$1"],
    ["REGEXP_REPLACE", [s("a.b"), s("\\Q.\\E"), s("\\$")], "a\\$b"],
    ["SPLIT_INDEX", [s("Jack,John,Mary"), s(","), i(2)], "Mary"],
    ["SPLIT_INDEX", [s("Jack,John,Mary"), s(","), i(3)], null],
    ["SPLIT_INDEX", [s("Jack,John,Mary"), s(","), i(-1)], null],
    ["LPAD", [s("hi"), i(4), s("??")], "??hi"],
    ["LPAD", [s("hi"), i(1), s("??")], "h"],
    ["RPAD", [s("hi"), i(5), s("ab")], "hiaba"],
    ["RPAD", [s("hi"), i(-1), s("ab")], null],
    ["REPEAT", [s("ab"), i(3)], "ababab"],
    ["REVERSE", [s("abc")], "cba"],
    ["MD5", [s("")], "d41d8cd98f00b204e9800998ecf8427e"],
    ["SHA1", [s("abc")], "a9993e364706816aba3e25717850c26c9cd0d89d"],
    ["SHA256", [s("abc")], "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"],
    ["TO_BASE64", [s("hello world")], "aGVsbG8gd29ybGQ="],
    ["FROM_BASE64", [s("aGVsbG8gd29ybGQ=")], "hello world"],
    ["ASCII", [s("abc")], 97],
    ["ASCII", [s("")], 0],
    ["CHR", [i(97)], "a"],
    ["CHR", [i(353)], "a"],
    ["LEFT", [s("hello"), i(2)], "he"],
    ["RIGHT", [s("hello"), i(2)], "lo"],
    ["LEFT", [s("hello"), i(-1)], ""],
  ])("%s(%#) = %j", (fn, args, expected) => {
    expect(ev(call(fn, ...args))).toBe(expected);
  });

  it.each([
    ["abc", "a%", null, true],
    ["abc", "_b_", null, true],
    ["abc", "a_", null, false],
    ["a%c", "a!%c", "!", true],
    ["abc", "a!%c", "!", false],
    ["a.c", "a.c", null, true],
    ["axc", "a.c", null, false],
    ["line\nbreak", "line%", null, true],
  ])("%j LIKE %j ESCAPE %j = %s", (v, pattern, esc, expected) => {
    const args = [s(v), s(pattern), ...(esc ? [s(esc)] : [])];
    expect(ev(call("LIKE", ...args))).toBe(expected);
    // a non-literal pattern goes through the run-time cache
    expect(ev(call("LIKE", s(v), col(0, T.string()), ...(esc ? [s(esc)] : [])), [pattern])).toBe(expected);
  });
  it.each([
    ["abc", "(a|x)bc", true],
    ["xbc", "(a|x)bc", true],
    ["abbbc", "ab+c", true],
    ["a.c", "a.c", true],
    ["abc", "a.c", true], // '.' is a regex wildcard in Flink's SIMILAR TO
    ["abc", "%c", true],
  ])("%j SIMILAR TO %j = %s", (v, pattern, expected) => {
    expect(ev(call("SIMILAR TO", s(v), s(pattern)))).toBe(expected);
  });
});

describe("math functions", () => {
  const d = lit.double;
  it.each([
    ["ABS", [i(-3)], 3],
    ["ABS", [lit.dec("-1.50", 3, 2)], 150n],
    ["POWER", [i(2), i(10)], 1024],
    ["SQRT", [d(16)], 4],
    ["LN", [d(Math.E)], 1],
    ["LOG10", [d(1000)], 3],
    ["LOG2", [d(8)], 3],
    ["LOG", [d(2), d(8)], 3],
    ["EXP", [d(0)], 1],
    ["SIGN", [d(-2.5)], -1],
    ["SIGN", [lit.dec("-2.5", 2, 1)], -10n],
    ["ROUND", [d(2.5)], 3],
    ["ROUND", [d(-2.5)], -3],
    ["ROUND", [d(1.005), i(2)], 1.01],
    ["ROUND", [d(125.315), i(-1)], 130],
    ["ROUND", [lit.dec("1.235", 4, 3), i(2)], 1240n],
    ["ROUND", [lit.dec("-1.235", 4, 3), i(2)], -1240n],
    ["ROUND", [lit.dec("9.995", 4, 3), i(2)], 10000n],
    ["ROUND", [lit.dec("1.5", 2, 1)], 2n],
    ["ROUND", [i(1234), i(-2)], 1200],
    ["TRUNCATE", [d(42.345), i(2)], 42.34],
    ["TRUNCATE", [lit.dec("-1.239", 4, 3), i(2)], -1230n],
    ["FLOOR", [d(-1.5)], -2],
    ["CEIL", [d(1.2)], 2],
    ["FLOOR", [lit.dec("-1.5", 2, 1)], -2n],
    ["CEIL", [lit.dec("1.01", 3, 2)], 2n],
    ["%", [i(7), i(3)], 1],
    ["MOD", [i(-7), i(3)], -1],
    ["PI", [], Math.PI],
  ])("%s(%#) = %s", (fn, args, expected) => {
    expect(ev(call(fn, ...args))).toBe(expected);
  });
});

describe("time functions", () => {
  const ts = lit.ts;
  it.each([
    ["DATE_FORMAT", [ts("2024-03-05 07:08:09.123"), s("yyyy-MM-dd HH:mm:ss.SSS")], "2024-03-05 07:08:09.123"],
    ["DATE_FORMAT", [ts("2024-03-05 17:08:09"), s("yy/M/d h:mm a EEE MMM")], "24/3/5 5:08 PM Tue Mar"],
    ["DATE_FORMAT", [s("2024-03-05 07:08:09"), s("yyyyMMdd")], "20240305"],
    ["DATE_FORMAT", [s("garbage"), s("yyyyMMdd")], null],
    ["TO_TIMESTAMP", [s("2024-03-05 07:08:09")], Date.UTC(2024, 2, 5, 7, 8, 9)],
    ["TO_TIMESTAMP", [s("05/03/2024 07:08"), s("dd/MM/yyyy HH:mm")], Date.UTC(2024, 2, 5, 7, 8)],
    ["TO_TIMESTAMP", [s("20240305070809"), s("yyyyMMddHHmmss")], Date.UTC(2024, 2, 5, 7, 8, 9)],
    ["TO_TIMESTAMP", [s("nope")], null],
    ["TO_DATE", [s("2024-03-05")], 19787],
    ["TO_DATE", [s("20240305"), s("yyyyMMdd")], 19787],
    ["TO_TIMESTAMP_LTZ", [lit.bigint(1700000000), i(0)], 1700000000000],
    ["TO_TIMESTAMP_LTZ", [lit.bigint(1700000000123), i(3)], 1700000000123],
    ["UNIX_TIMESTAMP", [s("1970-01-01 00:01:00")], 60],
    ["UNIX_TIMESTAMP", [s("bad")], -(2n ** 63n)],
    ["FROM_UNIXTIME", [i(44)], "1970-01-01 00:00:44"],
    ["FROM_UNIXTIME", [i(86400), s("yyyy-MM-dd")], "1970-01-02"],
    ["EXTRACT", [lit.kw("YEAR"), ts("2024-03-05 07:08:09")], 2024],
    ["EXTRACT", [lit.kw("QUARTER"), ts("2024-08-05 07:08:09")], 3],
    ["EXTRACT", [lit.kw("DOW"), ts("2024-03-03 00:00:00")], 1], // Sunday
    ["EXTRACT", [lit.kw("DOY"), lit.date("2024-12-31")], 366],
    ["EXTRACT", [lit.kw("WEEK"), lit.date("2021-01-03")], 53],
    ["EXTRACT", [lit.kw("SECOND"), ts("2024-03-05 07:08:09")], 9],
    ["EXTRACT", [lit.kw("MILLISECOND"), ts("2024-03-05 07:08:09.250")], 250],
    ["EXTRACT", [lit.kw("MILLISECOND"), ts("2026-06-24 12:34:56.789")], 789],
    ["EXTRACT", [lit.kw("MICROSECOND"), ts("2026-06-24 12:34:56.789")], 789000],
    ["EXTRACT", [lit.kw("EPOCH"), ts("1970-01-02 00:00:00")], 86400],
    ["YEAR", [lit.date("1994-09-27")], 1994],
    ["MONTH", [lit.date("1994-09-27")], 9],
    ["DAYOFMONTH", [lit.date("1994-09-27")], 27],
    ["DAYOFWEEK", [lit.date("1994-09-27")], 3],
    ["DAYOFYEAR", [lit.date("1994-09-27")], 270],
    ["WEEK", [lit.date("1994-09-27")], 39],
    ["QUARTER", [lit.date("1994-09-27")], 3],
    ["HOUR", [ts("1994-09-27 13:14:15")], 13],
    ["MINUTE", [ts("1994-09-27 13:14:15")], 14],
    ["SECOND", [ts("1994-09-27 13:14:15")], 15],
    ["FLOOR", [ts("2024-03-05 07:38:09"), lit.kw("HOUR")], Date.UTC(2024, 2, 5, 7)],
    ["FLOOR", [ts("2024-03-05 07:38:09"), lit.kw("MONTH")], Date.UTC(2024, 2, 1)],
    ["FLOOR", [ts("2024-08-05 07:38:09"), lit.kw("QUARTER")], Date.UTC(2024, 6, 1)],
    ["FLOOR", [ts("2024-03-06 07:38:09"), lit.kw("WEEK")], Date.UTC(2024, 2, 3)],
    ["CEIL", [ts("2024-03-05 07:38:09"), lit.kw("MINUTE")], Date.UTC(2024, 2, 5, 7, 39)],
    ["CEIL", [ts("2024-03-05 07:00:00"), lit.kw("HOUR")], Date.UTC(2024, 2, 5, 7)],
    ["CEIL", [ts("2024-12-05 07:00:00"), lit.kw("YEAR")], Date.UTC(2025, 0, 1)],
    ["FLOOR", [lit.date("2024-03-05"), lit.kw("MONTH")], 19783],
    ["TIMESTAMPADD", [lit.kw("WEEK"), i(1), lit.date("2003-01-02")], 12061],
    ["TIMESTAMPADD", [lit.kw("MONTH"), i(1), ts("2024-01-31 10:00:00")], Date.UTC(2024, 1, 29, 10)],
    ["TIMESTAMPADD", [lit.kw("HOUR"), i(-2), ts("2024-01-01 01:00:00")], Date.UTC(2023, 11, 31, 23)],
    ["TIMESTAMPDIFF", [lit.kw("DAY"), ts("2003-01-02 10:00:00"), ts("2003-01-03 10:00:00")], 1],
    ["TIMESTAMPDIFF", [lit.kw("HOUR"), ts("2003-01-02 10:00:00"), ts("2003-01-02 07:30:00")], -2],
    // Flink's subtractMonths: Jan 31 + 1 month clamps to Feb 28, a whole month
    ["TIMESTAMPDIFF", [lit.kw("MONTH"), ts("2003-01-31 00:00:00"), ts("2003-02-28 00:00:00")], 1],
    ["TIMESTAMPDIFF", [lit.kw("MONTH"), ts("2026-12-31 23:00:00"), ts("2026-06-30 00:00:00")], -7],
    ["TIMESTAMPDIFF", [lit.kw("MONTH"), ts("2026-06-30 00:00:00"), ts("2026-12-31 23:00:00")], 6],
    ["TIMESTAMPDIFF", [lit.kw("MONTH"), ts("2026-01-15 12:00:00"), ts("2026-03-15 11:00:00")], 1],
    ["TIMESTAMPDIFF", [lit.kw("QUARTER"), ts("2026-01-01 00:00:00"), ts("2026-12-31 00:00:00")], 3],
    ["TIMESTAMPDIFF", [lit.kw("MONTH"), ts("2003-01-28 00:00:00"), ts("2003-02-28 00:00:00")], 1],
    ["TIMESTAMPDIFF", [lit.kw("YEAR"), lit.date("2000-02-29"), lit.date("2004-02-28")], 3],
  ])("%s(%#) = %s", (fn, args, expected) => {
    expect(ev(call(fn, ...args))).toBe(expected);
  });

  it("timestamp ± interval, date ± interval", () => {
    const day = E.literal(86_400_000, T.intervalDayTime(false));
    const month = E.literal(1, T.intervalYearMonth(false));
    expect(ev(call("+", ts("2024-02-28 12:00:00"), day))).toBe(Date.UTC(2024, 1, 29, 12));
    expect(ev(call("-", ts("2024-03-31 00:00:00"), month))).toBe(Date.UTC(2024, 1, 29));
    expect(ev(call("+", lit.date("2024-02-28"), day))).toBe(19782);
    expect(ev(call("+", month, lit.date("2024-01-31")))).toBe(19782);
  });

  it("context-driven functions", () => {
    const now = Date.UTC(2024, 5, 1, 22, 30, 15, 500);
    const ctx = { now: () => now, localTimeZone: "Asia/Seoul", currentWatermark: () => 1234 };
    expect(ev(call("CURRENT_TIMESTAMP"), [], ctx)).toBe(now);
    expect(ev(call("NOW"), [], ctx)).toBe(now);
    expect(ev(call("PROCTIME"), [], ctx)).toBe(now);
    expect(ev(call("LOCALTIMESTAMP"), [], ctx)).toBe(now + 9 * 3_600_000);
    expect(ev(call("CURRENT_DATE"), [], ctx)).toBe(19876); // 2024-06-02 in Seoul
    expect(ev(call("UNIX_TIMESTAMP"), [], ctx)).toBe(Math.floor(now / 1000));
    const rowtime = E.input(0, {
      kind: "TIMESTAMP",
      precision: 3,
      nullable: false,
      timeAttribute: "rowtime",
    });
    expect(ev(call("CURRENT_WATERMARK", rowtime), [0], ctx)).toBe(1234);
    expect(ev(call("CURRENT_WATERMARK", rowtime), [0])).toBeNull();
  });
});

describe("time zones", () => {
  it("Asia/Seoul has no DST; Europe/Berlin does", () => {
    const seoul = getZone("Asia/Seoul");
    const berlin = getZone("Europe/Berlin");
    for (const month of [0, 3, 6, 10]) {
      expect(seoul.offsetAt(Date.UTC(2024, month, 15))).toBe(9 * 3_600_000);
    }
    expect(berlin.offsetAt(Date.UTC(2024, 0, 15))).toBe(3_600_000);
    expect(berlin.offsetAt(Date.UTC(2024, 6, 15))).toBe(7_200_000);
    // the spring-forward instant: 2024-03-31 01:00 UTC
    expect(berlin.offsetAt(Date.UTC(2024, 2, 31, 0, 59, 59, 999))).toBe(3_600_000);
    expect(berlin.offsetAt(Date.UTC(2024, 2, 31, 1))).toBe(7_200_000);
  });
  it("local → instant: gaps shift forward, overlaps take the earlier offset (java.time)", () => {
    const berlin = getZone("Europe/Berlin");
    // 02:30 does not exist on 2024-03-31 in Berlin: becomes 03:30 CEST = 01:30 UTC
    expect(localToInstant(Date.UTC(2024, 2, 31, 2, 30), berlin)).toBe(Date.UTC(2024, 2, 31, 1, 30));
    // 02:30 happens twice on 2024-10-27: the first (CEST, +2) wins
    expect(localToInstant(Date.UTC(2024, 9, 27, 2, 30), berlin)).toBe(Date.UTC(2024, 9, 27, 0, 30));
    expect(localToInstant(Date.UTC(2024, 2, 31, 2, 30), getZone("Asia/Seoul"))).toBe(
      Date.UTC(2024, 2, 30, 17, 30),
    );
    expect(getZone("GMT+08:00").offsetAt(0)).toBe(8 * 3_600_000);
    expect(getZone("-05:30").offsetAt(0)).toBe(-(5 * 3_600_000 + 30 * 60_000));
  });
  it("TIMESTAMP ↔ TIMESTAMP_LTZ casts and LTZ functions use the session zone", () => {
    const ctx = (tz: string) => defaultEvalContext({ localTimeZone: tz });
    const toLtz = compileExpr(E.cast(col(0, T.timestamp(3)), T.timestampLtz(3)), ctx("Europe/Berlin"));
    expect(toLtz([Date.UTC(2024, 6, 1, 12)])).toBe(Date.UTC(2024, 6, 1, 10));
    expect(toLtz([Date.UTC(2024, 2, 31, 2, 30)])).toBe(Date.UTC(2024, 2, 31, 1, 30));
    const toText = compileExpr(E.cast(col(0, T.timestampLtz(3)), T.string()), ctx("Asia/Seoul"));
    expect(toText([Date.UTC(2024, 0, 1, 15)])).toBe("2024-01-02 00:00:00.000");
    const hour = compileExpr(call("HOUR", col(0, T.timestampLtz(3))), ctx("Europe/Berlin"));
    expect([hour([Date.UTC(2024, 0, 1, 12)]), hour([Date.UTC(2024, 6, 1, 12)])]).toEqual([13, 14]);
    const fromUnix = compileExpr(call("FROM_UNIXTIME", col(0, T.bigint())), ctx("Asia/Seoul"));
    expect(fromUnix([0])).toBe("1970-01-01 09:00:00");
    const floorDay = compileExpr(call("FLOOR", col(0, T.timestampLtz(3)), lit.kw("DAY")), ctx("Asia/Seoul"));
    expect(floorDay([Date.UTC(2024, 0, 1, 20)])).toBe(Date.UTC(2024, 0, 1, 15));
  });
});

describe("UNIX_TIMESTAMP with a zone offset in the text", () => {
  it.each([
    ["2026-06-24T11:48:31+09:00", "yyyy-MM-dd'T'HH:mm:ssXXX", 1782269311],
    ["2026-06-24T02:48:31Z", "yyyy-MM-dd'T'HH:mm:ssXXX", 1782269311],
    ["2026-06-24 02:48:31 +0000", "yyyy-MM-dd HH:mm:ss Z", 1782269311],
    ["2026-06-23T21:48:31-05", "yyyy-MM-dd'T'HH:mm:ssX", 1782269311],
  ])("%s with %s is the instant %d whatever the session zone", (text, fmt, secs) => {
    for (const zone of ["UTC", "Asia/Seoul", "America/New_York"]) {
      const f = compileExpr(
        E.call(
          "UNIX_TIMESTAMP",
          [E.literal(text, T.string(false)), E.literal(fmt, T.string(false))],
          T.bigint(),
        ),
        defaultEvalContext({ localTimeZone: zone }),
      );
      expect(f([])).toBe(secs);
    }
  });
});

describe("Flink 2.3 results (issue 16)", () => {
  const ts = lit.ts;
  const cast = (e: ReturnType<typeof lit.str>, to: ReturnType<typeof T.int>, safe = false) =>
    E.cast(e, to, safe);
  it.each([
    // DOUBLE → integer narrows like Java: saturates at the int/long bounds, NaN is 0
    ["CAST(1e21 AS INT)", cast(lit.double(1e21), T.int()), 2147483647],
    ["CAST(-1e21 AS INT)", cast(lit.double(-1e21), T.int()), -2147483648],
    ["CAST(NaN AS INT)", cast(lit.double(Number.NaN), T.int()), 0],
    ["CAST(1e21 AS BIGINT)", cast(lit.double(1e21), T.bigint()), 2n ** 63n - 1n],
    ["CAST(300.7 AS TINYINT)", cast(lit.double(300.7), T.tinyint()), 44],
    ["CAST(3000000000 AS INT) from BIGINT wraps", cast(lit.bigint(3000000000), T.int()), -1294967296],
    ["ABS(INT_MIN)", call("ABS", lit.int(-2147483648)), -2147483648],
    ["ABS(-5)", call("ABS", lit.int(-5)), 5],
    ["ABS(TINYINT -128)", call("ABS", cast(lit.int(-128), T.tinyint())), -128],
    ["TRY_CAST('3.7' AS INT)", cast(s("3.7"), T.int(), true), 3],
    ["TRY_CAST('abc' AS INT)", cast(s("abc"), T.int(), true), null],
    ["CAST(' 3.7 ' AS BIGINT)", cast(s(" 3.7 "), T.bigint()), 3],
    [
      "REGEXP_EXTRACT default group",
      call("REGEXP_EXTRACT", s("hello-world"), s("([a-z]+)-([a-z]+)")),
      "hello-world",
    ],
    [
      "REGEXP_EXTRACT group 2",
      call("REGEXP_EXTRACT", s("hello-world"), s("([a-z]+)-([a-z]+)"), i(2)),
      "world",
    ],
    ["REGEXP_EXTRACT negative group", call("REGEXP_EXTRACT", s("ab"), s("(a)"), i(-1)), null],
    ["REGEXP_EXTRACT no match", call("REGEXP_EXTRACT", s("xyz"), s("(a)")), null],
    ["REGEXP invalid pattern", call("REGEXP", s("abc"), s("(")), false],
    ["REGEXP empty pattern", call("REGEXP", s("abc"), s("")), false],
    ["SPLIT_INDEX('', ',', 0)", call("SPLIT_INDEX", s(""), s(","), i(0)), null],
    ["SPLIT_INDEX keeps empty tokens", call("SPLIT_INDEX", s("a,,b"), s(","), i(1)), ""],
    ["SPLIT_INDEX trailing empty token", call("SPLIT_INDEX", s("a,"), s(","), i(1)), ""],
    ["SPLIT_INDEX whole separator", call("SPLIT_INDEX", s("a::b::c"), s("::"), i(2)), "c"],
    ["SPLIT_INDEX empty separator: whitespace", call("SPLIT_INDEX", s("a  b"), s(""), i(2)), "b"],
    ["SUBSTRING('x', -3)", call("SUBSTRING", s("x"), i(-3)), ""],
    ["SUBSTRING('hello', -3, 2)", call("SUBSTRING", s("hello"), i(-3), i(2)), "ll"],
    ["SUBSTRING('', 1)", call("SUBSTRING", s(""), i(1)), ""],
    ["SUBSTRING negative length", call("SUBSTRING", s("abc"), i(1), i(-1)), null],
    ["OVERLAY past the end", call("OVERLAY", s("x"), s("__"), i(2), i(3)), "x"],
    ["OVERLAY at 0", call("OVERLAY", s("abc"), s("X"), i(0)), "abc"],
    ["OVERLAY to the end", call("OVERLAY", s("abcdef"), s("XY"), i(5), i(2)), "abcdXY"],
    ["OVERLAY FOR 0 drops the rest (as Flink)", call("OVERLAY", s("abc"), s("X"), i(2), i(0)), "aX"],
    ["OVERLAY default length", call("OVERLAY", s("abcdef"), s("XY"), i(2)), "aXYdef"],
    ["INITCAP is ASCII-only", call("INITCAP", s("ÄÖü ßtraße")), "ÄÖü ßTraßE"],
    ["INITCAP", call("INITCAP", s("hello wORLD-x1y")), "Hello World-X1y"],
    ["INITCAP digits start a word", call("INITCAP", s("1abc aBC")), "1abc Abc"],
    ["EXTRACT(MILLISECOND)", call("EXTRACT", lit.kw("MILLISECOND"), ts("2026-06-24 12:34:56.789")), 789],
    ["UNIX_TIMESTAMP ignores a fraction", call("UNIX_TIMESTAMP", s("2026-02-28 23:59:59.999")), 1772323199],
    ["UNIX_TIMESTAMP is lenient", call("UNIX_TIMESTAMP", s("2026-02-29 00:00:00")), 1772323200],
    ["UNIX_TIMESTAMP unparseable", call("UNIX_TIMESTAMP", s("tomorrow")), -(2n ** 63n)],
    [
      "TIMESTAMPDIFF(MONTH) as Flink",
      call("TIMESTAMPDIFF", lit.kw("MONTH"), ts("2026-12-31 23:00:00"), ts("2026-06-30 00:00:00")),
      -7,
    ],
    ["JSON_QUERY wildcard, no match", call("JSON_QUERY", s('{"items": []}'), s("$.items[*].sku")), "[]"],
    ["JSON_QUERY wildcard", call("JSON_QUERY", s('{"items": [{"sku": "a"}]}'), s("$.items[*].sku")), '["a"]'],
    ["JSON_QUERY missing member", call("JSON_QUERY", s('{"a": 1}'), s("$.b")), null],
    ["JSON_VALUE wildcard is not a scalar", call("JSON_VALUE", s("[1]"), s("$[*]")), null],
    [
      "JSON_VALUE keeps a long's digits",
      call("JSON_VALUE", s('{"a": 9007199254740993}'), s("$.a")),
      "9007199254740993",
    ],
    ["JSON_VALUE of a fraction keeps its scale", call("JSON_VALUE", s('{"a": 2.50}'), s("$.a")), "2.50"],
    [
      "JSON_VALUE of an exponent, as BigDecimal",
      call("JSON_VALUE", s('{"a": -12.5e-9}'), s("$.a")),
      "-1.25E-8",
    ],
    ["JSON_VALUE of -0.00e1", call("JSON_VALUE", s('{"a": -0.00e1}'), s("$.a")), "0.0"],
    ["JSON_VALUE of an exponent, plain", call("JSON_VALUE", s('{"a": 1234.5e-2}'), s("$.a")), "12.345"],
    [
      "JSON_VALUE of a member named __proto__",
      call("JSON_VALUE", s('{"__proto__": 5}'), s("$.__proto__")),
      "5",
    ],
    ["JSON_VALUE of a repeated member: the last", call("JSON_VALUE", s('{"a": 1, "a": 2}'), s("$.a")), "2"],
    ["JSON_VALUE after trailing text: NULL", call("JSON_VALUE", s('{"a": 1} x'), s("$.a")), null],
    ["JSON_VALUE of a leading zero: NULL", call("JSON_VALUE", s('{"a": 01}'), s("$.a")), null],
    ["JSON_VALUE of '1.': NULL", call("JSON_VALUE", s('{"a": 1.}'), s("$.a")), null],
    ["JSON_VALUE of an unescaped tab: NULL", call("JSON_VALUE", s('{"a": "x\ty"}'), s("$.a")), null],
    ["JSON_VALUE of a bad escape: NULL", call("JSON_VALUE", s('{"a": "\\q"}'), s("$.a")), null],
    ["JSON_VALUE of an escape", call("JSON_VALUE", s('{"a": "\\u00e9\\n"}'), s("$.a")), "é\n"],
    [
      "JSON_QUERY keeps document order and number text",
      call("JSON_QUERY", s('{"b": 1, "2": [1.0, 12345678901234567890], "a": {"x": null}, "b": 3}'), s("$")),
      '{"b":3,"2":[1.0,12345678901234567890],"a":{"x":null}}',
    ],
    [
      "JSON_QUERY wildcard over members in order",
      call("JSON_QUERY", s('{"z": 1e1, "1": 2}'), s("$.*")),
      "[1E+1,2]",
    ],
    ["ASCII of a multi-byte character: signed first byte", call("ASCII", s("é")), -61],
    ["POSITION of ''", call("POSITION", s(""), s("abc")), 1],
    ["LOCATE from 0", call("LOCATE", s("a"), s("abc"), i(0)), 1],
    ["LOCATE counts code points", call("LOCATE", s("b"), s("😀ab"), i(1)), 3],
    ["REPLACE of ''", call("REPLACE", s("ab"), s(""), s("-")), "-a-b-"],
    ["LPAD", call("LPAD", s("hi"), i(5), s("xy")), "xyxhi"],
    ["RPAD to 0", call("RPAD", s("hi"), i(0), s("xy")), ""],
  ])("%s", (_name, expr, expected) => {
    expect(ev(expr)).toEqual(expected);
  });

  it("FROM_BASE64 of text that is not Base64 fails, as Java's decoder", () => {
    expect(() => ev(call("FROM_BASE64", s("no!")))).toThrow(/not valid Base64/);
    expect(ev(call("FROM_BASE64", s("aGk=")))).toBe("hi");
  });
});

describe("no NaN or out-of-range instants", () => {
  it.each([
    [
      "TO_TIMESTAMP_LTZ(NaN, 3) is the epoch, as Java's long conversion",
      call("TO_TIMESTAMP_LTZ", lit.double(Number.NaN), i(3)),
      0,
    ],
    ["TO_TIMESTAMP_LTZ(1.9, 0) drops the fraction", call("TO_TIMESTAMP_LTZ", lit.double(1.9), i(0)), 1000],
    [
      "TO_TIMESTAMP_LTZ(Infinity, 3) is NULL",
      call("TO_TIMESTAMP_LTZ", lit.double(Number.POSITIVE_INFINITY), i(3)),
      null,
    ],
    ["TO_TIMESTAMP_LTZ(1e300, 0) is NULL", call("TO_TIMESTAMP_LTZ", lit.double(1e300), i(0)), null],
    ["FROM_UNIXTIME(1e300) is NULL", call("FROM_UNIXTIME", lit.double(1e300)), null],
    ["FROM_UNIXTIME(NaN) is the epoch", call("FROM_UNIXTIME", lit.double(Number.NaN)), "1970-01-01 00:00:00"],
  ])("%s", (_name, expr, expected) => {
    expect(ev(expr)).toEqual(expected);
  });
});
