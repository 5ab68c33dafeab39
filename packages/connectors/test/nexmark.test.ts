import { createHash } from "node:crypto";
import { type DataType, type Field, T } from "@weir/planner";
import { ChangeBatch, type Json, type PollResult, type Row, type SourceReaderContext } from "@weir/runtime";
import { describe, expect, it } from "vitest";
import {
  createConnectorRegistry,
  JavaRandom,
  NEXMARK_SPLIT,
  NexmarkGenerator,
  NexmarkSource,
  parseNexmarkConfig,
} from "../src/index.js";
import { absReversedInt } from "../src/nexmark/channels.js";
import { f, sourceNode } from "./helpers.js";

const BASE = 1_700_000_000_000;

const PERSON = T.row([
  { name: "id", type: T.bigint() },
  { name: "name", type: T.string() },
  { name: "emailAddress", type: T.string() },
  { name: "creditCard", type: T.string() },
  { name: "city", type: T.string() },
  { name: "state", type: T.string() },
  { name: "dateTime", type: T.timestamp(3) },
  { name: "extra", type: T.string() },
]);
const AUCTION = T.row(
  [
    "id",
    "itemName",
    "description",
    "initialBid",
    "reserve",
    "dateTime",
    "expires",
    "seller",
    "category",
    "extra",
  ].map((name) => ({ name, type: T.string() as DataType })),
);
const BID = T.row(
  ["auction", "bidder", "price", "channel", "url", "dateTime", "extra"].map((name) => ({
    name,
    type: T.string() as DataType,
  })),
);
const NEXMARK_FIELDS: Field[] = [
  f("event_type", T.int()),
  f("person", PERSON),
  f("auction", AUCTION),
  f("bid", BID),
];

function generator(options: Record<string, string> = {}, base = BASE): NexmarkGenerator {
  return new NexmarkGenerator(parseNexmarkConfig(options), base);
}

/** Events `from..to` as `[type, row]`. */
function events(g: NexmarkGenerator, from: number, to: number): [number, unknown[]][] {
  const out: [number, unknown[]][] = [];
  for (let n = from; n < to; n++) {
    const row = g.generate(n);
    out.push([g.lastType, row]);
  }
  return out;
}

/**
 * The text the Java harness printed for the reference generator (nexmark-flink classes with
 * `random.setSeed(eventId)` per event): one tab-separated line per event, the bid url masked
 * (the reference draws it from an unseeded Random).
 */
function referenceText(evs: [number, unknown[]][]): string {
  return evs
    .map(([t, row]) => [t, ...row.map((v, i) => (t === 2 && i === 4 ? "URL" : v))].join("\t"))
    .join("\n")
    .concat("\n");
}

const ctx = (node: ReturnType<typeof sourceNode>): SourceReaderContext => ({
  node,
  metrics: new Map(),
  settings: {},
  cwd: ".",
});

async function drain(
  source: NexmarkSource,
  maxRows: number,
  limit = Number.POSITIVE_INFINITY,
): Promise<Row[]> {
  const rows: Row[] = [];
  while (rows.length < limit) {
    const r: PollResult = await source.poll(maxRows);
    if (r.kind === "end") break;
    if (r.kind === "idle") throw new Error("unexpected idle");
    expect(r.splits.map((s) => s.split)).toEqual([NEXMARK_SPLIT]);
    for (const s of r.splits) rows.push(...ChangeBatch.toArray(s.batch).map(([, row]) => row));
  }
  return rows;
}

describe("JavaRandom matches java.util.Random", () => {
  // Values printed by OpenJDK 17.
  it.each([
    ["nextInt() after new Random(42)", () => [new JavaRandom(42).nextInt()], [-1170105035]],
    [
      "nextInt(10) × 10 after one nextInt()",
      () => {
        const r = new JavaRandom(42);
        r.nextInt();
        return Array.from({ length: 10 }, () => r.nextIntBounded(10));
      },
      [3, 8, 4, 0, 5, 5, 8, 9, 3, 2],
    ],
    [
      "nextLong, nextDouble, power-of-two and odd bounds from new Random(-7)",
      () => {
        const r = new JavaRandom(-7);
        return [
          String(r.nextLong()),
          r.nextDouble(),
          r.nextIntBounded(1 << 20),
          r.nextIntBounded(1_000_000_007),
          r.nextIntBounded(13),
        ];
      },
      ["4964420944606563203", 0.6731811902798038, 546821, 314447087, 11],
    ],
    [
      "nextInt() from a seed above 2^32",
      () => {
        const r = new JavaRandom(123456789012);
        return Array.from({ length: 5 }, () => r.nextInt());
      },
      [59424925, 475103695, -2041770304, 1802127383, 1627699669],
    ],
    [
      "nextInt(2^30 + 1): the rejection loop",
      () => {
        const r = new JavaRandom(0);
        return Array.from({ length: 8 }, () => r.nextIntBounded(2 ** 30 + 1));
      },
      [516548029, 663681053, 251269761, 715581077, 542832677, 827187473, 49567875, 377907320],
    ],
    [
      "nextDouble() × 2 from new Random(2)",
      () => {
        const r = new JavaRandom(2);
        return [r.nextDouble(), r.nextDouble()];
      },
      [0.7311469360199058, 0.9014476240300544],
    ],
  ])("%s", (_name, run, expected) => {
    expect(run()).toEqual(expected);
  });

  it("setSeed restarts the sequence like new Random(seed)", () => {
    const r = new JavaRandom(99);
    r.nextInt();
    r.setSeed(42);
    expect(r.nextInt()).toBe(-1170105035);
  });

  it("Math.abs(Integer.reverse(n)) with int overflow", () => {
    // Printed by OpenJDK 17.
    expect([0, 1, 2, 3, 43, 9999].map((n) => absReversedInt(n))).toEqual([
      0, -2147483648, 1073741824, 1073741824, 738197504, 253493248,
    ]);
  });
});

