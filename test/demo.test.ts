import { execFileSync, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { Engine, type Output } from "@weir/cli";
import { connectPg } from "@weir/connectors";
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
      /served by an embedded Postgres while this weir process runs: psql -h 127\.0\.0\.1 -p \d+ -U postgres postgres/,
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

  it("scripts/demo.sh's psql hint works: it serves the view until Enter, then stops", async () => {
    const demo = spawn("bash", [join(ROOT, "scripts/demo.sh")], {
      env: { ...process.env, WEIR_DEMO_WAIT: "1", WEIR_DEMO_NO_BUILD: "1", WEIR_DEMO_PG_PORT: "0" },
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    demo.stderr.on("data", (d: Buffer) => {
      stderr += d.toString();
    });
    const exited = new Promise<number | null>((resolve) => demo.on("exit", (code) => resolve(code)));
    const hint = await new Promise<RegExpExecArray>((resolve, reject) => {
      const re = /psql -h 127\.0\.0\.1 -p (\d+) -U postgres -c '([^']+)'/;
      demo.stdout.on("data", (d: Buffer) => {
        stdout += d.toString();
        const m = re.exec(stdout);
        if (m) resolve(m);
      });
      exited.then((code) => reject(new Error(`demo.sh exited ${code} first:\n${stdout}\n${stderr}`)));
    });
    expect(stdout).toContain("served by the embedded Postgres until you press Enter");
    // The hint's own query, on the hint's port, while the demo waits.
    const conn = await connectPg({ connectionString: `postgres://postgres@127.0.0.1:${hint[1]}/postgres` })();
    try {
      const r = await conn.query(hint[2]!);
      expect(r.rows.length).toBeGreaterThan(0);
    } finally {
      await conn.end();
    }
    demo.stdin.end("\n");
    expect(await exited, stderr).toBe(0);
    expect(stdout).toContain("== stopping");
  }, 120_000);

  it("scripts/demo.sh without a terminal prints only a hint that works after the run: --serve", () => {
    const stdout = execFileSync("bash", [join(ROOT, "scripts/demo.sh")], {
      env: { ...process.env, WEIR_DEMO_NO_BUILD: "1" },
      input: "",
      encoding: "utf8",
      stdio: ["pipe", "pipe", "pipe"],
    });
    const hints = stdout.split("\n").filter((l) => l.includes("psql "));
    expect(hints).toEqual([
      "  psql -h 127.0.0.1 -p 54329 -U postgres -c 'SELECT * FROM revenue_minute ORDER BY window_start, store_id'",
    ]);
    expect(stdout).toContain(
      "  bin/weir run scripts/demo/revenue_mv.sql --serve --set weir.mv.port=54329\n  psql -h 127.0.0.1 -p 54329",
    );
  }, 120_000);
});
