#!/usr/bin/env node
// The Postgres sink's statement building against a prototype that writes the array literals as
// bytes (sent as binary parameters, e.g. `convert_from($1::bytea, 'UTF8')::text[]`), over 1M rows
// shaped like scripts/bench/kafka.mjs's order events (a text key, a text, DECIMAL(18, 2),
// TIMESTAMP_LTZ(3)), each as far as pg-protocol's Bind message; CPU seconds, alternating rounds:
//   node scripts/bench/pg-bind-micro.mjs        (after `scripts/pnpm.sh build`)
// A: StatementBuilder.upserts (the sink's unnest statements) + serialize.bind
// B: the prototype (ASCII only; not used by the sink) + serialize.bind
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const require = createRequire(join(ROOT, "packages/connectors/package.json"));
const { serialize } = require(require.resolve("pg-protocol", { paths: [dirname(require.resolve("pg"))] }));
const dist = (p) => pathToFileURL(join(ROOT, "packages/connectors/dist/postgres", p)).href;
const { StatementBuilder } = await import(dist("statements.js"));
const { compileValueEncoder } = await import(dist("values.js"));
const types = [
  { kind: "VARCHAR", length: 2147483647, nullable: true },
  { kind: "VARCHAR", length: 2147483647, nullable: true },
  { kind: "DECIMAL", precision: 18, scale: 2, nullable: true },
  { kind: "TIMESTAMP_LTZ", precision: 3, nullable: true },
];
const names = ["event_id", "store_id", "amount", "t"];
const cast = ["text", "text", "numeric", "timestamptz"];
const table = {
  sql: '"b"',
  display: "b",
  schema: "public",
  primaryKey: ["event_id"],
  columns: names.map((n, i) => ({ sql: `"${n}"`, name: n, castType: cast[i], type: types[i] })),
};
const b = new StatementBuilder(table, [0], null, null);
const enc = types.map(compileValueEncoder);
const N = 1_000_000;
const src = Buffer.alloc(N * 40);
const rows = [];
let t = 1_700_000_000_000;
for (let i = 0; i < N; i++) {
  t += (i * 7) % 3;
  const s = `ord-${(i * 2654435761) % 100000000}-${i}`;
  src.write(s, i * 40, "latin1");
  rows.push([
    src.latin1Slice(i * 40, i * 40 + s.length),
    `store-${i % 500}`,
    BigInt(1000 + ((i * 37) % 90000)),
    t,
  ]);
}
function A() {
  let tot = 0;
  for (let s = 0; s < N; s += 10000) {
    for (const st of b.upserts(rows.slice(s, s + 10000)))
      tot += serialize.bind({ name: "x", values: st.values }).length;
  }
  return tot;
}
const out = Buffer.allocUnsafe(1 << 24);
function B() {
  let tot = 0;
  for (let s = 0; s < N; s += 10000) {
    const vals = [];
    for (let j = 0; j < 4; j++) {
      let p = 0;
      out[p++] = 123;
      for (let r = s; r < s + 10000; r++) {
        const v = rows[r][j];
        const x = j < 2 ? v : enc[j](v);
        out[p++] = 34;
        const L = x.length;
        let ascii = true;
        for (let k = 0; k < L; k++) {
          const c = x.charCodeAt(k);
          if (c >= 128) {
            ascii = false;
            break;
          }
          if (c === 34 || c === 92) out[p++] = 92;
          out[p++] = c;
        }
        if (!ascii) throw new Error("x");
        out[p++] = 34;
        out[p++] = 44;
      }
      out[p - 1] = 125;
      vals.push(Buffer.from(out.subarray(0, p)));
    }
    tot += serialize.bind({ name: "x", values: vals }).length;
  }
  return tot;
}
for (let rep = 0; rep < 4; rep++)
  for (const [n, f] of [
    ["A", A],
    ["B", B],
  ]) {
    const c0 = process.cpuUsage();
    const x = f();
    const c = process.cpuUsage(c0);
    console.log(n, ((c.user + c.system) / 1e6).toFixed(3), x);
  }