describe("nexmark generator vs the Java reference", () => {
  it("first events equal the reference's field by field", () => {
    const g = generator();
    const evs = events(g, 0, 50);
    // Event ids start at 2 (firstEventId 1 + firstEventNumber 1): two auctions, then bids.
    const [a1, a2, b1] = evs;
    expect(a1[0]).toBe(1);
    expect(a1[1].slice(0, 9)).toEqual([
      1001,
      "z ck w",
      "cwlachrnkfzkygsu edjytotggvasbt z yjjszhhsqtrgzblkaolzkhlldqedvgj fdbvswemnzshmwipqrzqfkd",
      25626290,
      28805847,
      BASE,
      BASE + 202,
      1000,
      12,
    ]);
    expect((a1[1][9] as string).startsWith("jzlkehMZPLIIwtopffS\\KHLRhdduqtif")).toBe(true);
    expect(a2[1].slice(0, 9)).toEqual([
      1002,
      "gxycmhtobprpd",
      "ybjpocsabdbtiqzhbupw ihlxbsqjkmp lbupz bcqnghg fojwfqs",
      267,
      422398,
      BASE,
      BASE + 1,
      1000,
      10,
    ]);
    expect(b1[0]).toBe(2);
    expect([...b1[1].slice(0, 4), ...b1[1].slice(5)]).toEqual([
      1000,
      2001,
      32530001,
      "Google",
      BASE,
      "sbolvyqwgticfdrwdyiyofziYMU\\Z`UaTQO][NX\\RM]WPYTOuwogvszlx",
    ]);
    // Event id 50 (number 48) is the first person.
    const person = evs[48];
    expect(person[0]).toBe(0);
    expect(person[1].slice(0, 7)).toEqual([
      1001,
      "Sarah Smith",
      "f  y@yumv.com",
      "0892 2755 1923 0591",
      "Los Angeles",
      "ID",
      BASE + 4,
    ]);
    expect((person[1][7] as string).length).toBe(153);
  });

  // sha256 of the Java harness's output for the same configuration (see referenceText).
  it.each([
    [{}, BASE, 10_000, "6a461947103326b052d852ad450f56bd3ce27887d9c0cf917b6ff4251c1f60b9"],
    [
      { "first-event.rate": "1", "person.proportion": "0", "auction.proportion": "1", "bid.proportion": "9" },
      BASE,
      3_000,
      "a788e5cac81f6949914a683aaef6b42cbf22e8d59d11aa022d96ad504bb4e158",
    ],
  ])("events 0..n of %j equal the reference's (fingerprint)", (options, base, n, sha) => {
    const text = referenceText(events(generator(options as Record<string, string>, base), 0, n));
    expect(createHash("sha256").update(text).digest("hex")).toBe(sha);
  });
});

