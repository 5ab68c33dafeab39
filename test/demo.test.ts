import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { Engine, type Output } from "@weir/cli";
import { describe, expect, it } from "vitest";
import { expectedRevenue } from "./support/revenue.js";

const ROOT = resolve(import.meta.dirname, "..");

describe("the demo (scripts/demo.sh)", () => {
  it("generates a stream with duplicates, disorder and late events, and the view equals the batch answer", async () => {
    const dir = mkdtempSync(join(tmpdir(), "weir-demo-"));
    mkdirSync(join(dir, "out/demo"), { recursive: true });
    const events = execFileSync(
      process.execPath,
      [join(ROOT, "scripts/demo/generate-orders.mjs"), "400", "42"],
      {
        encoding: "utf8",
      },
    );
    writeFileSync(join(dir, "out/demo/orders.jsonl"), events);
    const lines = events.trim().split("\n");
    const ids = lines.map((l) => (JSON.parse(l) as { event_id: string }).event_id);
    expect(new Set(ids).size).toBeLessThan(ids.length); // producer-retry duplicates

    const stdout: string[] = [];
    const stderr: string[] = [];
    const out: Output = { out: (l) => stdout.push(l), err: (l) => stderr.push(l) };
    const engine = new Engine({ cwd: dir, out });
    const code = await engine.runScript(readFileSync(join(ROOT, "scripts/demo/revenue_mv.sql"), "utf8"), {
      file: "scripts/demo/revenue_mv.sql",
    });
    expect(code, stderr.join("\n")).toBe(0);
    expect(stderr.join("\n")).toMatch(
      /served by an embedded Postgres: psql -h 127\.0\.0\.1 -p \d+ -U postgres postgres/,
    );
    expect(stderr.join("\n")).toMatch(/window-aggregate #\d+: [1-9]\d* late records dropped/);

    // The SELECT on the view printed its rows as a tableau: compare them with the batch answer.
    const rows = stdout
      .filter((l) => l.startsWith("| +I |"))
      .map((l) => l.split("|").map((c) => c.trim()))
      .map((c) => ({
        key: `${c[2]}|${c[4]}|${c[5]}`,
        orders: Number(c[6]),
        amount: c[7],
        events: Number(c[8]),
      }));
    const expected = expectedRevenue(lines);
    expect(rows.map((r) => r.key).sort()).toEqual([...expected.keys()].sort());
    for (const r of rows) {
      const e = expected.get(r.key)!;
      expect(r.orders, r.key).toBe(e.orders.size);
      expect(r.events, r.key).toBe(e.events);
      expect(r.amount, r.key).toBe(`${e.cents / 100n}.${(e.cents % 100n).toString().padStart(2, "0")}`);
    }
  }, 60_000);
});
