import { JavaRandom } from "./java-random.js";
import { nextString } from "./strings.js";

/**
 * The bid `channel` / `url` values. Channel names are the reference's exactly: half of the bids
 * go to one of four hot channels, the rest to `channel-N` for N in 0..9999.
 *
 * Deviation (documented): the reference draws each url's random path segments and its
 * 9-in-10 `&channel_id=` suffix from an unseeded `new Random()`, so its urls differ between
 * runs. Weir derives them from a `JavaRandom` seeded by the channel (hot channel i: seed −1 − i),
 * with the same shape, lengths and probabilities, so they are reproducible.
 */

export const HOT_CHANNELS: readonly string[] = ["Google", "Facebook", "Baidu", "Apple"];
export const CHANNELS_NUMBER = 10_000;
export const HOT_CHANNELS_RATIO = 2;

const UNDERSCORE = 95;

function baseUrl(random: JavaRandom): string {
  const a = nextString(random, 5, UNDERSCORE);
  const b = nextString(random, 5, UNDERSCORE);
  const c = nextString(random, 5, UNDERSCORE);
  return `https://www.nexmark.com/${a}/${b}/${c}/item.htm?query=1`;
}

/** `Math.abs(Integer.reverse(n))` with int overflow (`reverse(1)` is `Integer.MIN_VALUE`). */
export function absReversedInt(n: number): number {
  let v = n | 0;
  let r = 0;
  for (let i = 0; i < 32; i++) {
    r = (r << 1) | (v & 1);
    v >>>= 1;
  }
  return r === -2147483648 ? r : Math.abs(r);
}

const urlRandom = new JavaRandom(0);

export const HOT_URLS: readonly string[] = HOT_CHANNELS.map((_, i) => {
  urlRandom.setSeed(-1 - i);
  return baseUrl(urlRandom);
});

/** Filled on first use, like the reference's channel cache. */
const channelNames: (string | undefined)[] = new Array(CHANNELS_NUMBER);
const channelUrls: (string | undefined)[] = new Array(CHANNELS_NUMBER);

export function channelName(n: number): string {
  const cached = channelNames[n];
  if (cached !== undefined) return cached;
  return (channelNames[n] = `channel-${n}`);
}

export function channelUrl(n: number): string {
  const cached = channelUrls[n];
  if (cached !== undefined) return cached;
  urlRandom.setSeed(n);
  let url = baseUrl(urlRandom);
  if (urlRandom.nextIntBounded(10) > 0) url = `${url}&channel_id=${absReversedInt(n)}`;
  return (channelUrls[n] = url);
}
