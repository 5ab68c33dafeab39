import { mkdtempSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { materialize } from "@weir/runtime/testing";
import { afterEach, describe, expect, it } from "vitest";
import type { PollResult } from "../src/connector.js";
import type { JobCheckpoint } from "../src/job/checkpoint.js";
import { CheckpointStore, readCheckpoint } from "../src/job/checkpoint-store.js";
import { Job } from "../src/job/job.js";
import { isDeferredSnapshot, type StateSnapshot } from "../src/state/api.js";
import { encodeNumber } from "../src/state/codec.js";
import { MemoryStateBackend } from "../src/state/memory.js";
import { parseSnapshotLines, snapshotLines, tablesOf } from "../src/state/snapshot-text.js";
import { CollectWriter, clicks, dag, expected, MemReader, type MemTable, oneRowJob } from "./job-fixture.js";

// The in-memory backend's copy-on-write snapshot and the checkpoint's asynchronous phase.

const dirs: string[] = [];
function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), "weir-cow-"));
  dirs.push(d);
  return d;
}
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** No watermark yet (−∞), as a checkpoint holds it. */
const NONE = encodeNumber(Number.NEGATIVE_INFINITY);

/** A backend with a value, a map, a list and a TTL table, filled (`big`: ~3 MB, written in several chunks). */
function filled(clock: () => number = () => 0, big = false) {
  const b = new MemoryStateBackend({ clock });
  const v = b.value<{ n: number; tags: string[] }>("v");
  const m = b.map<string, number[]>("m");
  const l = b.list<bigint>("l");
  const t = b.value<number>("ttl", { ttl: { ttlMs: 100 } });
  const w = b.timeIndexed<string>("w");
  const wo = b.timeIndexed<{ c: number }>("wo");
  const timers = b.timers("timers");
  for (let k = 0; k < 50; k++) {
    wo.put(k % 4, k, { c: k });
    timers.registerEventTimeTimer(k, k % 6);
    v.put(k, { n: k, tags: [`t${k}`] });
    m.put(k % 7, `u${k}`, [k]);
    l.add(`k${k % 5}`, BigInt(k));
    t.put(k, k * 10);
    w.put(k % 3, k, `x${k}`);
  }
  if (big) for (let k = 100; k < 30_000; k++) v.put(k, { n: k, tags: ["x".repeat(100)] });
  return { b, v, m, l, t, w, wo, timers };
}

/** Plain JSON of a snapshot (what a checkpoint file holds). */
function json(s: StateSnapshot): unknown {
  return JSON.parse(JSON.stringify(s));
}

/** Every kind of write after the barrier: replacing, deleting, new keys and in-place mutation after a read. */
function mutateAll(s: ReturnType<typeof filled>): void {
  const { v, m, l, t, w, wo, timers } = s;
  for (let k = 0; k < 50; k += 3) {
    const x = v.get(k)!;
    x.n = -1;
    x.tags.push("mutated");
    v.put(k, x);
  }
  for (let k = 1; k < 50; k += 3) v.delete(k);
  for (let k = 2; k < 50; k += 3) v.put(k, { n: 1000 + k, tags: [] });
  v.put(99, { n: 99, tags: [] });
  for (const [, x] of v.entries()) x.tags.push("via entries");
  m.get(0, "u0")!.push(12345);
  m.put(0, "u0", m.get(0, "u0")!);
  m.put(1, "new", [1]);
  m.delete(2, "u2");
  m.clear(3);
  l.add("k0", -1n);
  l.update("k1", [7n]);
  l.clear("k2");
  t.put(5, -5);
  t.delete(6);
  t.get(7);
  w.put(0, 0, "changed");
  w.delete(1, 1);
  // Time-indexed values mutated in place: after get, while iterating a bucket, when expired.
  wo.get(1, 1)!.c = -1;
  for (const [, x] of wo.entriesAt(2)) x.c += 1000;
  wo.expireUpTo(0, (_ts, entries) => {
    for (const x of entries.values()) x.c = -7;
  });
  wo.put(3, 3, { c: 333 });
  wo.put(9, 1, { c: 9 });
  timers.registerEventTimeTimer("new", 1);
  timers.deleteEventTimeTimer(1, 1);
  timers.advanceWatermark(2, () => undefined);
}

