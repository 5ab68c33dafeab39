import type { Field, LookupJoinNode } from "@weir/planner";
import { ConnectorError, type LookupSource, type Row } from "@weir/runtime";
import { FormatError } from "../formats/errors.js";
import { type PgConnect, type PgConnection, type PgParam, pgEndpoint } from "./client.js";
import type { PostgresOptions } from "./options.js";
import { type BoundTable, bindTable } from "./table.js";
import { compileValueDecoder, compileValueEncoder, type ValueDecoder, type ValueEncoder } from "./values.js";

export interface PostgresLookupDeps {
  readonly connect?: PgConnect;
}

/** Keys per lookup statement (a `VALUES` list of that many rows). */
export const LOOKUP_KEYS_PER_QUERY = 200;

export function createPostgresLookup(node: LookupJoinNode, deps: PostgresLookupDeps = {}): LookupSource {
  return new PostgresLookupSource(node, deps);
}

/**
 * The dimension table of a lookup join, queried by key (Flink's JdbcRowDataLookupFunction):
 * one statement per batch of distinct keys,
 *
 * ```sql
 * SELECT k.i, t.c1, t.c2, ... FROM (VALUES (0, $1::int8), (1, $2::int8), ...) AS k(i, k0)
 *   JOIN "public"."customers" AS t ON t."id" = k.k0
 * ```
 *
 * so each returned row names the key it belongs to (`k.i`) and Postgres' own equality decides
 * the match. Statements share one connection, one at a time: lookups in flight wait in order
 * for their turn. A failed statement is retried up to `'lookup.max-retries'` times (default 3) on a
 * new connection, after a pause of 100 ms × the attempt; then the lookup fails with the table,
 * the key and the last error.
 */
export class PostgresLookupSource implements LookupSource {
  private readonly opts: PostgresOptions;
  private readonly connect: PgConnect;
  private readonly fields: readonly Field[];
  private readonly maxRetries: number;
  private conn: PgConnection | null = null;
  private connecting: Promise<PgConnection> | null = null;
  private table: BoundTable | null = null;
  private decoders: readonly ValueDecoder[] = [];
  private encoders: readonly ValueEncoder[] = [];
  private select = "";
  private closed = false;
  private tail: Promise<void> = Promise.resolve();
  /** Statements run, failures retried and connections opened (the operator's metrics). */
  queries = 0;
  retries = 0;
  connects = 0;

  constructor(
    private readonly node: LookupJoinNode,
    deps: PostgresLookupDeps,
    opts?: PostgresOptions,
  ) {
    ({ opts: this.opts, connect: this.connect } = pgEndpoint(node, deps.connect, opts));
    this.fields = node.dimSchema;
    this.maxRetries = node.lookup.maxRetries;
  }

  async open(): Promise<void> {
    const conn = await this.connection();
    const table = await bindTable(conn, this.opts.table, this.fields, null, false);
    this.table = table;
    this.decoders = table.columns.map((c) => compileValueDecoder(c.type));
    this.encoders = this.node.dimKeys.map((k) => compileValueEncoder(table.columns[k]!.type));
    this.select = table.columns.map((c) => `t.${c.sql}`).join(", ");
  }

  private where(): string {
    return `table ${this.node.table}`;
  }

  /**
   * Runs statements one after another on the connection (the `pg` client would queue them too,
   * but deprecates being asked while busy): lookups in flight wait here, in order.
   */
  private serially<T>(run: () => Promise<T>): Promise<T> {
    const next = this.tail.then(run, run);
    this.tail = next.then(
      () => undefined,
      () => undefined,
    );
    return next;
  }

