import { mkdtempSync, readFileSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { Engine, type Output } from "@weir/cli";
import { describe, expect, it } from "vitest";
import { expectedRevenue } from "./support/revenue.js";

const ROOT = resolve(import.meta.dirname, "..");

async function runRevenue(): Promise<{ code: number; rows: string[]; stderr: string }> {
  const dir = mkdtempSync(join(tmpdir(), "weir-revenue-"));
  symlinkSync(join(ROOT, "sql"), join(dir, "sql"));
  const err: string[] = [];
  const out: Output = { out: () => undefined, err: (l) => err.push(l) };
  const engine = new Engine({ cwd: dir, out });
  const code = await engine.runScript(readFileSync(join(ROOT, "sql/revenue_minute.sql"), "utf8"), {
    file: "sql/revenue_minute.sql",
  });
  const rows = readFileSync(join(dir, "out/revenue_minute.jsonl"), "utf8").trim().split("\n");
  return { code, rows, stderr: err.join("\n") };
}

describe("sql/revenue_minute.sql", () => {
  it("equals the batch answer over the rows that were not late, with exact decimals", async () => {
    const { code, rows, stderr } = await runRevenue();
    expect(code).toBe(0);
    const input = readFileSync(join(ROOT, "sql/data/order_paid.jsonl"), "utf8").trim().split("\n");
    const expected = expectedRevenue(input);
    const actual = new Map<string, string>(
      rows.map((r) => {
        const o = JSON.parse(r) as Record<string, unknown>;
        return [`${o.window_start}|${o.store_id}|${o.currency}`, r] as const;
      }),
    );
    expect([...actual.keys()].sort()).toEqual([...expected.keys()].sort());
    for (const [key, agg] of expected) {
      const row = actual.get(key)!;
      const o = JSON.parse(row) as Record<string, unknown>;
      expect(o.order_count, key).toBe(agg.orders.size);
      expect(o.source_event_count, key).toBe(agg.events);
      // DECIMAL(18, 2) is written as a number with its scale: compare the text.
      const whole = agg.cents / 100n;
      const frac = (agg.cents % 100n).toString().padStart(2, "0");
      expect(row, key).toContain(`"revenue_amount":${whole}.${frac},`);
    }
    // The data holds late events: the run says how many it dropped.
    expect(stderr).toMatch(/window-aggregate #\d+: 3 late records dropped/);
    expect(stderr).toContain("60 records read");
  });

  it("reports each operator's records in and out once (cumulative counters, not doubled)", async () => {
    const dir = mkdtempSync(join(tmpdir(), "weir-revenue-"));
    symlinkSync(join(ROOT, "sql"), join(dir, "sql"));
    const stdout: string[] = [];
    const out: Output = { out: (l) => stdout.push(l), err: () => undefined };
    const code = await new Engine({ cwd: dir, out }).runScript(
      readFileSync(join(ROOT, "sql/revenue_minute.sql"), "utf8"),
      { file: "sql/revenue_minute.sql", json: true },
    );
    expect(code).toBe(0);
    const summary = JSON.parse(stdout.join("\n")) as {
      metrics: { operators: Record<string, { kind: string; recordsIn: number; recordsOut: number }> };
    };
    const ops = Object.values(summary.metrics.operators);
    const dedup = ops.find((o) => o.kind === "deduplicate")!;
    const window = ops.find((o) => o.kind === "window-aggregate")!;
    // 60 events, 5 of them producer-retry duplicates; the window emits one row per result.
    expect([dedup.recordsIn, dedup.recordsOut]).toEqual([60, 55]);
    expect([window.recordsIn, window.recordsOut]).toEqual([55, 30]);
  });

  it("writes exactly the checked-in expected output", async () => {
    const { rows } = await runRevenue();
    const expected = readFileSync(join(ROOT, "sql/revenue_minute.expected.jsonl"), "utf8").trim().split("\n");
    expect(rows).toEqual(expected);
  });
});