describe("nexmark generator rules", () => {
  it("event kinds follow the 1 : 3 : 46 proportions by event id modulo 50", () => {
    const g = generator();
    const evs = events(g, 0, 5000);
    evs.forEach(([t], n) => {
      const rem = NexmarkGenerator.eventId(n) % 50;
      expect(t).toBe(rem < 1 ? 0 : rem < 4 ? 1 : 2);
    });
    const counts = [0, 0, 0];
    for (const [t] of evs) counts[t]++;
    expect(counts).toEqual([100, 300, 4600]);
  });

  it("custom proportions change the modulus", () => {
    const evs = events(
      generator({ "person.proportion": "2", "auction.proportion": "2", "bid.proportion": "1" }),
      0,
      10,
    );
    expect(evs.map(([t]) => t)).toEqual([1, 1, 2, 0, 0, 1, 1, 2, 0, 0]);
  });

  it("person and auction ids are consecutive, base 1000 (the first event id is 2, so both start at 1001)", () => {
    const evs = events(generator(), 0, 20_000);
    const persons = evs.filter(([t]) => t === 0).map(([, r]) => r[0]);
    const auctions = evs.filter(([t]) => t === 1).map(([, r]) => r[0]);
    expect(persons).toEqual(persons.map((_, i) => 1001 + i));
    expect(auctions).toEqual(auctions.map((_, i) => 1001 + i));
    // Bids name auctions and people that exist or are at most 10 ids ahead.
    for (const [t, r] of evs) {
      if (t !== 2) continue;
      expect(r[0] as number).toBeLessThanOrEqual((auctions.at(-1) as number) + 10);
    }
  });

  it("hot keys: auctions, bidders and sellers as in the reference", () => {
    const evs = events(generator(), 0, 100_000);
    const bids = evs.filter(([t]) => t === 2).map(([, r]) => r);
    const auctions = evs.filter(([t]) => t === 1).map(([, r]) => r);
    // Hot auction ratio 2: half of the bids go to the block-of-100 head of the last auction.
    const hotAuction = bids.filter((b) => ((b[0] as number) - 1000) % 100 === 0).length / bids.length;
    expect(hotAuction).toBeGreaterThan(0.49);
    expect(hotAuction).toBeLessThan(0.53);
    // Hot bidder ratio 4: three quarters are the second person of a block (ids + 2000, see generator).
    const hotBidder = bids.filter((b) => ((b[1] as number) - 2000) % 100 === 1).length / bids.length;
    expect(hotBidder).toBeGreaterThan(0.74);
    expect(hotBidder).toBeLessThan(0.77);
    // Hot seller ratio 4.
    const hotSeller = auctions.filter((a) => ((a[7] as number) - 1000) % 100 === 0).length / auctions.length;
    expect(hotSeller).toBeGreaterThan(0.72);
    expect(hotSeller).toBeLessThan(0.78);
    // Categories 10..14; channels: half hot.
    expect(new Set(auctions.map((a) => a[8]))).toEqual(new Set([10, 11, 12, 13, 14]));
    const hotChannel = bids.filter((b) => !(b[3] as string).startsWith("channel-")).length / bids.length;
    expect(hotChannel).toBeGreaterThan(0.48);
    expect(hotChannel).toBeLessThan(0.52);
    for (const b of bids.slice(0, 2000)) {
      expect(b[4]).toMatch(
        /^https:\/\/www\.nexmark\.com\/\w{3,4}\/\w{3,4}\/\w{3,4}\/item\.htm\?query=1(&channel_id=-?\d+)?$/,
      );
    }
  });

  it("timestamps advance at first-event.rate in event time", () => {
    for (const [rate, n, expectedMs] of [
      [10_000, 10_000, 1000],
      [1000, 500, 500],
      [7, 70, 10_000],
    ]) {
      const g = generator({ "first-event.rate": String(rate) });
      const ts = events(g, 0, n).map(([t, r]) => r[t === 0 ? 6 : t === 1 ? 5 : 5] as number);
      for (let i = 1; i < ts.length; i++) expect(ts[i]).toBeGreaterThanOrEqual(ts[i - 1]);
      // Event number n (1-based) is at trunc(n × 1e6 / rate) / 1000 ms.
      expect(ts[n - 1] - BASE).toBe(expectedMs);
    }
  });

  it("extra pads events to the average byte sizes", () => {
    const evs = events(generator(), 0, 50_000);
    const avg = (t: number, size: (r: unknown[]) => number) => {
      const rows = evs.filter(([k]) => k === t).map(([, r]) => size(r));
      return rows.reduce((a, b) => a + b, 0) / rows.length;
    };
    const len = (v: unknown) => (v as string).length;
    const person = avg(0, (r) => 8 + len(r[1]) + len(r[2]) + len(r[3]) + len(r[4]) + len(r[5]) + len(r[7]));
    const auction = avg(1, (r) => 8 + len(r[1]) + len(r[2]) + 40 + len(r[9]));
    const bid = avg(2, (r) => 32 + len(r[6]));
    expect(Math.abs(person - 200)).toBeLessThan(3);
    expect(Math.abs(auction - 500)).toBeLessThan(3);
    expect(Math.abs(bid - 100)).toBeLessThan(1);
  });

  it("is deterministic, and 'seed' gives a different stream", () => {
    expect(events(generator(), 0, 500)).toEqual(events(generator(), 0, 500));
    const seeded = events(generator({ seed: "7" }), 0, 500);
    expect(seeded).toEqual(events(generator({ seed: "7" }), 0, 500));
    expect(seeded).not.toEqual(events(generator(), 0, 500));
    // The kinds and ids do not depend on the seed, the random fields do.
    expect(seeded.map(([t]) => t)).toEqual(events(generator(), 0, 500).map(([t]) => t));
  });

  it("rejects bad options", () => {
    expect(() => parseNexmarkConfig({ "events.num": "x" })).toThrow(/events.num/);
    expect(() => parseNexmarkConfig({ "bogus.option": "1" })).toThrow(/unknown option 'bogus.option'/);
    expect(() =>
      parseNexmarkConfig({ "person.proportion": "0", "auction.proportion": "0", "bid.proportion": "0" }),
    ).toThrow(/proportions/);
    expect(parseNexmarkConfig({ "bid.avg-size": "1kb" }).avgBidByteSize).toBe(1024);
    expect(parseNexmarkConfig({ "base-time": "2015-07-15 00:00:00" }).baseTime).toBe(Date.UTC(2015, 6, 15));
  });
});

