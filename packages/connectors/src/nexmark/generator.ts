import {
  CHANNELS_NUMBER,
  channelName,
  channelUrl,
  HOT_CHANNELS,
  HOT_CHANNELS_RATIO,
  HOT_URLS,
} from "./channels.js";
import type { NexmarkConfig } from "./config.js";
import { JavaRandom } from "./java-random.js";
import {
  nextCreditCard,
  nextEmail,
  nextExtra,
  nextPersonName,
  nextString,
  US_CITIES,
  US_STATES,
} from "./strings.js";

/**
 * The nexmark-flink event generator (`NexmarkGenerator` with `GeneratorConfig(conf, baseTime,
 * firstEventId = 1, numEvents, firstEventNumber = 1)`, one generator, no out-of-order groups).
 *
 * Event number `n` (0-based count of events emitted) has event id `n + 2` and event time
 * `baseTime + trunc(trunc((n + 1) × interEventDelayUs) / 1000)`. The id modulo the total
 * proportion picks the kind: below `person.proportion` a person, then auctions, then bids.
 * Each event draws from `new Random(eventId)` — Beam's original rule; see {@link eventSeed}.
 *
 * Rows are the reference's field order: person `[id, name, emailAddress, creditCard, city,
 * state, dateTime, extra]`, auction `[id, itemName, description, initialBid, reserve, dateTime,
 * expires, seller, category, extra]`, bid `[auction, bidder, price, channel, url, dateTime,
 * extra]`; timestamps are epoch ms.
 */

export const EventType = { PERSON: 0, AUCTION: 1, BID: 2 } as const;
export type EventType = (typeof EventType)[keyof typeof EventType];

export const FIRST_PERSON_ID = 1000;
export const FIRST_AUCTION_ID = 1000;
export const FIRST_CATEGORY_ID = 10;
const NUM_CATEGORIES = 5;
const PERSON_ID_LEAD = 10;
const AUCTION_ID_LEAD = 10;
/** Hot sellers / bidders / auctions are the first (bidders: second) id of a block of 100. */
const HOT_BLOCK = 100;
const FIRST_EVENT_ID = 1;
const FIRST_EVENT_NUMBER = 1;
const INT_MAX = 0x7fff_ffff;

export class NexmarkGenerator {
  private readonly random = new JavaRandom(0);
  private readonly seedOffset: number;
  /** Events between now and the auction `numInFlightAuctions` ahead (for auction lengths). */
  private readonly eventsForInFlightAuctions: number;
  /** Kind of the event the last {@link generate} call produced. */
  lastType: EventType = EventType.PERSON;

  constructor(
    private readonly config: NexmarkConfig,
    /** Event time of event number 0, epoch ms. */
    readonly baseTime: number,
  ) {
    this.seedOffset = (config.seed * 4_294_967_296) % 281_474_976_710_656;
    this.eventsForInFlightAuctions =
      config.auctionProportion === 0
        ? 0
        : Math.floor((config.numInFlightAuctions * config.totalProportion) / config.auctionProportion);
  }

  /** The id of the event with number `n` (its PRNG seed with `'seed'` = 0). */
  static eventId(n: number): number {
    return FIRST_EVENT_ID + FIRST_EVENT_NUMBER + n;
  }

  /** Event time of the event with 1-based event number `eventNumber` (`timestampForEvent`). */
  timestampForEvent(eventNumber: number): number {
    return this.baseTime + Math.floor(Math.trunc(eventNumber * this.config.interEventDelayUs) / 1000);
  }

  /** The seed of event `eventId`'s `java.util.Random`. */
  eventSeed(eventId: number): number {
    return eventId + this.seedOffset;
  }

  /** Generates event number `n`; returns its row and sets {@link lastType}. */
  generate(n: number): unknown[] {
    const config = this.config;
    const eventNumber = FIRST_EVENT_NUMBER + n;
    const eventId = FIRST_EVENT_ID + eventNumber;
    const timestamp = this.timestampForEvent(eventNumber);
    this.random.setSeed(eventId + this.seedOffset);
    const rem = eventId % config.totalProportion;
    if (rem < config.personProportion) {
      this.lastType = EventType.PERSON;
      return this.person(eventId, timestamp);
    }
    if (rem < config.personProportion + config.auctionProportion) {
      this.lastType = EventType.AUCTION;
      return this.auction(eventNumber, eventId, timestamp);
    }
    this.lastType = EventType.BID;
    return this.bid(eventId, timestamp);
  }

  private person(eventId: number, timestamp: number): unknown[] {
    const random = this.random;
    const id = lastBase0PersonId(this.config, eventId) + FIRST_PERSON_ID;
    const name = nextPersonName(random);
    const email = nextEmail(random);
    const creditCard = nextCreditCard(random);
    const city = US_CITIES[random.nextIntBounded(US_CITIES.length)];
    const state = US_STATES[random.nextIntBounded(US_STATES.length)];
    const size = 8 + name.length + email.length + creditCard.length + city.length + state.length;
    const extra = nextExtra(random, size, this.config.avgPersonByteSize);
    return [id, name, email, creditCard, city, state, timestamp, extra];
  }

