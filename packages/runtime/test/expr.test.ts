import { E, T } from "@weir/planner";
import { describe, expect, it } from "vitest";
import {
  compileExpr,
  compilePredicate,
  compileProjection,
  compileStats,
  ExpressionError,
} from "../src/expr/index.js";
import { call, col, ev, lit } from "./expr-helpers.js";

const B = (v: boolean | null) => lit.bool(v);

describe("three-valued logic", () => {
  const values = [true, false, null] as const;
  const and = (a: boolean | null, b: boolean | null) =>
    a === false || b === false ? false : a === null || b === null ? null : true;
  const or = (a: boolean | null, b: boolean | null) =>
    a === true || b === true ? true : a === null || b === null ? null : false;
  for (const a of values) {
    for (const b of values) {
      it(`${a} AND ${b} = ${and(a, b)}, ${a} OR ${b} = ${or(a, b)}`, () => {
        expect(ev(call("AND", B(a), B(b)))).toBe(and(a, b));
        expect(ev(call("OR", B(a), B(b)))).toBe(or(a, b));
        // through input columns too (not constant-folded)
        const t = T.boolean();
        expect(ev(call("AND", col(0, t), col(1, t)), [a, b])).toBe(and(a, b));
        expect(ev(call("OR", col(0, t), col(1, t)), [a, b])).toBe(or(a, b));
      });
    }
    it(`NOT ${a}, IS TRUE/FALSE`, () => {
      expect(ev(call("NOT", B(a)))).toBe(a === null ? null : !a);
      expect(ev(call("IS TRUE", B(a)))).toBe(a === true);
      expect(ev(call("IS NOT TRUE", B(a)))).toBe(a !== true);
      expect(ev(call("IS FALSE", B(a)))).toBe(a === false);
      expect(ev(call("IS NOT FALSE", B(a)))).toBe(a !== false);
      expect(ev(call("IS NULL", B(a)))).toBe(a === null);
    });
  }
  it("AND short-circuits: FALSE AND <error> is FALSE", () => {
    const bad = call("=", E.cast(lit.str("x"), T.int(false)), lit.int(1));
    expect(ev(call("AND", B(false), bad))).toBe(false);
    expect(() => ev(call("AND", B(true), bad))).toThrow(ExpressionError);
  });
});

describe("comparisons and arithmetic", () => {
  it.each([
    ["=", 1, 1, true],
    ["=", 1, 2, false],
    ["<>", 1, 2, true],
    ["<", 1, 2, true],
    ["<=", 2, 2, true],
    [">", 1, 2, false],
    [">=", 3, 2, true],
    ["=", null, 2, null],
    ["<", 1, null, null],
  ])("%s(%s, %s) = %s", (op, a, b, expected) => {
    expect(ev(call(op, lit.int(a), lit.int(b)))).toBe(expected);
  });
  it("compares across numeric types after widening", () => {
    expect(ev(call("=", lit.int(1), lit.dec("1.00", 3, 2)))).toBe(true);
    expect(ev(call("<", lit.dec("1.5", 2, 1), lit.double(1.6)))).toBe(true);
    expect(ev(call("=", lit.str("12"), lit.int(12)))).toBe(true);
  });
  it.each([
    ["+", 2147483647, 1, -2147483648], // INT wraps as in Java
    ["*", 65536, 65536, 0],
    ["/", 7, 2, 3],
    ["/", -7, 2, -3],
    ["%", -7, 3, -1],
    ["-", 5, 7, -2],
  ])("INT %s: %s, %s = %s", (op, a, b, expected) => {
    expect(ev(call(op, lit.int(a), lit.int(b)))).toBe(expected);
  });
  it("integer division by zero fails, DOUBLE gives Infinity", () => {
    expect(() => ev(call("/", lit.int(1), lit.int(0)))).toThrow(/Division by zero/);
    expect(ev(call("/", lit.double(1), lit.double(0)))).toBe(Number.POSITIVE_INFINITY);
  });
  it("DECIMAL arithmetic is exact", () => {
    const e = call("+", lit.dec("0.10", 18, 2), lit.dec("0.20", 18, 2));
    expect(e.type).toEqual(T.decimal(19, 2, false));
    expect(ev(e)).toBe(30n);
    expect(ev(call("*", lit.dec("1.5", 2, 1), lit.int(3)))).toBe(45n); // DECIMAL(13,1)
    const div = call("/", lit.dec("1.00", 3, 2), lit.int(3));
    expect(div.type).toEqual(T.decimal(14, 13, false));
    expect(ev(div)).toBe(3333333333333n);
    expect(ev(call("NEG", lit.dec("1.25", 3, 2)))).toBe(-125n);
    expect(ev(call("-", lit.int(-5), lit.int(-7)))).toBe(2);
  });
  it("NULL propagates through strict functions", () => {
    expect(ev(call("+", lit.int(1), lit.null()))).toBeNull();
    expect(ev(call("UPPER", lit.str(null)))).toBeNull();
    expect(ev(call("+", col(0, T.int()), lit.int(1)), [null])).toBeNull();
  });
  it("IS [NOT] DISTINCT FROM treats NULLs as equal", () => {
    expect(ev(call("IS DISTINCT FROM", lit.int(null), lit.int(null)))).toBe(false);
    expect(ev(call("IS DISTINCT FROM", lit.int(1), lit.int(null)))).toBe(true);
    expect(ev(call("IS NOT DISTINCT FROM", lit.int(1), lit.int(1)))).toBe(true);
  });
  it.each([
    [2, [1, 2, 3], true],
    [5, [1, 2, 3], false],
    [5, [1, null, 3], null],
    [2, [1, null, 2], true],
    [null, [1, 2], null],
    [7, [1, 2, 3, 4, 5, 6, 7], true], // literal list: set lookup
    [8, [1, 2, 3, null, 5, 6, 7], null],
  ])("%s IN %j = %s", (x, list, expected) => {
    expect(ev(call("IN", lit.int(x), ...list.map((v) => lit.int(v))))).toBe(expected);
  });
  it.each([
    [2, 1, 3, true],
    [0, 1, 3, false],
    [null, 1, 3, null],
    [0, null, 3, null],
    [5, null, 3, false],
  ])("%s BETWEEN %s AND %s = %s", (x, lo, hi, expected) => {
    expect(ev(call("BETWEEN", lit.int(x), lit.int(lo), lit.int(hi)))).toBe(expected);
  });
});

