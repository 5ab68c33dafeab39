import { describe, expect, it } from "vitest";
import {
  decimalAdd,
  decimalDivide,
  decimalFromNumber,
  decimalMod,
  decimalMultiply,
  decimalSubtract,
  divRoundHalfUp,
  formatDecimal,
  parseDecimal,
  rescaleDecimal,
} from "../src/expr/index.js";

describe("formatDecimal / parseDecimal", () => {
  it.each([
    [1230n, 2, "12.30"],
    [-5n, 3, "-0.005"],
    [0n, 2, "0.00"],
    [7n, 0, "7"],
    [-120n, 1, "-12.0"],
    [12345678901234567890123456789012345678n, 10, "1234567890123456789012345678.9012345678"],
  ])("format(%s, %s) = %s", (u, s, text) => {
    expect(formatDecimal(u, s)).toBe(text);
  });

  it.each([
    ["12.3", 18, 2, 1230n],
    [" -0.005 ", 10, 2, -1n], // HALF_UP: away from zero on ties
    ["0.004", 10, 2, 0n],
    ["2.675", 10, 2, 268n],
    ["1.5E3", 10, 0, 1500n],
    ["1e-2", 10, 2, 1n],
    [".5", 5, 0, 1n],
    ["-.5", 5, 0, -1n],
    ["123.45", 4, 2, null], // 123.45 needs 5 digits
    ["99.995", 4, 2, null], // rounds to 100.00: overflow
    ["abc", 10, 2, null],
    ["", 10, 2, null],
    ["1.2.3", 10, 2, null],
  ])("parse(%j, %s, %s) = %s", (text, p, s, expected) => {
    expect(parseDecimal(text, p, s)).toBe(expected);
  });
});

describe("decimal arithmetic", () => {
  const d = (precision: number, scale: number) => ({ precision, scale });
  it("0.1 + 0.2 is exactly 0.30 in DECIMAL(18,2)", () => {
    const add = decimalAdd(d(18, 2), d(18, 2), d(19, 2));
    expect(formatDecimal(add(10n, 20n)!, 2)).toBe("0.30");
  });
  it.each([
    ["add mixed scales", decimalAdd(d(5, 2), d(5, 3), d(7, 3)), 123n, 1n, "1.231", 3],
    ["subtract", decimalSubtract(d(5, 2), d(5, 2), d(6, 2)), 100n, 250n, "-1.50", 2],
    ["multiply", decimalMultiply(d(5, 2), d(5, 2), d(11, 4)), 150n, 250n, "3.7500", 4],
    // DECIMAL(10,2) / DECIMAL(10,2) → DECIMAL(23,13): 1/3
    ["divide", decimalDivide(d(10, 2), d(10, 2), d(23, 13)), 100n, 300n, "0.3333333333333", 13],
    ["divide rounds HALF_UP", decimalDivide(d(10, 2), d(10, 0), d(17, 6)), 200n, 3n, "0.666667", 6],
    ["divide negative", decimalDivide(d(10, 2), d(10, 0), d(17, 6)), -200n, 3n, "-0.666667", 6],
    ["mod keeps dividend sign", decimalMod(d(5, 1), d(5, 1), d(5, 1)), -75n, 20n, "-1.5", 1],
  ])("%s", (_name, op, a, b, expected, scale) => {
    expect(formatDecimal(op(a, b)!, scale)).toBe(expected);
  });
  it("overflow gives null", () => {
    const add = decimalAdd(d(3, 0), d(3, 0), d(3, 0));
    expect(add(999n, 1n)).toBeNull();
  });
  it("division by zero fails", () => {
    expect(() => decimalDivide(d(5, 0), d(5, 0), d(11, 6))(1n, 0n)).toThrow(/Division by zero/);
  });
  it.each([
    [5n, 2n, 3n],
    [-5n, 2n, -3n],
    [4n, 3n, 1n],
    [-4n, 3n, -1n],
    [5n, -2n, -3n],
  ])("divRoundHalfUp(%s, %s) = %s", (n, dd, q) => {
    expect(divRoundHalfUp(n, dd)).toBe(q);
  });
  it.each([
    [12345n, 3, 1, 123n],
    [12355n, 3, 2, 1236n],
    [-12355n, 3, 2, -1236n],
    [5n, 0, 2, 500n],
  ])("rescale(%s, %s → %s) = %s", (u, from, to, expected) => {
    expect(rescaleDecimal(u, from, to)).toBe(expected);
  });
  it.each([
    [0.1, 10, 2, 10n],
    [1.005, 10, 2, 101n], // shortest text of the double is 1.005
    [-2.5, 10, 0, -3n],
    [1e20, 10, 0, null],
    [Number.NaN, 10, 0, null],
  ])("decimalFromNumber(%s, %s, %s) = %s", (x, p, s, expected) => {
    expect(decimalFromNumber(x, p, s)).toBe(expected);
  });
});
