// Shared helpers of the Postgres integration tests: the real server (WEIR_TEST_PG_URL, else
// 127.0.0.1:5432/test as the OS user), a fresh schema per test file, and running scripts through
// the CLI's Engine in the background.
import { createRequire } from "node:module";
import { userInfo } from "node:os";
import { Engine, type ScriptOptions } from "../../packages/cli/src/engine/engine.js";
import type PgModule from "../../packages/connectors/node_modules/@types/pg/index.js";

/** `pg` is the connectors package's dependency, not the root's. */
const pg = createRequire(new URL("../../packages/connectors/package.json", import.meta.url))(
  "pg",
) as typeof PgModule;
type PgClient = InstanceType<typeof pg.Client>;

export const PG_URL =
  process.env.WEIR_TEST_PG_URL ??
  `postgres://${encodeURIComponent(process.env.PGUSER || process.env.USER || userInfo().username)}@127.0.0.1:5432/test`;

/** A connection to the real server with every value as Postgres text, and a schema of its own. */
export class PgFixture {
  readonly schema = `weir_it_${process.pid}_${Date.now().toString(36)}`;
  private client: PgClient | null = null;

  async admin(): Promise<PgClient> {
    if (this.client === null) {
      const c = new pg.Client({
        connectionString: PG_URL,
        types: { getTypeParser: () => (text: string) => text } as unknown as PgModule.CustomTypesConfig,
      });
      await c.connect();
      await c.query(`CREATE SCHEMA ${this.schema}`);
      this.client = c;
    }
    return this.client;
  }

  /** The seeds' DDL of `revenue_minute` (sql/revenue_minute_kafka_postgres.sql's header) as `<schema>.<name>`. */
  async createRevenueMinute(name: string): Promise<string> {
    const table = `${this.schema}.${name}`;
    await (await this.admin()).query(`CREATE TABLE ${table} (
      window_start timestamptz NOT NULL, window_end timestamptz NOT NULL,
      store_id text NOT NULL, currency text NOT NULL,
      order_count bigint NOT NULL, revenue_amount numeric(18, 2) NOT NULL,
      source_event_count bigint NOT NULL, version bigint NOT NULL,
      is_final boolean NOT NULL, watermark_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL,
      PRIMARY KEY (window_start, store_id, currency))`);
    return table;
  }

  async rows(sql: string): Promise<(string | null)[][]> {
    const r = await (await this.admin()).query({ text: sql, rowMode: "array" });
    return r.rows as (string | null)[][];
  }

  async close(): Promise<void> {
    const c = this.client;
    this.client = null;
    if (c === null) return;
    await c.query(`DROP SCHEMA IF EXISTS ${this.schema} CASCADE`);
    await c.end();
  }
}

/** Rows of any Postgres as text (for the embedded server, through its socket like psql). */
export async function queryText(url: string, sql: string): Promise<(string | null)[][]> {
  const c = new pg.Client({
    connectionString: url,
    types: { getTypeParser: () => (text: string) => text } as unknown as PgModule.CustomTypesConfig,
  });
  await c.connect();
  try {
    const r = await c.query({ text: sql, rowMode: "array" });
    return r.rows as (string | null)[][];
  } finally {
    await c.end();
  }
}

export interface RunningScript {
  readonly done: Promise<number>;
  readonly out: string[];
  readonly err: string[];
  /** Settled flag of `done`, to tell that a job is still running. */
  readonly settled: () => boolean;
  readonly stop: () => void;
}

/** Starts a script in this process; `stop()` aborts it as Ctrl-C does in `weir run`. */
export function startScript(
  sql: string,
  opts: { cwd?: string; serve?: boolean; settings?: [string, string][] } = {},
): RunningScript {
  const out: string[] = [];
  const err: string[] = [];
  const controller = new AbortController();
  const engine = new Engine({
    cwd: opts.cwd ?? process.cwd(),
    out: { out: (l) => out.push(l), err: (l) => err.push(l) },
    ...(opts.settings ? { settings: opts.settings } : {}),
  });
  let settled = false;
  const scriptOpts: ScriptOptions = {
    file: "test.sql",
    signal: controller.signal,
    ...(opts.serve ? { serve: true } : {}),
  };
  const done = engine.runScript(sql, scriptOpts).finally(() => {
    settled = true;
  });
  return { done, out, err, settled: () => settled, stop: () => controller.abort() };
}

/** The embedded server's URL, from the line the engine prints when it starts serving. */
export async function embeddedUrl(run: RunningScript, timeoutMs = 60_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    for (const l of run.err) {
      const m = /psql -h (\S+) -p (\d+) -U (\S+) (\S+)/.exec(l);
      if (m) return `postgres://${m[3]}@${m[1]}:${m[2]}/${m[4]}`;
    }
    if (run.settled()) throw new Error(`the script ended without serving:\n${run.err.join("\n")}`);
    if (Date.now() > deadline) throw new Error(`no embedded server after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Retries `check` every 100 ms until it returns true; throws with `describe()` at the deadline. */
export async function eventually(
  check: () => Promise<boolean>,
  describe: () => string,
  timeoutMs = 30_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out: ${describe()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
