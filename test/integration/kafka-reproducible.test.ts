// Same topic, same result: the seeds' pipeline (sql/revenue_minute_kafka_postgres.sql) over one
// 3-partition topic of ~105,000 order events (out of order, late, producer-retry duplicates) run
// twice crash-free, and once more killed with SIGKILL after its first checkpoint and restored
// with --restore: the three revenue_minute tables are equal, and so are the late counts. Which
// rows are late must not depend on how the client's fetches of the partitions interleave.
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { brokers, KafkaFixture, runSql } from "./kafka-helpers.js";
import { eventually, PG_URL, PgFixture } from "./pg-helpers.js";

const ROOT = resolve(import.meta.dirname, "../..");
const SCRIPT = readFileSync(join(ROOT, "sql/revenue_minute_kafka_postgres.sql"), "utf8");
const WEIR = join(ROOT, "packages/cli/dist/main.js");
const EVENTS = 100_000;

const kafka = new KafkaFixture();
const db = new PgFixture();
afterAll(async () => {
  await db.close();
  await kafka.close();
});

/** The script over the test's topic and table, checkpointing into `checkpoints` every 300 ms. */
function rewrite(topic: string, table: string, checkpoints: string): string {
  const sql = SCRIPT.replace("'topic' = 'order-paid'", `'topic' = '${topic}'`)
    .replace("'localhost:9092'", `'${brokers()}'`)
    .replace("'weir-revenue-minute'", `'${topic}-group'`)
    .replace("'jdbc:postgresql://127.0.0.1:5432/postgres'", `'${PG_URL}'`)
    .replace("'table-name' = 'revenue_minute'", `'table-name' = '${table}'`)
    .replace(/\s*'username' = 'postgres',\n\s*'password' = 'postgres',/, "")
    .replace("'execution.checkpointing.interval' = '10 s'", "'execution.checkpointing.interval' = '300 ms'")
    .replace("'out/checkpoints/revenue_minute'", `'${checkpoints}'`);
  for (const needle of [topic, table, checkpoints, "'300 ms'"]) expect(sql).toContain(needle);
  return sql;
}

/** Every column that is a function of the events (not version / updated_at), sorted. */
async function contents(table: string): Promise<string[]> {
  const rows = await db.rows(
    `SELECT window_start, window_end, store_id, currency, order_count, revenue_amount,
            source_event_count, is_final, watermark_at
     FROM ${table} ORDER BY window_start, store_id, currency`,
  );
  return rows.map((r) => r.join(" "));
}

/** Every `_metadata.json` below `dir` (whatever the checkpoint layout), newest last. */
function manifests(dir: string): string[] {
  if (!existsSync(dir)) return [];
  const out: string[] = [];
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (name === "_metadata.json") out.push(p);
    }
  };
  walk(dir);
  return out.sort((a, b) => statSync(a).mtimeMs - statSync(b).mtimeMs);
}

/** The sum of the Kafka offsets of `topic` in a checkpoint manifest (its source position). */
function positionSum(manifest: string, topic: string): number {
  let sum = -1;
  const visit = (v: unknown): void => {
    if (v === null || typeof v !== "object") return;
    for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
      if (k === topic && x !== null && typeof x === "object") {
        sum = Object.values(x as Record<string, number>).reduce((a, b) => a + b, 0);
      } else visit(x);
    }
  };
  visit(JSON.parse(readFileSync(manifest, "utf8")));
  return sum;
}

function exited(child: ChildProcess): Promise<{ code: number | null; signal: string | null }> {
  return new Promise((res) => child.on("exit", (code, signal) => res({ code, signal })));
}

/** A small stable hash of the record key: the partition, as a keyed producer would choose it. */
function partitionOf(key: string, parts: number): number {
  let h = 0;
  for (let i = 0; i < key.length; i++) h = (h * 31 + key.charCodeAt(i)) | 0;
  return Math.abs(h) % parts;
}

const lateCount = (text: string) =>
  [...text.matchAll(/(\d+) late records dropped/g)].reduce((n, m) => n + Number(m[1]), 0);

describe("reproducible partition merge (real Kafka, real Postgres)", () => {
  it("two crash-free runs and a SIGKILL + --restore run give the same revenue_minute", async () => {
    const lines = execFileSync(
      "node",
      [join(ROOT, "scripts/demo/generate-orders.mjs"), String(EVENTS), "7"],
      {
        encoding: "utf8",
        maxBuffer: 1 << 28,
      },
    )
      .trim()
      .split("\n");
    expect(lines.length).toBeGreaterThan(EVENTS);
    const topic = await kafka.topic("order-paid-repro", 3);
    await kafka.produceBulk(topic, lines.length, (i) => {
      const order = /"order_id":"([^"]+)"/.exec(lines[i])![1];
      return { partition: partitionOf(order, 3), value: lines[i] };
    });

    const tables: string[] = [];
    const lates: number[] = [];
    for (const name of ["repro_a", "repro_b"]) {
      const table = await db.createRevenueMinute(name);
      const { code, err } = await runSql(rewrite(topic, table, mkdtempSync(join(tmpdir(), "weir-cp-"))));
      expect(code, err.join("\n")).toBe(0);
      tables.push(table);
      lates.push(lateCount(err.join("\n")));
    }
    expect(lates[0]).toBeGreaterThan(0);
    expect(lates[1]).toBe(lates[0]);
    const first = await contents(tables[0]);
    expect(first.length).toBeGreaterThan(100);
    expect(await contents(tables[1])).toEqual(first);

    // The third run is killed with SIGKILL once a checkpoint is complete, mid-topic.
    const table = await db.createRevenueMinute("repro_kill");
    const checkpoints = mkdtempSync(join(tmpdir(), "weir-cp-kill-"));
    const file = join(checkpoints, "..", `${table}.sql`);
    writeFileSync(file, rewrite(topic, table, checkpoints));
    const child = spawn("node", [WEIR, "run", file], { stdio: ["ignore", "ignore", "pipe"] });
    const stderr: string[] = [];
    child.stderr!.on("data", (d) => stderr.push(String(d)));
    const done = exited(child);
    // (A checkpoint taken before the first fetch arrived is at position 0: wait for one past it.)
    await eventually(
      async () => {
        const m = manifests(checkpoints).at(-1);
        return m !== undefined && positionSum(m, topic) > 0;
      },
      () => `no checkpoint past the topic's start was written; stderr:\n${stderr.join("")}`,
      120_000,
    );
    child.kill("SIGKILL");
    expect((await done).signal).toBe("SIGKILL");
    const manifest = manifests(checkpoints).at(-1)!;
    const at = positionSum(manifest, topic);
    expect(at, `the checkpoint ${manifest} is not in the middle of the topic`).toBeGreaterThan(0);
    expect(at).toBeLessThan(lines.length);

    const restored = spawn("node", [WEIR, "run", file, "--restore", checkpoints], {
      stdio: ["ignore", "ignore", "pipe"],
    });
    const restoredErr: string[] = [];
    restored.stderr!.on("data", (d) => restoredErr.push(String(d)));
    const end = await exited(restored);
    expect(end.code, restoredErr.join("")).toBe(0);
    expect(restoredErr.join("")).toMatch(/restored from checkpoint \d+/);
    expect(lateCount(restoredErr.join(""))).toBe(lates[0]);
    expect(await contents(table)).toEqual(first);
  }, 300_000);
});
