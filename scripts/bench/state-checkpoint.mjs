// Checkpoint size and duration of the on-disk state backend, full versus incremental, and restore
// time: fills one value table with KEYS keys of VALUE_BYTES each (default 500,000 × 2,000 B ≈ 1 GB),
// takes a full checkpoint (a base file), changes CHANGED_PERCENT of the keys (default 1%: half
// rewritten, half deleted and re-added under new keys), then takes an incremental checkpoint (a delta
// file) and, for comparison, a full one of the same state; restores base + delta into a fresh
// backend. Usage: node scripts/bench/state-checkpoint.mjs [KEYS] [VALUE_BYTES] [CHANGED_PERCENT]
// (build first: pnpm exec tsc -b).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DiskStateBackend } from "../../packages/runtime/dist/state/disk.js";

const KEYS = Number(process.argv[2] ?? 500_000);
const VALUE_BYTES = Number(process.argv[3] ?? 2000);
const CHANGED = Number(process.argv[4] ?? 1) / 100;
const root = mkdtempSync(join(tmpdir(), "weir-bench-state-"));
const checkpointDir = join(root, "job");
const mb = (n) => `${(n / 1e6).toFixed(1)} MB`;
const time = (f) => {
  const t = performance.now();
  const r = f();
  return [r, performance.now() - t];
};
const filler = Buffer.alloc(VALUE_BYTES, "abcdef0123456789").toString("latin1");
const value = (k, gen) => `${gen}:${k}:${filler}`.slice(0, VALUE_BYTES);

function backend(incremental) {
  return new DiskStateBackend({
    dir: join(root, `local-${incremental}`),
    checkpointDir,
    taskId: "t",
    incremental,
  });
}

try {
  const inc = backend(true);
  const v = inc.value("v");
  const [, fillMs] = time(() => {
    for (let k = 0; k < KEYS; k++) v.put(k, value(k, 0));
  });
  const [s1, fullMs] = time(() => inc.snapshot({ checkpointId: 1 }));
  const base = s1.native.files[0];
  const n = Math.round(KEYS * CHANGED);
  for (let i = 0; i < n; i++) {
    const k = Math.floor((i * 7919) % KEYS);
    if (i % 2 === 0) v.put(k, value(k, 1));
    else {
      v.delete(k);
      v.put(KEYS + i, value(KEYS + i, 1));
    }
  }
  const [s2, incMs] = time(() => inc.snapshot({ checkpointId: 2 }));
  const delta = s2.native.files[1];
  // The same state, checkpointed in full (what every checkpoint costs without incremental ones).
  const fullAgain = backend(false);
  const w = fullAgain.value("v");
  fullAgain.restore({
    ...s2,
    native: {
      ...s2.native,
      files: s2.native.files.map((f) => ({ ...f, path: join(checkpointDir, f.file) })),
    },
  });
  const [s3, full2Ms] = time(() => fullAgain.snapshot({ checkpointId: 3 }));
  const fresh = backend("restore");
  fresh.value("v");
  const files = s2.native.files.map((f) => ({ ...f, path: join(checkpointDir, f.file) }));
  const [, restoreMs] = time(() => fresh.restore({ ...s2, native: { ...s2.native, files } }));
  if (w.size !== KEYS) throw new Error(`restored ${w.size} keys, expected ${KEYS}`);
  console.log(
    `state: ${KEYS} keys × ${VALUE_BYTES} B, filled in ${(fillMs / 1000).toFixed(1)} s; ${n} keys (${CHANGED * 100}%) changed between checkpoints`,
  );
  console.log(`full checkpoint (base):        ${mb(base.bytes)} in ${(fullMs / 1000).toFixed(2)} s`);
  console.log(
    `full checkpoint after changes: ${mb(s3.native.files[0].bytes)} in ${(full2Ms / 1000).toFixed(2)} s`,
  );
  console.log(`incremental checkpoint (delta): ${mb(delta.bytes)} in ${(incMs / 1000).toFixed(3)} s`);
  console.log(
    `ratio full/incremental: ${(s3.native.files[0].bytes / delta.bytes).toFixed(1)}× smaller, ${(full2Ms / incMs).toFixed(1)}× faster`,
  );
  console.log(`restore (base + 1 delta into a fresh backend): ${(restoreMs / 1000).toFixed(2)} s`);
  inc.dispose();
  fullAgain.dispose();
  fresh.dispose();
} finally {
  rmSync(root, { recursive: true, force: true });
}
