import { ConnectorError } from "@weir/runtime";

/**
 * The generator parameters of nexmark-flink (`NexmarkConfiguration` + `GeneratorConfig`), read
 * from the table options. Option names are the reference's (`NexmarkSourceOptions`); a few keys
 * the reference only has in its configuration object are accepted as Weir extensions.
 */
export interface NexmarkConfig {
  readonly personProportion: number;
  readonly auctionProportion: number;
  readonly bidProportion: number;
  /** person + auction + bid; > 0. */
  readonly totalProportion: number;
  /** Microseconds of event time between two events: `1e6 / first-event.rate` (one generator). */
  readonly interEventDelayUs: number;
  /** Events to emit; `Infinity` when `'events.num'` is 0 or absent. */
  readonly maxEvents: number;
  readonly avgPersonByteSize: number;
  readonly avgAuctionByteSize: number;
  readonly avgBidByteSize: number;
  readonly hotAuctionRatio: number;
  readonly hotSellersRatio: number;
  readonly hotBiddersRatio: number;
  readonly numActivePeople: number;
  readonly numInFlightAuctions: number;
  /** Weir: added (× 2^32) to every per-event seed; 0 reproduces the reference's values. */
  readonly seed: number;
  /** Event time of event number 0, epoch ms; null = the wall clock when the source first opens. */
  readonly baseTime: number | null;
  /** Pace emission to event time against the wall clock, as the reference's source function does. */
  readonly rateLimited: boolean;
}

/** Option keys (and Weir aliases) → the field they set. */
const INT_OPTIONS: Readonly<Record<string, keyof NexmarkConfig>> = {
  "person.proportion": "personProportion",
  "auction.proportion": "auctionProportion",
  "bid.proportion": "bidProportion",
  "bid.hot-ratio.auctions": "hotAuctionRatio",
  "bid.hot-ratio.bidders": "hotBiddersRatio",
  "auction.hot-ratio.sellers": "hotSellersRatio",
  "num.active.people": "numActivePeople",
  "num.in.flight.auctions": "numInFlightAuctions",
};

const SIZE_OPTIONS: Readonly<Record<string, keyof NexmarkConfig>> = {
  "person.avg-size": "avgPersonByteSize",
  "auction.avg-size": "avgAuctionByteSize",
  "bid.avg-size": "avgBidByteSize",
  "avg.person.byte.size": "avgPersonByteSize",
  "avg.auction.byte.size": "avgAuctionByteSize",
  "avg.bid.byte.size": "avgBidByteSize",
};

/** Accepted for compatibility; the reference's SQUARE shape with one generator ignores them. */
const IGNORED_OPTIONS = new Set(["connector", "next-event.rate", "rate.shape", "rate.period"]);

const OTHER_OPTIONS = new Set(["first-event.rate", "events.num", "seed", "base-time", "rate.limited"]);

