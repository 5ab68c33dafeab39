import { T } from "@weir/planner";
import { describe, expect, it } from "vitest";
import { decodeJson, encodeJson } from "../src/state/codec.js";
import type { StateKey } from "../src/state/keys.js";
import { decodeKeyValues, encodeKeyValues, keyCodec, valueKey } from "../src/state/keys.js";
import { MemoryStateBackend } from "../src/state/memory.js";

describe("key encoding", () => {
  it.each([
    [[1]],
    [[null]],
    [["a;b:c", "s3:x"]],
    [["", null, ""]],
    [[12345678901234567890n, -5n]],
    [[true, false, 0, -1.5, Number.NaN, Number.POSITIVE_INFINITY]],
    [[new Uint8Array([1, 2, 255]), new Uint8Array([])]],
    [
      [
        [1, "a;"],
        [null, [2n]],
      ],
    ],
    [["N;", "n1;", "multi\nline ✓ 😀"]],
  ])("%s round-trips", (values) => {
    expect(decodeKeyValues(encodeKeyValues(values))).toEqual(values);
  });

  it.each([
    // pairs of distinct keys that a naive join would confuse
    [
      ["a", "b;c"],
      ["a;b", "c"],
    ],
    [["1"], [1]],
    [[null], ["null"]],
    [[1n], [1]],
    [[""], [null]],
    [[["a", "b"]], ["a", "b"]],
  ])("%s and %s differ", (a, b) => {
    expect(encodeKeyValues(a)).not.toBe(encodeKeyValues(b));
  });

  it("treats 0 and -0 as one key", () => {
    expect(encodeKeyValues([-0])).toBe(encodeKeyValues([0]));
  });

  const types = [T.int(), T.string(), T.decimal(10, 2), T.double()];
  it("a composite key codec gives the same key for equal fields, whether or not the row before had them", () => {
    const c = keyCodec([0, 1], [T.string(), T.int()]);
    const fresh = (row: unknown[]) => keyCodec([0, 1], [T.string(), T.int()]).encode(row);
    const rows: unknown[][] = [
      ["a", 1],
      [["a"].join(""), 1], // an equal string that is another object
      ["a", -0],
      ["a", 0],
      ["a", Number.NaN],
      ["a", Number.NaN],
      [null, 1],
      [undefined, 1],
      ["b", 1],
      ["a", 1],
      [[1, 2], 1],
      [[1, 3], 1],
    ];
    for (const r of rows) expect(c.encode(r), JSON.stringify(r)).toBe(fresh(r));
    // an array field mutated in place between two rows is encoded again, never cached
    const arr = [1, 2];
    expect(c.encode([arr, 1])).toBe(fresh([[1, 2], 1]));
    arr[1] = 5;
    expect(c.encode([arr, 1])).toBe(fresh([[1, 5], 1]));
  });

  it.each([
    ["single INT is its own number", [0], [42, "x", 1n, 1.5], 42],
    ["single INT NULL", [0], [null, "x", 1n, 1.5], ""],
    ["single STRING is itself", [1], [42, "x", 1n, 1.5], "x"],
    ["single STRING NULL", [1], [42, null, 1n, 1.5], 0],
    ["no keys: one global group", [], [42, "x", 1n, 1.5], 0],
  ] as const)("%s", (_n, fields, row, key) => {
    const c = keyCodec(fields, types);
    expect(c.encode([...row])).toBe(key);
    expect(c.decode(key)).toEqual(fields.map((f) => row[f]));
  });

  it.each([
    [
      [0, 1],
      [7, "a|b"],
    ],
    [[2], [null, null, 1234n]],
    [
      [3, 2, 1],
      [null, "z", -99n, -0.25],
    ],
  ])("composite key %s round-trips", (fields, row) => {
    const c = keyCodec(fields, types);
    const key = c.encode(row);
    expect(typeof key).toBe("string");
    expect(c.decode(key)).toEqual(fields.map((f) => row[f]));
  });

  it("valueKey keeps strings and encoded objects apart", () => {
    const bytes = valueKey(new Uint8Array([1]));
    expect(valueKey(new Uint8Array([1]))).toBe(bytes);
    expect(valueKey(bytes)).not.toBe(bytes);
    expect(valueKey(5)).toBe(5);
  });
});

describe("snapshot JSON codec", () => {
  it.each([
    [null],
    [[1, "a", true, null]],
    [{ a: 1, b: [2n, -0, Number.NaN, Number.NEGATIVE_INFINITY] }],
    [
      new Map<unknown, unknown>([
        [1n, "x"],
        ["k", new Map([[1, 2]])],
      ]),
    ],
    [new Uint8Array([0, 1, 2, 250])],
    [{ $b: "not a bigint", nested: { $x: 1 } }],
    [[undefined, 1]],
  ])("%# round-trips through JSON text", (v) => {
    expect(decodeJson(JSON.parse(JSON.stringify(encodeJson(v))))).toEqual(v);
  });

  it("refuses class instances", () => {
    expect(() => encodeJson(new Date())).toThrow(/plain data/);
  });
});

