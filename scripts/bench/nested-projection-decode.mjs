// The json decoder over the first 300,000 lines of a Nexmark events file (bin/weir bench nexmark
// --write-file), with top-level projection only and with q0/q2's nested projection, interleaved;
// CPU ms per pass. Usage: node scripts/bench/nested-projection-decode.mjs [/tmp/nx1m.json]
import { readFileSync } from "node:fs";

const C = await import(new URL("../../packages/connectors/dist/index.js", import.meta.url).href);
const { T } = await import(new URL("../../packages/planner/dist/index.js", import.meta.url).href);
const { ChangeBatchBuilder } = await import(
  new URL("../../packages/runtime/dist/index.js", import.meta.url).href
);
const S = T.string(),
  B = T.bigint(),
  TS = T.timestamp(3);
const fields = [
  { name: "event_type", type: T.int() },
  {
    name: "person",
    type: T.row(
      ["id:B", "name:S", "emailAddress:S", "creditCard:S", "city:S", "state:S", "dateTime:TS", "extra:S"].map(
        (x) => {
          const [n, t] = x.split(":");
          return { name: n, type: { B, S, TS }[t] };
        },
      ),
    ),
  },
  {
    name: "auction",
    type: T.row(
      [
        "id:B",
        "itemName:S",
        "description:S",
        "initialBid:B",
        "reserve:B",
        "dateTime:TS",
        "expires:TS",
        "seller:B",
        "category:B",
        "extra:S",
      ].map((x) => {
        const [n, t] = x.split(":");
        return { name: n, type: { B, S, TS }[t] };
      }),
    ),
  },
  {
    name: "bid",
    type: T.row(
      ["auction:B", "bidder:B", "price:B", "channel:S", "url:S", "dateTime:TS", "extra:S"].map((x) => {
        const [n, t] = x.split(":");
        return { name: n, type: { B, S, TS }[t] };
      }),
    ),
  },
];
const buf = readFileSync(process.argv[2] ?? "/tmp/nx1m.json");
const lines = [];
let s = 0;
for (let i = 0; i < buf.length && lines.length < 300000; i++)
  if (buf[i] === 10) {
    lines.push([s, i]);
    s = i + 1;
  }
const proj = new Set([0, 1, 2, 3]);
// q0's paths: person.dateTime, auction.dateTime, bid.{auction,bidder,price,dateTime,extra}; q1 the same; q2: bid.{auction,price,dateTime}
const paths = {
  q0: [
    [1, 6],
    [2, 5],
    [3, 0],
    [3, 1],
    [3, 2],
    [3, 5],
    [3, 6],
  ],
  q2: [
    [1, 6],
    [2, 5],
    [3, 0],
    [3, 2],
    [3, 5],
  ],
};
const decs = { whole: C.jsonFormat.decoder(fields, new C.FormatOptions({}, "json", proj)) };
for (const [q, p] of Object.entries(paths))
  decs[q] = C.jsonFormat.decoder(
    fields,
    new C.FormatOptions(
      {},
      "json",
      proj,
      0,
      C.nestedProjectionOf(p, (c) => c),
    ),
  );
const res = {};
for (let round = 0; round < 15; round++)
  for (const [k, d] of Object.entries(decs)) {
    const t0 = process.cpuUsage();
    const out = new ChangeBatchBuilder(1024);
    for (const [a, b] of lines) {
      d.decodeBytes(buf, a, b, out);
      if (out.length >= 1024) out.finish();
    }
    const u = process.cpuUsage(t0);
    (res[k] ??= []).push((u.user + u.system) / 1000);
  }
for (const [k, v] of Object.entries(res)) {
  const m = [...v].sort((a, b) => a - b)[v.length >> 1];
  console.log(
    k,
    "median",
    m.toFixed(0),
    "min",
    Math.min(...v).toFixed(0),
    v.map((x) => x.toFixed(0)).join(" "),
  );
}
