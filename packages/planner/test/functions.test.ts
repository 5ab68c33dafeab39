import type { DataType } from "@weir/planner";
import { canCast, commonType, formatType, inferAggregate, inferCall, T } from "@weir/planner";
import { describe, expect, it } from "vitest";

const nn = <D extends DataType>(t: D): D => ({ ...t, nullable: false });
const show = (r: ReturnType<typeof inferCall>) =>
  "error" in r ? `error: ${r.error}` : `${formatType(r.type)} <- ${r.argTypes.map(formatType).join(", ")}`;

describe("inferCall", () => {
  it.each([
    // integers widen, DECIMAL precision/scale per LogicalTypeMerging
    ["+", [T.int(false), T.int(false)], "INT NOT NULL <- INT NOT NULL, INT NOT NULL"],
    ["+", [T.tinyint(false), T.bigint()], "BIGINT <- BIGINT NOT NULL, BIGINT"],
    ["+", [T.decimal(10, 2), T.decimal(5, 3)], "DECIMAL(12, 3) <- DECIMAL(10, 2), DECIMAL(5, 3)"],
    ["+", [T.decimal(38, 2), T.decimal(38, 2)], "DECIMAL(38, 2) <- DECIMAL(38, 2), DECIMAL(38, 2)"],
    ["-", [T.int(), T.decimal(5, 2)], "DECIMAL(13, 2) <- DECIMAL(10, 0), DECIMAL(5, 2)"],
    ["*", [T.decimal(10, 2), T.decimal(5, 3)], "DECIMAL(16, 5) <- DECIMAL(10, 2), DECIMAL(5, 3)"],
    ["*", [T.decimal(30, 10), T.decimal(30, 10)], "DECIMAL(38, 6) <- DECIMAL(30, 10), DECIMAL(30, 10)"],
    ["/", [T.decimal(10, 2), T.decimal(5, 3)], "DECIMAL(19, 8) <- DECIMAL(10, 2), DECIMAL(5, 3)"],
    ["/", [T.decimal(38, 10), T.decimal(38, 10)], "DECIMAL(38, 6) <- DECIMAL(38, 10), DECIMAL(38, 10)"],
    ["/", [T.int(), T.int()], "INT <- INT, INT"],
    ["%", [T.decimal(10, 2), T.decimal(5, 3)], "DECIMAL(5, 3) <- DECIMAL(10, 2), DECIMAL(5, 3)"],
    ["MOD", [T.int(), T.bigint()], "BIGINT <- BIGINT, BIGINT"],
    ["+", [T.decimal(10, 2), T.double()], "DOUBLE <- DOUBLE, DOUBLE"],
    ["+", [T.float(false), T.int(false)], "FLOAT NOT NULL <- FLOAT NOT NULL, FLOAT NOT NULL"],
    ["+", [T.int(), T.null()], "INT <- INT, INT"],
    // datetime arithmetic
    ["+", [T.timestamp(3), T.intervalDayTime()], "TIMESTAMP(3) <- TIMESTAMP(3), INTERVAL DAY TO SECOND(3)"],
    [
      "-",
      [T.date(false), T.intervalYearMonth(false)],
      "DATE NOT NULL <- DATE NOT NULL, INTERVAL YEAR TO MONTH NOT NULL",
    ],
    [
      "+",
      [T.intervalDayTime(), T.timestampLtz(3)],
      "TIMESTAMP_LTZ(3) <- INTERVAL DAY TO SECOND(3), TIMESTAMP_LTZ(3)",
    ],
    ["*", [T.intervalDayTime(), T.int()], "INTERVAL DAY TO SECOND(3) <- INTERVAL DAY TO SECOND(3), INT"],
    ["+", [T.string(), T.int()], "error: Cannot apply '+' to arguments of type STRING and INT"],
    // comparisons
    [
      "=",
      [T.int(false), T.decimal(5, 2, false)],
      "BOOLEAN NOT NULL <- DECIMAL(12, 2) NOT NULL, DECIMAL(12, 2) NOT NULL",
    ],
    ["<", [T.string(), T.int()], "BOOLEAN <- INT, INT"],
    ["=", [T.string(), T.timestamp(3)], "BOOLEAN <- TIMESTAMP(3), TIMESTAMP(3)"],
    ["=", [T.boolean(), T.int()], "error: Cannot compare BOOLEAN with INT using '='"],
    ["IS DISTINCT FROM", [T.int(), T.int()], "BOOLEAN NOT NULL <- INT, INT"],
    [
      "IN",
      [T.int(false), T.bigint(false), T.smallint(false)],
      "BOOLEAN NOT NULL <- BIGINT NOT NULL, BIGINT NOT NULL, BIGINT NOT NULL",
    ],
    [
      "BETWEEN",
      [T.int(), T.double(false), T.int(false)],
      "BOOLEAN <- DOUBLE, DOUBLE NOT NULL, DOUBLE NOT NULL",
    ],
    ["AND", [T.boolean(false), T.null()], "BOOLEAN <- BOOLEAN NOT NULL, BOOLEAN"],
    ["IS NULL", [T.int()], "BOOLEAN NOT NULL <- INT"],
    // functions
    ["SUBSTR", [T.string(false), T.int(false)], "STRING <- STRING NOT NULL, INT NOT NULL"],
    ["SUBSTRING", [T.string(), T.string()], "error: SUBSTRING: argument 2 must be INTEGER, got STRING"],
    ["CONCAT_WS", [T.string(false), T.string(), T.string()], "STRING <- STRING NOT NULL, STRING, STRING"],
    ["REGEXP_EXTRACT", [T.string(false), T.string(false)], "STRING <- STRING NOT NULL, STRING NOT NULL"],
    ["COALESCE", [T.int(), T.bigint(false)], "BIGINT NOT NULL <- BIGINT, BIGINT NOT NULL"],
    ["COALESCE", [T.int(), T.bigint()], "BIGINT <- BIGINT, BIGINT"],
    ["NULLIF", [T.int(false), T.int(false)], "INT <- INT NOT NULL, INT NOT NULL"],
    [
      "IF",
      [T.boolean(), T.int(false), T.decimal(5, 2, false)],
      "DECIMAL(12, 2) <- BOOLEAN, DECIMAL(12, 2) NOT NULL, DECIMAL(12, 2) NOT NULL",
    ],
    ["ROUND", [T.decimal(10, 3)], "DECIMAL(8, 0) <- DECIMAL(10, 3)"],
    ["FLOOR", [T.timestamp(3), T.string(false)], "TIMESTAMP(3) <- TIMESTAMP(3), STRING NOT NULL"],
    ["EXTRACT", [T.string(false), T.date(false)], "BIGINT NOT NULL <- STRING NOT NULL, DATE NOT NULL"],
    [
      "TO_TIMESTAMP_LTZ",
      [T.bigint(false), T.int(false)],
      "TIMESTAMP_LTZ(3) <- BIGINT NOT NULL, INT NOT NULL",
    ],
    ["TO_TIMESTAMP", [T.string(false)], "TIMESTAMP(3) <- STRING NOT NULL"],
    ["CURRENT_TIMESTAMP", [], "TIMESTAMP_LTZ(3) NOT NULL <- "],
    ["PROCTIME", [], "TIMESTAMP_LTZ(3) NOT NULL *PROCTIME* <- "],
    ["ARRAY", [T.int(false), T.bigint()], "ARRAY<BIGINT> NOT NULL <- BIGINT NOT NULL, BIGINT"],
    [
      "ITEM",
      [T.array(T.int(false), false), T.int(false)],
      "INT <- ARRAY<INT NOT NULL> NOT NULL, INT NOT NULL",
    ],
    ["NO_SUCH_FN", [], "error: No function named NO_SUCH_FN"],
  ])("%s(%#) → %s", (fn, args, expected) => {
    expect(show(inferCall(fn, args))).toBe(expected);
  });

  it("a rowtime attribute is materialised by computation; CURRENT_WATERMARK needs one", () => {
    const rowtime: DataType = { kind: "TIMESTAMP", precision: 3, nullable: false, timeAttribute: "rowtime" };
    expect(show(inferCall("+", [rowtime, T.intervalDayTime(false)]))).toBe(
      "TIMESTAMP(3) NOT NULL <- TIMESTAMP(3) NOT NULL, INTERVAL DAY TO SECOND(3) NOT NULL",
    );
    expect(show(inferCall("CURRENT_WATERMARK", [rowtime]))).toBe(
      "TIMESTAMP(3) <- TIMESTAMP(3) NOT NULL *ROWTIME*",
    );
    expect("error" in inferCall("CURRENT_WATERMARK", [T.timestamp(3)])).toBe(true);
  });
});

