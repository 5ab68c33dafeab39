import type { SinkNode } from "@weir/planner";
import { ConnectorError } from "@weir/runtime";
import { connectPg, type PgConnection } from "./client.js";
import { formatQualifiedName, parseQualifiedName, quoteIdent, readPostgresOptions } from "./options.js";

/**
 * The merge step of a backfill (`weir run --backfill REPLAY_ID`, docs/data-contracts.md): the
 * replay's rows, written to a staging table by the backfill job, go into the target table in one
 * transaction, guarded by the target's version column (a row the target already holds at a newer
 * or equal version — a realtime write after the replay was computed — is kept), and recorded in
 * `weir_backfill_merges` so that a replay id is merged once: a re-run changes nothing.
 */
export const MERGE_LOG_TABLE = "weir_backfill_merges";

/** The backfill columns the staging table adds to the target's. */
export const BACKFILL_COLUMNS = ["replay_id", "replayed_at", "original_event_time"] as const;

export interface BackfillTarget {
  /** The Weir table (the sink of the realtime job). */
  readonly table: string;
  /** The realtime sink's options (`url`, `table-name`, credentials). */
  readonly options: Readonly<Record<string, string>>;
  /** The primary key's column names. */
  readonly key: readonly string[];
  readonly staging: string;
  readonly versionColumn: string;
  /** Only staging rows whose original event time is before this instant are merged (null: all). */
  readonly cutoverMs: number | null;
}

export interface MergeResult {
  /** Rows inserted or updated in the target. */
  readonly merged: number;
  /** Staging rows of the replay the version guard kept out (the target's row was as new or newer). */
  readonly kept: number;
  /** Staging rows at or after the cut-over (left to realtime processing). */
  readonly afterCutover: number;
  /** The replay was merged before (`merged_at`): nothing was done. */
  readonly alreadyMergedAt: string | null;
}

async function connect(
  t: BackfillTarget,
): Promise<{ conn: PgConnection; target: string; schema: string | null }> {
  const opts = readPostgresOptions(t.table, t.options);
  const conn = await connectPg(opts.connection)();
  return { conn, target: formatQualifiedName(opts.table), schema: opts.table.schema };
}

function logTable(schema: string | null): string {
  return schema === null ? MERGE_LOG_TABLE : `${quoteIdent(schema)}.${MERGE_LOG_TABLE}`;
}

const ENSURE_LOG = (log: string) =>
  `CREATE TABLE IF NOT EXISTS ${log} (replay_id text NOT NULL, target text NOT NULL, merged_at timestamptz NOT NULL, rows_merged bigint NOT NULL, PRIMARY KEY (replay_id, target))`;

/** When `replayId` was merged into the target, or null. */
export async function backfillMergedAt(t: BackfillTarget, replayId: string): Promise<string | null> {
  const { conn, target, schema } = await connect(t);
  try {
    const log = logTable(schema);
    await conn.query(ENSURE_LOG(log));
    const r = await conn.query(`SELECT merged_at::text FROM ${log} WHERE replay_id = $1 AND target = $2`, [
      replayId,
      target,
    ]);
    return r.rows[0]?.[0] ?? null;
  } finally {
    await conn.end();
  }
}

/** The merge, in one transaction (see {@link MERGE_LOG_TABLE}). */
export async function mergeBackfill(t: BackfillTarget, replayId: string): Promise<MergeResult> {
  const { conn, target, schema } = await connect(t);
  const where = `backfill merge into ${target}`;
  const staging = formatQualifiedName(parseQualifiedName(t.staging, where));
  const log = logTable(schema);
  try {
    await conn.query(ENSURE_LOG(log));
    await conn.query("BEGIN");
    try {
      // One merge per target at a time; a second one waits and then finds the log row.
      await conn.query("SELECT pg_advisory_xact_lock(hashtext($1))", [`weir-backfill ${target}`]);
      const done = await conn.query(
        `SELECT merged_at::text FROM ${log} WHERE replay_id = $1 AND target = $2`,
        [replayId, target],
      );
      if (done.rows.length > 0) {
        await conn.query("ROLLBACK");
        return { merged: 0, kept: 0, afterCutover: 0, alreadyMergedAt: done.rows[0]![0] };
      }
      const targetCols = await columnsOf(conn, target);
      const stagingCols = new Set(await columnsOf(conn, staging));
      if (targetCols.length === 0) throw new ConnectorError(`table ${target} does not exist`, "user", where);
      if (stagingCols.size === 0)
        throw new ConnectorError(`the staging table ${staging} does not exist`, "user", where);
      if (!targetCols.includes(t.versionColumn)) {
        throw new ConnectorError(
          `the target has no version column '${t.versionColumn}': the merge keeps a newer realtime row by its version`,
          "user",
          where,
          false,
          { table: t.table, hint: "name the target's version column with 'backfill.version-column'" },
        );
      }
      const cols = targetCols.filter((c) => stagingCols.has(c));
      const list = cols.map(quoteIdent).join(", ");
      const key = t.key.map(quoteIdent).join(", ");
      const updates = cols
        .filter((c) => !t.key.includes(c))
        .map((c) => `${quoteIdent(c)} = EXCLUDED.${quoteIdent(c)}`)
        .join(", ");
      const v = quoteIdent(t.versionColumn);
      const cut =
        t.cutoverMs === null ? "" : " AND original_event_time < to_timestamp($2::double precision / 1000)";
      const params = t.cutoverMs === null ? [replayId] : [replayId, String(t.cutoverMs)];
      const total = await conn.query(`SELECT count(*)::text FROM ${staging} WHERE replay_id = $1`, [
        replayId,
      ]);
      const eligible = await conn.query(
        `SELECT count(*)::text FROM ${staging} WHERE replay_id = $1${cut}`,
        params,
      );
      const merged = await conn.query(
        `INSERT INTO ${target} AS t (${list}) SELECT ${list} FROM ${staging} WHERE replay_id = $1${cut}
         ON CONFLICT (${key}) DO UPDATE SET ${updates} WHERE t.${v} < EXCLUDED.${v}`,
        params,
      );
      await conn.query(`INSERT INTO ${log} VALUES ($1, $2, now(), $3)`, [
        replayId,
        target,
        String(merged.rowCount),
      ]);
      await conn.query("COMMIT");
      const n = Number(eligible.rows[0]![0]);
      return {
        merged: merged.rowCount,
        kept: n - merged.rowCount,
        afterCutover: Number(total.rows[0]![0]) - n,
        alreadyMergedAt: null,
      };
    } catch (e) {
      await conn.query("ROLLBACK").catch(() => undefined);
      throw e;
    }
  } finally {
    await conn.end();
  }
}

async function columnsOf(conn: PgConnection, qualified: string): Promise<string[]> {
  const r = await conn.query(
    "SELECT attname FROM pg_attribute WHERE attrelid = to_regclass($1) AND attnum > 0 AND NOT attisdropped ORDER BY attnum",
    [qualified],
  );
  return r.rows.map((row) => row[0]!);
}

/** The staging table's name: `'backfill.staging-table'`, else the target's `table-name` + `_staging`. */
export function stagingTableName(node: Pick<SinkNode, "table" | "options">): string {
  return node.options["backfill.staging-table"] ?? `${node.options["table-name"] ?? node.table}_staging`;
}
