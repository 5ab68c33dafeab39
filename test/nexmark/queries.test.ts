import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Engine, type Output } from "@weir/cli";
import { beforeAll, describe, expect, it } from "vitest";
import { checkQ19, expected } from "./expected.js";
import { type Events, generateEvents, querySql, ROOT, rowsText, runQuery } from "./harness.js";

/**
 * Every Nexmark query of `sql/nexmark/` (q6 excepted, as in Flink) on 10,000 generated events,
 * its changelog materialised and compared with the answer computed directly from the same
 * events in `expected.ts` (q12, on processing time, with checks that do not depend on timing).
 */
let events: Events;
beforeAll(() => {
  events = generateEvents();
});

const COMPARED = Object.keys(expected).filter((q) => q !== "q10");

describe("Nexmark queries against an independent computation", () => {
  it("the generated events cover every kind", () => {
    expect(events.persons.length).toBeGreaterThan(100);
    expect(events.auctions.length).toBeGreaterThan(500);
    expect(events.bids.length).toBeGreaterThan(9000);
  });

  it.each(COMPARED)("%s", async (q) => {
    const run = await runQuery(querySql(q), `sql/nexmark/${q}.sql`);
    const want = rowsText(expected[q]!(events));
    expect(want.length, "the expected result is not empty").toBeGreaterThan(0);
    expect(run.result.length).toBe(want.length);
    expect(run.result).toEqual(want);
  });

  it("q5 runs as window operators: inserts only, one per result row (Flink: window aggregate, window join)", async () => {
    const run = await runQuery(querySql("q5"), "sql/nexmark/q5.sql");
    const auctions = new Set(run.rows.map((r) => r[0]));
    expect(auctions.size, "several auctions win").toBeGreaterThan(1);
    // A retracting plan emits and retracts interim winners: more changes than result rows.
    expect(run.changes).toBe(run.rows.length);
  });

  it("q19 (Top-10 per auction; equal prices may take either rank)", async () => {
    const run = await runQuery(querySql("q19"), "sql/nexmark/q19.sql");
    expect(run.rows.length).toBeGreaterThan(1000);
    expect(checkQ19(events, run.rows)).toEqual([]);
  });

  it("q12 (processing-time TUMBLE): every bid lands in one 10 s window of the run's wall clock", async () => {
    const before = Date.now();
    const run = await runQuery(querySql("q12"), "sql/nexmark/q12.sql");
    const after = Date.now();
    const DAY = 86_400_000;
    const perBidder = new Map<number, number>();
    const windows = new Set<string>();
    for (const [bidder, count, start, end] of run.rows as [number, number, number, number][]) {
      expect(end - start).toBe(10_000);
      expect(start % 10_000).toBe(0);
      // Processing time (window bounds are wall clock in the session zone), not the 2024 event time.
      expect(start).toBeGreaterThan(before - DAY);
      expect(start).toBeLessThan(after + DAY);
      expect(count).toBeGreaterThan(0);
      const key = `${bidder}@${start}`;
      expect(windows.has(key), `one row per bidder and window: ${key}`).toBe(false);
      windows.add(key);
      perBidder.set(bidder, (perBidder.get(bidder) ?? 0) + count);
    }
    const want = new Map<number, number>();
    for (const b of events.bids) want.set(b.bidder, (want.get(b.bidder) ?? 0) + 1);
    expect([...perBidder].sort((x, y) => x[0] - y[0])).toEqual([...want].sort((x, y) => x[0] - y[0]));
  });

  it("q10 writes its JSON lines to the filesystem sink", async () => {
    const dir = mkdtempSync(join(tmpdir(), "weir-nexmark-q10-"));
    const sql = querySql("q10").replace("'/tmp/weir-nexmark-q10'", `'${dir}'`);
    expect(sql).toContain(dir);
    const err: string[] = [];
    const out: Output = { out: () => undefined, err: (l) => err.push(l) };
    const code = await new Engine({ cwd: ROOT, out }).runScript(sql, { file: "sql/nexmark/q10.sql" });
    expect(code, err.join("\n")).toBe(0);
    const lines = readdirSync(dir).flatMap((f) => readFileSync(join(dir, f), "utf8").split("\n"));
    const rows = lines
      .filter((l) => l !== "")
      .map((l) => {
        const o = JSON.parse(l) as Record<string, unknown>;
        return [o.auction, o.bidder, o.price, o.dateTime, o.extra, o.dt, o.hm];
      });
    expect(rowsText(rows)).toEqual(rowsText(expected.q10!(events)));
  });
});
