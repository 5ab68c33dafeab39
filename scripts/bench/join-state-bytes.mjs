#!/usr/bin/env node
// Bytes of JS heap per bid held in the state of Nexmark q20's regular join, measured with heap
// snapshots: q20's join operator (as planned from sql/nexmark/q20.sql, built by the operator
// registry with its inputs' changelog modes) gets N generated bids on its bid input and no
// auction, so it emits nothing and keeps every bid. A heap snapshot (v8.writeHeapSnapshot, which
// collects garbage first) is taken before the bids and after; the difference of the snapshots'
// total self sizes, divided by N, is the heap per stored bid. The bid rows are generated batch by
// batch and dropped after the push, so what stays is what the operator keeps.
//
//   node scripts/bench/join-state-bytes.mjs [--bids 100000] [--keep]
//
// Prints the per-bid figure and the difference per node type (string, array, object, ...).
// Needs a build (`scripts/pnpm.sh exec tsc -b`). Snapshots go to a temporary directory, deleted
// unless --keep.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import v8 from "node:v8";

const root = fileURLToPath(new URL("../..", import.meta.url));
const { planNexmarkQuery } = await import(join(root, "packages/cli/dist/bench/nexmark.js"));
const { processOutput } = await import(join(root, "packages/cli/dist/output.js"));
const { Op } = await import(join(root, "packages/runtime/dist/index.js"));
const { OperatorHarness } = await import(join(root, "packages/runtime/dist/testing/index.js"));
const { NexmarkGenerator, parseNexmarkConfig, EventType } = await import(
  join(root, "packages/connectors/dist/index.js")
);

const args = process.argv.slice(2);
const flag = (name, dflt) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : dflt;
};
const bids = Number(flag("--bids", "100000"));
const keep = args.includes("--keep");

const dag = planNexmarkQuery("q20", root, processOutput);
const joinNode = dag.nodes.find((n) => n.kind === "join");
const inputModes = joinNode.inputs.map((i) => dag.nodes[i].changelogMode);
const bidInput = 0; // q20: bid AS B INNER JOIN auction AS A
const harness = new OperatorHarness(joinNode, { inputModes });

const dir = mkdtempSync(join(tmpdir(), "weir-join-bytes-"));
function snapshotTotals(name) {
  const file = v8.writeHeapSnapshot(join(dir, name));
  const snap = JSON.parse(readFileSync(file, "utf8"));
  const fields = snap.snapshot.meta.node_fields;
  const types = snap.snapshot.meta.node_types[0];
  const width = fields.length;
  const typeAt = fields.indexOf("type");
  const sizeAt = fields.indexOf("self_size");
  const nodes = snap.nodes;
  const byType = new Map();
  let total = 0;
  let count = 0;
  for (let i = 0; i < nodes.length; i += width) {
    const size = nodes[i + sizeAt];
    const type = types[nodes[i + typeAt]];
    const t = byType.get(type) ?? { size: 0, count: 0 };
    t.size += size;
    t.count++;
    byType.set(type, t);
    total += size;
    count++;
  }
  return { total, count, byType };
}

const before = snapshotTotals("before.heapsnapshot");
const config = parseNexmarkConfig({ "first-event.rate": "10000000", "events.num": String(bids * 2) });
const gen = new NexmarkGenerator(config, Date.UTC(2024, 0, 1));
let stored = 0;
for (let n = 0; stored < bids; n++) {
  const batch = [];
  for (; batch.length < 1000 && stored + batch.length < bids; n++) {
    const e = gen.generate(n);
    if (gen.lastType === EventType.BID) batch.push([Op.INSERT, e]);
  }
  n--;
  stored += batch.length;
  harness.push(batch, bidInput);
}
if (harness.take().length !== 0) throw new Error("the join emitted rows: it should only store bids");
const after = snapshotTotals("after.heapsnapshot");
if (!keep) rmSync(dir, { recursive: true });
else console.log(`snapshots in ${dir}`);

const perBid = (after.total - before.total) / bids;
console.log(`bids stored: ${bids}`);
console.log(
  `heap (snapshot self sizes): ${before.total} → ${after.total} bytes, ${before.count} → ${after.count} objects`,
);
console.log(
  `per stored bid: ${perBid.toFixed(1)} bytes, ${((after.count - before.count) / bids).toFixed(2)} objects`,
);
for (const [type, a] of [...after.byType].sort((x, y) => y[1].size - x[1].size)) {
  const b = before.byType.get(type) ?? { size: 0, count: 0 };
  const d = (a.size - b.size) / bids;
  if (Math.abs(d) >= 0.5)
    console.log(
      `  ${type.padEnd(16)} ${d.toFixed(1).padStart(8)} bytes/bid  ${((a.count - b.count) / bids).toFixed(2)} objects/bid`,
    );
}
// keep the harness (and its state) alive until the second snapshot
if (harness.metrics === undefined) console.log("");
