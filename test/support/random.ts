/**
 * mulberry32, a small seeded PRNG: numbers in [0, 1), the same sequence for a seed on every run
 * and machine, so a failing seed reproduces. The one copy for every package's tests (a package's
 * tests reach it by a relative path; the packages themselves never import it).
 */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