describe("copy-on-write snapshot of the memory backend", () => {
  it("writes, deletes and in-place mutations after the barrier do not change the snapshot", () => {
    const s = filled();
    const atBarrier = json(s.b.snapshot());
    const cow = s.b.snapshot({ deferred: true });
    if (!isDeferredSnapshot(cow)) throw new Error("not deferred");
    mutateAll(s);
    // The state changed, the snapshot did not: it equals the state at the barrier.
    expect(json(s.b.snapshot())).not.toEqual(atBarrier);
    expect(parseSnapshotLines(cow.lines(), "test")).toEqual(atBarrier);
    expect(json(cow)).toEqual(atBarrier);
  });

  it("equals the state at the barrier when it is written in pieces while the state changes", () => {
    const s = filled();
    const atBarrier = json(s.b.snapshot());
    const cow = s.b.snapshot({ deferred: true });
    if (!isDeferredSnapshot(cow)) throw new Error("not deferred");
    const lines: string[] = [];
    const it = cow.lines()[Symbol.iterator]();
    // A few lines, then the job goes on, then the rest.
    for (let i = 0; i < 5; i++) lines.push(it.next().value as string);
    mutateAll(s);
    for (let r = it.next(); !r.done; r = it.next()) lines.push(r.value);
    expect(parseSnapshotLines(lines, "test")).toEqual(atBarrier);
    // The layout is JSON: a reader of whole files reads it too.
    expect(JSON.parse(lines.join("\n"))).toEqual(atBarrier);
  });

  it("restores the barrier's state, TTL included (access order and last-access times)", () => {
    let now = 0;
    const s = filled(() => now);
    now = 50;
    s.t.get(3); // refreshed before the barrier: its last access is 50
    const cow = s.b.snapshot({ deferred: true });
    now = 60;
    s.t.get(4); // refreshed after the barrier: the snapshot keeps 0
    s.t.put(8, 80);
    const text = [...(cow as unknown as { lines(): Iterable<string> }).lines()];
    const r = new MemoryStateBackend({ clock: () => now });
    r.value("v");
    r.map("m");
    r.list("l");
    const t = r.value<number>("ttl", { ttl: { ttlMs: 100 } });
    r.timeIndexed("w");
    r.timeIndexed("wo");
    r.timers("timers");
    r.restore(parseSnapshotLines(text, "test"));
    now = 120;
    // Last access 0 at the barrier: expired at 120; key 3 (50) is live, key 8 has the barrier's value.
    expect(t.get(4)).toBeUndefined();
    expect(t.get(3)).toBe(30);
    now = 99;
    expect(t.get(8)).toBe(80);
  });

  it("at most one is open per backend (max-concurrent-checkpoints 1); released, it can no longer be read", () => {
    const s = filled();
    const cow = s.b.snapshot({ deferred: true });
    if (!isDeferredSnapshot(cow)) throw new Error("not deferred");
    expect(() => s.b.snapshot({ deferred: true })).toThrow(/still being written \(at most one at a time\)/);
    // A plain snapshot is always possible.
    expect(s.b.snapshot().tables.v).toBeDefined();
    cow.release();
    expect(() => cow.lines()).toThrow(/released/);
    expect(() => cow.tables).toThrow(/released/);
    // Released, the tables stop keeping barrier values, and the next one can start.
    const next = s.b.snapshot({ deferred: true });
    if (!isDeferredSnapshot(next)) throw new Error("not deferred");
    const tables = next.tables;
    next.release();
    // Read before its release, it stays readable.
    expect(next.tables).toBe(tables);
  });

  it("a snapshot released while it is being written stops the write with an error", () => {
    const s = filled();
    const cow = s.b.snapshot({ deferred: true });
    if (!isDeferredSnapshot(cow)) throw new Error("not deferred");
    const it = cow.lines()[Symbol.iterator]();
    it.next();
    it.next();
    cow.release();
    expect(() => {
      for (let r = it.next(); !r.done; r = it.next());
    }).toThrow(/released/);
  });
});

