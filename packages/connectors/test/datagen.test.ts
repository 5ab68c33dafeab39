import { T } from "@weir/planner";
import { ChangeBatch, type Row, type SourceReader } from "@weir/runtime";
import { describe, expect, it } from "vitest";
import { createConnectorRegistry } from "../src/index.js";
import { f, sourceNode } from "./helpers.js";

const fields = [
  f("id", T.bigint()),
  f("score", T.int()),
  f("price", T.decimal(6, 2)),
  f("name", T.string()),
  f("ts", T.timestamp(3)),
  f("tags", T.array(T.int())),
];

async function open(options: Record<string, string>, clock: () => number = () => 1_700_000_000_000) {
  const node = sourceNode(fields, { connector: "datagen", ...options });
  const reader = createConnectorRegistry({ clock }).source(node);
  await reader.open({ node, metrics: new Map(), settings: {}, cwd: "/" });
  return reader;
}

async function drain(reader: SourceReader, maxRows = 100): Promise<Row[]> {
  const rows: Row[] = [];
  for (;;) {
    const r = await reader.poll(maxRows);
    if (r.kind === "end") return rows;
    if (r.kind === "idle") throw new Error("unexpected idle");
    for (const s of r.splits) rows.push(...ChangeBatch.toArray(s.batch).map(([, row]) => row));
  }
}

const opts = {
  "number-of-rows": "50",
  seed: "42",
  "fields.score.min": "-5",
  "fields.score.max": "5",
  "fields.price.min": "1.00",
  "fields.price.max": "2.50",
  "fields.name.length": "6",
  "fields.ts.max-past": "10 s",
  "fields.tags.length": "2",
};

describe("datagen", () => {
  it("is reproducible with a seed and respects bounds", async () => {
    const a = await drain(await open(opts), 7);
    const b = await drain(await open(opts), 50);
    expect(a).toHaveLength(50);
    expect(a).toEqual(b);
    for (const [, score, price, name, ts, tags] of a) {
      expect(score).toBeGreaterThanOrEqual(-5);
      expect(score).toBeLessThanOrEqual(5);
      expect(price).toBeGreaterThanOrEqual(100n);
      expect(price).toBeLessThanOrEqual(250n);
      expect(name).toMatch(/^[0-9a-f]{6}$/);
      expect(ts).toBeGreaterThanOrEqual(1_700_000_000_000 - 10_000);
      expect(ts).toBeLessThanOrEqual(1_700_000_000_000);
      expect(tags).toHaveLength(2);
    }
    expect(new Set(a.map((r) => r[1])).size).toBeGreaterThan(5);
    const other = await drain(await open({ ...opts, seed: "43" }));
    expect(other).not.toEqual(a);
  });

  it("ends after the shortest sequence and continues exactly after a restore", async () => {
    const seq = {
      ...opts,
      "number-of-rows": "1000",
      "fields.id.kind": "sequence",
      "fields.id.start": "10",
      "fields.id.end": "29",
    };
    const full = await drain(await open(seq));
    expect(full.map((r) => r[0])).toEqual(Array.from({ length: 20 }, (_, i) => 10 + i));
    const first = await open(seq);
    const head = await first.poll(8);
    if (head.kind !== "data") throw new Error("expected data");
    const second = await open(seq);
    await second.restore(JSON.parse(JSON.stringify(first.position())));
    expect([...head.splits[0].batch.rows, ...(await drain(second))]).toEqual(full);
  });

  it("applies null-rate", async () => {
    const rows = await drain(
      await open({ ...opts, "number-of-rows": "400", "fields.score.null-rate": "0.5" }),
    );
    const nulls = rows.filter((r) => r[1] === null).length;
    expect(nulls).toBeGreaterThan(120);
    expect(nulls).toBeLessThan(280);
    expect(rows.every((r) => r[2] !== null)).toBe(true);
  });

  it("rate-limits an unbounded source with the clock", async () => {
    let now = 0;
    const reader = await open({ seed: "1", "rows-per-second": "10" }, () => now);
    expect(await reader.poll(100)).toEqual({ kind: "idle", waitMs: 100 });
    now = 550;
    const r = await reader.poll(100);
    expect(r.kind === "data" && r.splits[0].batch.length).toBe(5);
    expect((await reader.poll(100)).kind).toBe("idle");
    now = 10_000;
    const r2 = await reader.poll(30);
    expect(r2.kind === "data" && r2.splits[0].batch.length).toBe(30);
  });

  it("generates BIGINT between bounds anywhere in the 64-bit range, exactly and canonically", async () => {
    const lo = 9223372036854775000n;
    const rows = await drain(
      await open({
        "number-of-rows": "200",
        seed: "7",
        "fields.id.min": String(lo),
        "fields.id.max": "9223372036854775807",
      }),
    );
    const ids = rows.map((r) => r[0] as bigint);
    for (const id of ids) {
      expect(typeof id).toBe("bigint");
      expect(id >= lo && id <= 9223372036854775807n).toBe(true);
    }
    expect(new Set(ids).size).toBeGreaterThan(150);
    // a range across ±(2^53 − 1): safe values are numbers, the others bigints
    const mixed = await drain(
      await open({
        "number-of-rows": "300",
        seed: "7",
        "fields.id.min": "-9007199254741091",
        "fields.id.max": "-9007199254740891",
      }),
    );
    for (const [id] of mixed) {
      if (typeof id === "number") expect(Number.isSafeInteger(id)).toBe(true);
      else expect((id as bigint) < -9007199254740991n).toBe(true);
    }
    expect(new Set(mixed.map((r) => typeof r[0]))).toEqual(new Set(["number", "bigint"]));
    await expect(open({ "fields.id.max": "9223372036854775808" })).rejects.toThrow(/in the BIGINT range/);
  });

  it("rejects bad options", async () => {
    await expect(open({ "fields.name.kind": "sequence", "fields.name.start": "1" })).rejects.toThrow(/needs/);
    await expect(open({ "fields.score.kind": "zipf" })).rejects.toThrow(/must be 'random' or 'sequence'/);
    await expect(open({ "number-of-rows": "-1" })).rejects.toThrow(/non-negative/);
  });
});
