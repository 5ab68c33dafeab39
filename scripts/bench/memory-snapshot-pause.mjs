// The pause a checkpoint of the in-memory backend causes: snapshot() builds the JSON tree and the
// checkpoint store stringifies it, both while the job loop waits. Usage: node
// --max-old-space-size=4096 scripts/bench/memory-snapshot-pause.mjs [KEYS] [VALUE_BYTES] (build first).
import { MemoryStateBackend } from "../../packages/runtime/dist/index.js";

const N = Number(process.argv[2] ?? 200000),
  B = Number(process.argv[3] ?? 1000);
const b = new MemoryStateBackend();
const v = b.value("v");
const filler = Buffer.alloc(B, "abcdef0123456789").toString("latin1");
for (let k = 0; k < N; k++) v.put(k, [k, `${k}:${filler}`]);
let t = performance.now();
const s = b.snapshot();
const t1 = performance.now() - t;
t = performance.now();
const text = JSON.stringify(s);
const t2 = performance.now() - t;
console.log(
  `memory backend, ${N} keys × ${B} B (${(text.length / 1e6).toFixed(0)} MB of JSON): snapshot() ${(t1 / 1000).toFixed(2)} s + JSON.stringify ${(t2 / 1000).toFixed(2)} s, the job loop paused for both`,
);
