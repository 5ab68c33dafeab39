import { userInfo } from "node:os";
import type pg from "pg";
import { type PgConnectionSettings, type PostgresOptions, readPostgresOptions } from "./options.js";

/**
 * The part of a Postgres connection the connector uses, as a shape (STYLE.md: depend on shapes,
 * not clients): unit tests pass a fake, integration tests the real `pg` through {@link connectPg}.
 *
 * Every value crosses this boundary as Postgres text: parameters are strings (or null, or arrays
 * of them for `text[]`), and result rows are arrays of the columns' text output (or null). The
 * connector converts Weir values to and from that text itself, so no `pg` type parser, global or
 * not, decides what a timestamp or a numeric means.
 */
export interface PgConnection {
  /**
   * Runs a statement; with `name`, as a named prepared statement: parsed on the first use on
   * this connection, run by name afterwards (a new connection parses it again).
   */
  query(text: string, values?: readonly PgParam[], name?: string): Promise<PgResult>;
  /** Closes the connection; never rejects. */
  end(): Promise<void>;
  /** Set once the connection has failed outside a query (e.g. terminated while idle). */
  readonly broken: Error | null;
}

/** A text parameter, NULL, an array (pg's literal), or bytes (sent in the binary format). */
export type PgParam = string | null | Buffer | readonly PgParam[];

export interface PgResult {
  readonly rows: readonly (readonly (string | null)[])[];
  /** Rows changed by an INSERT / UPDATE / DELETE. */
  readonly rowCount: number;
}

/** Opens a connection with the session settings of {@link SESSION_SETUP} applied. */
export type PgConnect = () => Promise<PgConnection>;

/**
 * Session settings every connection runs with, so that text forms are unambiguous: instants in
 * UTC, ISO dates, ISO 8601 intervals, and floats printed with enough digits to round-trip.
 */
export const SESSION_SETUP =
  "SET TimeZone = 'UTC'; SET DateStyle = 'ISO, YMD'; SET IntervalStyle = 'iso_8601'; SET extra_float_digits = 3";

/** Every type's text form, unparsed: this connection's own parser table, never pg's global one. */
const TEXT_TYPES = {
  getTypeParser: () => (text: string) => text,
};

/** A {@link PgConnect} over the real `pg` client (PG* environment variables fill what is unset). */
/**
 * A reader's or writer's options — as its spec parsed them (`opts`), else read from the node —
 * and its connections: a test's `connect`, else `pg` with the options' settings.
 */
export function pgEndpoint(
  node: { readonly table: string; readonly options: Readonly<Record<string, string>> },
  connect: PgConnect | undefined,
  opts: PostgresOptions | undefined,
): { readonly opts: PostgresOptions; readonly connect: PgConnect } {
  const o = opts ?? readPostgresOptions(node.table, node.options);
  return { opts: o, connect: connect ?? connectPg(o.connection) };
}

export function connectPg(settings: PgConnectionSettings): PgConnect {
  return async () => {
    const { Client } = await loadPg();
    const client = new Client({
      ...clientConfig(settings),
      types: TEXT_TYPES as unknown as pg.CustomTypesConfig,
    });
    const conn = new PgClientConnection(client);
    try {
      await client.connect();
      await client.query(SESSION_SETUP);
    } catch (e) {
      await conn.end();
      throw e;
    }
    return conn;
  };
}

/**
 * `pg`, imported on the first connection: loading it costs a process start-up tens of
 * milliseconds (it probes for a Cloudflare runtime by building a `Response`, which loads Node's
 * fetch implementation), and most jobs never connect to Postgres.
 */
let pgModule: Promise<typeof pg> | undefined;
function loadPg(): Promise<typeof pg> {
  pgModule ??= import("pg").then((m) => m.default);
  return pgModule;
}

/**
 * `pg` lets a connection string override every other setting, so the `username` / `password`
 * options go into the URL. With no user anywhere (URL, options, PGUSER, USER) the OS user is
 * used, as libpq does.
 */
function clientConfig(settings: PgConnectionSettings): pg.ClientConfig {
  const { connectionString, user, password } = settings;
  const osUser = (): string | undefined =>
    process.env.PGUSER || process.env.USER ? undefined : userInfo().username;
  if (connectionString === undefined) {
    const u = user ?? osUser();
    return { ...(u !== undefined ? { user: u } : {}), ...(password !== undefined ? { password } : {}) };
  }
  const url = new URL(connectionString);
  if (user !== undefined) url.username = encodeURIComponent(user);
  if (password !== undefined) url.password = encodeURIComponent(password);
  if (url.username === "" && !url.searchParams.has("user")) {
    const u = osUser();
    if (u !== undefined) url.username = encodeURIComponent(u);
  }
  return { connectionString: url.toString() };
}

class PgClientConnection implements PgConnection {
  broken: Error | null = null;
  private ended = false;

  constructor(private readonly client: pg.Client) {
    // Without a listener an idle connection's failure would crash the process.
    client.on("error", (e: Error) => {
      this.broken ??= e;
    });
  }

  async query(text: string, values?: readonly PgParam[], name?: string): Promise<PgResult> {
    if (this.broken) throw this.broken;
    const r = await this.client.query({
      text,
      values: values as unknown[] | undefined,
      rowMode: "array",
      ...(name !== undefined ? { name } : {}),
    });
    return { rows: r.rows as (string | null)[][], rowCount: r.rowCount ?? 0 };
  }

  async end(): Promise<void> {
    if (this.ended) return;
    this.ended = true;
    try {
      await this.client.end();
    } catch {
      // Closing a failed connection has nothing left to report.
    }
  }
}

const CONNECTION_MESSAGES = [
  "connection terminated",
  "not queryable",
  "connection error",
  "server closed the connection",
  "terminating connection",
];

/**
 * Whether `e` means the connection (not the statement) failed, so the transaction rolled back
 * and replaying it on a new connection is safe: socket errors, class 08 (connection exception),
 * 57P01..57P03 (admin/crash shutdown, cannot connect now), 55000 (the database is not accepting
 * connections, e.g. for a moment while it is reconfigured), 53300 (too many connections), and
 * serialization failures/deadlocks.
 */
export function isConnectionError(e: unknown): boolean {
  if (!(e instanceof Error)) return false;
  const code = (e as { code?: unknown }).code;
  if (typeof code === "string") {
    if (code.startsWith("08") || code === "57P01" || code === "57P02" || code === "57P03") return true;
    if (code === "40001" || code === "40P01") return true;
    if (code === "55000" || code === "53300") return true;
    if (["ECONNRESET", "ECONNREFUSED", "EPIPE", "ETIMEDOUT", "EHOSTUNREACH", "ENOTCONN"].includes(code))
      return true;
  }
  const msg = e.message.toLowerCase();
  return CONNECTION_MESSAGES.some((m) => msg.includes(m));
}

/** The SQLSTATE of a server error, if any. */
export function sqlState(e: unknown): string | undefined {
  const code = (e as { code?: unknown } | null)?.code;
  return typeof code === "string" && /^[0-9A-Z]{5}$/.test(code) ? code : undefined;
}
