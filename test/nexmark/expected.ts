import { type Auction, type Bid, dayText, type Events, minuteText } from "./harness.js";

/**
 * Each query's result computed directly from the generated events, by plain loops over arrays —
 * no engine code. Events arrive in order and the watermark is `dateTime − 4 s`, so no row is late
 * and every window fires by the end of input: the windowed answers are plain groupings.
 */
type Rows = unknown[][];

const bidRow = (b: Bid): unknown[] => [b.auction, b.bidder, b.price, b.dateTime, b.extra];
const fullBid = (b: Bid): unknown[] => [b.auction, b.bidder, b.price, b.channel, b.url, b.dateTime, b.extra];
const auctionRow = (a: Auction): unknown[] => [
  a.id,
  a.itemName,
  a.description,
  a.initialBid,
  a.reserve,
  a.dateTime,
  a.expires,
  a.seller,
  a.category,
  a.extra,
];

/** `0.908 * price` as DECIMAL(23, 3): its unscaled value. */
const euros = (price: number): bigint => 908n * BigInt(price);

function groupBy<T>(items: readonly T[], key: (t: T) => string): Map<string, T[]> {
  const m = new Map<string, T[]>();
  for (const t of items) {
    const k = key(t);
    const list = m.get(k);
    if (list) list.push(t);
    else m.set(k, [t]);
  }
  return m;
}

/** Bids of auction `a` within `[a.dateTime, a.expires]` (q4, q9). */
function bidsInAuction(e: Events): Map<Auction, Bid[]> {
  const byAuction = groupBy(e.bids, (b) => String(b.auction));
  const m = new Map<Auction, Bid[]>();
  for (const a of e.auctions) {
    const bs = (byAuction.get(String(a.id)) ?? []).filter(
      (b) => b.dateTime >= a.dateTime && b.dateTime <= a.expires,
    );
    if (bs.length > 0) m.set(a, bs);
  }
  return m;
}

const rank = (price: number): number => (price < 10_000 ? 1 : price < 1_000_000 ? 2 : 3);

/** q15–q17's counts: total, then per price rank; distinct bidders and auctions likewise. */
function priceRankCounts(bs: readonly Bid[], distinct: boolean): number[] {
  const counts = [0, 0, 0, 0];
  for (const b of bs) {
    counts[0]!++;
    counts[rank(b.price)]!++;
  }
  if (!distinct) return counts;
  const out = [...counts];
  for (const field of ["bidder", "auction"] as const) {
    const sets = [new Set<number>(), new Set<number>(), new Set<number>(), new Set<number>()];
    for (const b of bs) {
      sets[0]!.add(b[field]);
      sets[rank(b.price)]!.add(b[field]);
    }
    out.push(...sets.map((s) => s.size));
  }
  return out;
}