  private auction(eventNumber: number, eventId: number, timestamp: number): unknown[] {
    const config = this.config;
    const random = this.random;
    const id = lastBase0AuctionId(config, eventId) + FIRST_AUCTION_ID;
    let seller: number;
    if (random.nextIntBounded(config.hotSellersRatio) > 0) {
      seller = Math.trunc(lastBase0PersonId(config, eventId) / HOT_BLOCK) * HOT_BLOCK;
    } else {
      seller = this.nextBase0PersonId(eventId);
    }
    seller += FIRST_PERSON_ID;
    const category = FIRST_CATEGORY_ID + random.nextIntBounded(NUM_CATEGORIES);
    const initialBid = nextPrice(random);
    // nextAuctionLengthMs: on average twice the time until numInFlightAuctions more auctions.
    const horizonMs = this.timestampForEvent(eventNumber + this.eventsForInFlightAuctions) - timestamp;
    const expires = timestamp + 1 + nextLong(random, Math.max(horizonMs * 2, 1));
    const itemName = nextString(random, 20);
    const description = nextString(random, 100);
    const reserve = initialBid + nextPrice(random);
    const size = 8 + itemName.length + description.length + 40;
    const extra = nextExtra(random, size, config.avgAuctionByteSize);
    return [id, itemName, description, initialBid, reserve, timestamp, expires, seller, category, extra];
  }

  private bid(eventId: number, timestamp: number): unknown[] {
    const config = this.config;
    const random = this.random;
    let auction: number;
    if (random.nextIntBounded(config.hotAuctionRatio) > 0) {
      auction = Math.trunc(lastBase0AuctionId(config, eventId) / HOT_BLOCK) * HOT_BLOCK;
    } else {
      auction = this.nextBase0AuctionId(eventId);
    }
    auction += FIRST_AUCTION_ID;
    let bidder: number;
    if (random.nextIntBounded(config.hotBiddersRatio) > 0) {
      bidder = Math.trunc(lastBase0PersonId(config, eventId) / HOT_BLOCK) * HOT_BLOCK + 1;
    } else {
      bidder = this.nextBase0PersonId(eventId);
    }
    // The reference adds FIRST_PERSON_ID to the bidder twice (once before and once after the
    // channel draw), so bidder ids are base-0 + 2000; kept for comparable results.
    bidder += 2 * FIRST_PERSON_ID;
    const price = nextPrice(random);
    let channel: string;
    let url: string;
    if (random.nextIntBounded(HOT_CHANNELS_RATIO) > 0) {
      const i = random.nextIntBounded(HOT_CHANNELS.length);
      channel = HOT_CHANNELS[i];
      url = HOT_URLS[i];
    } else {
      const c = random.nextIntBounded(CHANNELS_NUMBER);
      channel = channelName(c);
      url = channelUrl(c);
    }
    const extra = nextExtra(random, 32, config.avgBidByteSize);
    return [auction, bidder, price, channel, url, timestamp, extra];
  }

  /** A person among the last `numActivePeople`, or up to 10 ids ahead of the last one. */
  private nextBase0PersonId(eventId: number): number {
    const numPeople = lastBase0PersonId(this.config, eventId) + 1;
    const activePeople = Math.min(numPeople, this.config.numActivePeople);
    return numPeople - activePeople + nextLong(this.random, activePeople + PERSON_ID_LEAD);
  }

  /** An auction among the last `numInFlightAuctions`, or up to 10 ids ahead of the last one. */
  private nextBase0AuctionId(eventId: number): number {
    const maxAuction = lastBase0AuctionId(this.config, eventId);
    const minAuction = Math.max(maxAuction - this.config.numInFlightAuctions, 0);
    return minAuction + nextLong(this.random, maxAuction - minAuction + 1 + AUCTION_ID_LEAD);
  }
}

/** The last person id (base 0) generated at or before event `eventId`. */
export function lastBase0PersonId(config: NexmarkConfig, eventId: number): number {
  const epoch = Math.floor(eventId / config.totalProportion);
  let offset = eventId % config.totalProportion;
  if (offset >= config.personProportion) offset = config.personProportion - 1;
  return epoch * config.personProportion + offset;
}

/** The last auction id (base 0) generated at or before event `eventId` (−1 before the first). */
export function lastBase0AuctionId(config: NexmarkConfig, eventId: number): number {
  let epoch = Math.floor(eventId / config.totalProportion);
  let offset = eventId % config.totalProportion;
  if (offset < config.personProportion) {
    epoch--;
    offset = config.auctionProportion - 1;
  } else if (offset >= config.personProportion + config.auctionProportion) {
    offset = config.auctionProportion - 1;
  } else {
    offset -= config.personProportion;
  }
  return epoch * config.auctionProportion + offset;
}

/** `PriceGenerator.nextPrice`: log-uniform in [1, 10^6) dollars, in cents. */
export function nextPrice(random: JavaRandom): number {
  return Math.round(10 ** (random.nextDouble() * 6.0) * 100.0);
}

/** `LongGenerator.nextLong(random, n)`: `nextInt(n)` below 2^31 − 1, else `|nextLong() % n|`. */
export function nextLong(random: JavaRandom, n: number): number {
  if (n < INT_MAX) return random.nextIntBounded(n);
  const r = random.nextLong() % BigInt(n);
  return Number(r < 0n ? -r : r);
}
