// Shared by the differential tests: seeded random inputs, running a query on Weir (materialised
// changelog) and on PostgreSQL (the batch oracle), and value normalisation.
import { mkdtempSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir, userInfo } from "node:os";
import { join } from "node:path";
import { Op } from "@weir/runtime";
import type * as Pg from "../../packages/connectors/node_modules/@types/pg/index.js";
import { planScript, runDag } from "../smoke/script-job.js";
import { mulberry32 as prng } from "../support/random.js";

export const pg = createRequire(new URL("../../packages/connectors/package.json", import.meta.url))(
  "pg",
) as typeof Pg;

/** A random row: id is its arrival position (also processing-time order). */
export interface Event {
  readonly id: number;
  readonly k: string | null;
  readonly g: number;
  readonly v: number | null;
  /** Event time, epoch ms. */
  readonly ts: number;
  /** Injected far behind the watermark (late for every window). */
  readonly late: boolean;
}

export const BASE_MS = Date.UTC(2024, 0, 1, 10, 0, 0);
/** The watermark delay of the generated tables (`ts - INTERVAL '5' SECOND`). */
export const DELAY_MS = 5000;

export interface GenOptions {
  readonly rows: number;
  /** Fraction of rows injected 60 s behind (late). */
  readonly lateRate: number;
}

/**
 * Rows about 400 ms apart on average, out of order by up to 4 s (< the 5 s delay, so an
 * on-time row is never behind the watermark), keys a–e plus NULL, values −20..99 plus NULL,
 * some exact duplicates of the previous row.
 */
export function generate(seed: number, o: GenOptions): Event[] {
  const r = prng(seed);
  const out: Event[] = [];
  let clock = BASE_MS;
  for (let id = 0; id < o.rows; id++) {
    clock += Math.floor(r() * 800);
    const prev = out[out.length - 1];
    if (prev && r() < 0.05) {
      out.push({ ...prev, id });
      continue;
    }
    const late = r() < o.lateRate;
    const ts = late ? clock - 60_000 - Math.floor(r() * 5000) : clock - Math.floor(r() * 4000);
    const kr = r();
    out.push({
      id,
      k: kr < 0.08 ? null : "abcde"[Math.floor(kr * 5)]!,
      g: Math.floor(r() * 3),
      v: r() < 0.1 ? null : Math.floor(r() * 120) - 20,
      ts,
      late,
    });
  }
  return out;
}

function tsText(ms: number): string {
  return new Date(ms).toISOString().replace("T", " ").replace("Z", "");
}

/** Writes the rows as JSONL into a fresh directory; returns it. */
export function writeTables(tables: Readonly<Record<string, readonly Event[]>>): string {
  const dir = mkdtempSync(join(tmpdir(), "weir-diff-"));
  for (const [name, rows] of Object.entries(tables)) {
    const text = rows.map((e) => JSON.stringify({ id: e.id, k: e.k, g: e.g, v: e.v, ts: tsText(e.ts) }));
    writeFileSync(join(dir, `${name}.jsonl`), `${text.join("\n")}\n`);
  }
  return dir;
}

/** The Weir DDL of a generated table (with event time and processing time). */
export function ddl(name: string): string {
  return `CREATE TABLE ${name} (
  id INT, k STRING, g INT, v INT, ts TIMESTAMP(3),
  pt AS PROCTIME(),
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND
) WITH ('connector' = 'filesystem', 'path' = '${name}.jsonl', 'format' = 'json');`;
}

/** One value as text: numbers, bigints and timestamps (epoch ms) as decimal text, NULL as `null`. */
export function norm(v: unknown): string {
  if (v === null || v === undefined) return "null";
  if (v instanceof Date) return String(v.getTime());
  return String(v);
}

/** Runs `query` over the tables on Weir and returns the materialised result, rows normalised and sorted. */
export async function weirResult(dir: string, tables: readonly string[], query: string): Promise<string[]> {
  const script = `${tables.map(ddl).join("\n")}\n${query};`;
  const dag = planScript(script, "differential.sql", dir);
  const r = await runDag(dag, { cwd: dir, pollBatchSize: 50 });
  const counts = new Map<string, number>();
  for (const c of r.changes) {
    const key = c.row.map(norm).join(" | ");
    const n = (counts.get(key) ?? 0) + (c.op === Op.INSERT || c.op === Op.UPDATE_AFTER ? 1 : -1);
    if (n < 0) throw new Error(`the changelog retracts a row that is not there: ${key}`);
    if (n === 0) counts.delete(key);
    else counts.set(key, n);
  }
  return [...counts].flatMap(([row, n]) => new Array<string>(n).fill(row)).sort();
}

/** A PostgreSQL schema of its own, dropped at the end. */
export class Oracle {
  private client!: Pg.Client;
  readonly schema = `weir_diff_${process.pid}_${Date.now().toString(36)}`;

  async open(): Promise<void> {
    const user = process.env.PGUSER || "postgres";
    this.client = new pg.Client({
      host: process.env.PGHOST || "127.0.0.1",
      port: Number(process.env.PGPORT || 5432),
      user: user || userInfo().username,
      database: process.env.PGDATABASE || "test",
      ...(process.env.PGPASSWORD ? { password: process.env.PGPASSWORD } : {}),
    });
    await this.client.connect();
    await this.client.query(`CREATE SCHEMA ${this.schema}`);
    await this.client.query(`SET search_path TO ${this.schema}`);
  }

  async close(): Promise<void> {
    if (!this.client) return;
    await this.client.query(`DROP SCHEMA IF EXISTS ${this.schema} CASCADE`);
    await this.client.end();
  }

  /** (Re)creates table `name(id, k, g, v, ts bigint epoch ms)` with the rows. */
  async load(name: string, rows: readonly Event[]): Promise<void> {
    await this.client.query(`DROP TABLE IF EXISTS ${name}`);
    await this.client.query(`CREATE TABLE ${name} (id int, k text, g int, v int, ts bigint)`);
    if (rows.length === 0) return;
    const params: unknown[] = [];
    const tuples = rows.map((e, i) => {
      params.push(e.id, e.k, e.g, e.v, e.ts);
      const b = i * 5;
      return `($${b + 1}, $${b + 2}, $${b + 3}, $${b + 4}, $${b + 5})`;
    });
    await this.client.query(`INSERT INTO ${name} VALUES ${tuples.join(", ")}`, params);
  }

  /** (Re)creates table `name` with the given columns (all bigint or text) and rows. */
  async loadRaw(name: string, columns: string, rows: readonly (readonly unknown[])[]): Promise<void> {
    await this.client.query(`DROP TABLE IF EXISTS ${name}`);
    await this.client.query(`CREATE TABLE ${name} (${columns})`);
    for (let i = 0; i < rows.length; i += 500) {
      const chunk = rows.slice(i, i + 500);
      const params: unknown[] = [];
      const tuples = chunk.map((row) => {
        const b = params.length;
        params.push(...row);
        return `(${row.map((_, j) => `$${b + j + 1}`).join(", ")})`;
      });
      await this.client.query(`INSERT INTO ${name} VALUES ${tuples.join(", ")}`, params);
    }
  }

  async result(sql: string): Promise<string[]> {
    const r = await this.client.query({ text: sql, rowMode: "array" });
    return (r.rows as unknown[][]).map((row) => row.map(norm).join(" | ")).sort();
  }
}
