import type { Field } from "@weir/planner";
import { connectPg, type PgConnect } from "../postgres/client.js";
import { formatQualifiedName, readPostgresOptions } from "../postgres/options.js";
import { createTableSql } from "../postgres/table.js";

/** The table a view's job writes: its columns and the primary key (positions in `fields`). */
export interface ViewTableShape {
  readonly fields: readonly Field[];
  readonly key: readonly number[] | null;
}

/**
 * Drops the Postgres table of a materialised view (a postgres table's `WITH` options: `url`,
 * `table-name`, credentials) and, given its shape, creates it afresh and empty, in one
 * transaction: the view owns its table, and rows left by an earlier run (or an earlier
 * definition of the view) must not survive into a result that should equal the query's. Created
 * here, the table exists as soon as the view does, so a query may read it before the job's sink
 * has opened (its `CREATE TABLE IF NOT EXISTS` then finds it).
 */
export async function replaceViewTable(
  view: string,
  options: Readonly<Record<string, string>>,
  shape?: ViewTableShape,
  connect?: PgConnect,
): Promise<void> {
  const opts = readPostgresOptions(view, options);
  const conn = await (connect ?? connectPg(opts.connection))();
  try {
    if (shape === undefined) {
      await conn.query(`DROP TABLE IF EXISTS ${formatQualifiedName(opts.table)}`);
      return;
    }
    await conn.query("BEGIN");
    try {
      await conn.query(`DROP TABLE IF EXISTS ${formatQualifiedName(opts.table)}`);
      await conn.query(createTableSql(opts.table, shape.fields, shape.key));
      await conn.query("COMMIT");
    } catch (e) {
      await conn.query("ROLLBACK").catch(() => undefined);
      throw e;
    }
  } finally {
    await conn.end();
  }
}

/** Drops a materialised view's table (DROP MATERIALIZED VIEW): the view owned it. */
export async function dropViewTable(
  view: string,
  options: Readonly<Record<string, string>>,
  connect?: PgConnect,
): Promise<void> {
  await replaceViewTable(view, options, undefined, connect);
}