/** Applies the same operations to a backend, snapshots, restores into a fresh one, and compares. */
function declare(b: MemoryStateBackend) {
  return {
    value: b.value<unknown[]>("rows"),
    map: b.map<string, bigint>("sums"),
    list: b.list<string>("items"),
    time: b.timeIndexed<number>("slices"),
    timers: b.timers("timers"),
  };
}

describe("MemoryStateBackend", () => {
  it("snapshot → restore gives identical behaviour", () => {
    const a = new MemoryStateBackend();
    const s = declare(a);
    s.value.put(1, [1, "a", 2n]);
    s.value.put("k", [new Uint8Array([9])]);
    s.map.put(1, "x", 10n);
    s.map.put(1, "y", 20n);
    s.list.add(3, "p");
    s.list.add(3, "q");
    s.time.put(20, 1, 5);
    s.time.put(10, 2, 6);
    s.time.put(10, 1, 7);
    s.timers.registerEventTimeTimer(1, 19);
    s.timers.registerEventTimeTimer(2, 9);
    s.timers.registerProcessingTimeTimer(1, 1000);
    const snap = JSON.parse(JSON.stringify(a.snapshot()));

    const b = new MemoryStateBackend();
    const r = declare(b);
    b.restore(snap);
    expect(r.value.get(1)).toEqual([1, "a", 2n]);
    expect(r.value.get("k")).toEqual([new Uint8Array([9])]);
    expect(r.map.get(1, "y")).toBe(20n);
    expect([...r.map.entries(1)]).toEqual([
      ["x", 10n],
      ["y", 20n],
    ]);
    expect(r.list.get(3)).toEqual(["p", "q"]);
    expect([...r.time.timestamps()]).toEqual([10, 20]);
    expect([...r.time.timestamps(11)]).toEqual([20]);
    expect([...r.time.timestamps(0, 19)]).toEqual([10]);
    expect([...r.time.entriesAt(10)]).toEqual([
      [2, 6],
      [1, 7],
    ]);
    const fired: [StateKey, number][] = [];
    r.timers.advanceWatermark(19, (k, ts) => fired.push([k, ts]));
    expect(fired).toEqual([
      [2, 9],
      [1, 19],
    ]);
    expect(r.timers.nextProcessingTime()).toBe(1000);
    // The restored backend snapshots to what it was restored from, minus fired timers.
    s.timers.advanceWatermark(19, () => {});
    expect(JSON.parse(JSON.stringify(b.snapshot()))).toEqual(JSON.parse(JSON.stringify(a.snapshot())));
  });

  it("refuses another snapshot version, unknown tables and kind changes", () => {
    const a = new MemoryStateBackend();
    a.value("v");
    const snap = a.snapshot();
    expect(() => new MemoryStateBackend().restore({ ...snap, version: 99 })).toThrow(/version 99.*version 1/);
    expect(() => new MemoryStateBackend().restore(snap)).toThrow(/state table 'v'.*does not declare/);
    const b = new MemoryStateBackend();
    b.list("v");
    expect(() => b.restore(snap)).toThrow(/'v' is list but the snapshot holds value/);
    expect(() => b.value("v")).toThrow(/declared twice/);
  });

  it("restore replaces what was there", () => {
    const a = new MemoryStateBackend();
    const v = a.value<number>("v");
    const snap = a.snapshot();
    v.put(1, 1);
    a.restore(snap);
    expect(v.get(1)).toBeUndefined();
  });

  it("writing back the value just read, after the key was deleted in between, stores it again", () => {
    const b = new MemoryStateBackend();
    const v = b.value<number[]>("v");
    v.put("k", [1]);
    const x = v.get("k")!;
    x.push(2);
    v.put("k", x);
    expect(v.get("k")).toEqual([1, 2]);
    const y = v.get("k")!;
    v.delete("k");
    v.put("k", y);
    expect(v.get("k")).toEqual([1, 2]);
    const z = v.get("k")!;
    b.restore(new MemoryStateBackend().snapshot());
    v.put("k", z);
    expect(v.get("k")).toEqual([1, 2]);
    expect(v.size).toBe(1);
  });

  it("map and list states drop empty keys", () => {
    const b = new MemoryStateBackend();
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
});

describe("TimeIndexedState", () => {
  it("iterates in time order and expires up to a watermark", () => {
    const t = new MemoryStateBackend().timeIndexed<string>("t");
    for (const [ts, k] of [
      [30, 1],
      [10, 1],
      [20, 2],
      [10, 2],
      [-5, 1],
    ] as const) {
      t.put(ts, k, `${ts}/${k}`);
    }
    expect([...t.timestamps()]).toEqual([-5, 10, 20, 30]);
    expect(t.size).toBe(5);
    const expired: string[] = [];
    t.expireUpTo(20, (ts, entries) => {
      for (const v of entries.values()) expired.push(v);
      if (ts === 10) t.put(40, 9, "added while expiring");
    });
    expect(expired).toEqual(["-5/1", "10/1", "10/2", "20/2"]);
    expect([...t.timestamps()]).toEqual([30, 40]);
    expect(t.minTimestamp()).toBe(30);
    t.delete(30, 1);
    expect([...t.timestamps()]).toEqual([40]);
    expect(t.size).toBe(1);
  });
});

describe("TTL", () => {
  // Steps: `t=<ms>`, `put <k>`, `get <k>` (records hit/miss), `cleanup` (records how many removed).
  function run(update: "read-write" | "write", steps: string): string[] {
    let now = 0;
    const b = new MemoryStateBackend({ clock: () => now });
    const v = b.value<string>("v", { ttl: { ttlMs: 100, update } });
    const out: string[] = [];
    for (const step of steps.split(",").map((s) => s.trim())) {
      const [cmd, arg] = step.split(" ");
      if (cmd.startsWith("t=")) now = Number(cmd.slice(2));
      else if (cmd === "put") v.put(Number(arg), `v${arg}`);
      else if (cmd === "get") out.push(v.get(Number(arg)) === undefined ? `miss ${arg}` : `hit ${arg}`);
      else if (cmd === "cleanup") out.push(`removed ${b.cleanupExpired()}`);
      else if (cmd === "size") out.push(`size ${v.size}`);
    }
    return out;
  }

  it.each([
    ["read-write", "put 1, t=99, get 1, t=100, get 1", ["hit 1", "hit 1"]],
    ["read-write", "put 1, t=100, get 1", ["miss 1"]],
    ["write", "put 1, t=99, get 1, t=100, get 1", ["hit 1", "miss 1"]],
    [
      "read-write",
      "put 1, put 2, t=50, put 3, t=120, size, cleanup, size, get 3",
      ["size 3", "removed 2", "size 1", "hit 3"],
    ],
    [
      "write",
      "put 1, put 2, put 3, t=60, put 2, t=100, cleanup, get 2, t=160, get 2",
      ["removed 2", "hit 2", "miss 2"],
    ],
    // writes clean up a few expired entries as they go
    ["read-write", "put 1, put 2, t=200, put 3, size", ["size 1"]],
  ] as const)("%s: %s", (update, steps, expected) => {
    expect(run(update, steps)).toEqual(expected);
  });

  it("keeps last-access times across snapshot/restore", () => {
    let now = 0;
    const a = new MemoryStateBackend({ clock: () => now });
    const v = a.value<number>("v", { ttl: { ttlMs: 100 } });
    v.put(1, 1);
    now = 50;
    v.put(2, 2);
    const b = new MemoryStateBackend({ clock: () => now });
    const w = b.value<number>("v", { ttl: { ttlMs: 100 } });
    b.restore(JSON.parse(JSON.stringify(a.snapshot())));
    now = 120;
    expect(w.get(1)).toBeUndefined();
    expect(w.get(2)).toBe(2);
  });
});

describe("TimerService", () => {
  it("fires deduplicated timers in timestamp order, registration order within one", () => {
    const t = new MemoryStateBackend().timers("t");
    t.registerEventTimeTimer("b", 10);
    t.registerEventTimeTimer("a", 5);
    t.registerEventTimeTimer("a", 10);
    t.registerEventTimeTimer("b", 10);
    t.registerEventTimeTimer("c", 30);
    t.registerEventTimeTimer("d", 12);
    t.deleteEventTimeTimer("d", 12);
    const fired: string[] = [];
    t.advanceWatermark(4, (k, ts) => fired.push(`${k}@${ts}`));
    expect(fired).toEqual([]);
    t.advanceWatermark(20, (k, ts) => {
      fired.push(`${k}@${ts}`);
      if (k === "a" && ts === 5) {
        t.registerEventTimeTimer("e", 7); // due: fires in this call
        t.deleteEventTimeTimer("b", 10); // pending: does not fire
        t.registerEventTimeTimer("f", 25); // not due
      }
    });
    expect(fired).toEqual(["a@5", "e@7", "a@10"]);
    expect(t.currentWatermark).toBe(20);
    expect(t.nextEventTime()).toBe(25);
  });

  it("keeps processing-time timers apart from event-time ones", () => {
    const t = new MemoryStateBackend().timers("t");
    t.registerProcessingTimeTimer(1, 100);
    t.registerEventTimeTimer(1, 50);
    const fired: string[] = [];
    t.advanceProcessingTime(100, (k, ts) => fired.push(`p${k}@${ts}`));
    t.advanceWatermark(100, (k, ts) => fired.push(`e${k}@${ts}`));
    expect(fired).toEqual(["p1@100", "e1@50"]);
  });
});
