import type { PgConnection } from "./client.js";
import { quoteIdent } from "./options.js";

/** The table where exactly-once Postgres sinks record their last committed checkpoint. */
export const PROGRESS_TABLE = "weir_sink_progress";

/**
 * The progress row of one exactly-once sink: `(job_id, sink_id) → checkpoint_id`, in
 * `weir_sink_progress` of the target table's schema (created if absent). A commit locks the row
 * (`SELECT … FOR UPDATE`) inside the transaction that writes the checkpoint's changes and sets it
 * to the checkpoint id, so the changes and the progress become visible together, and a replay of
 * a checkpoint that was already committed (a restore, or a retry after a lost COMMIT
 * acknowledgement) finds its id and writes nothing. Concurrent commits of the same sink (a zombie
 * job) serialise on the row lock.
 */
export class SinkProgress {
  private readonly table: string;

  constructor(
    /** The target table's schema (resolved, unquoted). */
    schema: string,
    readonly jobId: string,
    readonly sinkId: string,
  ) {
    this.table = `${quoteIdent(schema)}.${quoteIdent(PROGRESS_TABLE)}`;
  }

  /** Shown in messages. */
  get display(): string {
    return this.table;
  }

  /** Creates the progress table if absent (outside any transaction). */
  async ensureTable(conn: PgConnection): Promise<void> {
    await conn.query(
      `CREATE TABLE IF NOT EXISTS ${this.table} (
        job_id text NOT NULL, sink_id text NOT NULL, checkpoint_id bigint NOT NULL,
        committed_at timestamptz NOT NULL DEFAULT now(), PRIMARY KEY (job_id, sink_id))`,
    );
  }

  /** Inside a transaction: the last committed checkpoint id (−1: none), the row locked until COMMIT. */
  async lock(conn: PgConnection): Promise<number> {
    await conn.query(
      `INSERT INTO ${this.table} (job_id, sink_id, checkpoint_id) VALUES ($1, $2, -1) ON CONFLICT DO NOTHING`,
      [this.jobId, this.sinkId],
    );
    const r = await conn.query(
      `SELECT checkpoint_id::text FROM ${this.table} WHERE job_id = $1 AND sink_id = $2 FOR UPDATE`,
      [this.jobId, this.sinkId],
    );
    return Number(r.rows[0]?.[0] ?? -1);
  }

  /** Inside the same transaction: records `checkpointId` as committed. */
  async set(conn: PgConnection, checkpointId: number): Promise<void> {
    await conn.query(
      `UPDATE ${this.table} SET checkpoint_id = $3, committed_at = now() WHERE job_id = $1 AND sink_id = $2`,
      [this.jobId, this.sinkId, String(checkpointId)],
    );
  }

  /** The last committed checkpoint id outside a transaction (−1: none). */
  async read(conn: PgConnection): Promise<number> {
    const r = await conn.query(
      `SELECT checkpoint_id::text FROM ${this.table} WHERE job_id = $1 AND sink_id = $2`,
      [this.jobId, this.sinkId],
    );
    return Number(r.rows[0]?.[0] ?? -1);
  }
}