describe("conditionals", () => {
  it("CASE picks the first TRUE branch; NULL conditions do not match", () => {
    const t = T.int();
    const e = E.caseWhen(
      [
        { when: call(">", col(0, t), lit.int(10)), result: lit.str("big") },
        { when: call(">", col(0, t), lit.int(0)), result: lit.str("small") },
      ],
      lit.str("other"),
      T.string(),
    );
    const f = compileExpr(e);
    expect([f([20]), f([5]), f([-1]), f([null])]).toEqual(["big", "small", "other", "other"]);
  });
  it("COALESCE is lazy", () => {
    const bad = E.cast(lit.str("x"), T.int(false));
    expect(ev(call("COALESCE", lit.int(null), lit.int(2), bad))).toBe(2);
    expect(ev(call("COALESCE", lit.int(null), lit.null()))).toBeNull();
    expect(ev(call("IFNULL", lit.int(null), lit.int(4)))).toBe(4);
  });
  it.each([
    ["NULLIF", [lit.int(1), lit.int(1)], null],
    ["NULLIF", [lit.int(1), lit.int(2)], 1],
    ["NULLIF", [lit.int(1), lit.int(null)], 1],
    ["IF", [B(true), lit.int(1), lit.int(2)], 1],
    ["IF", [B(null), lit.int(1), lit.int(2)], 2],
    ["GREATEST", [lit.int(1), lit.int(5), lit.int(3)], 5],
    ["LEAST", [lit.int(4), lit.int(2), lit.int(3)], 2],
    ["GREATEST", [lit.int(1), lit.int(null)], null],
  ])("%s(%#) = %s", (fn, args, expected) => {
    expect(ev(call(fn, ...args))).toBe(expected);
  });
});