describe("nexmark source", () => {
  const options = { connector: "nexmark", "events.num": "1000", "base-time": String(BASE) };

  it("emits the generator's events as rows of the declared columns, then ends", async () => {
    const node = sourceNode(NEXMARK_FIELDS, options);
    const source = new NexmarkSource(node);
    await source.open(ctx(node));
    const rows = await drain(source, 256);
    expect(rows.length).toBe(1000);
    const expected = events(generator(), 0, 1000);
    rows.forEach((row, i) => {
      const [t, ev] = expected[i];
      expect(row).toEqual([t, t === 0 ? ev : null, t === 1 ? ev : null, t === 2 ? ev : null]);
    });
    expect(await source.poll(10)).toEqual({ kind: "end" });
  });

  it("produces values by column name for reordered or omitted columns and fields", async () => {
    const bidSubset = T.row([
      { name: "price", type: T.bigint() },
      { name: "AUCTION", type: T.bigint() },
    ]);
    const node = sourceNode([f("bid", bidSubset), f("event_type", T.int())], options);
    const source = new NexmarkSource(node);
    await source.open(ctx(node));
    const rows = await drain(source, 100, 100);
    const expected = events(generator(), 0, 100);
    rows.forEach((row, i) => {
      const [t, ev] = expected[i];
      expect(row).toEqual([t === 2 ? [ev[2], ev[0]] : null, t]);
    });
    expect(() => new NexmarkSource(sourceNode([f("nope", T.int())], options))).toThrow(/no column 'nope'/);
    const micros = T.row([{ name: "dateTime", type: T.timestamp(6) }]);
    expect(() => new NexmarkSource(sourceNode([f("bid", micros)], options))).toThrow(
      "nexmark column 'bid' field 'dateTime' is declared TIMESTAMP(6): the generator's times are milliseconds; declare it TIMESTAMP(3)",
    );
  });

  it("restores mid-stream to exactly the following events", async () => {
    const node = sourceNode(NEXMARK_FIELDS, { connector: "nexmark", "events.num": "700" });
    const first = new NexmarkSource(node);
    await first.open(ctx(node));
    await drain(first, 100, 300);
    const position: Json = JSON.parse(JSON.stringify(first.position()));
    const rest = await drain(first, 128);
    const restored = new NexmarkSource(node);
    await restored.open(ctx(node));
    await restored.restore(position);
    expect(await drain(restored, 50)).toEqual(rest);
    expect(rest.length).toBe(400);
  });

  it("is registered as 'nexmark'", async () => {
    const registry = createConnectorRegistry({ clock: () => BASE });
    const node = sourceNode(NEXMARK_FIELDS, { connector: "nexmark", "events.num": "3" });
    const source = registry.source(node);
    await source.open(ctx(node));
    const r = await source.poll(10);
    expect(r.kind === "data" && r.splits[0].batch.length).toBe(3);
    expect(source.position()).toEqual({ next: 3, baseTime: BASE });
  });

  it("'rate.limited' paces events to event time against the wall clock", async () => {
    let now = 5_000;
    const node = sourceNode(NEXMARK_FIELDS, {
      connector: "nexmark",
      "first-event.rate": "1000",
      "rate.limited": "true",
    });
    const source = new NexmarkSource(node, () => now);
    await source.open(ctx(node));
    // One event per ms of event time: event number 1 is at +1 ms.
    expect(await source.poll(100)).toEqual({ kind: "idle", waitMs: 1 });
    now += 10;
    const r = await source.poll(100);
    expect(r.kind === "data" && r.splits[0].batch.length).toBe(10);
  });
});
