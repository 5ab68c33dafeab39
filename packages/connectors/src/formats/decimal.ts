import { FormatError } from "./errors.js";

/**
 * Exact DECIMAL text conversion: a DECIMAL(p, s) value is its unscaled `bigint` (12.30 in
 * DECIMAL(p, 2) is 1230n); text never passes through a JS double.
 */

/** Plain text with exactly `scale` fraction digits: (1230n, 2) → `12.30`. */
export function formatDecimal(unscaled: bigint, scale: number): string {
  if (scale === 0) return unscaled.toString();
  const neg = unscaled < 0n;
  const digits = (neg ? -unscaled : unscaled).toString().padStart(scale + 1, "0");
  const cut = digits.length - scale;
  return `${neg ? "-" : ""}${digits.slice(0, cut)}.${digits.slice(cut)}`;
}

const NUMBER_RE = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/;

/**
 * Parses decimal text (plain or with an exponent) to the unscaled value at `scale`, rounding
 * HALF_UP like Java's BigDecimal.setScale. Returns null when the value needs more than
 * `precision` digits (Flink's DecimalData.fromBigDecimal gives null there too).
 */
export function parseDecimal(text: string, precision: number, scale: number): bigint | null {
  const m = NUMBER_RE.exec(text.trim());
  if (!m || (m[2] === "" && (m[3] === undefined || m[3] === ""))) {
    throw new FormatError(`invalid decimal '${text}'`);
  }
  const frac = m[3] ?? "";
  const digitText = `${m[2] || "0"}${frac}`.replace(/^0+(?=\d)/, "");
  let digits = BigInt(digitText);
  // value = digits × 10^(exp − frac.length); we want value × 10^scale.
  const shift = Number(m[4] ?? "0") - frac.length + scale;
  // Decide far-out exponents without building 10^shift (`1e999999999` must not hang).
  if (digits === 0n) return 0n;
  if (digitText.length + shift > precision) return null;
  if (shift < -(digitText.length + 1)) return 0n;
  if (shift >= 0) {
    digits *= 10n ** BigInt(shift);
  } else {
    const div = 10n ** BigInt(-shift);
    const q = digits / div;
    digits = (digits % div) * 2n >= div ? q + 1n : q;
  }
  if (digits >= 10n ** BigInt(precision)) return null;
  return m[1] === "-" ? -digits : digits;
}
