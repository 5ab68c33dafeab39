import { ExpressionError } from "./errors.js";

/**
 * BIGINT at run time: a Java `long` (64-bit two's complement) carried as a JS `number` when it is
 * a safe integer (|v| ≤ 2^53 − 1) and as a JS `bigint` only outside that range. Every producer
 * normalises with {@link normInt64}, so one value has one representation: `===`, Map keys and
 * state-key encodings stay canonical, and the common (safe) path stays plain number arithmetic.
 * Arithmetic wraps around silently like Java's (Flink's BIGINT overflow rules); integer division
 * truncates toward zero; division by zero fails.
 */
export type Int64 = number | bigint;

const MAX_SAFE = Number.MAX_SAFE_INTEGER;
const MAX_SAFE_N = BigInt(Number.MAX_SAFE_INTEGER);
export const INT64_MIN = -(2n ** 63n);
export const INT64_MAX = 2n ** 63n - 1n;

/** Wraps to 64 bits (as Java's long arithmetic) and returns the canonical representation. */
export function normInt64(x: bigint): Int64 {
  const w = BigInt.asIntN(64, x);
  return w <= MAX_SAFE_N && w >= -MAX_SAFE_N ? Number(w) : w;
}

/** The canonical representation of an exact integer known to be in the 64-bit range, or null. */
export function int64OrNull(x: bigint): Int64 | null {
  if (x < INT64_MIN || x > INT64_MAX) return null;
  return x <= MAX_SAFE_N && x >= -MAX_SAFE_N ? Number(x) : x;
}

/** Whether `v` is a BIGINT run-time value (a safe-integer number or an in-range bigint). */
export function isInt64(v: unknown): v is Int64 {
  if (typeof v === "number") return Number.isSafeInteger(v);
  return typeof v === "bigint" && v >= INT64_MIN && v <= INT64_MAX;
}

const big = (v: Int64): bigint => (typeof v === "bigint" ? v : BigInt(v));

export function int64Add(a: Int64, b: Int64): Int64 {
  if (typeof a === "number" && typeof b === "number") {
    const r = a + b;
    if (r <= MAX_SAFE && r >= -MAX_SAFE) return r;
  }
  return normInt64(big(a) + big(b));
}

export function int64Sub(a: Int64, b: Int64): Int64 {
  if (typeof a === "number" && typeof b === "number") {
    const r = a - b;
    if (r <= MAX_SAFE && r >= -MAX_SAFE) return r;
  }
  return normInt64(big(a) - big(b));
}

export function int64Mul(a: Int64, b: Int64): Int64 {
  if (typeof a === "number" && typeof b === "number") {
    // the rounded product of two integers is exact while it stays within ±(2^53 − 1)
    const r = a * b;
    if (r <= MAX_SAFE && r >= -MAX_SAFE) return r === 0 ? 0 : r;
  }
  return normInt64(big(a) * big(b));
}

function divisionByZero(): never {
  throw new ExpressionError("Division by zero");
}

const HALF = 2 ** 52;
const TWO_63 = 2 ** 63;

/** Java's `a / b` on longs: truncates toward zero; `MIN / -1` wraps to MIN; `/ 0` fails. */
export function int64Div(a: Int64, b: Int64): Int64 {
  if (typeof a === "number" && typeof b === "number") {
    if (b === 0) return divisionByZero();
    // with |a| + |b| ≤ 2^53 the double quotient cannot round across an integer
    if (a <= HALF && a >= -HALF && b <= HALF && b >= -HALF) {
      const q = Math.trunc(a / b);
      return q === 0 ? 0 : q;
    }
  }
  const d = big(b);
  if (d === 0n) return divisionByZero();
  return normInt64(big(a) / d);
}

/** Java's `a % b` on longs: the sign of the dividend; `% 0` fails. */
export function int64Mod(a: Int64, b: Int64): Int64 {
  if (typeof a === "number" && typeof b === "number") {
    if (b === 0) return divisionByZero();
    const r = a % b; // exact for doubles
    return r === 0 ? 0 : r;
  }
  const d = big(b);
  if (d === 0n) return divisionByZero();
  return normInt64(big(a) % d);
}

/** `-a`; `-MIN` wraps to MIN as in Java. */
export function int64Neg(a: Int64): Int64 {
  return typeof a === "number" ? 0 - a : normInt64(-a);
}

/** ABS(a); `ABS(MIN)` is MIN as Java's `Math.abs`. */
export function int64Abs(a: Int64): Int64 {
  if (typeof a === "number") return a < 0 ? -a : a;
  return normInt64(a < 0n ? -a : a);
}

/** Java's `(int)`/`(short)`/`(byte)` narrowing of a long: keeps the low `bits` bits. */
export function int64Narrow(a: Int64, bits: 8 | 16 | 32): number {
  if (typeof a === "number") {
    // ToInt32 is exact modulo 2^32 for any integral double
    const x = a | 0;
    return bits === 32 ? x : bits === 16 ? (x << 16) >> 16 : (x << 24) >> 24;
  }
  return Number(BigInt.asIntN(bits, a));
}

/** A long as a double (nearest, as Java's `(double) l`). */
export function int64ToDouble(a: Int64): number {
  return typeof a === "number" ? a : Number(a);
}

/** Java's `(long) d`: NaN is 0, truncates toward zero, saturates at the long bounds. */
export function int64FromDouble(x: number): Int64 {
  if (Number.isNaN(x)) return 0;
  const t = Math.trunc(x);
  if (t <= MAX_SAFE && t >= -MAX_SAFE) return t === 0 ? 0 : t;
  // 2^63 is exact as a double: at or beyond it saturates (as does anything below -2^63)
  if (t >= TWO_63) return INT64_MAX;
  if (t <= -TWO_63) return INT64_MIN;
  return normInt64(BigInt(t));
}

/** An exact integer value (e.g. a truncated DECIMAL's unscaled bigint) wrapped into a long. */
export function int64FromBigint(x: bigint): Int64 {
  return normInt64(x);
}

/**
 * The text of a JSON / CSV / database integer read as a long, exactly: an optional sign and
 * digits (surrounding spaces allowed). Null when it is not such text or is outside the long range.
 */
const DIGITS = /^\s*([+-]?)(\d+)\s*$/;
export function parseInt64(text: string): Int64 | null {
  const m = DIGITS.exec(text);
  if (m === null) return null;
  if (m[2].length <= 15) {
    const n = Number(m[2]);
    return m[1] === "-" ? 0 - n : n;
  }
  const n = BigInt(m[2]);
  return int64OrNull(m[1] === "-" ? -n : n);
}

/** Three-way comparison of two longs (mixed number/bigint compares exactly with `<`). */
export function compareInt64(a: Int64, b: Int64): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * The value of `v` (a run-time BIGINT, or a number/bigint a connector produced) as a bigint.
 */
export function int64ToBigint(v: Int64): bigint {
  return big(v);
}

/** ROUND / TRUNCATE of a long to `r` digits (r < 0 rounds to tens, hundreds, …; HALF_UP). */
export function int64RoundInteger(x: Int64, r: number, truncate: boolean): Int64 {
  if (r >= 0) return x;
  const v = big(x);
  const unit = 10n ** BigInt(-r);
  const neg = v < 0n;
  const m = neg ? -v : v;
  let q = m / unit;
  if (!truncate && (m % unit) * 2n >= unit) q += 1n;
  return normInt64((neg ? -q : q) * unit);
}
