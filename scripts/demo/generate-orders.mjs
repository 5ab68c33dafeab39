#!/usr/bin/env node
// Generates the demo's order-paid events as JSON lines (the seeds' event shape): 3 stores,
// KRW and USD, a few minutes of event time from 2026-06-24 11:48 KST, with what real streams
// carry — producer-retry duplicates (same event_id), events out of order by up to 90 s, and a
// few events late by more than the pipeline's 2-minute bound. Seeded: the same file every run.
// Usage: node scripts/demo/generate-orders.mjs [COUNT] [SEED] > orders.jsonl
const count = Number(process.argv[2] ?? 400);
const seed = Number(process.argv[3] ?? 42);

let state = seed >>> 0 || 1;
function random() {
  // xorshift32: small, seedable, good enough for demo data.
  state ^= state << 13;
  state >>>= 0;
  state ^= state >>> 17;
  state ^= state << 5;
  state >>>= 0;
  return state / 4294967296;
}
const pick = (xs) => xs[Math.floor(random() * xs.length)];

const START = Date.parse("2026-06-24T11:48:00+09:00");
const stores = ["store-1", "store-2", "store-7"];
const kst = (ms) => `${new Date(ms + 9 * 3600_000).toISOString().slice(0, 19)}+09:00`;

const events = [];
for (let i = 0; i < count; i++) {
  // Event time advances about 1.2 s per event; arrival order is shuffled below.
  const paid = START + Math.floor(i * 1200 + random() * 1000);
  const usd = random() < 0.2;
  const amount = usd ? (Math.floor(random() * 5000) + 10) / 100 : (Math.floor(random() * 90) + 5) * 100;
  const order = `ord-${1000 + Math.floor(i * 0.9)}`; // some orders paid in two events
  const event = {
    event_id: `evt-${String(i + 1).padStart(6, "0")}`,
    event_type: "OrderPaid",
    event_version: 1,
    order_id: order,
    store_id: pick(stores),
    amount: Number(amount.toFixed(2)),
    currency: usd ? "USD" : "KRW",
    paid_at: kst(paid),
    produced_at: kst(paid + 1000 + Math.floor(random() * 3000)),
  };
  // Arrival position: on time, up to 90 s out of order, or (2 %) more than 3 minutes late.
  const r = random();
  const delay = r < 0.02 ? 200_000 + random() * 60_000 : random() * 90_000;
  events.push({ at: paid + delay, line: event });
  // A producer retry re-sends 5 % of events a little later.
  if (random() < 0.05) events.push({ at: paid + delay + random() * 10_000, line: event });
}
events.sort((a, b) => a.at - b.at);
const out = events.map((e) => {
  const { amount, ...rest } = e.line;
  // amount as a decimal with its scale, e.g. 12.50 (JSON numbers keep the text the engine reads).
  return JSON.stringify({ ...rest, amount: "@AMOUNT@" }).replace('"@AMOUNT@"', amount.toFixed(2));
});
process.stdout.write(`${out.join("\n")}\n`);
