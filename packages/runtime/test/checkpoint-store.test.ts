import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { JOB_CHECKPOINT_VERSION, type JobCheckpoint } from "../src/job/checkpoint.js";
import { CHECKPOINT_METADATA, CheckpointStore, readCheckpoint } from "../src/job/checkpoint-store.js";
import { STATE_SNAPSHOT_VERSION } from "../src/state/api.js";
import { encodeNumber } from "../src/state/codec.js";
import { DiskStateBackend } from "../src/state/disk.js";

const JOB = "job-a";
/** No watermark yet (−∞), as a checkpoint holds it. */
const NONE = encodeNumber(Number.NEGATIVE_INFINITY);
const NO_WATERMARKS = { emitted: NONE, splits: [] };

function checkpoint(id: number, jobId = JOB, fingerprint = "fp"): JobCheckpoint {
  return {
    version: JOB_CHECKPOINT_VERSION,
    jobId,
    checkpointId: id,
    timestamp: 1000 * id,
    planFingerprint: fingerprint,
    layout: {},
    dagVersion: 1,
    stateVersion: 1,
    sources: { "0": { position: { file: id * 10 }, watermarks: NO_WATERMARKS, ended: false } },
    operators: {
      "1": {
        state: {
          version: STATE_SNAPSHOT_VERSION,
          tables: { groups: { kind: "value", entries: [["k", id]] } },
        },
        watermark: NONE,
        forwarded: NONE,
      },
    },
    sinks: {},
    metrics: { durationMs: 0, sources: {}, operators: {}, sinks: {} },
    pollCursor: 0,
  };
}

function tempDir(): string {
  return mkdtempSync(join(tmpdir(), "weir-chk-"));
}

/**
 * Lays out `dirs` under `<dir>/<job>`: `N` a complete chk-N, `N?` a chk-N without manifest, `N~`
 * one with only a temp file, `N!` one whose manifest is torn (cut in the middle).
 */
function layout(dir: string, dirs: readonly string[], job = JOB): void {
  const store = new CheckpointStore(dir, 1000);
  for (const d of dirs) {
    const id = Number.parseInt(d, 10);
    const path = join(dir, job, `chk-${id}`);
    if (d.endsWith("?")) {
      mkdirSync(path, { recursive: true });
      continue;
    }
    if (d.endsWith("~")) {
      mkdirSync(path, { recursive: true });
      writeFileSync(join(path, `.${CHECKPOINT_METADATA}.x.tmp`), JSON.stringify(checkpoint(id, job)));
      continue;
    }
    store.write(checkpoint(id, job));
    if (d.endsWith("!")) {
      const text = readFileSync(join(path, CHECKPOINT_METADATA), "utf8");
      writeFileSync(join(path, CHECKPOINT_METADATA), text.slice(0, text.length >> 1));
    }
  }
}

describe("CheckpointStore.latest", () => {
  const cases: { name: string; dirs: string[]; latest: number | null; listed: number[] }[] = [
    { name: "empty directory", dirs: [], latest: null, listed: [] },
    { name: "ids order as numbers", dirs: ["9", "10", "2"], latest: 10, listed: [2, 9, 10] },
    { name: "an incomplete newer directory is ignored", dirs: ["9", "11?"], latest: 9, listed: [9] },
    { name: "a leftover temp file is not a checkpoint", dirs: ["3", "4~"], latest: 3, listed: [3] },
    {
      name: "a torn manifest falls back to the previous complete one",
      dirs: ["3", "4!"],
      latest: 3,
      listed: [3],
    },
    { name: "only incomplete", dirs: ["1?", "2~", "3!"], latest: null, listed: [] },
    { name: "large ids", dirs: ["99", "100", "1000"], latest: 1000, listed: [99, 100, 1000] },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const dir = tempDir();
      layout(dir, c.dirs);
      mkdirSync(join(dir, JOB, "chk-abc"), { recursive: true });
      mkdirSync(join(dir, JOB, "savepoint-1"));
      const store = new CheckpointStore(dir);
      expect(store.latest(JOB)?.id ?? null).toBe(c.latest);
      expect(store.list(JOB).map((s) => s.id)).toEqual(c.listed);
      if (c.latest === null) expect(() => store.read()).toThrow(/no complete checkpoint/);
      else expect(store.read().checkpoint).toEqual(checkpoint(c.latest));
    });
  }

  it("a missing base directory has no checkpoint", () => {
    const store = new CheckpointStore(join(tempDir(), "absent"));
    expect(store.latest()).toBeNull();
    expect(() => store.read()).toThrow(/no such checkpoint directory/);
  });

  it("a damaged state handle makes its checkpoint incomplete", () => {
    const dir = tempDir();
    layout(dir, ["1", "2"]);
    writeFileSync(join(dir, JOB, "chk-2", "state-1.json"), "{}");
    expect(new CheckpointStore(dir).latest(JOB)?.id).toBe(1);
    expect(() => readCheckpoint(join(dir, JOB, "chk-2"))).toThrow(/state handle state-1.json is damaged/);
  });
});

