import { type ConnectorSpec, type Options, type OptionType, SOURCE_OPTIONS } from "@weir/planner";
import { ConnectorError } from "@weir/runtime";
import { type NexmarkConfig, parseNexmarkConfig } from "./config.js";

const str = { kind: "string" } as const;
const int = (min = 0): OptionType => ({ kind: "int", min });

export const nexmarkSpec: ConnectorSpec<NexmarkConfig> = {
  name: "nexmark",
  options: [
    { key: "first-event.rate", type: int(1), description: "events per second of event time" },
    { key: "next-event.rate", type: int(1), description: "events per second of event time" },
    { key: "events.num", type: int(0), description: "bounded: generate this many events" },
    { key: "person.proportion", type: int(0), description: "persons per 50 events" },
    { key: "auction.proportion", type: int(0), description: "auctions per 50 events" },
    { key: "bid.proportion", type: int(0), description: "bids per 50 events" },
    { key: "seed", type: int(), description: "seed of the generator" },
    {
      key: "base-time",
      type: str,
      description: "event time of the first event: epoch ms or 'yyyy-MM-dd HH:mm:ss' (UTC)",
    },
    {
      key: "rate.limited",
      type: { kind: "boolean" },
      description: "pace events to their event time against the wall clock",
    },
    { key: "rate.shape", type: str, description: "accepted for compatibility (one generator: SQUARE)" },
    { key: "rate.period", type: str, description: "accepted for compatibility" },
    { key: "person.avg-size", type: str, description: "average person size, e.g. 200b" },
    { key: "auction.avg-size", type: str, description: "average auction size, e.g. 500b" },
    { key: "bid.avg-size", type: str, description: "average bid size, e.g. 100b" },
    { key: "bid.hot-ratio.auctions", type: int(1), description: "1 in n bids goes to a hot auction" },
    { key: "bid.hot-ratio.bidders", type: int(1), description: "1 in n bids comes from a hot bidder" },
    { key: "auction.hot-ratio.sellers", type: int(1), description: "1 in n auctions has a hot seller" },
    { key: "num.active.people", type: int(0), description: "people that bid and sell" },
    { key: "num.in.flight.auctions", type: int(0), description: "auctions open at a time" },
  ],

  /** The generator's parameters (`config.ts`), from the connector's own options (not the ones every source takes). */
  parse(options) {
    const own: Record<string, string> = {};
    for (const [k, v] of Object.entries(options))
      if (k !== "connector" && !k.startsWith("quality.") && !SOURCE_KEYS.has(k)) own[k] = v;
    try {
      return { config: parseNexmarkConfig(own), problems: [] };
    } catch (e) {
      if (!(e instanceof ConnectorError)) throw e;
      const key = /^option '([^']+)'/.exec(e.reason)?.[1];
      return {
        config: parseNexmarkConfig({}),
        problems: [{ key: key ?? "connector", at: key === undefined ? "table" : "value", message: e.reason }],
      };
    }
  },

  source: {
    changelog: () => "insert-only",
    bounded: (c) => Number.isFinite(c.maxEvents),
    generated: true,
  },
};

const SOURCE_KEYS = new Set(SOURCE_OPTIONS.map((o) => o.key));

/** The options of a nexmark table that generates `events` events (at `rate` per second of event time). */
export function nexmarkEventOptions(options: Options, events: number, rate?: number): Record<string, string> {
  const rates: Record<string, string> =
    rate === undefined ? {} : { "first-event.rate": String(rate), "next-event.rate": String(rate) };
  return { ...options, ...rates, "events.num": String(events) };
}
