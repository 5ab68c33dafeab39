import { ExpressionError } from "./errors.js";

/**
 * Exact DECIMAL arithmetic on unscaled `bigint` values. A DECIMAL(p, s) value v is carried as
 * v·10^s; every operation here takes the scales explicitly. Rounding is HALF_UP (away from zero
 * on ties), as Flink's `DecimalData` does; a result that does not fit its precision is NULL.
 */

const POW10: bigint[] = [];
for (let i = 0, p = 1n; i <= 80; i++, p *= 10n) POW10.push(p);

export function pow10(n: number): bigint {
  return n <= 80 ? POW10[n] : 10n ** BigInt(n);
}

/** n / d rounded HALF_UP. */
export function divRoundHalfUp(n: bigint, d: bigint): bigint {
  if (d === 0n) throw new ExpressionError("Division by zero");
  if (d < 0n) {
    n = -n;
    d = -d;
  }
  const q = n / d;
  const r = n - q * d;
  if (r === 0n) return q;
  const twice = (r < 0n ? -r : r) * 2n;
  if (twice >= d) return n < 0n ? q - 1n : q + 1n;
  return q;
}

/** Changes the scale of an unscaled value, rounding HALF_UP when digits are dropped. */
export function rescale(unscaled: bigint, fromScale: number, toScale: number): bigint {
  if (toScale === fromScale) return unscaled;
  if (toScale > fromScale) return unscaled * pow10(toScale - fromScale);
  return divRoundHalfUp(unscaled, pow10(fromScale - toScale));
}

/** Whether the unscaled value has at most `precision` digits. */
export function fitsPrecision(unscaled: bigint, precision: number): boolean {
  return unscaled < pow10(precision) && unscaled > -pow10(precision);
}

/** The value itself when it fits `precision` digits, else null (Flink's overflow result). */
export function checkPrecision(unscaled: bigint, precision: number): bigint | null {
  return fitsPrecision(unscaled, precision) ? unscaled : null;
}

/** Plain decimal text with exactly `scale` fraction digits: `formatDecimal(1230n, 2)` is `"12.30"`. */
export function formatDecimal(unscaled: bigint, scale: number): string {
  const negative = unscaled < 0n;
  let digits = (negative ? -unscaled : unscaled).toString();
  if (scale > 0) {
    if (digits.length <= scale) digits = "0".repeat(scale - digits.length + 1) + digits;
    digits = `${digits.slice(0, digits.length - scale)}.${digits.slice(digits.length - scale)}`;
  }
  return negative ? `-${digits}` : digits;
}