describe("CheckpointStore.write", () => {
  const cases: { name: string; retained: number; ids: number[]; left: number[] }[] = [
    { name: "default keeps one", retained: 1, ids: [1, 2, 3], left: [3] },
    { name: "keeps the newest three, numerically", retained: 3, ids: [8, 9, 10, 11], left: [9, 10, 11] },
    { name: "fewer than retained", retained: 5, ids: [1, 2], left: [1, 2] },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const dir = tempDir();
      const store = new CheckpointStore(dir, c.retained);
      for (const id of c.ids) store.write(checkpoint(id));
      expect(store.list().map((s) => s.id)).toEqual(c.left);
      expect(readdirSync(dir)).toEqual([JOB]);
      expect(readdirSync(join(dir, JOB)).sort()).toEqual(c.left.map((id) => `chk-${id}`).sort());
      // The manifest and the state handles it references, nothing else.
      const last = c.ids.at(-1)!;
      expect(readdirSync(join(dir, JOB, `chk-${last}`)).sort()).toEqual([
        CHECKPOINT_METADATA,
        "state-1.json",
      ]);
      const manifest = JSON.parse(readFileSync(join(dir, JOB, `chk-${last}`, CHECKPOINT_METADATA), "utf8"));
      expect(manifest.operators["1"].state).toMatchObject({ file: "state-1.json" });
      expect(store.read().checkpoint).toEqual(checkpoint(last));
    });
  }

  it("keeps the previous checkpoint when writing the next one fails", () => {
    const dir = tempDir();
    const store = new CheckpointStore(dir, 1);
    store.write(checkpoint(1));
    const bad = checkpoint(2);
    (bad.operators["1"]!.state.tables as Record<string, unknown>).groups = {
      kind: "value",
      entries: [[1n, 2]],
    };
    expect(() => store.write(bad)).toThrow(/BigInt/);
    expect(store.list().map((s) => s.id)).toEqual([1]);
    expect(store.read().checkpoint).toEqual(checkpoint(1));
  });

  it("retention does not delete incomplete directories' newer neighbours or count them", () => {
    const dir = tempDir();
    layout(dir, ["5?"]);
    const store = new CheckpointStore(dir, 1);
    store.write(checkpoint(3));
    store.write(checkpoint(4));
    expect(store.list().map((s) => s.id)).toEqual([4]);
    expect(store.latest()?.id).toBe(4);
  });

  it("rejects a retention below one", () => {
    expect(() => new CheckpointStore(tempDir(), 0)).toThrow(/num-retained/);
  });
});

describe("two jobs in one directory", () => {
  it("each keeps its own checkpoints; a restore finds the one that fits the job", () => {
    const dir = tempDir();
    const store = new CheckpointStore(dir, 1);
    // Job b started later and took fewer checkpoints: its ids are lower, its checkpoints newer.
    for (const id of [1, 2, 3, 4, 5]) store.write(checkpoint(id, "job-a", "fp-a"));
    for (const id of [1, 2]) store.write({ ...checkpoint(id, "job-b", "fp-b"), timestamp: 10_000 + id });
    expect(store.list("job-a").map((s) => s.id)).toEqual([5]);
    expect(store.list("job-b").map((s) => s.id)).toEqual([2]);
    const fits = (fp: string) => (cp: JobCheckpoint) => (cp.planFingerprint === fp ? null : "another plan");
    expect(readCheckpoint(dir, fits("fp-a")).checkpoint).toMatchObject({ jobId: "job-a", checkpointId: 5 });
    expect(readCheckpoint(dir, fits("fp-b")).checkpoint).toMatchObject({ jobId: "job-b", checkpointId: 2 });
    expect(() => readCheckpoint(dir, fits("fp-c"))).toThrow(
      /none of its jobs' checkpoints fits this job \(job-b: another plan; job-a: another plan\); name one with --restore/,
    );
    // A job directory names its job.
    expect(readCheckpoint(join(dir, "job-a")).checkpoint.checkpointId).toBe(5);
  });
});

