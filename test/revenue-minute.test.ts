import { mkdtempSync, readFileSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { Engine, type Output } from "@weir/cli";
import { describe, expect, it } from "vitest";

const ROOT = resolve(import.meta.dirname, "..");

interface Event {
  event_id: string;
  event_type: string;
  order_id: string;
  store_id: string;
  amount: number;
  currency: string;
  paid_at: string;
}

/** Cents from the amount's source text, exactly (no floating point). */
function cents(line: string): bigint {
  const m = /"amount":(-?\d+)(?:\.(\d{1,2}))?/.exec(line)!;
  return BigInt(m[1]!) * 100n + BigInt((m[2] ?? "0").padEnd(2, "0")) * (m[1]!.startsWith("-") ? -1n : 1n);
}

function kst(ms: number): string {
  return new Date(ms + 9 * 3_600_000).toISOString().replace("T", " ").replace("Z", "");
}

/**
 * The pipeline's answer computed directly from its definition, as a batch over the file in
 * arrival order: the watermark after each row is (max paid time so far − 2 min); a row is late
 * when its 1-minute window's last millisecond is already covered by the watermark before it;
 * deduplication keeps the first row of each event_id (processing time order = file order);
 * then per window, store and currency: distinct orders, exact sum, count.
 */
function expectedRevenue(
  lines: string[],
): Map<string, { orders: Set<string>; cents: bigint; events: number }> {
  let watermark = Number.NEGATIVE_INFINITY;
  const seen = new Set<string>();
  const out = new Map<string, { orders: Set<string>; cents: bigint; events: number }>();
  for (const line of lines) {
    const e = JSON.parse(line) as Event;
    const t = Date.parse(e.paid_at);
    const windowStart = Math.floor(t / 60_000) * 60_000;
    const late = windowStart + 60_000 - 1 <= watermark;
    watermark = Math.max(watermark, t - 120_000);
    if (e.event_type !== "OrderPaid" || seen.has(e.event_id)) continue;
    seen.add(e.event_id);
    if (late) continue;
    const key = `${kst(windowStart)}|${e.store_id}|${e.currency}`;
    const agg = out.get(key) ?? { orders: new Set<string>(), cents: 0n, events: 0 };
    agg.orders.add(e.order_id);
    agg.cents += cents(line);
    agg.events++;
    out.set(key, agg);
  }
  return out;
}

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

  it("writes exactly the checked-in expected output", async () => {
    const { rows } = await runRevenue();
    const expected = readFileSync(join(ROOT, "sql/revenue_minute.expected.jsonl"), "utf8").trim().split("\n");
    expect(rows).toEqual(expected);
  });
});
