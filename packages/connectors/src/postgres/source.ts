import type { Field, SourceNode } from "@weir/planner";
import {
  ChangeBatch,
  ConnectorError,
  type Json,
  type PollResult,
  type SourceReader,
  type SourceReaderContext,
} from "@weir/runtime";
import { FormatError } from "../formats/errors.js";
import { type PgConnect, type PgConnection, pgEndpoint } from "./client.js";
import type { PostgresOptions } from "./options.js";
import { bindTable } from "./table.js";
import { compileValueDecoder, type ValueDecoder } from "./values.js";

export interface PostgresSourceDeps {
  readonly connect?: PgConnect;
}

export function createPostgresSource(node: SourceNode, deps: PostgresSourceDeps = {}): SourceReader {
  return new PostgresSourceReader(node, deps);
}

/**
 * Reads a Postgres table once, for reference data: a bounded scan in pages of `scan.fetch-size`
 * rows, by keyset pagination (`WHERE (key) > (last key) ORDER BY key LIMIT n`) over the primary
 * key of the Weir table, or over `ctid` when it has none. Each page is its own statement, so no
 * transaction stays open between polls; a page sees the table as of that statement (concurrent
 * writes may or may not be seen, but no row is read twice and none that existed throughout is missed).
 *
 * One split, `postgres:<schema.table>`. The position is the last key read, as Postgres text
 * (`{"after": ["42"]}`, `{"ctid": "(0,7)"}`), plus the number of rows read.
 */
export class PostgresSourceReader implements SourceReader {
  private readonly opts: PostgresOptions;
  private readonly connect: PgConnect;
  private readonly fields: readonly Field[];
  private conn: PgConnection | null = null;
  private decoders: readonly ValueDecoder[] = [];
  /** The first page, and the pages after a key. */
  private firstQuery = "";
  private nextQuery = "";
  /** Positions in the selected row of the keyset columns (the last one is ctid without a key). */
  private keyColumns: readonly number[] = [];
  private readonly byCtid: boolean;
  private after: (string | null)[] | null = null;
  private rowsRead = 0;
  private done = false;
  private split = "";
  private ctx!: SourceReaderContext;

  constructor(
    private readonly node: SourceNode,
    deps: PostgresSourceDeps,
    opts?: PostgresOptions,
  ) {
    ({ opts: this.opts, connect: this.connect } = pgEndpoint(node, deps.connect, opts));
    const fields: Field[] = [];
    node.columns.forEach((c, i) => {
      if (c.kind === "computed") return;
      if (c.kind === "metadata") {
        throw new ConnectorError(
          `the postgres connector has no metadata column '${c.key}'`,
          "user",
          `table ${node.table}`,
        );
      }
      fields.push({ name: c.name, type: node.schema[i].type });
    });
    this.fields = fields;
    const pk = node.primaryKey;
    this.byCtid = !(pk !== null && pk.length > 0 && pk.every((i) => i < fields.length));
  }

  async open(ctx: SourceReaderContext): Promise<void> {
    this.ctx = ctx;
    try {
      this.conn = await this.connect();
    } catch (e) {
      throw new ConnectorError(
        `cannot connect to Postgres: ${(e as Error).message}`,
        "external",
        `table ${this.node.table}`,
        true,
      );
    }
    const table = await bindTable(this.conn, this.opts.table, this.fields, null, false);
    this.split = `postgres:${table.display}`;
    this.decoders = table.columns.map((c) => compileValueDecoder(c.type));
    const pk = this.node.primaryKey ?? [];
    const select = table.columns.map((c) => `t.${c.sql}`);
    let keyExprs: string[];
    let keyCasts: string[];
    if (!this.byCtid) {
      this.keyColumns = pk;
      keyExprs = pk.map((i) => `t.${table.columns[i].sql}`);
      keyCasts = pk.map((i) => table.columns[i].castType);
    } else {
      select.push("t.ctid::text");
      this.keyColumns = [select.length - 1];
      keyExprs = ["t.ctid"];
      keyCasts = ["tid"];
    }
    const params = keyCasts.map((c, j) => `$${j + 1}::${c}`);
    const cond =
      keyExprs.length === 1
        ? `${keyExprs[0]} > ${params[0]}`
        : `(${keyExprs.join(", ")}) > (${params.join(", ")})`;
    const head = `SELECT ${select.join(", ")} FROM ${table.sql} AS t`;
    const tail = ` ORDER BY ${keyExprs.join(", ")} LIMIT $${keyCasts.length + 1}::int`;
    this.firstQuery = `${head}${tail.replace(`$${keyCasts.length + 1}`, "$1")}`;
    this.nextQuery = `${head} WHERE ${cond}${tail}`;
  }

  async poll(maxRows: number): Promise<PollResult> {
    if (this.done || this.conn === null) return { kind: "end" };
    const limit = Math.max(1, Math.min(maxRows, this.opts.fetchSize));
    const r =
      this.after === null
        ? await this.conn.query(this.firstQuery, [String(limit)])
        : await this.conn.query(this.nextQuery, [...this.after, String(limit)]);
    if (r.rows.length === 0) {
      this.done = true;
      return { kind: "end" };
    }
    const n = this.fields.length;
    const rows: unknown[][] = new Array(r.rows.length);
    for (let k = 0; k < r.rows.length; k++) {
      const src = r.rows[k];
      const row = new Array<unknown>(n);
      for (let i = 0; i < n; i++) {
        const text = src[i];
        try {
          row[i] = text === null ? null : this.decoders[i](text);
        } catch (e) {
          if (e instanceof FormatError) {
            throw new ConnectorError(
              `column '${this.fields[i].name}': ${e.message}`,
              "user",
              `${this.split} row ${this.rowsRead + k + 1}`,
            );
          }
          throw e;
        }
      }
      rows[k] = row;
    }
    const last = r.rows[r.rows.length - 1];
    this.after = this.keyColumns.map((i) => last[i]);
    this.rowsRead += rows.length;
    this.ctx.metrics.set("recordsRead", (this.ctx.metrics.get("recordsRead") ?? 0) + rows.length);
    if (rows.length < limit) this.done = true;
    return { kind: "data", splits: [{ split: this.split, batch: ChangeBatch.inserts(rows) }] };
  }

  position(): Json {
    const pos: { [k: string]: Json } = { rowsRead: this.rowsRead, done: this.done };
    if (this.after !== null) pos[this.byCtid ? "ctid" : "after"] = this.byCtid ? this.after[0] : this.after;
    return pos;
  }

  async restore(position: Json): Promise<void> {
    const p = position as { rowsRead?: number; done?: boolean; after?: (string | null)[]; ctid?: string };
    this.rowsRead = p.rowsRead ?? 0;
    this.done = p.done ?? false;
    if (this.byCtid ? p.ctid !== undefined : p.after !== undefined) {
      this.after = this.byCtid ? [p.ctid as string] : (p.after as (string | null)[]);
    } else if (p.after !== undefined || p.ctid !== undefined) {
      throw new ConnectorError(
        "the saved position does not fit the table's key (was the PRIMARY KEY changed?)",
        "user",
        this.split || `table ${this.node.table}`,
      );
    }
  }

  async close(): Promise<void> {
    const c = this.conn;
    this.conn = null;
    if (c) await c.end();
  }
}
