/**
 * `java.util.Random`, bit for bit: the 48-bit linear congruential generator
 * `seed = (seed * 0x5DEECE66D + 0xB) mod 2^48` and the exact derivations of `nextInt()`,
 * `nextInt(bound)`, `nextLong()` and `nextDouble()` that the JDK documents. The same seed gives
 * the same sequence as Java, which is what lets the Nexmark source reproduce the reference
 * generator event by event.
 *
 * The state is kept as two 24-bit halves in plain numbers so that every step is exact in doubles
 * and int32 arithmetic, without BigInt (only `nextLong` uses BigInt, and it is off the hot path).
 */

const TWO24 = 16_777_216;
const TWO48 = 281_474_976_710_656;
const MASK24 = 0xff_ffff;
/** 0x5DEECE66D split at bit 24. */
const MUL_HI = 0x5de;
const MUL_LO = 0xece66d;
const ADDEND = 0xb;
const TWO31 = 2_147_483_648;
const TWO53 = 9_007_199_254_740_992;

export class JavaRandom {
  /** Bits 24..47 of the state. */
  private hi = 0;
  /** Bits 0..23 of the state. */
  private lo = 0;

  /** `new Random(seed)`; `seed` is a safe integer read as a Java `long`. */
  constructor(seed = 0) {
    this.setSeed(seed);
  }

  /** `setSeed(seed)` (equivalently `new Random(seed)`); only the low 48 bits of the long matter. */
  setSeed(seed: number): void {
    let s = seed % TWO48;
    if (s < 0) s += TWO48;
    const lo = s % TWO24;
    this.lo = lo ^ MUL_LO;
    this.hi = ((s - lo) / TWO24) ^ MUL_HI;
  }

  /** One LCG step. */
  private step(): void {
    const lo = this.lo;
    const hi = this.hi;
    // lo * MUL_LO < 2^48: exact in a double; its carry into the high half fits an int32.
    const carry = ((lo * MUL_LO + ADDEND) / TWO24) | 0;
    this.lo = (Math.imul(lo, MUL_LO) + ADDEND) & MASK24;
    // Only the low 24 bits of the high half survive mod 2^48: int32 products are enough.
    this.hi = (Math.imul(hi, MUL_LO) + Math.imul(lo, MUL_HI) + carry) & MASK24;
  }

  /** `next(31)`: a non-negative int. */
  private next31(): number {
    this.step();
    return (this.hi << 7) | (this.lo >>> 17);
  }

  /** `nextInt()`: `next(32)` as a signed int. */
  nextInt(): number {
    this.step();
    return (this.hi << 8) | (this.lo >>> 16);
  }

  /** `nextInt(bound)`, `bound > 0`, with Java's rejection loop (so the draw count matches too). */
  nextIntBounded(bound: number): number {
    let r = this.next31();
    const m = bound - 1;
    if ((bound & m) === 0) return Math.floor((r * bound) / TWO31);
    for (let u = r; ((u - (r = u % bound) + m) | 0) < 0; u = this.next31());
    return r;
  }

  /** `nextLong()` (two `next(32)` draws), as a BigInt. */
  nextLong(): bigint {
    const high = BigInt(this.nextInt());
    const low = BigInt(this.nextInt());
    return BigInt.asIntN(64, (high << 32n) + low);
  }

  /** `nextDouble()`: 53 random bits over 2^53. */
  nextDouble(): number {
    this.step();
    const a = (this.hi << 2) | (this.lo >>> 22);
    this.step();
    const b = (this.hi << 3) | (this.lo >>> 21);
    return (a * 134_217_728 + b) / TWO53;
  }
}

/** Validates a `nextInt(bound)` argument the way Java does (it throws for `bound <= 0`). */
export function checkBound(bound: number, what: string): number {
  if (!Number.isInteger(bound) || bound <= 0 || bound > 0x7fff_ffff) {
    throw new RangeError(`${what} must be a positive int, got ${bound}`);
  }
  return bound;
}
