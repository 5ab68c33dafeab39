#!/usr/bin/env node
// The per-row cost of exact BIGINT (issue 16), one operation at a time (build first:
// scripts/pnpm.sh exec tsc -b):
//   node scripts/bench/bigint-micro.mjs [CHECKOUT]
// CHECKOUT (default: this one) is the root of a built Weir checkout, so a checkout of the code
// before the change can be measured with the same script. Prints CPU ns per row (best of 7 runs of
// 5M rows) for compiled BIGINT expressions, SUM(BIGINT) and a single-BIGINT state key, over safe
// values (the common path) and, where the checkout has exact BIGINT, over values beyond 2^53.
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";

const root = resolve(process.argv[2] ?? new URL("../..", import.meta.url).pathname);
const load = (pkg) => import(pathToFileURL(`${root}/packages/${pkg}/dist/index.js`).href);
const runtime = (path) => import(pathToFileURL(`${root}/packages/runtime/dist/${path}`).href);
const { compileExpr, compilePredicate } = await runtime("expr/compile.js");
const { createAggregate } = await runtime("aggregates/create.js");
const { keyCodec } = await load("runtime");
const { E, T } = await load("planner");

const col = (i) => E.input(i, T.bigint(false));
const int = (v) => E.literal(v, T.int(false));
const big = (v) => E.literal(v, T.bigint(false));
const cases = {
  "a + b": compileExpr(E.call("+", [col(0), col(1)], T.bigint(false))),
  "a * 3": compileExpr(E.call("*", [col(0), big(3)], T.bigint(false))),
  "a / 7": compileExpr(E.call("/", [col(0), big(7)], T.bigint(false))),
  "MOD(a, 123) = 0": compilePredicate(
    E.call("=", [E.call("%", [col(0), int(123)], T.int(false)), int(0)], T.boolean(false)),
  ),
  "a < b": compilePredicate(E.call("<", [col(0), col(1)], T.boolean(false))),
};
const sum = createAggregate({ fn: "SUM", argTypes: [T.bigint()], type: T.bigint(), distinct: false }, true);
const key = keyCodec([0], [T.bigint()]);

const N = 1000;
const safeRows = Array.from({ length: N }, (_, i) => [1000 + i * 7, i * 13]);
const exact = cases["a + b"]([9007199254740991, 2]) === 9007199254740993n;
const bigRows = exact ? safeRows.map(([a, b]) => [BigInt(a) + 2n ** 60n, BigInt(b)]) : null;

function nsPerRow(f, rows) {
  let best = Number.POSITIVE_INFINITY;
  let sink = 0;
  for (let r = 0; r < 7; r++) {
    const c0 = process.cpuUsage();
    for (let k = 0; k < 5000; k++) for (let i = 0; i < N; i++) if (f(rows[i]) !== null) sink++;
    const c = process.cpuUsage(c0);
    best = Math.min(best, ((c.user + c.system) * 1000) / (5000 * N));
  }
  if (sink < 0) console.log(sink);
  return best;
}

const all = {
  ...cases,
  "SUM accumulate": (row) => {
    const acc = sum.create();
    sum.accumulate(acc, row[0]);
    return sum.accumulate(acc, row[1]);
  },
  "state key encode": (row) => key.encode(row),
};
console.log(`checkout ${root} (exact BIGINT: ${exact ? "yes" : "no"})`);
console.log("operation            safe ns/row   beyond 2^53 ns/row");
for (const [name, f] of Object.entries(all)) {
  const a = nsPerRow(f, safeRows).toFixed(2);
  const b = bigRows === null ? "-" : nsPerRow(f, bigRows).toFixed(2);
  console.log(`${name.padEnd(20)} ${a.padStart(11)}   ${b.padStart(18)}`);
}
