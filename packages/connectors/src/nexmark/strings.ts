import type { JavaRandom } from "./java-random.js";

/**
 * The reference's string rules (`StringsGenerator`, the person tables and the bid channel/url
 * cache), drawing from a {@link JavaRandom} in exactly the reference's order.
 */

const MIN_STRING_LENGTH = 3;

/**
 * Reused buffer for building strings. Every generated char is ASCII, so a latin1 decode of the
 * bytes is exact — and several times faster than `String.fromCharCode` or concatenation.
 */
let codes = Buffer.alloc(1024);

function toText(start: number, end: number): string {
  return codes.toString("latin1", start, end);
}

function ensure(n: number): void {
  if (n > codes.length) codes = Buffer.alloc(Math.max(n, codes.length * 2));
}

/**
 * `nextString(random, maxLength, special)`: 3 to maxLength − 1 chars, each `special` with
 * probability 1/13, otherwise a lower-case letter; then Java's `trim()`.
 */
export function nextString(random: JavaRandom, maxLength: number, special = 32): string {
  const len = MIN_STRING_LENGTH + random.nextIntBounded(maxLength - MIN_STRING_LENGTH);
  ensure(len);
  let start = 0;
  let end = len;
  for (let i = 0; i < len; i++) {
    codes[i] = random.nextIntBounded(13) === 0 ? special : 97 + random.nextIntBounded(26);
  }
  if (special <= 32) {
    while (start < end && codes[start] <= 32) start++;
    while (end > start && codes[end - 1] <= 32) end--;
  }
  return toText(start, end);
}

/**
 * `nextExactString(random, length)`: six chars per `nextInt()`, `'a' + rnd % 26` with Java's
 * signed remainder — so a negative draw yields chars below `'a'` (`H`..`` ` ``), as in Java.
 */
export function nextExactString(random: JavaRandom, length: number): string {
  ensure(length);
  let rnd = 0;
  let n = 0;
  for (let i = 0; i < length; i++) {
    if (n === 0) {
      rnd = random.nextInt();
      n = 6;
    }
    const q = (rnd / 26) | 0;
    codes[i] = 97 + rnd - q * 26;
    rnd = q;
    n--;
  }
  return toText(0, length);
}

/** `nextExtra`: padding so that `currentSize + extra.length` averages `desiredAverageSize`. */
export function nextExtra(random: JavaRandom, currentSize: number, desiredAverageSize: number): string {
  if (currentSize > desiredAverageSize) return "";
  const desired = desiredAverageSize - currentSize;
  const delta = Math.round(desired * 0.2);
  const size = desired - delta + (delta === 0 ? 0 : random.nextIntBounded(2 * delta));
  return nextExactString(random, size);
}

export const US_STATES: readonly string[] = "AZ,CA,ID,OR,WA,WY".split(",");
export const US_CITIES: readonly string[] =
  "Phoenix,Los Angeles,San Francisco,Boise,Portland,Bend,Redmond,Seattle,Kent,Cheyenne".split(",");
const FIRST_NAMES = "Peter,Paul,Luke,John,Saul,Vicky,Kate,Julie,Sarah,Deiter,Walter".split(",");
const LAST_NAMES = "Shultz,Abrams,Spencer,White,Bartels,Walton,Smith,Jones,Noris".split(",");

/** `FIRST_NAMES[i] + " " + LAST_NAMES[j]` at `i * LAST_NAMES.length + j`. */
const PERSON_NAMES: readonly string[] = FIRST_NAMES.flatMap((f) => LAST_NAMES.map((l) => `${f} ${l}`));

/** `%04d` of 0..9999. */
const FOUR_DIGITS: readonly string[] = Array.from({ length: 10_000 }, (_, i) => String(i).padStart(4, "0"));

export function nextPersonName(random: JavaRandom): string {
  const first = random.nextIntBounded(FIRST_NAMES.length);
  return PERSON_NAMES[first * LAST_NAMES.length + random.nextIntBounded(LAST_NAMES.length)];
}

export function nextEmail(random: JavaRandom): string {
  const user = nextString(random, 7);
  return `${user}@${nextString(random, 5)}.com`;
}

export function nextCreditCard(random: JavaRandom): string {
  const a = FOUR_DIGITS[random.nextIntBounded(10_000)];
  const b = FOUR_DIGITS[random.nextIntBounded(10_000)];
  const c = FOUR_DIGITS[random.nextIntBounded(10_000)];
  return `${a} ${b} ${c} ${FOUR_DIGITS[random.nextIntBounded(10_000)]}`;
}