export const expected: Readonly<Record<string, (e: Events) => Rows>> = {
  q0: (e) => e.bids.map(bidRow),
  q1: (e) => e.bids.map((b) => [b.auction, b.bidder, euros(b.price), b.dateTime, b.extra]),
  q2: (e) => e.bids.filter((b) => b.auction % 123 === 0).map((b) => [b.auction, b.price]),
  q3: (e) => {
    const rows: Rows = [];
    for (const a of e.auctions) {
      if (a.category !== 10) continue;
      for (const p of e.persons) {
        if (p.id === a.seller && (p.state === "OR" || p.state === "ID" || p.state === "CA")) {
          rows.push([p.name, p.city, p.state, a.id]);
        }
      }
    }
    return rows;
  },
  q4: (e) => {
    // AVG over BIGINT is a BIGINT: the sum divided by the count, truncated.
    const finals = new Map<number, number[]>();
    for (const [a, bs] of bidsInAuction(e)) {
      const final = Math.max(...bs.map((b) => b.price));
      finals.set(a.category, [...(finals.get(a.category) ?? []), final]);
    }
    return [...finals].map(([category, fs]) => [
      category,
      Math.trunc(fs.reduce((x, y) => x + y, 0) / fs.length),
    ]);
  },
  q5: (e) => {
    // HOP(10 s, slide 2 s): a bid at t is in the windows starting at the multiples of 2 s in (t − 10 s, t].
    const counts = new Map<number, Map<number, number>>();
    for (const b of e.bids) {
      const last = Math.floor(b.dateTime / 2000) * 2000;
      for (let start = last; start > b.dateTime - 10_000; start -= 2000) {
        const perAuction = counts.get(start) ?? new Map<number, number>();
        perAuction.set(b.auction, (perAuction.get(b.auction) ?? 0) + 1);
        counts.set(start, perAuction);
      }
    }
    const rows: Rows = [];
    for (const perAuction of counts.values()) {
      const max = Math.max(...perAuction.values());
      for (const [auction, n] of perAuction) if (n >= max) rows.push([auction, n]);
    }
    return rows;
  },
  q7: (e) => {
    const maxByWindow = new Map<number, number>();
    for (const b of e.bids) {
      const start = Math.floor(b.dateTime / 10_000) * 10_000;
      maxByWindow.set(start, Math.max(maxByWindow.get(start) ?? 0, b.price));
    }
    const rows: Rows = [];
    for (const [start, max] of maxByWindow) {
      const end = start + 10_000;
      for (const b of e.bids) {
        if (b.price === max && b.dateTime >= end - 10_000 && b.dateTime <= end) rows.push(bidRow(b));
      }
    }
    return rows;
  },
  q8: (e) => {
    const window = (t: number) => Math.floor(t / 10_000) * 10_000;
    const people = new Map<string, [number, string, number]>();
    for (const p of e.persons)
      people.set(`${p.id}|${p.name}|${window(p.dateTime)}`, [p.id, p.name, window(p.dateTime)]);
    const sellers = new Set(e.auctions.map((a) => `${a.seller}|${window(a.dateTime)}`));
    return [...people.values()].filter(([id, , start]) => sellers.has(`${id}|${start}`));
  },
  q9: (e) => {
    const rows: Rows = [];
    for (const [a, bs] of bidsInAuction(e)) {
      let top = bs[0]!;
      for (const b of bs) {
        if (b.price > top.price || (b.price === top.price && b.dateTime < top.dateTime)) top = b;
      }
      rows.push([...auctionRow(a), top.auction, top.bidder, top.price, top.dateTime, top.extra]);
    }
    return rows;
  },
  q10: (e) =>
    e.bids.map((b) => [
      b.auction,
      b.bidder,
      b.price,
      new Date(b.dateTime).toISOString().replace("T", " ").replace("Z", ""),
      b.extra,
      dayText(b.dateTime),
      minuteText(b.dateTime),
    ]),
  q11: (e) => {
    // Session windows with a 10 s gap per bidder: a bid joins the session when it is within the gap.
    const rows: Rows = [];
    for (const bs of groupBy(e.bids, (b) => String(b.bidder)).values()) {
      let start = bs[0]!.dateTime;
      let last = start;
      let count = 0;
      for (const b of bs) {
        if (b.dateTime > last + 10_000) {
          rows.push([bs[0]!.bidder, count, start, last + 10_000]);
          start = b.dateTime;
          count = 0;
        }
        last = b.dateTime;
        count++;
      }
      rows.push([bs[0]!.bidder, count, start, last + 10_000]);
    }
    return rows;
  },
  q13: (e) => {
    // Independent of the generator in @weir/connectors: the documented key → value rule.
    const side = new Map<number, string>();
    for (let k = 0; k < 10_000; k++) side.set(k, `side-${String(k).padStart(4, "0")}`);
    return e.bids
      .filter((b) => side.has(b.auction % 10_000))
      .map((b) => [b.auction, b.bidder, b.price, b.dateTime, side.get(b.auction % 10_000)]);
  },
  q14: (e) =>
    e.bids
      .filter((b) => euros(b.price) > 1_000_000_000n && euros(b.price) < 50_000_000_000n)
      .map((b) => {
        const hour = new Date(b.dateTime).getUTCHours();
        const type =
          hour >= 8 && hour <= 18 ? "dayTime" : hour <= 6 || hour >= 20 ? "nightTime" : "otherTime";
        const cs = [...b.extra].filter((ch) => ch === "c").length;
        return [b.auction, b.bidder, euros(b.price), type, b.dateTime, b.extra, cs];
      }),
  q15: (e) =>
    [...groupBy(e.bids, (b) => dayText(b.dateTime))].map(([day, bs]) => [day, ...priceRankCounts(bs, true)]),
  q16: (e) =>
    [...groupBy(e.bids, (b) => `${b.channel}\u0000${dayText(b.dateTime)}`)].map(([, bs]) => {
      const minute = bs
        .map((b) => minuteText(b.dateTime))
        .sort()
        .at(-1);
      return [bs[0]!.channel, dayText(bs[0]!.dateTime), minute, ...priceRankCounts(bs, true)];
    }),
  q17: (e) =>
    [...groupBy(e.bids, (b) => `${b.auction}|${dayText(b.dateTime)}`)].map(([, bs]) => {
      const prices = bs.map((b) => b.price);
      const sum = prices.reduce((x, y) => x + y, 0);
      const min = Math.min(...prices);
      const max = Math.max(...prices);
      return [
        bs[0]!.auction,
        dayText(bs[0]!.dateTime),
        ...priceRankCounts(bs, false),
        min,
        max,
        Math.trunc(sum / bs.length),
        sum,
      ];
    }),
  q18: (e) =>
    [...groupBy(e.bids, (b) => `${b.bidder}|${b.auction}`).values()].map((bs) =>
      fullBid(bs.reduce((x, y) => (y.dateTime > x.dateTime ? y : x))),
    ),
  q20: (e) => {
    const rows: Rows = [];
    const auctions = groupBy(
      e.auctions.filter((a) => a.category === 10),
      (a) => String(a.id),
    );
    for (const b of e.bids) {
      for (const a of auctions.get(String(b.auction)) ?? []) {
        rows.push([
          ...fullBid(b),
          ...auctionRow(a).slice(1, 5),
          a.dateTime,
          a.expires,
          a.seller,
          a.category,
          a.extra,
        ]);
      }
    }
    return rows;
  },
  q21: (e) => {
    const known: Record<string, string> = { apple: "0", google: "1", facebook: "2", baidu: "3" };
    const rows: Rows = [];
    for (const b of e.bids) {
      const m = /(&|^)channel_id=([^&]*)/.exec(b.url);
      const extracted = m ? m[2]! : null;
      const lower = b.channel.toLowerCase();
      if (extracted === null && known[lower] === undefined) continue;
      rows.push([b.auction, b.bidder, b.price, b.channel, known[lower] ?? extracted]);
    }
    return rows;
  },
  q22: (e) =>
    e.bids.map((b) => {
      const parts = b.url.split("/");
      return [b.auction, b.bidder, b.price, b.channel, parts[3] ?? null, parts[4] ?? null, parts[5] ?? null];
    }),
};