describe("state text layout", () => {
  it("a plain snapshot of every table kind round-trips, and is the JSON of the snapshot", () => {
    const s = filled();
    const plain = s.b.snapshot();
    const lines = [...snapshotLines(plain.version, tablesOf(plain))];
    expect(parseSnapshotLines(lines, "f")).toEqual(json(plain));
    expect(JSON.parse(lines.join("\n"))).toEqual(json(plain));
  });

  it("refuses text that is not laid out as a state snapshot, naming the line", () => {
    expect(() =>
      parseSnapshotLines(['{"version":1,"tables":{', '"v":{"kind":"nope","entries":['], "f"),
    ).toThrow("f: line 2 of the state text has an unknown table kind 'nope'");
    expect(() => parseSnapshotLines(['{"version":1,"tables":{', "}}", "x"], "f")).toThrow(
      "line 3 of the state text is followed by more text",
    );
    expect(() => parseSnapshotLines(['{"version":1,"tables":{'], "f")).toThrow("ends early");
  });
});

/** A checkpoint with one operator's state (the other parts are not read by the store). */
function checkpointOf(id: number, state: StateSnapshot): JobCheckpoint {
  return {
    version: 2,
    jobId: "job-cow",
    checkpointId: id,
    timestamp: id,
    planFingerprint: "fp",
    layout: {},
    dagVersion: 0,
    stateVersion: 1,
    sources: {},
    operators: { op: { state, watermark: NONE, forwarded: NONE } },
    sinks: {},
    metrics: { durationMs: 0, sources: {}, operators: {}, sinks: {} },
  };
}

