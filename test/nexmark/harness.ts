import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import {
  createConnectorRegistry,
  EventType,
  NexmarkGenerator,
  parseNexmarkConfig,
  writeNexmarkSideInput,
} from "@weir/connectors";
import { type ChangeBatch, Op, type Row, runJob } from "@weir/runtime";
import { collectInserts, planSql } from "../support/plan.js";

export const ROOT = resolve(import.meta.dirname, "../..");

/** 10,000 events at 200 events/s span 50 s of event time, across midnight (q15–q17 see two days). */
export const EVENTS = 10_000;
export const RATE = 200;
export const BASE_TIME = Date.UTC(2024, 2, 9, 23, 59, 30);

export interface Person {
  readonly id: number;
  readonly name: string;
  readonly emailAddress: string;
  readonly creditCard: string;
  readonly city: string;
  readonly state: string;
  readonly dateTime: number;
  readonly extra: string;
}

export interface Auction {
  readonly id: number;
  readonly itemName: string;
  readonly description: string;
  readonly initialBid: number;
  readonly reserve: number;
  readonly dateTime: number;
  readonly expires: number;
  readonly seller: number;
  readonly category: number;
  readonly extra: string;
}

export interface Bid {
  readonly auction: number;
  readonly bidder: number;
  readonly price: number;
  readonly channel: string;
  readonly url: string;
  readonly dateTime: number;
  readonly extra: string;
}

export interface Events {
  readonly persons: readonly Person[];
  readonly auctions: readonly Auction[];
  readonly bids: readonly Bid[];
}

/** The generator's events for the options every test query runs with, by kind, in event order. */
export function generateEvents(): Events {
  const config = parseNexmarkConfig({ "first-event.rate": String(RATE), "events.num": String(EVENTS) });
  const g = new NexmarkGenerator(config, BASE_TIME);
  const persons: Person[] = [];
  const auctions: Auction[] = [];
  const bids: Bid[] = [];
  for (let n = 0; n < EVENTS; n++) {
    const e = g.generate(n) as never[];
    if (g.lastType === EventType.PERSON) {
      const [id, name, emailAddress, creditCard, city, state, dateTime, extra] = e;
      persons.push({ id, name, emailAddress, creditCard, city, state, dateTime, extra });
    } else if (g.lastType === EventType.AUCTION) {
      const [id, itemName, description, initialBid, reserve, dateTime, expires, seller, category, extra] = e;
      auctions.push({
        id,
        itemName,
        description,
        initialBid,
        reserve,
        dateTime,
        expires,
        seller,
        category,
        extra,
      });
    } else {
      const [auction, bidder, price, channel, url, dateTime, extra] = e;
      bids.push({ auction, bidder, price, channel, url, dateTime, extra });
    }
  }
  return { persons, auctions, bids };
}

/** The query's script with the generator set to the test's event count, rate and base time. */
export function querySql(query: string): string {
  if (query === "q13") writeNexmarkSideInput(resolve(ROOT, "sql/nexmark/data/side_input.csv"));
  const sql = readFileSync(resolve(ROOT, `sql/nexmark/${query}.sql`), "utf8");
  const replaced = sql
    .replace("'first-event.rate' = '10000000'", `'first-event.rate' = '${RATE}'`)
    .replace("'next-event.rate' = '10000000'", `'next-event.rate' = '${RATE}'`)
    .replace("'events.num' = '100000'", `'events.num' = '${EVENTS}', 'base-time' = '${BASE_TIME}'`);
  if (!replaced.includes(`'base-time' = '${BASE_TIME}'`) || !replaced.includes(`= '${RATE}'`)) {
    throw new Error(`${query}.sql: the generator options are not in the expected form`);
  }
  return replaced;
}

/** One value as comparable text: DECIMALs (bigint) get an `n`, strings are quoted. */
export function valueText(v: unknown): string {
  if (typeof v === "bigint") return `${v}n`;
  if (typeof v === "string") return JSON.stringify(v);
  if (v === null || v === undefined) return "null";
  return String(v);
}

export function rowText(row: readonly unknown[]): string {
  return row.map(valueText).join(" | ");
}

/** Sorted row texts: a multiset that `toEqual` compares. */
export function rowsText(rows: readonly (readonly unknown[])[]): string[] {
  return rows.map(rowText).sort();
}

export interface QueryRun {
  readonly changes: number;
  /** The changelog applied: rows with their multiplicity, as row texts, sorted. */
  readonly result: string[];
  /** The same result as rows. */
  readonly rows: Row[];
}

/**
 * Plans the script's INSERT into the `collect` sink instead of its declared sink (so the rows
 * are the query's own values: DECIMAL as bigint, TIMESTAMP as epoch ms) and materialises the
 * changelog: `+I`/`+U` add a row, `-U`/`-D` remove one; removing a row that is not there fails.
 */
export async function runQuery(sql: string, file: string): Promise<QueryRun> {
  const dag = planSql(sql, { file, queries: "run", targets: collectInserts });
  const live = new Map<string, { row: Row; count: number }>();
  let changes = 0;
  const collect = (batch: ChangeBatch): void => {
    for (let i = 0; i < batch.length; i++) {
      const op = batch.ops[i];
      const row = batch.rows[i]!;
      const key = rowText(row);
      const e = live.get(key) ?? { row, count: 0 };
      e.count += op === Op.INSERT || op === Op.UPDATE_AFTER ? 1 : -1;
      if (e.count < 0) throw new Error(`${file}: retraction of a row that is not in the result: ${key}`);
      if (e.count === 0) live.delete(key);
      else live.set(key, e);
      changes++;
    }
  };
  const result = await runJob(dag, { connectors: createConnectorRegistry(), cwd: ROOT, collect });
  if (result.reason !== "end") throw new Error(`${file}: the job stopped: ${result.reason}`);
  const rows: Row[] = [];
  for (const { row, count } of live.values()) for (let k = 0; k < count; k++) rows.push(row);
  return { changes, result: rowsText(rows), rows };
}

/** `yyyy-MM-dd HH:mm:ss.SSS` of epoch ms, read as UTC (how TIMESTAMP(3) values print). */
export function timestampText(ms: number): string {
  return new Date(ms).toISOString().replace("T", " ").replace("Z", "");
}

export function dayText(ms: number): string {
  return timestampText(ms).slice(0, 10);
}

export function minuteText(ms: number): string {
  return timestampText(ms).slice(11, 16);
}