describe("commonType", () => {
  it.each([
    [[T.int(false), T.bigint(false)], "BIGINT NOT NULL"],
    [[T.int(false), T.null()], "INT"],
    [[T.decimal(10, 2, false), T.decimal(5, 4, false)], "DECIMAL(12, 4) NOT NULL"],
    [[T.varchar(3, false), T.char(5, false)], "VARCHAR(5) NOT NULL"],
    [[T.date(false), T.timestamp(3, false)], "TIMESTAMP(3) NOT NULL"],
    [[T.timestamp(3), T.timestampLtz(6)], "TIMESTAMP_LTZ(6)"],
    [[T.array(T.int()), T.array(T.double())], "ARRAY<DOUBLE>"],
    [[T.null(), T.null()], "NULL"],
  ])("%# → %s", (types, expected) => {
    const t = commonType(types);
    expect(t && formatType(t)).toBe(expected);
  });
  it("has none for unrelated types", () => {
    expect(commonType([T.boolean(), T.int()])).toBeUndefined();
    expect(commonType([T.string(), T.int()])).toBeUndefined();
  });
});

describe("canCast", () => {
  it.each([
    [T.string(), T.int(), true],
    [T.int(), T.string(), true],
    [T.double(), T.decimal(10, 2), true],
    [T.boolean(), T.int(), true],
    [T.date(), T.timestamp(3), true],
    [T.timestamp(3), T.timestampLtz(3), true],
    [T.date(), T.time(0), false],
    [T.bigint(), T.timestamp(3), false],
    [T.array(T.string()), T.array(T.int()), true],
    [T.array(T.int()), T.string(), true],
    [T.map(T.string(), T.int()), T.array(T.int()), false],
    [T.null(), T.date(), true],
    [T.bytes(), T.string(), true],
    [T.boolean(), T.date(), false],
  ])("%o → %o: %s", (from, to, expected) => {
    expect(canCast(from, to)).toBe(expected);
  });
});