describe("CheckpointStore.writeAsync", () => {
  it("streams a copy-on-write snapshot to its file in slices; the file reads back as the barrier's state", async () => {
    const s = filled(() => 0, true);
    const atBarrier = json(s.b.snapshot());
    const cow = s.b.snapshot({ deferred: true });
    const store = new CheckpointStore(tempDir(), 1);
    // Slices of 0 ms: the event loop gets a turn after every chunk; the state changes meanwhile.
    const writing = store.writeAsync(checkpointOf(1, cow), { sliceMs: 0 });
    let turns = 0;
    let done = false;
    void writing.then(() => {
      done = true;
    });
    // Between the slices, the state changes (the job goes on).
    while (!done) {
      mutateAll(s);
      for (let k = 100; k < 30_000; k += 97) s.v.get(k)!.tags.push("later");
      turns++;
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    expect(turns).toBeGreaterThan(3);
    const stored = await writing;
    const text = readFileSync(join(stored.path, "state-op.json"), "utf8");
    expect(text.startsWith('{"version":1,"tables":{\n')).toBe(true);
    expect(json(readCheckpoint(stored.path).checkpoint.operators.op!.state)).toEqual(atBarrier);
  });

  it("a state file larger than the 16 MiB read chunk (lines and multi-byte characters across chunk ends) reads back whole", async () => {
    const b = new MemoryStateBackend({ clock: () => 0 });
    const v = b.value<string>("v");
    // ~24 MB of JSON: 12,000 values of 1,000 two-byte characters, each with a key of its own
    for (let k = 0; k < 12_000; k++) v.put(k, `${k}:${"é".repeat(999)}`);
    const atBarrier = json(b.snapshot());
    const stored = await new CheckpointStore(tempDir(), 1).writeAsync(
      checkpointOf(1, b.snapshot({ deferred: true })),
      { sliceMs: 0 },
    );
    expect(statSync(join(stored.path, "state-op.json")).size).toBeGreaterThan(1 << 24);
    expect(json(readCheckpoint(stored.path).checkpoint.operators.op!.state)).toEqual(atBarrier);
  });

  it("a write that fails midway leaves the previous checkpoint the latest; a torn state file is refused", async () => {
    const s = filled(() => 0, true);
    const dir = tempDir();
    const store = new CheckpointStore(dir, 2);
    store.write(checkpointOf(1, s.b.snapshot()));
    const cow = s.b.snapshot({ deferred: true });
    if (!isDeferredSnapshot(cow)) throw new Error("not deferred");
    const writing = store.writeAsync(checkpointOf(2, cow), { sliceMs: 0 });
    cow.release(); // the checkpoint was aborted while it was being written
    await expect(writing).rejects.toThrow(/released/);
    expect(store.latest("job-cow")?.id).toBe(1);
    // A state file torn after its manifest was written: refused as damaged (a restore falls back).
    const c3 = store.write(checkpointOf(3, s.b.snapshot()));
    const file = join(c3.path, "state-op.json");
    truncateSync(file, 100);
    expect(() => readCheckpoint(c3.path)).toThrow(/state handle state-op.json is damaged/);
    expect(store.latest("job-cow")?.id).toBe(1);
    // Same size, other bytes: damaged.
    const c4 = store.write(checkpointOf(4, s.b.snapshot()));
    const f4 = join(c4.path, "state-op.json");
    const bytes = readFileSync(f4);
    bytes[bytes.length - 10] = bytes[bytes.length - 10] === 0x31 ? 0x32 : 0x31;
    writeFileSync(f4, bytes);
    expect(() => readCheckpoint(c4.path)).toThrow(/damaged/);
  });
});

/** A reader that counts its polls. */
class CountingReader extends MemReader {
  polls = 0;
  override async poll(maxRows: number): Promise<PollResult> {
    this.polls++;
    return super.poll(maxRows);
  }
}

/** Resolves once `cond` holds, giving the event loop a turn between checks (the job loop runs meanwhile). */
async function until(cond: () => boolean, what: string): Promise<void> {
  for (let i = 0; !cond(); i++) {
    if (i > 100_000) throw new Error(`never: ${what}`);
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
}

/** The fixture's rows, 20 times over: a run long enough for several checkpoints. */
function many(): MemTable {
  const t = clicks();
  for (const k of Object.keys(t.splits)) t.splits[k] = Array.from({ length: 20 }, () => t.splits[k]!).flat();
  return { ...t, perPoll: 1 };
}

describe("a checkpoint's asynchronous phase in a job", () => {
  it("completes while rows keep being processed; its file holds the state at the barrier", async () => {
    // The answer: a run without checkpoints.
    const straight: string[] = [];
    const s = new Job(dag, {
      connectors: { source: () => new MemReader(many()), sink: () => new CollectWriter(straight) },
      cwd: ".",
    });
    await s.open();
    await s.run();
    await s.close();
    const expectedMany = materialize(straight.join("\n"));

    const dir = tempDir();
    const store = new CheckpointStore(dir, 10);
    const lines: string[] = [];
    const reader = new CountingReader(many());
    let clock = 0;
    const during: number[] = [];
    const events: string[] = [];
    const job = new Job(dag, {
      connectors: { source: () => reader, sink: () => new CollectWriter(lines) },
      cwd: ".",
      now: () => clock++,
      settings: { "execution.checkpointing.interval": "40 ms" },
      checkpoint: {
        copyOnWrite: true,
        onCheckpoint: async (cp) => {
          events.push(`store ${cp.checkpointId} (triggered at ${cp.timestamp})`);
          if (cp.checkpointId === 1) {
            // Storing waits until the job polled three more times and the interval passed ten
            // times over: it would never, were the job loop waiting for the checkpoint to be stored.
            const at = reader.polls;
            await until(
              () => reader.polls >= at + 3 && clock > cp.timestamp + 10 * 40,
              "the job polled while checkpoint 1 was stored",
            );
            during.push(reader.polls - at);
          }
          await store.writeAsync(cp, { sliceMs: 0 });
          events.push(`stored ${cp.checkpointId} at ${clock}`);
        },
      },
    });
    await job.open();
    const result = await job.run();
    await job.close();
    expect(result.reason).toBe("end");
    expect(during[0]).toBeGreaterThanOrEqual(3);
    // At most one checkpoint in flight (max-concurrent-checkpoints 1): no other was triggered
    // while checkpoint 1 was stored, although the interval passed ten times meanwhile; each next
    // one is triggered only after the previous one was stored.
    expect(events[0]).toMatch(/^store 1 /);
    expect(events[1]).toMatch(/^stored 1 /);
    for (let i = 0; i + 2 < events.length; i += 2) {
      const storedAt = Number(/^stored \d+ at (\d+)$/.exec(events[i + 1]!)![1]);
      const nextTrigger = Number(/triggered at (\d+)/.exec(events[i + 2]!)![1]);
      expect(nextTrigger).toBeGreaterThan(storedAt);
    }
    expect(events.filter((e) => e.startsWith("store ")).length).toBe(result.checkpoints);
    expect(result.checkpoints).toBeGreaterThanOrEqual(1);
    expect(job.checkpointHistory[0]).toMatchObject({ id: 1, status: "completed" });
    expect(job.checkpointHistory[0]!.asyncMs).toBeGreaterThan(0);
    expect(materialize(lines.join("\n"))).toEqual(expectedMany);

    // Restored from checkpoint 1, with the sink's output cut where its barrier was: the same result.
    const chk1 = readCheckpoint(join(dir, job.jobId, "chk-1")).checkpoint;
    const cut = Object.values(chk1.sinks)[0]!.preCommitted as number;
    const rest = lines.slice(0, cut);
    const restored = new Job(dag, {
      connectors: {
        source: () => new MemReader(many()),
        sink: () => new CollectWriter(rest),
      },
      cwd: ".",
      restoreFrom: chk1,
    });
    await restored.open();
    expect((await restored.run()).reason).toBe("end");
    await restored.close();
    expect(materialize(rest.join("\n"))).toEqual(expectedMany);
  });

  it("a checkpoint that cannot be stored is aborted; the job goes on and the next one completes", async () => {
    const dir = tempDir();
    const store = new CheckpointStore(dir, 10);
    // A checkpoint directory under a regular file: the write fails.
    const blocked = join(dir, "file");
    writeFileSync(blocked, "");
    const bad = new CheckpointStore(join(blocked, "sub"), 1);
    const lines: string[] = [];
    const aborted: [number, string][] = [];
    const job = oneRowJob(new CollectWriter(lines), {
      settings: { "execution.checkpointing.interval": "40 ms" },
      checkpoint: {
        copyOnWrite: true,
        onCheckpoint: async (cp) => {
          await (cp.checkpointId === 1 ? bad : store).writeAsync(cp);
        },
        onAborted: (id, reason) => aborted.push([id, reason]),
      },
    });
    await job.open();
    const result = await job.run();
    await job.close();
    expect(result.reason).toBe("end");
    expect(aborted).toHaveLength(1);
    expect(aborted[0]![0]).toBe(1);
    expect(aborted[0]![1]).toMatch(/^it could not be stored: .*ENOTDIR/);
    expect(result.abortedCheckpoints).toBe(1);
    expect(result.checkpoints).toBeGreaterThan(0);
    expect(store.latest(job.jobId)?.id).toBe(2);
    expect(materialize(lines.join("\n"))).toEqual(expected());
  });

  it("stop-with-savepoint: the savepoint is written copy-on-write, nothing is processed after it, and it restores", async () => {
    const dir = tempDir();
    const store = new CheckpointStore(dir, Number.MAX_SAFE_INTEGER);
    const lines: string[] = [];
    const job = oneRowJob(new CollectWriter(lines), {
      // Periodic checkpoints too: the savepoint waits for the one being stored.
      settings: { "execution.checkpointing.interval": "10 ms" },
      checkpoint: {
        copyOnWrite: true,
        onCheckpoint: async (cp) => {
          await store.writeAsync(cp, { sliceMs: 0 });
        },
      },
    });
    await job.open();
    const running = job.run();
    let linesAtStore = -1;
    const path = await job.requestSavepoint({
      stop: true,
      store: async (cp) => {
        const stored = await store.writeAsync(cp, { sliceMs: 0 });
        linesAtStore = lines.length;
        return stored.path;
      },
    });
    const result = await running;
    await job.close();
    expect(result.reason).toBe("savepoint");
    // Nothing was processed after the savepoint's barrier.
    expect(lines.length).toBe(linesAtStore);
    expect(materialize(lines.join("\n"))).not.toEqual(expected());
    const restored = new Job(dag, {
      connectors: {
        source: () => new MemReader({ ...clicks(), perPoll: 1 }),
        sink: () => new CollectWriter(lines),
      },
      cwd: ".",
      restoreFrom: readCheckpoint(path).checkpoint,
    });
    await restored.open();
    expect((await restored.run()).reason).toBe("end");
    await restored.close();
    expect(materialize(lines.join("\n"))).toEqual(expected());
  });
});
