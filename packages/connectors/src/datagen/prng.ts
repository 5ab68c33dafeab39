/**
 * xoshiro128** — a small, fast, seedable PRNG whose whole state is four uint32s, so a source
 * position can store it and a restore continues the exact same sequence.
 */
export class Prng {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(state: readonly [number, number, number, number]) {
    [this.a, this.b, this.c, this.d] = state;
    if ((this.a | this.b | this.c | this.d) === 0) this.a = 1;
  }

  /** Expands a 32-bit seed with splitmix32 (xoshiro must not start from a zero state). */
  static fromSeed(seed: number): Prng {
    let s = seed >>> 0;
    const next = () => {
      s = (s + 0x9e3779b9) >>> 0;
      let z = s;
      z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
      z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
      return (z ^ (z >>> 16)) >>> 0;
    };
    return new Prng([next(), next(), next(), next()]);
  }

  state(): [number, number, number, number] {
    return [this.a, this.b, this.c, this.d];
  }

  /** A uniform uint32. */
  nextU32(): number {
    const result = Math.imul(rotl(Math.imul(this.b, 5), 7), 9) >>> 0;
    const t = this.b << 9;
    this.c ^= this.a;
    this.d ^= this.b;
    this.b ^= this.c;
    this.a ^= this.d;
    this.c ^= t;
    this.d = rotl(this.d, 11);
    return result;
  }

  /** Uniform in [0, 1) with 53 random bits. */
  nextDouble(): number {
    return ((this.nextU32() >>> 5) * 67108864 + (this.nextU32() >>> 6)) / 9007199254740992;
  }

  /** Uniform integer in [lo, hi] (inclusive; exact while hi − lo < 2^53). */
  nextInt(lo: number, hi: number): number {
    return lo + Math.floor(this.nextDouble() * (hi - lo + 1));
  }

  /** Uniform bigint in [lo, hi] (inclusive). */
  nextBigInt(lo: bigint, hi: bigint): bigint {
    const span = hi - lo + 1n;
    let r = 0n;
    const bits = span.toString(2).length + 32;
    for (let i = 0; i < bits; i += 32) r = (r << 32n) | BigInt(this.nextU32());
    return lo + (r % span);
  }
}

function rotl(x: number, k: number): number {
  return ((x << k) | (x >>> (32 - k))) >>> 0;
}