/**
 * q19 (Top-10 bids per auction by price, numbered): the prices are fixed by the data, but which of
 * two equally priced bids takes a rank is not. Checks that each auction's result is its top
 * min(10, n) prices in rank order, numbered 1…k, each row a distinct bid of that auction.
 */
export function checkQ19(e: Events, rows: readonly unknown[][]): string[] {
  const problems: string[] = [];
  const byAuction = groupBy(e.bids, (b) => String(b.auction));
  const got = groupBy(rows, (r) => String(r[0]));
  if (got.size !== byAuction.size)
    problems.push(`${got.size} auctions in the result, ${byAuction.size} expected`);
  for (const [auction, bs] of byAuction) {
    const top = bs
      .map((b) => b.price)
      .sort((x, y) => y - x)
      .slice(0, 10);
    const out = [...(got.get(auction) ?? [])].sort((x, y) => Number(x[7]) - Number(y[7]));
    const bidTexts = new Set(bs.map((b) => JSON.stringify(fullBid(b))));
    const ranks = out.map((r) => Number(r[7]));
    if (JSON.stringify(ranks) !== JSON.stringify(top.map((_, i) => i + 1))) {
      problems.push(`auction ${auction}: ranks ${ranks.join(",")}, expected 1…${top.length}`);
    }
    if (JSON.stringify(out.map((r) => r[2])) !== JSON.stringify(top)) {
      problems.push(
        `auction ${auction}: prices ${out.map((r) => r[2]).join(",")}, expected ${top.join(",")}`,
      );
    }
    const distinct = new Set(out.map((r) => JSON.stringify(r.slice(0, 7))));
    if (distinct.size !== out.length) problems.push(`auction ${auction}: a bid appears twice`);
    for (const r of out) {
      if (!bidTexts.has(JSON.stringify(r.slice(0, 7))))
        problems.push(`auction ${auction}: ${r} is not one of its bids`);
    }
  }
  return problems;
}