describe("inferAggregate", () => {
  it.each([
    ["COUNT", [], "BIGINT NOT NULL"],
    ["COUNT", [T.string()], "BIGINT NOT NULL"],
    ["SUM", [T.int(false)], "INT"],
    ["SUM", [T.decimal(10, 2)], "DECIMAL(38, 2)"],
    ["AVG", [T.int()], "INT"],
    ["AVG", [T.decimal(10, 2)], "DECIMAL(38, 6)"],
    ["AVG", [T.decimal(20, 8)], "DECIMAL(38, 8)"],
    ["AVG", [T.double()], "DOUBLE"],
    ["MIN", [nn(T.string())], "STRING"],
    ["MAX", [T.timestamp(3, false)], "TIMESTAMP(3)"],
    ["FIRST_VALUE", [T.int(false)], "INT"],
    ["LISTAGG", [T.string(), T.string(false)], "STRING"],
    ["STDDEV_POP", [T.double()], "DOUBLE"],
    ["VAR_SAMP", [T.decimal(10, 2)], "DECIMAL(38, 6)"],
    ["COLLECT", [T.int()], "MULTISET<INT> NOT NULL"],
  ])("%s(%#) → %s", (name, args, expected) => {
    const r = inferAggregate(name, args, false);
    expect("error" in r ? r.error : formatType(r.type)).toBe(expected);
  });
  it("rejects bad arguments", () => {
    expect(inferAggregate("SUM", [T.string()], false)).toEqual({
      error: "SUM expects a numeric argument, got STRING",
    });
    expect("error" in inferAggregate("NOPE", [], false)).toBe(true);
  });
});
