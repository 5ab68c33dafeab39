import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { StateBackend, StateSnapshot } from "../src/state/api.js";
import { stateBackendFactory } from "../src/state/backends.js";
import { DiskStateBackend } from "../src/state/disk.js";
import type { StateKey } from "../src/state/keys.js";
import { MemoryStateBackend } from "../src/state/memory.js";

const root = mkdtempSync(join(tmpdir(), "weir-disk-state-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let n = 0;

/** A disk backend with a tiny cache (every few accesses evict, so LMDB really serves reads). */
function disk(
  clock: () => number = Date.now,
  extra: Partial<ConstructorParameters<typeof DiskStateBackend>[0]> = {},
) {
  n++;
  return new DiskStateBackend({ clock, dir: join(root, `local-${n}`), cacheEntries: 2, ...extra });
}

const BACKENDS: [string, (clock?: () => number) => StateBackend][] = [
  ["memory", (clock) => new MemoryStateBackend(clock ? { clock } : {})],
  ["disk", (clock) => disk(clock)],
];

function declare(b: StateBackend) {
  return {
    value: b.value<unknown[]>("rows"),
    map: b.map<string, bigint>("sums"),
    list: b.list<string>("items"),
    time: b.timeIndexed<number>("slices"),
    timers: b.timers("timers"),
  };
}

function fill(s: ReturnType<typeof declare>): void {
  s.value.put(1, [1, "a", 2n, null, Number.NaN, Number.POSITIVE_INFINITY, { x: [1] }]);
  s.value.put("k", [new Uint8Array([9])]);
  s.value.put(2.5, [new Map([[1, "m"]])]);
  s.map.put(1, "x", 10n);
  s.map.put(1, "y", 20n);
  s.map.put("z", "w", 1n);
  s.list.add(3, "p");
  s.list.add(3, "q");
  s.time.put(20, 1, 5);
  s.time.put(10, 2, 6);
  s.time.put(10, 1, 7);
  s.time.put(-10, "s", 8);
  s.timers.registerEventTimeTimer(1, 19);
  s.timers.registerEventTimeTimer(2, 9);
  s.timers.registerProcessingTimeTimer(1, 1000);
}

function expectFilled(r: ReturnType<typeof declare>, timers = true): void {
  expect(r.value.get(1)).toEqual([1, "a", 2n, null, Number.NaN, Number.POSITIVE_INFINITY, { x: [1] }]);
  expect(r.value.get("k")).toEqual([new Uint8Array([9])]);
  expect(r.value.get(2.5)).toEqual([new Map([[1, "m"]])]);
  expect(r.value.size).toBe(3);
  expect(r.map.get(1, "y")).toBe(20n);
  expect([...r.map.entries(1)]).toEqual([
    ["x", 10n],
    ["y", 20n],
  ]);
  expect(new Set(r.map.keys())).toEqual(new Set([1, "z"]));
  expect(r.list.get(3)).toEqual(["p", "q"]);
  expect([...r.time.timestamps()]).toEqual([-10, 10, 20]);
  expect([...r.time.timestamps(11)]).toEqual([20]);
  expect([...r.time.entriesAt(10)]).toEqual([
    [2, 6],
    [1, 7],
  ]);
  expect(r.time.size).toBe(4);
  if (!timers) return;
  const fired: [StateKey, number][] = [];
  r.timers.advanceWatermark(19, (k, ts) => fired.push([k, ts]));
  expect(fired).toEqual([
    [2, 9],
    [1, 19],
  ]);
  expect(r.timers.nextProcessingTime()).toBe(1000);
}

describe.each(BACKENDS)("state contract: %s", (_name, make) => {
  it("reads back what it holds, and a canonical snapshot restores into either backend", () => {
    const a = make();
    const s = declare(a);
    fill(s);
    expectFilled(s, false);
    const snap = JSON.parse(JSON.stringify(a.snapshot({ canonical: true }))) as StateSnapshot;
    for (const [, other] of BACKENDS) {
      const b = other();
      const r = declare(b);
      b.restore(snap);
      expectFilled(r);
    }
  });

  it("keeps byte values intact after later reads (compact encoded rows)", () => {
    const b = make();
    const v = b.value<Uint8Array>("bytes");
    for (let i = 0; i < 50; i++) v.put(i, new Uint8Array([i, i + 1, i + 2]));
    const held = Array.from({ length: 50 }, (_, i) => v.get(i)!);
    for (let i = 0; i < 50; i++) v.get((i * 7) % 50);
    for (let i = 0; i < 50; i++) expect([...held[i]!]).toEqual([i, i + 1, i + 2]);
  });

  it("deletes, drops empty keys, and iterates live entries", () => {
    const b = make();
    const v = b.value<number>("v");
    for (let i = 0; i < 20; i++) v.put(i, i * 10);
    for (let i = 0; i < 20; i += 2) v.delete(i);
    v.delete(100);
    expect(v.size).toBe(10);
    expect(new Map(v.entries())).toEqual(
      new Map(Array.from({ length: 10 }, (_, i) => [2 * i + 1, 20 * i + 10])),
    );
    const m = b.map<string, number>("m");
    m.put(1, "a", 1);
    m.delete(1, "a");
    expect([...m.entries(1)]).toEqual([]);
    expect([...m.keys()]).toEqual([]);
    const l = b.list<number>("l");
    l.add(1, 1);
    l.update(1, []);
    expect([...l.keys()]).toEqual([]);
  });

  it("expires time-indexed state up to a watermark, in time then insertion order", () => {
    const t = make().timeIndexed<string>("t");
    for (const [ts, k] of [
      [30, 1],
      [10, 1],
      [20, 2],
      [10, 2],
      [-5, 1],
    ] as const)
      t.put(ts, k, `${ts}/${k}`);
    const expired: string[] = [];
    t.expireUpTo(20, (ts, entries) => {
      for (const v of entries.values()) expired.push(v);
      if (ts === 10) t.put(40, 9, "added while expiring");
    });
    expect(expired).toEqual(["-5/1", "10/1", "10/2", "20/2"]);
    expect([...t.timestamps()]).toEqual([30, 40]);
    expect(t.get(40, 9)).toBe("added while expiring");
    expect(t.size).toBe(2);
  });

  it.each([
    ["read-write", "put 1, t=99, get 1, t=100, get 1", ["hit 1", "hit 1"]],
    ["read-write", "put 1, t=100, get 1", ["miss 1"]],
    ["write", "put 1, t=99, get 1, t=100, get 1", ["hit 1", "miss 1"]],
    [
      "read-write",
      "put 1, put 2, t=50, put 3, t=120, cleanup, size, get 3, get 1",
      ["removed 2", "size 1", "hit 3", "miss 1"],
    ],
    [
      "write",
      "put 1, put 2, put 3, t=60, put 2, t=100, cleanup, get 2, t=160, get 2",
      ["removed 2", "hit 2", "miss 2"],
    ],
  ] as const)("TTL %s: %s", (update, steps, expected) => {
    let now = 0;
    const b = make(() => now);
    const v = b.value<string>("v", { ttl: { ttlMs: 100, update } });
    const out: string[] = [];
    for (const step of steps.split(",").map((x) => x.trim())) {
      const [cmd, arg] = step.split(" ");
      if (cmd!.startsWith("t=")) now = Number(cmd!.slice(2));
      else if (cmd === "put") v.put(Number(arg), `v${arg}`);
      else if (cmd === "get") out.push(v.get(Number(arg)) === undefined ? `miss ${arg}` : `hit ${arg}`);
      else if (cmd === "cleanup") out.push(`removed ${b.cleanupExpired()}`);
      else if (cmd === "size") out.push(`size ${v.size}`);
    }
    expect(out).toEqual(expected);
  });

  it("keeps TTL last-access times across a canonical snapshot into either backend", () => {
    let now = 0;
    const a = make(() => now);
    const v = a.value<number>("v", { ttl: { ttlMs: 100 } });
    v.put(1, 1);
    now = 50;
    v.put(2, 2);
    v.put(3, 3);
    for (const [, other] of BACKENDS) {
      const b = other(() => now);
      const w = b.value<number>("v", { ttl: { ttlMs: 100 } });
      b.restore(JSON.parse(JSON.stringify(a.snapshot({ canonical: true }))));
      now = 120;
      expect(w.get(1)).toBeUndefined();
      expect(w.get(2)).toBe(2);
      now = 50;
    }
  });
});

describe("DiskStateBackend native checkpoints", () => {
  /** A checkpoint directory whose `shared/` the backend writes to; files resolved as a store loads them. */
  function resolved(dir: string, s: StateSnapshot): StateSnapshot {
    return {
      ...s,
      native: { ...s.native!, files: s.native!.files.map((f) => ({ ...f, path: join(dir, f.file) })) },
    };
  }

  it("full, then incremental deltas of changed keys and tombstones; restore = base + deltas, into either backend", () => {
    const dir = join(root, "chk-incremental");
    const a = disk(Date.now, { checkpointDir: dir, incremental: true, maxDeltas: 3, taskId: "op" });
    const v = a.value<string>("v");
    const t = a.timeIndexed<number>("t");
    const timers = a.timers("timers");
    for (let i = 0; i < 1000; i++) v.put(i, `value ${i}`);
    t.put(5, "a", 1);
    const s1 = a.snapshot({ checkpointId: 1 });
    expect(s1.native!.files).toHaveLength(1);
    const base = s1.native!.files[0]!;
    v.put(3, "changed");
    v.delete(4);
    t.put(5, "b", 2);
    timers.registerEventTimeTimer("x", 7);
    const s2 = a.snapshot({ checkpointId: 2 });
    expect(s2.native!.files.map((f) => f.file)).toEqual([base.file, expect.stringMatching(/op-2-delta/)]);
    const delta = s2.native!.files[1]!;
    expect(delta.bytes * 20).toBeLessThan(base.bytes);
    for (const make of [() => disk(), () => new MemoryStateBackend()]) {
      const b = make();
      const w = b.value<string>("v");
      const u = b.timeIndexed<number>("t");
      const bt = b.timers("timers");
      b.restore(resolved(dir, JSON.parse(JSON.stringify(s2))));
      expect(w.get(3)).toBe("changed");
      expect(w.get(4)).toBeUndefined();
      expect(w.get(999)).toBe("value 999");
      expect(w.size).toBe(999);
      expect([...u.entriesAt(5)]).toEqual([
        ["a", 1],
        ["b", 2],
      ]);
      expect(bt.nextEventTime()).toBe(7);
    }
    // After maxDeltas deltas the next checkpoint is a new base.
    a.snapshot({ checkpointId: 3 });
    a.snapshot({ checkpointId: 4 });
    const s5 = a.snapshot({ checkpointId: 5 });
    expect(s5.native!.files).toHaveLength(1);
    expect(s5.native!.files[0]!.file).toMatch(/op-5-base/);
  });

  it("without incremental checkpoints every snapshot is a base; a savepoint is canonical", () => {
    const dir = join(root, "chk-full");
    const a = disk(Date.now, { checkpointDir: dir, taskId: "op" });
    a.value<number>("v").put(1, 1);
    expect(a.snapshot({ checkpointId: 1 }).native!.files[0]!.file).toMatch(/base/);
    expect(a.snapshot({ checkpointId: 2 }).native!.files[0]!.file).toMatch(/op-2-base/);
    const sp = a.snapshot({ checkpointId: 3, canonical: true });
    expect(sp.native).toBeUndefined();
    expect(sp.tables.v).toEqual({ kind: "value", entries: [[1, 1]] });
  });

  it("refuses a native snapshot whose tables the task does not declare", () => {
    const dir = join(root, "chk-refuse");
    const a = disk(Date.now, { checkpointDir: dir, taskId: "op" });
    a.value<number>("v").put(1, 1);
    const s = resolved(dir, a.snapshot({ checkpointId: 1 }));
    const b = disk();
    b.list("v");
    expect(() => b.restore(s)).toThrow(/'v' is list but the snapshot holds value/);
    const c = disk();
    c.value("w");
    expect(() => c.restore(s)).toThrow(/state table 'v'.*does not declare/);
  });

  it("deletes its local directory when disposed", () => {
    const b = disk();
    b.value<number>("v").put(1, 1);
    const dirs = readdirSync(root).filter((d) => d.startsWith("local-"));
    const mine = join(root, dirs.sort((x, y) => Number(x.slice(6)) - Number(y.slice(6))).at(-1)!);
    expect(existsSync(mine)).toBe(true);
    b.dispose();
    expect(existsSync(mine)).toBe(false);
  });
});

describe("'state.backend.type'", () => {
  it("picks the on-disk backend by Flink's name and refuses incremental checkpoints in memory", () => {
    const f = stateBackendFactory({
      "state.backend.type": "rocksdb",
      "state.backend.rocksdb.localdir": root,
    });
    const b = f(() => 0, { jobId: "j", taskId: "t", checkpointDir: null });
    expect(b).toBeInstanceOf(DiskStateBackend);
    b.dispose?.();
    expect(() => stateBackendFactory({ "execution.checkpointing.incremental": "true" })).toThrow(
      /needs the on-disk state backend.*'rocksdb'/,
    );
    expect(() => stateBackendFactory({ "state.backend.type": "nope" })).toThrow(
      /hashmap, memory, rocksdb, disk, lmdb/,
    );
    expect(() =>
      stateBackendFactory({ "state.backend.type": "rocksdb", "weir.state.cache-entries": "0" }),
    ).toThrow(/'weir.state.cache-entries' expects a positive integer/);
  });
});

describe("DiskStateBackend lists and maps (header and segments per key)", () => {
  /** A deterministic pseudo-random sequence. */
  function rng(seed: number): () => number {
    let x = seed >>> 0;
    return () => {
      x = (x * 1664525 + 1013904223) >>> 0;
      return x / 2 ** 32;
    };
  }

  function both(b: StateBackend) {
    return { list: b.list<string>("l"), map: b.map<string, number>("m"), v: b.value<number>("v") };
  }

  function contents(s: ReturnType<typeof both>, keys: readonly StateKey[]) {
    return keys.map((k) => [k, [...s.list.get(k)], [...s.map.entries(k)], s.v.get(k)]);
  }

  it("matches the memory backend through appends, rewrites, deletes, evictions and incremental checkpoints", () => {
    const dir = join(root, "chk-collections");
    const a = disk(Date.now, { checkpointDir: dir, incremental: true, maxDeltas: 4, taskId: "c" });
    const m = new MemoryStateBackend();
    const sa = both(a);
    const sm = both(m);
    const keys: StateKey[] = [1, 2, 3, "a", "b", "a\u0000", "", 2.5, -0.5, "\u00ff\u00fe"];
    const r = rng(7);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
    const snapshots: StateSnapshot[] = [];
    for (let step = 0; step < 3000; step++) {
      const k = pick(keys);
      const uk = pick(["x", "y", "z", "w", "v"]);
      const op = r();
      for (const s of [sa, sm]) {
        // Some rows large enough that a key outgrows its header's inline segment.
        if (op < 0.35) s.list.add(k, `e${step}${step % 5 === 0 ? "x".repeat(300) : ""}`);
        else if (op < 0.4) {
          const l = [...s.list.get(k)];
          l.splice(0, 1);
          s.list.update(k, l);
        } else if (op < 0.42) s.list.clear(k);
        else if (op < 0.7) s.map.put(k, `${uk}${step % 3 === 0 ? "y".repeat(400) : ""}`, step);
        else if (op < 0.85) s.map.delete(k, uk);
        else if (op < 0.87) s.map.clear(k);
        else if (op < 0.95) s.v.put(k, step);
        else s.v.delete(k);
      }
      if (step % 97 === 0) expect(contents(sa, keys)).toEqual(contents(sm, keys));
      if (step % 500 === 499) snapshots.push(JSON.parse(JSON.stringify(a.snapshot({ checkpointId: step }))));
    }
    expect(contents(sa, keys)).toEqual(contents(sm, keys));
    expect(new Set(sa.list.keys())).toEqual(new Set(sm.list.keys()));
    expect(new Set(sa.map.keys())).toEqual(new Set(sm.map.keys()));
    expect(a.stats()).toEqual(m.stats());
    const last = snapshots.at(-1)!;
    expect(last.native!.files.length).toBeGreaterThan(1);
    expect(last.native!.files.slice(1).every((f) => f.file.includes("delta"))).toBe(true);
    const files = last.native!.files.map((f) => ({ ...f, path: join(dir, f.file) }));
    for (const make of [() => disk(), () => new MemoryStateBackend()]) {
      const b = make();
      const sb = both(b);
      b.restore({ ...last, native: { ...last.native!, files } });
      expect(contents(sb, keys)).toEqual(contents(sm, keys));
      expect(b.stats()).toEqual(m.stats());
      // And on from there: a restored key still appends after its stored segments.
      sb.list.add(1, "after");
      expect(sb.list.get(1).at(-1)).toBe("after");
    }
    // A canonical savepoint of the disk backend restores into memory and back.
    const canonical = JSON.parse(JSON.stringify(a.snapshot({ canonical: true }))) as StateSnapshot;
    const c = disk();
    const sc = both(c);
    c.restore(canonical);
    expect(contents(sc, keys)).toEqual(contents(sm, keys));
  });

  it("appends to a list without reading it, and writes only the appended rows when a key leaves the cache", () => {
    const b = disk(Date.now, { cacheEntries: 1 });
    const l = b.list<string>("l");
    const row = "r".repeat(1000);
    for (let i = 0; i < 200; i++) {
      l.add("big", `${i}${row}`);
      l.add(i, "other"); // evicts "big"
    }
    const db = (b as unknown as { db: { getStats(): { entryCount: number } } }).db;
    b.flush();
    expect(l.get("big")).toHaveLength(200);
    expect(l.get("big")[199]).toBe(`199${row}`);
    // 200 appends of 1 KB written one by one: about 200 KB of pages, not 200 × the growing list (20 MB).
    const stats = db.getStats() as unknown as {
      treeBranchPageCount: number;
      treeLeafPageCount: number;
      overflowPages: number;
    };
    expect(stats.overflowPages + stats.treeLeafPageCount).toBeLessThan(400);
  });

  it("expires a list or map as a whole after its TTL, on access and in cleanup", () => {
    let now = 0;
    const b = disk(() => now, { cacheEntries: 1 });
    const l = b.list<string>("l", { ttl: { ttlMs: 100, update: "write" } });
    const m = b.map<string, number>("m", { ttl: { ttlMs: 100 } });
    l.add(1, "a");
    l.add(2, "b");
    m.put(1, "x", 1);
    m.put(2, "y", 2);
    now = 60;
    l.add(2, "c");
    expect(m.get(2, "y")).toBe(2); // read-write: refreshed
    now = 120;
    expect(l.get(1)).toEqual([]);
    expect(l.get(2)).toEqual(["b", "c"]);
    expect(m.get(1, "x")).toBeUndefined();
    expect(b.stats().keys).toBe(2);
    now = 200;
    expect(b.cleanupExpired()).toBe(2);
    expect(b.stats().keys).toBe(0);
    expect([...l.keys()]).toEqual([]);
  });
});

describe("native state files of format 1", () => {
  it("restores a format-1 checkpoint (a key's whole list in one record) into the on-disk backend", async () => {
    const { StateFileWriter, stateCodec } = await import("../src/state/state-files.js");
    const dir = join(root, "chk-v1");
    const { mkdirSync } = await import("node:fs");
    mkdirSync(join(dir, "shared"), { recursive: true });
    const w = new StateFileWriter(join(dir, "shared", "old.state"), "shared/old.state", {
      format: "weir-state",
      version: 1,
      kind: "base",
      tables: [
        ["l", "list", false],
        ["v", "value", false],
      ],
      whole: {},
    });
    w.record(0, "k", stateCodec.pack(["a", "b"]));
    w.record(1, 7, stateCodec.pack(70));
    const file = w.close();
    const b = disk(Date.now, { checkpointDir: dir, incremental: true, taskId: "v1" });
    const l = b.list<string>("l");
    const v = b.value<number>("v");
    b.restore({ version: 1, tables: {}, native: { files: [file], empty: false } });
    expect(l.get("k")).toEqual(["a", "b"]);
    expect(v.get(7)).toBe(70);
    l.add("k", "c");
    // The next checkpoint starts a new chain in the current format.
    const s = b.snapshot({ checkpointId: 2 });
    expect(s.native!.files).toHaveLength(1);
    expect(s.native!.files[0]!.file).toMatch(/v1-2-base/);
  });
});