describe("casts", () => {
  const cast = (
    v: unknown,
    from:
      | ReturnType<typeof T.int>
      | ReturnType<typeof T.string>
      | ReturnType<typeof T.decimal>
      | ReturnType<typeof T.double>
      | ReturnType<typeof T.boolean>,
    to: Parameters<typeof E.cast>[1],
    safe = false,
  ) => compileExpr(E.cast(col(0, from), to, safe))([v]);
  it.each([
    ["42", T.int(), 42],
    [" -7 ", T.bigint(), -7],
    ["1.50", T.double(), 1.5],
    // Flink's BinaryStringDataUtil.toLong: a fraction is dropped, spaces trimmed
    ["1.5", T.int(), 1],
    [" 3.7 ", T.bigint(), 3],
    ["-3.7", T.int(), -3],
    [".5", T.int(), 0],
    ["+12.", T.smallint(), 12],
    ["9223372036854775807", T.bigint(), 9223372036854775807n],
    [" -9223372036854775808 ", T.bigint(), -9223372036854775808n],
    ["9007199254740991", T.bigint(), 9007199254740991],
    [" 1e3 ", T.double(), 1000],
    ["2.5d", T.double(), 2.5],
    ["12.345", T.decimal(10, 2), 1235n],
    ["true", T.boolean(), true],
    ["NO", T.boolean(), false],
    ["2024-02-29", T.date(), 19782],
    ["2024-02-29 12:30:00.123", T.timestamp(3), Date.UTC(2024, 1, 29, 12, 30, 0, 123)],
    ["13:45:10", T.time(0), 49510000],
    ["abcdef", T.varchar(3), "abc"],
    ["ab", T.char(4), "ab  "],
  ])("CAST(%j AS %o)", (v, to, expected) => {
    expect(cast(v, T.string(), to)).toEqual(expected);
  });
  it.each([
    ["x", T.int()],
    ["1.5x", T.int()],
    ["", T.int()],
    ["-", T.int()],
    ["\t1", T.int()],
    ["1e3", T.bigint()],
    ["200", T.tinyint()],
    ["3000000000", T.int()],
    ["2024-02-30", T.date()],
    ["2024-02-29T12:30", T.timestamp(3)], // Flink's CAST takes no 'T' separator
    ["maybe", T.boolean()],
    ["1e", T.decimal(10, 2)],
  ])("CAST(%j) fails clearly; TRY_CAST gives NULL", (v, to) => {
    expect(() => cast(v, T.string(), to)).toThrow(ExpressionError);
    expect(() => cast(v, T.string(), to)).toThrow(
      new RegExp(`Cannot cast '${v.replace(".", "\\.")}' of type STRING to`),
    );
    expect(cast(v, T.string(), to, true)).toBeNull();
  });
  it.each([
    [42, T.int(), T.string(), "42"],
    [1.0, T.double(), T.string(), "1.0"],
    [1e21, T.double(), T.string(), "1.0E21"],
    [0.0001, T.double(), T.string(), "1.0E-4"],
    [1230n, T.decimal(10, 2), T.string(), "12.30"],
    [true, T.boolean(), T.string(), "TRUE"],
    [3.7, T.double(), T.int(), 3],
    [-3.7, T.double(), T.int(), -3],
    [2.5, T.double(), T.decimal(5, 0), 3n],
    [-2.5, T.double(), T.decimal(5, 0), -3n],
    [12345n, T.decimal(10, 3), T.decimal(10, 1), 123n],
    [99999n, T.decimal(5, 0), T.decimal(5, 2), null], // overflow → NULL
    [-1999n, T.decimal(10, 3), T.int(), -1],
    [1999n, T.decimal(10, 3), T.double(), 1.999],
    [7, T.int(), T.decimal(4, 2), 700n],
    [1, T.int(), T.boolean(), true],
    [true, T.boolean(), T.int(), 1],
    [300, T.int(), T.tinyint(), 44],
  ])("CAST(%s: %o AS %o) = %s", (v, from, to, expected) => {
    expect(cast(v, from as never, to)).toEqual(expected);
  });
  it("timestamps and dates print as Flink does", () => {
    const ts = Date.UTC(2024, 0, 2, 3, 4, 5, 60);
    expect(compileExpr(E.cast(col(0, T.timestamp(3)), T.string()))([ts])).toBe("2024-01-02 03:04:05.060");
    expect(compileExpr(E.cast(col(0, T.timestamp(0)), T.string()))([ts])).toBe("2024-01-02 03:04:05");
    expect(compileExpr(E.cast(col(0, T.date()), T.string()))([19782])).toBe("2024-02-29");
    expect(compileExpr(E.cast(col(0, T.timestamp(3)), T.date()))([ts])).toBe(19724);
  });
  it("containers cast element-wise and print", () => {
    const arr = call("ARRAY", lit.int(1), lit.int(null), lit.int(3));
    expect(ev(E.cast(arr, T.string()))).toBe("[1, NULL, 3]");
    expect(ev(E.cast(arr, T.array(T.string())))).toEqual(["1", null, "3"]);
  });
});

