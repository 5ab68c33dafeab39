import { mkdirSync, mkdtempSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  CHECKPOINT_METADATA,
  CheckpointStore,
  JOB_CHECKPOINT_VERSION,
  type JobCheckpoint,
  readCheckpoint,
} from "../src/index.js";

function checkpoint(id: number): JobCheckpoint {
  return {
    version: JOB_CHECKPOINT_VERSION,
    checkpointId: id,
    planFingerprint: "fp",
    dagVersion: 1,
    stateVersion: 1,
    sources: { "0": { position: { file: id * 10 }, watermarks: null, ended: false } },
    operators: {},
    sinks: {},
    metrics: { durationMs: 0, sources: {}, operators: {}, sinks: {} },
    pollCursor: 0,
  };
}

function tempDir(): string {
  return mkdtempSync(join(tmpdir(), "weir-chk-"));
}

/** Lays out `dirs`: `N` a complete chk-N, `N?` a chk-N without manifest, `N~` one with only a temp file. */
function layout(dir: string, dirs: readonly string[]): void {
  for (const d of dirs) {
    const id = Number.parseInt(d, 10);
    const path = join(dir, `chk-${id}`);
    mkdirSync(path, { recursive: true });
    if (d.endsWith("?")) continue;
    if (d.endsWith("~"))
      writeFileSync(join(path, `.${CHECKPOINT_METADATA}.x.tmp`), JSON.stringify(checkpoint(id)));
    else writeFileSync(join(path, CHECKPOINT_METADATA), JSON.stringify(checkpoint(id)));
  }
}

describe("CheckpointStore.latest", () => {
  const cases: { name: string; dirs: string[]; latest: number | null; listed: number[] }[] = [
    { name: "empty directory", dirs: [], latest: null, listed: [] },
    { name: "ids order as numbers", dirs: ["9", "10", "2"], latest: 10, listed: [2, 9, 10] },
    { name: "an incomplete newer directory is ignored", dirs: ["9", "11?"], latest: 9, listed: [9] },
    { name: "a leftover temp file is not a checkpoint", dirs: ["3", "4~"], latest: 3, listed: [3] },
    { name: "only incomplete", dirs: ["1?", "2~"], latest: null, listed: [] },
    { name: "large ids", dirs: ["99", "100", "1000"], latest: 1000, listed: [99, 100, 1000] },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const dir = tempDir();
      layout(dir, c.dirs);
      mkdirSync(join(dir, "chk-abc"));
      mkdirSync(join(dir, "savepoint-1"));
      const store = new CheckpointStore(dir);
      expect(store.latest()?.id ?? null).toBe(c.latest);
      expect(store.list().map((s) => s.id)).toEqual(c.listed);
      if (c.latest === null) expect(() => store.read()).toThrow(/no complete checkpoint/);
      else expect(store.read().checkpoint.checkpointId).toBe(c.latest);
    });
  }

  it("a missing base directory has no checkpoint", () => {
    const store = new CheckpointStore(join(tempDir(), "absent"));
    expect(store.latest()).toBeNull();
    expect(() => store.read()).toThrow(/no such checkpoint directory/);
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
      expect(readdirSync(dir).sort()).toEqual(c.left.map((id) => `chk-${id}`).sort());
      // The manifest is the checkpoint JSON, and nothing but it is left in the directory.
      const last = c.ids.at(-1)!;
      expect(readdirSync(join(dir, `chk-${last}`))).toEqual([CHECKPOINT_METADATA]);
      expect(store.read().checkpoint).toEqual(checkpoint(last));
    });
  }

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

describe("readCheckpoint", () => {
  it("reads a chk-N directory or the newest under a base directory", () => {
    const dir = tempDir();
    layout(dir, ["9", "10", "12?"]);
    expect(readCheckpoint(join(dir, "chk-9")).checkpoint.checkpointId).toBe(9);
    expect(readCheckpoint(dir)).toEqual({ checkpoint: checkpoint(10), path: join(dir, "chk-10") });
  });

  it("refuses an incomplete chk-N directory and a manifest that is not a checkpoint", () => {
    const dir = tempDir();
    layout(dir, ["12?"]);
    expect(() => readCheckpoint(join(dir, "chk-12"))).toThrow(/incomplete/);
    mkdirSync(join(dir, "chk-13"));
    writeFileSync(join(dir, "chk-13", CHECKPOINT_METADATA), '{"hello":1}');
    expect(() => readCheckpoint(join(dir, "chk-13"))).toThrow(/not a Weir checkpoint/);
    writeFileSync(join(dir, "chk-13", CHECKPOINT_METADATA), "{trunc");
    expect(() => readCheckpoint(dir)).toThrow(/cannot restore from/);
  });
});