describe("readCheckpoint", () => {
  it("reads a chk-N directory or the newest under a job or base directory", () => {
    const dir = tempDir();
    layout(dir, ["9", "10", "12?"]);
    expect(readCheckpoint(join(dir, JOB, "chk-9")).checkpoint.checkpointId).toBe(9);
    expect(readCheckpoint(dir)).toEqual({ checkpoint: checkpoint(10), path: join(dir, JOB, "chk-10") });
    expect(readCheckpoint(join(dir, JOB)).path).toBe(join(dir, JOB, "chk-10"));
  });

  it("refuses an incomplete chk-N directory and a manifest that is not a checkpoint", () => {
    const dir = tempDir();
    layout(dir, ["12?"]);
    expect(() => readCheckpoint(join(dir, JOB, "chk-12"))).toThrow(/incomplete/);
    mkdirSync(join(dir, JOB, "chk-13"));
    writeFileSync(join(dir, JOB, "chk-13", CHECKPOINT_METADATA), '{"hello":1}');
    expect(() => readCheckpoint(join(dir, JOB, "chk-13"))).toThrow(/not a Weir checkpoint/);
    writeFileSync(join(dir, JOB, "chk-13", CHECKPOINT_METADATA), "{trunc");
    expect(() => readCheckpoint(join(dir, JOB, "chk-13"))).toThrow(/cannot restore from/);
    expect(() => readCheckpoint(dir)).toThrow(/no complete checkpoint/);
  });
});

describe("shared state files (the on-disk backend's native checkpoints)", () => {
  /** Checkpoint `id` of a disk backend whose state lives in `<job>/shared/`, after `change`. */
  function nativeCheckpoint(backend: DiskStateBackend, id: number, change: () => void): JobCheckpoint {
    change();
    const base = checkpoint(id);
    return {
      ...base,
      operators: { "1": { ...base.operators["1"]!, state: backend.snapshot({ checkpointId: id }) } },
    };
  }

  it("deletes a shared file once no retained checkpoint lists it; restore = base + deltas", () => {
    const dir = tempDir();
    const store = new CheckpointStore(dir, 2);
    const backend = new DiskStateBackend({
      dir: join(dir, "local"),
      checkpointDir: join(dir, JOB),
      taskId: "op",
      incremental: true,
      maxDeltas: 2,
    });
    const v = backend.value<number>("groups");
    const shared = () => readdirSync(join(dir, JOB, "shared")).sort();
    // An orphan (a checkpoint that never completed) is collected by the next complete one.
    mkdirSync(join(dir, JOB, "shared"), { recursive: true });
    writeFileSync(join(dir, JOB, "shared", "op-0-delta-dead.state"), "x");
    // A base much larger than the deltas (else a delta outweighing it makes the next a base).
    store.write(
      nativeCheckpoint(backend, 1, () => {
        v.put("a", 1);
        for (let i = 0; i < 200; i++) v.put(i, i);
      }),
    );
    const [b1] = shared();
    expect(b1).toMatch(/^op-1-base-/);
    store.write(nativeCheckpoint(backend, 2, () => v.put("b", 2)));
    const third = store.write(nativeCheckpoint(backend, 3, () => v.delete("a")));
    // The operator's state size counts the chain it lists (base + deltas), not only its state file.
    const chainBytes = shared().reduce((n, f) => n + statSync(join(dir, JOB, "shared", f)).size, 0);
    const stateFile = statSync(join(third.path, "state-1.json")).size;
    expect(third.stateBytes?.["1"]).toBe(stateFile + chainBytes);
    // chk-1 is past retention, but chk-2 and chk-3 still need its base.
    expect(shared()).toEqual([
      b1,
      expect.stringMatching(/^op-2-delta-/),
      expect.stringMatching(/^op-3-delta-/),
    ]);
    const { checkpoint: cp } = readCheckpoint(join(dir, JOB));
    expect(cp.checkpointId).toBe(3);
    const restored = new DiskStateBackend({ dir: join(dir, "local2") });
    const w = restored.value<number>("groups");
    restored.restore(cp.operators["1"]!.state);
    expect(w.get("a")).toBeUndefined();
    expect(w.get("b")).toBe(2);
    expect(w.size).toBe(201);
    // After two deltas a new base: once chk-2 and chk-3 are past retention, the old chain goes.
    store.write(nativeCheckpoint(backend, 4, () => v.put("c", 3)));
    store.write(nativeCheckpoint(backend, 5, () => v.put("d", 4)));
    expect(shared().filter((f) => f.includes("-base-"))).toEqual([expect.stringMatching(/^op-4-base-/)]);
    expect(shared()).toHaveLength(2);
    // A checkpoint whose shared file is missing is incomplete: the previous one is restored.
    rmSync(join(dir, JOB, "shared", shared().find((f) => f.includes("op-5-"))!));
    expect(readCheckpoint(join(dir, JOB)).checkpoint.checkpointId).toBe(4);
    backend.dispose();
    restored.dispose();
  });
});
