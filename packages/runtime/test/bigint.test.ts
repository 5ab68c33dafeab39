// BIGINT as a Java long (expr/bigint.ts): a number when safe, a bigint beyond ±(2^53 − 1), one
// representation per value; arithmetic checked against BigInt with Java's 64-bit wrap-around over
// operands drawn from the edges of both representations; keys, codecs and SUM with such values.
import { E, T } from "@weir/planner";
import { describe, expect, it } from "vitest";
import { sum } from "../src/aggregates/basic.js";
import { createAggregate } from "../src/aggregates/create.js";
import type { Int64 } from "../src/expr/bigint.js";
import {
  int64Abs,
  int64Add,
  int64Div,
  int64FromDouble,
  int64Mod,
  int64Mul,
  int64Narrow,
  int64Neg,
  int64Sub,
  normInt64,
  parseInt64,
} from "../src/expr/bigint.js";
import { compileExpr } from "../src/expr/compile.js";
import { decodeJson, encodeJson } from "../src/state/codec.js";
import { decodeKeyValues, encodeKeyValues, keyCodec } from "../src/state/keys.js";
import { decodeRow, encodeRow } from "../src/state/row-codec.js";

const MAX = 9223372036854775807n;
const MIN = -9223372036854775808n;
const SAFE = BigInt(Number.MAX_SAFE_INTEGER);
const long = (x: bigint) => BigInt.asIntN(64, x);

/** The canonical form: a number exactly when the value is a safe integer. */
function canonical(v: Int64): void {
  if (typeof v === "bigint") expect(v > SAFE || v < -SAFE, `${v}n should be a number`).toBe(true);
  else expect(Number.isSafeInteger(v), `${v} should be a safe integer`).toBe(true);
}

const EDGES = [
  0n,
  1n,
  -1n,
  2n,
  7n,
  -10n,
  2147483647n,
  -2147483648n,
  4294967296n,
  3037000499n,
  3037000500n,
  2n ** 52n,
  -(2n ** 52n),
  SAFE - 1n,
  SAFE,
  -SAFE,
  SAFE + 1n,
  SAFE + 2n,
  -(SAFE + 2n),
  2n ** 62n,
  1234567890123456789n,
  -1234567890123456789n,
  MAX - 1n,
  MAX,
  MIN + 1n,
  MIN,
];
const asValue = (x: bigint): Int64 => normInt64(x);

/** A deterministic mix of edge values and pseudo-random longs of every magnitude. */
function operands(): bigint[] {
  const out = [...EDGES];
  let s = 0x2545f4914f6cdd1dn;
  for (let i = 0; i < 120; i++) {
    s = BigInt.asUintN(64, s * 6364136223846793005n + 1442695040888963407n);
    const bits = BigInt(1 + (i % 63));
    out.push(BigInt.asIntN(64, s) >> (64n - bits));
  }
  return out;
}

describe("BIGINT arithmetic: Java long semantics", () => {
  const xs = operands();
  const ops: [string, (a: Int64, b: Int64) => Int64, (a: bigint, b: bigint) => bigint][] = [
    ["+", int64Add, (a, b) => long(a + b)],
    ["-", int64Sub, (a, b) => long(a - b)],
    ["*", int64Mul, (a, b) => long(a * b)],
    ["/", int64Div, (a, b) => long(a / b)],
    ["%", int64Mod, (a, b) => long(a % b)],
  ];
  for (const [name, f, ref] of ops) {
    it(`${name} matches BigInt with 64-bit wrap-around and is canonical`, () => {
      let checked = 0;
      for (const a of xs) {
        for (const b of xs) {
          if ((name === "/" || name === "%") && b === 0n) continue;
          const got = f(asValue(a), asValue(b));
          canonical(got);
          expect(BigInt(got), `${a} ${name} ${b}`).toBe(ref(a, b));
          checked++;
        }
      }
      expect(checked).toBeGreaterThan(20_000);
    });
  }

  it("division by zero fails for both representations", () => {
    expect(() => int64Div(1, 0)).toThrow(/Division by zero/);
    expect(() => int64Div(MAX, 0)).toThrow(/Division by zero/);
    expect(() => int64Mod(MAX, 0)).toThrow(/Division by zero/);
  });

  it("negation, ABS and narrowing wrap like Java", () => {
    expect(int64Neg(MIN)).toBe(MIN);
    expect(int64Neg(MAX)).toBe(MIN + 1n);
    expect(Object.is(int64Neg(0), 0)).toBe(true);
    expect(int64Neg(-(SAFE + 1n))).toBe(SAFE + 1n);
    expect(int64Abs(MIN)).toBe(MIN);
    expect(int64Abs(-(SAFE + 1n))).toBe(SAFE + 1n);
    expect(int64Abs(-5)).toBe(5);
    for (const x of EDGES) {
      expect(int64Narrow(asValue(x), 32)).toBe(Number(BigInt.asIntN(32, x)));
      expect(int64Narrow(asValue(x), 16)).toBe(Number(BigInt.asIntN(16, x)));
      expect(int64Narrow(asValue(x), 8)).toBe(Number(BigInt.asIntN(8, x)));
    }
  });

  it("(long) of a double truncates and saturates; NaN is 0", () => {
    expect(int64FromDouble(1e21)).toBe(MAX);
    expect(int64FromDouble(-1e21)).toBe(MIN);
    expect(int64FromDouble(2 ** 63)).toBe(MAX);
    expect(int64FromDouble(-(2 ** 63))).toBe(MIN);
    expect(int64FromDouble(2 ** 60)).toBe(2n ** 60n);
    expect(int64FromDouble(-3.9)).toBe(-3);
    expect(int64FromDouble(Number.NaN)).toBe(0);
  });

  it("parses integer text exactly; out of range or not an integer is null", () => {
    expect(parseInt64("9223372036854775807")).toBe(MAX);
    expect(parseInt64(" -9223372036854775808 ")).toBe(MIN);
    expect(parseInt64("+9007199254740993")).toBe(9007199254740993n);
    expect(parseInt64("9007199254740991")).toBe(9007199254740991);
    expect(parseInt64("-000000000000000000042")).toBe(-42);
    expect(parseInt64("9223372036854775808")).toBeNull();
    expect(parseInt64("-9223372036854775809")).toBeNull();
    expect(parseInt64("1.5")).toBeNull();
    expect(parseInt64("")).toBeNull();
  });

  it("compiled expressions: wrap on + and *, compare exactly across representations", () => {
    const col = (i: number) => E.input(i, T.bigint());
    const plus = compileExpr(E.call("+", [col(0), col(1)], T.bigint()));
    const times = compileExpr(E.call("*", [col(0), col(1)], T.bigint()));
    const lt = compileExpr(E.call("<", [col(0), col(1)], T.boolean()));
    const eq = compileExpr(E.call("=", [col(0), col(1)], T.boolean()));
    expect(plus([MAX, 1])).toBe(MIN);
    expect(plus([Number.MAX_SAFE_INTEGER, 2])).toBe(SAFE + 2n);
    expect(plus([SAFE + 2n, -2])).toBe(Number.MAX_SAFE_INTEGER);
    expect(times([3037000500, 3037000500])).toBe(-9223372036709301616n);
    expect(times([2, 3])).toBe(6);
    expect(lt([Number.MAX_SAFE_INTEGER, SAFE + 1n])).toBe(true);
    expect(lt([MIN, -1])).toBe(true);
    expect(eq([normInt64(SAFE + 1n), normInt64(SAFE + 1n)])).toBe(true);
    expect(eq([normInt64(SAFE - 1n + 2n - 2n), Number.MAX_SAFE_INTEGER - 1])).toBe(true);
    const lit = compileExpr(E.literal("-9223372036854775808", T.bigint(false)));
    expect(lit([])).toBe(MIN);
    const small = compileExpr(E.literal(42, T.bigint(false)));
    expect(small([])).toBe(42);
  });
});