describe("compilation", () => {
  it("compiles once and runs per row", () => {
    const before = compileStats.functionsCreated;
    const t = T.int();
    const project = compileProjection(
      [call("*", col(0, t), lit.int(2)), call("UPPER", col(1, T.string()))],
      call(">", col(0, t), lit.int(0)),
    );
    expect(compileStats.functionsCreated).toBe(before + 1);
    const out = [];
    for (let i = -2; i < 1000; i++) out.push(project([i, `r${i}`]));
    expect(compileStats.functionsCreated).toBe(before + 1);
    expect(out[0]).toBeUndefined(); // -2 filtered out
    expect(out[3]).toEqual([2, "R1"]);
    expect(out.filter((r) => r !== undefined)).toHaveLength(999);
  });
  it("a NULL filter drops the row; predicates are TRUE-only", () => {
    const p = compilePredicate(call(">", col(0, T.int()), lit.int(0)));
    expect([p([1]), p([0]), p([null])]).toEqual([true, false, false]);
    const proj = compileProjection([col(0, T.int())], call(">", col(0, T.int()), lit.int(0)));
    expect(proj([null])).toBeUndefined();
  });
  it("fails at compile time on an unknown function", () => {
    expect(() => compileExpr(E.call("NO_SUCH_FN", [], T.int()))).toThrow(/NO_SUCH_FN/);
  });
});

describe("collections and JSON", () => {
  const arr = () => call("ARRAY", lit.int(10), lit.int(20), lit.int(30));
  it.each([
    [1, 10],
    [3, 30],
    [0, null],
    [4, null],
  ])("ARRAY[10,20,30][%s] = %s", (i, expected) => {
    expect(ev(call("ITEM", arr(), lit.int(i)))).toBe(expected);
  });
  it("maps, rows, cardinality", () => {
    const m = call("MAP", lit.str("a"), lit.int(1), lit.str("b"), lit.int(2));
    expect(ev(call("ITEM", m, lit.str("b")))).toBe(2);
    expect(ev(call("ITEM", m, lit.str("z")))).toBeNull();
    expect(ev(call("CARDINALITY", m))).toBe(2);
    expect(ev(call("CARDINALITY", arr()))).toBe(3);
    const r = call("ROW", lit.int(1), lit.str("x"));
    expect(ev(E.field(r, 1, "EXPR$1", T.string(false)))).toBe("x");
    expect(ev(call("ELEMENT", call("ARRAY", lit.int(5))))).toBe(5);
    expect(ev(call("=", arr(), arr()))).toBe(true);
  });
  const doc = '{"a":{"b":[1,2,{"c":"x"}]},"n":1.5,"t":true,"k y":"v"}';
  it.each([
    ["$.a.b[0]", "1"],
    ["$.a.b[2].c", "x"],
    ["$.n", "1.5"],
    ["$.t", "true"],
    ["$['k y']", "v"],
    ["lax $.missing", null],
    ["$.a", null], // not a scalar
    ["not a path", null],
  ])("JSON_VALUE(doc, %j) = %s", (path, expected) => {
    expect(ev(call("JSON_VALUE", lit.str(doc), lit.str(path)))).toBe(expected);
  });
  it("JSON_VALUE RETURNING, JSON_QUERY, invalid JSON", () => {
    expect(ev(E.call("JSON_VALUE", [lit.str(doc), lit.str("$.a.b[1]")], T.int()))).toBe(2);
    expect(ev(E.call("JSON_VALUE", [lit.str(doc), lit.str("$.n")], T.double()))).toBe(1.5);
    expect(ev(E.call("JSON_VALUE", [lit.str(doc), lit.str("$.t")], T.boolean()))).toBe(true);
    // a JSON item of another kind is an error: NULL (NULL ON ERROR)
    expect(ev(E.call("JSON_VALUE", [lit.str(doc), lit.str("$.n")], T.int()))).toBeNull();
    expect(ev(E.call("JSON_VALUE", [lit.str('{"a": "42"}'), lit.str("$.a")], T.int()))).toBeNull();
    expect(ev(E.call("JSON_VALUE", [lit.str('{"a": "true"}'), lit.str("$.a")], T.boolean()))).toBeNull();
    expect(ev(E.call("JSON_VALUE", [lit.str('{"a": 3000000000}'), lit.str("$.a")], T.int()))).toBeNull();
    expect(ev(call("JSON_QUERY", lit.str(doc), lit.str("$.a.b[2]")))).toBe('{"c":"x"}');
    expect(ev(call("JSON_QUERY", lit.str(doc), lit.str("$.a.b[*]")))).toBe('[1,2,{"c":"x"}]');
    expect(ev(call("JSON_QUERY", lit.str(doc), lit.str("$.n")))).toBeNull();
    expect(ev(call("JSON_VALUE", lit.str("{oops"), lit.str("$.a")))).toBeNull();
    expect(ev(call("JSON_EXISTS", lit.str(doc), lit.str("$.a.b")))).toBe(true);
    expect(ev(call("JSON_EXISTS", lit.str('{"a": null}'), lit.str("$.a")))).toBe(false);
    expect(ev(call("JSON_VALUE", lit.str(doc), lit.str('$."k y"')))).toBeNull(); // not jayway syntax
  });
});