export function parseNexmarkConfig(options: Readonly<Record<string, string>>): NexmarkConfig {
  const c = {
    personProportion: 1,
    auctionProportion: 3,
    bidProportion: 46,
    avgPersonByteSize: 200,
    avgAuctionByteSize: 500,
    avgBidByteSize: 100,
    hotAuctionRatio: 2,
    hotSellersRatio: 4,
    hotBiddersRatio: 4,
    numActivePeople: 1000,
    numInFlightAuctions: 100,
  } as Record<string, number>;
  for (const [key, raw] of Object.entries(options)) {
    const intField = INT_OPTIONS[key];
    const sizeField = SIZE_OPTIONS[key];
    if (intField !== undefined) c[intField] = parseInteger(key, raw, 0, 0x7fff_ffff);
    else if (sizeField !== undefined) c[sizeField] = parseMemorySize(key, raw);
    else if (!IGNORED_OPTIONS.has(key) && !OTHER_OPTIONS.has(key) && !key.startsWith("scan.")) {
      throw new ConnectorError(
        `unknown option '${key}' for the nexmark connector (known: ${[
          ...Object.keys(INT_OPTIONS),
          ...Object.keys(SIZE_OPTIONS),
          ...OTHER_OPTIONS,
          ...IGNORED_OPTIONS,
        ].join(", ")})`,
        "user",
      );
    }
  }
  for (const ratio of ["hotAuctionRatio", "hotSellersRatio", "hotBiddersRatio"]) {
    if (c[ratio] < 1) throw new ConnectorError(`nexmark hot ratios must be at least 1`, "user");
  }
  const totalProportion = c.personProportion + c.auctionProportion + c.bidProportion;
  if (totalProportion < 1) throw new ConnectorError("nexmark proportions must not all be 0", "user");
  const rate = parseInteger("first-event.rate", options["first-event.rate"] ?? "10000", 1, 0x7fff_ffff);
  const events = parseInteger("events.num", options["events.num"] ?? "0", 0, Number.MAX_SAFE_INTEGER);
  const seed = parseInteger("seed", options.seed ?? "0", -(2 ** 31), 2 ** 31 - 1);
  const rateLimited = (options["rate.limited"] ?? "false").toLowerCase();
  if (rateLimited !== "true" && rateLimited !== "false") {
    throw new ConnectorError(`option 'rate.limited' must be true or false, got '${rateLimited}'`, "user");
  }
  return {
    personProportion: c.personProportion,
    auctionProportion: c.auctionProportion,
    bidProportion: c.bidProportion,
    totalProportion,
    interEventDelayUs: 1_000_000.0 / rate,
    maxEvents: events === 0 ? Number.POSITIVE_INFINITY : events,
    avgPersonByteSize: c.avgPersonByteSize,
    avgAuctionByteSize: c.avgAuctionByteSize,
    avgBidByteSize: c.avgBidByteSize,
    hotAuctionRatio: c.hotAuctionRatio,
    hotSellersRatio: c.hotSellersRatio,
    hotBiddersRatio: c.hotBiddersRatio,
    numActivePeople: c.numActivePeople,
    numInFlightAuctions: c.numInFlightAuctions,
    seed,
    baseTime: options["base-time"] === undefined ? null : parseBaseTime(options["base-time"]),
    rateLimited: rateLimited === "true",
  };
}

function parseInteger(key: string, raw: string, min: number, max: number): number {
  const text = raw.trim();
  const n = /^[+-]?\d+$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isSafeInteger(n) || n < min || n > max) {
    throw new ConnectorError(`option '${key}' must be an integer in [${min}, ${max}], got '${raw}'`, "user");
  }
  return n;
}

const SIZE_UNITS: Readonly<Record<string, number>> = {
  "": 1,
  b: 1,
  bytes: 1,
  k: 1024,
  kb: 1024,
  kibibytes: 1024,
  m: 1024 ** 2,
  mb: 1024 ** 2,
  mebibytes: 1024 ** 2,
};

/** Flink's `MemorySize` text (`200b`, `1 kb`, `500`), in bytes. */
export function parseMemorySize(key: string, raw: string): number {
  const m = /^\s*(\d+)\s*([a-z]*)\s*$/i.exec(raw);
  const unit = m ? SIZE_UNITS[m[2].toLowerCase()] : undefined;
  if (!m || unit === undefined) {
    throw new ConnectorError(
      `option '${key}' must be a memory size such as '200b' or '1kb', got '${raw}'`,
      "user",
    );
  }
  const n = Number(m[1]) * unit;
  if (n > 0x7fff_ffff) throw new ConnectorError(`option '${key}' is too large: '${raw}'`, "user");
  return n;
}

/** `'base-time'`: epoch milliseconds, or `yyyy-MM-dd HH:mm:ss[.SSS]` read as UTC. */
export function parseBaseTime(raw: string): number {
  const text = raw.trim();
  if (/^-?\d+$/.test(text)) return parseInteger("base-time", text, -(2 ** 52), 2 ** 52);
  const m = /^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,3}))?Z?$/.exec(text);
  if (!m) {
    throw new ConnectorError(
      `option 'base-time' must be epoch milliseconds or 'yyyy-MM-dd HH:mm:ss[.SSS]' (UTC), got '${raw}'`,
      "user",
    );
  }
  const ms = m[7] === undefined ? 0 : Number(m[7].padEnd(3, "0"));
  return Date.UTC(+m[1], +m[2] - 1, +m[3], +m[4], +m[5], +m[6], ms);
}
