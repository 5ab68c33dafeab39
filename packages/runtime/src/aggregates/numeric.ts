import type { DataType } from "@weir/planner";

const POW10: bigint[] = [];
export function pow10(n: number): bigint {
  for (let i = POW10.length; i <= n; i++) POW10.push(i === 0 ? 1n : POW10[i - 1] * 10n);
  return POW10[n];
}

/** `a / b` rounded half away from zero (Java's `RoundingMode.HALF_UP`). */
export function divideHalfUp(a: bigint, b: bigint): bigint {
  if (b < 0n) {
    a = -a;
    b = -b;
  }
  const q = a / b;
  const r = a % b;
  if (2n * (r < 0n ? -r : r) >= b) return a < 0n ? q - 1n : q + 1n;
  return q;
}

/** Re-scales an unscaled DECIMAL value, rounding half up. */
export function rescale(unscaled: bigint, fromScale: number, toScale: number): bigint {
  if (toScale >= fromScale) return unscaled * pow10(toScale - fromScale);
  return divideHalfUp(unscaled, pow10(fromScale - toScale));
}

export function decimalScale(t: DataType): number {
  return t.kind === "DECIMAL" ? t.scale : 0;
}

/** A non-null argument as a double (DECIMAL unscaled bigints are scaled by `scale`). */
export function toDouble(v: unknown, scale: number): number {
  return typeof v === "bigint" ? Number(v) / 10 ** scale : (v as number);
}

/**
 * A numeric result in the JS value of `type`, the way Java casts it: integral types truncate
 * toward zero and wrap around (TINYINT/SMALLINT/INT; BIGINT truncates, for results within ±2^53), FLOAT
 * rounds to single precision, DECIMAL rounds half up to the type's scale.
 */
export function castNumber(x: number, type: DataType): unknown {
  switch (type.kind) {
    case "TINYINT":
      return (Math.trunc(x) << 24) >> 24;
    case "SMALLINT":
      return (Math.trunc(x) << 16) >> 16;
    case "INT":
      return Math.trunc(x) | 0;
    case "BIGINT":
      return Math.trunc(x);
    case "FLOAT":
      return Math.fround(x);
    case "DECIMAL": {
      if (!Number.isFinite(x)) return null;
      const scaled = x * 10 ** type.scale;
      return BigInt(Math.sign(scaled) * Math.round(Math.abs(scaled)));
    }
    default:
      return x;
  }
}