describe("BIGINT beyond ±2^53 as an argument of time functions and interval arithmetic", () => {
  const col = E.input(0, T.bigint());
  it("TO_TIMESTAMP_LTZ and FROM_UNIXTIME give NULL for an instant out of range, not a type error", () => {
    const ltz = compileExpr(E.call("TO_TIMESTAMP_LTZ", [col, E.literal(3, T.int(false))], T.timestampLtz(3)));
    expect(ltz([MAX])).toBeNull();
    expect(ltz([1700000000123])).toBe(1700000000123);
    const fromUnix = compileExpr(E.call("FROM_UNIXTIME", [col], T.string()));
    expect(fromUnix([MIN])).toBeNull();
    expect(fromUnix([0])).toBe("1970-01-01 00:00:00");
  });
  it("INTERVAL * BIGINT multiplies by the long's value", () => {
    const iv = compileExpr(
      E.call("*", [E.literal(1000, T.intervalDayTime(false)), col], T.intervalDayTime()),
    );
    expect(iv([SAFE + 1n])).toBe(Number(SAFE + 1n) * 1000);
    expect(iv([7])).toBe(7000);
  });
});

describe("BIGINT state: keys, codecs, SUM", () => {
  it("a single BIGINT key field: bigints beyond ±(2^53 − 1) and numbers round-trip, NULL apart", () => {
    const codec = keyCodec([0], [T.bigint()]);
    const keys = new Set<unknown>();
    for (const v of [0, 1, -1, Number.MAX_SAFE_INTEGER, SAFE + 1n, MAX, MIN, null]) {
      const k = codec.encode([v]);
      keys.add(k);
      expect(codec.decode(k)).toEqual([v]);
    }
    expect(keys.size).toBe(8);
    // equal values give equal keys (one representation per value)
    expect(codec.encode([normInt64(MAX - 1n + 1n)])).toBe(codec.encode([MAX]));
  });

  it("composite keys, JSON snapshots and the row codec keep bigints exact", () => {
    const values = [MAX, "x", MIN, 9007199254740993n, 5, null];
    expect(decodeKeyValues(encodeKeyValues(values))).toEqual(values);
    expect(decodeJson(JSON.parse(JSON.stringify(encodeJson(values))))).toEqual(values);
    expect(decodeRow(encodeRow(values))).toEqual(values);
  });

  it("SUM(BIGINT) wraps like a Java long and retracts exactly; AVG(BIGINT) divides the wrapped sum", () => {
    const s = sum(T.bigint(), T.bigint());
    let acc = s.create();
    for (const v of [MAX, MAX, 3]) acc = s.accumulate(acc, v);
    expect(s.getValue(acc)).toBe(1); // 2·(2^63 − 1) + 3 wraps to 1
    acc = s.retract(acc, MAX);
    expect(s.getValue(acc)).toBe(MIN + 2n);
    acc = s.retract(acc, 3);
    expect(s.getValue(acc)).toBe(MAX);
    const avg = createAggregate(
      { fn: "AVG", argTypes: [T.bigint()], type: T.bigint(), distinct: false },
      true,
    );
    let a = avg.create();
    for (const v of [MAX, MAX, 4]) a = avg.accumulate(a, v);
    expect(avg.getValue(a)).toBe(0); // (2·(2^63 − 1) + 4) wraps to 2; 2 / 3 = 0
    a = avg.retract(a, 4);
    expect(avg.getValue(a)).toBe(-1); // wrapped sum −2, / 2
  });
});