const DECIMAL_TEXT = /^\s*([+-])?(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?\s*$/;

/**
 * Parses decimal text (optional sign, fraction and exponent, surrounding blanks) into an unscaled
 * value of DECIMAL(precision, scale), rounding HALF_UP. Null when the text is not a number or the
 * value does not fit the precision.
 */
export function parseDecimal(text: string, precision: number, scale: number): bigint | null {
  const m = DECIMAL_TEXT.exec(text);
  if (m === null) return null;
  const intPart = m[2];
  const fracPart = m[3] ?? "";
  if (intPart === "" && fracPart === "") return null;
  const exponent = m[4] === undefined ? 0 : Number.parseInt(m[4], 10);
  let unscaled = BigInt(intPart + fracPart || "0");
  // value = unscaled · 10^(exponent - fracPart.length)
  const valueScale = fracPart.length - exponent;
  unscaled = valueScale >= 0 ? rescale(unscaled, valueScale, scale) : unscaled * pow10(scale - valueScale);
  if (m[1] === "-") unscaled = -unscaled;
  return checkPrecision(unscaled, precision);
}

/** The nearest double (via its decimal text, so the conversion is correctly rounded). */
export function decimalToNumber(unscaled: bigint, scale: number): number {
  return scale === 0 ? Number(unscaled) : Number(formatDecimal(unscaled, scale));
}

/**
 * A double as DECIMAL(precision, scale): its shortest decimal text (Java's `BigDecimal.valueOf`),
 * rounded HALF_UP; null on overflow, NaN or infinity.
 */
export function decimalFromNumber(x: number, precision: number, scale: number): bigint | null {
  if (!Number.isFinite(x)) return null;
  if (Number.isSafeInteger(x)) return checkPrecision(BigInt(x) * pow10(scale), precision);
  return parseDecimal(String(x), precision, scale);
}

/** An integer (number) as DECIMAL(precision, scale); null on overflow. */
export function decimalFromInteger(x: number, precision: number, scale: number): bigint | null {
  return checkPrecision(BigInt(Math.trunc(x)) * pow10(scale), precision);
}

/** The integral part, truncated toward zero (CAST decimal AS INT/BIGINT). */
export function decimalTruncToNumber(unscaled: bigint, scale: number): number {
  return Number(unscaled / pow10(scale));
}

export interface DecimalShape {
  readonly precision: number;
  readonly scale: number;
}

/** Binary operation on two decimals producing a decimal of type `r`; null on overflow. */
export type DecimalBinary = (a: bigint, b: bigint) => bigint | null;

export function decimalAdd(a: DecimalShape, b: DecimalShape, r: DecimalShape): DecimalBinary {
  const s = Math.max(a.scale, b.scale);
  const ua = pow10(s - a.scale);
  const ub = pow10(s - b.scale);
  return (x, y) => checkPrecision(rescale(x * ua + y * ub, s, r.scale), r.precision);
}

export function decimalSubtract(a: DecimalShape, b: DecimalShape, r: DecimalShape): DecimalBinary {
  const s = Math.max(a.scale, b.scale);
  const ua = pow10(s - a.scale);
  const ub = pow10(s - b.scale);
  return (x, y) => checkPrecision(rescale(x * ua - y * ub, s, r.scale), r.precision);
}

export function decimalMultiply(a: DecimalShape, b: DecimalShape, r: DecimalShape): DecimalBinary {
  const s = a.scale + b.scale;
  return (x, y) => checkPrecision(rescale(x * y, s, r.scale), r.precision);
}

/** x / y at the result scale: round(x·10^(sb+sr) / (y·10^sa)). Division by zero fails. */
export function decimalDivide(a: DecimalShape, b: DecimalShape, r: DecimalShape): DecimalBinary {
  const num = pow10(b.scale + r.scale);
  const den = pow10(a.scale);
  return (x, y) => {
    if (y === 0n) throw new ExpressionError("Division by zero");
    return checkPrecision(divRoundHalfUp(x * num, y * den), r.precision);
  };
}

/** Remainder with the sign of the dividend (Java's `BigDecimal.remainder`). */
export function decimalMod(a: DecimalShape, b: DecimalShape, r: DecimalShape): DecimalBinary {
  const s = Math.max(a.scale, b.scale);
  const ua = pow10(s - a.scale);
  const ub = pow10(s - b.scale);
  return (x, y) => {
    if (y === 0n) throw new ExpressionError("Division by zero");
    return checkPrecision(rescale((x * ua) % (y * ub), s, r.scale), r.precision);
  };
}

/** Compares decimals of possibly different scales. */
export function compareDecimal(a: bigint, sa: number, b: bigint, sb: number): number {
  const s = Math.max(sa, sb);
  const x = a * pow10(s - sa);
  const y = b * pow10(s - sb);
  return x < y ? -1 : x > y ? 1 : 0;
}

/** ROUND(x, r) for a DECIMAL(·, s) value, HALF_UP, giving a value at `resultScale`. */
export function decimalRound(x: bigint, scale: number, r: number, resultScale: number): bigint {
  if (r >= scale) return rescale(x, scale, resultScale);
  const unit = pow10(scale - r);
  const rounded = divRoundHalfUp(x, unit) * unit; // at `scale`
  return rescale(rounded, scale, resultScale);
}

/** TRUNCATE(x, r): drops digits toward zero. */
export function decimalTruncate(x: bigint, scale: number, r: number, resultScale: number): bigint {
  if (r >= scale) return rescale(x, scale, resultScale);
  const unit = pow10(scale - r);
  const truncated = (x / unit) * unit;
  return rescale(truncated, scale, resultScale);
}

/** FLOOR / CEIL of a decimal, as an unscaled value at scale 0. */
export function decimalFloor(x: bigint, scale: number): bigint {
  const unit = pow10(scale);
  const q = x / unit;
  return x < 0n && q * unit !== x ? q - 1n : q;
}

export function decimalCeil(x: bigint, scale: number): bigint {
  const unit = pow10(scale);
  const q = x / unit;
  return x > 0n && q * unit !== x ? q + 1n : q;
}