  private connection(): Promise<PgConnection> {
    if (this.conn !== null && this.conn.broken === null) return Promise.resolve(this.conn);
    if (this.connecting === null) {
      const stale = this.conn;
      this.conn = null;
      if (stale !== null) void stale.end();
      this.connects++;
      this.connecting = this.connect().then(
        (c) => {
          this.connecting = null;
          if (this.closed) {
            void c.end();
            throw new Error("the lookup source is closed");
          }
          this.conn = c;
          return c;
        },
        (e) => {
          this.connecting = null;
          throw e;
        },
      );
    }
    return this.connecting;
  }

  async lookup(keys: readonly (readonly unknown[])[]): Promise<Row[][]> {
    const out: Row[][] = keys.map(() => []);
    for (let from = 0; from < keys.length; from += LOOKUP_KEYS_PER_QUERY) {
      const chunk = keys.slice(from, from + LOOKUP_KEYS_PER_QUERY);
      const rows = await this.withRetries(chunk, (conn) => this.query(conn, chunk));
      for (const [i, row] of rows) out[from + i]!.push(row);
    }
    return out;
  }

  private async query(conn: PgConnection, keys: readonly (readonly unknown[])[]): Promise<[number, Row][]> {
    const table = this.table!;
    const dimKeys = this.node.dimKeys;
    const params: PgParam[] = [];
    const tuples: string[] = [];
    keys.forEach((key, i) => {
      const slots = [String(i)];
      key.forEach((v, j) => {
        params.push(this.encoders[j]!(v));
        slots.push(`$${params.length}::${table.columns[dimKeys[j]!]!.castType}`);
      });
      tuples.push(`(${slots.join(", ")})`);
    });
    const names = dimKeys.map((_, j) => `k${j}`);
    const on = dimKeys.map((d, j) => `t.${table.columns[d]!.sql} = k.${names[j]}`).join(" AND ");
    const text = `SELECT k.i, ${this.select} FROM (VALUES ${tuples.join(", ")}) AS k(i, ${names.join(", ")}) JOIN ${table.sql} AS t ON ${on}`;
    this.queries++;
    const r = await this.serially(() => conn.query(text, params));
    const n = this.fields.length;
    return r.rows.map((src) => {
      const row = new Array<unknown>(n);
      for (let c = 0; c < n; c++) {
        const t = src[c + 1];
        try {
          row[c] = t === null || t === undefined ? null : this.decoders[c]!(t);
        } catch (e) {
          if (e instanceof FormatError)
            throw new ConnectorError(
              `column '${this.fields[c]!.name}': ${e.message}`,
              "user",
              `postgres:${table.display}`,
            );
          throw e;
        }
      }
      return [Number(src[0]), row] as [number, Row];
    });
  }

  private async withRetries<T>(
    keys: readonly (readonly unknown[])[],
    run: (conn: PgConnection) => Promise<T>,
  ): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      let conn: PgConnection | null = null;
      try {
        conn = await this.connection();
        return await run(conn);
      } catch (e) {
        if (e instanceof ConnectorError && e.domain === "user") throw e;
        if (this.closed) throw e;
        // The next attempt reconnects (unless another lookup already did).
        if (conn !== null && this.conn === conn) {
          this.conn = null;
          void conn.end();
        }
        if (attempt >= this.maxRetries) {
          const key =
            keys.length === 1 ? keyText(keys[0]!) : `${keyText(keys[0]!)} (and ${keys.length - 1} more keys)`;
          throw new ConnectorError(
            `lookup of key ${key} failed after ${attempt} ${attempt === 1 ? "retry" : "retries"} ('lookup.max-retries' = ${this.maxRetries}): ${(e as Error).message}`,
            "external",
            this.where(),
          );
        }
        this.retries++;
        if (attempt > 0) await new Promise((r) => setTimeout(r, 100 * attempt));
      }
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    const c = this.conn;
    this.conn = null;
    if (c) await c.end();
  }
}

function keyText(key: readonly unknown[]): string {
  const parts = key.map((v) =>
    typeof v === "string" ? `'${v}'` : typeof v === "bigint" ? String(v) : JSON.stringify(v),
  );
  return `(${parts.join(", ")})`;
}
