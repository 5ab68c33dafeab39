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
 * events in `expected.ts`.
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

  it("q19 (Top-10 per auction; equal prices may take either rank)", async () => {
    const run = await runQuery(querySql("q19"), "sql/nexmark/q19.sql");
    expect(run.rows.length).toBeGreaterThan(1000);
    expect(checkQ19(events, run.rows)).toEqual([]);
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
