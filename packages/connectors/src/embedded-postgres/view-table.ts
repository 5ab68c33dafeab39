import { connectPg, type PgConnect } from "../postgres/client.js";
import { formatQualifiedName, readPostgresOptions } from "../postgres/options.js";

/**
 * Drops the Postgres table of a materialised view (a postgres table's `WITH` options: `url`,
 * `table-name`, credentials), so that its job's sink creates it afresh: the view owns its table,
 * and rows left by an earlier run (or an earlier definition of the view) must not survive into a
 * result that should equal the query's.
 */
export async function replaceViewTable(
  view: string,
  options: Readonly<Record<string, string>>,
  connect?: PgConnect,
): Promise<void> {
  const opts = readPostgresOptions(view, options);
  const conn = await (connect ?? connectPg(opts.connection))();
  try {
    await conn.query(`DROP TABLE IF EXISTS ${formatQualifiedName(opts.table)}`);
  } finally {
    await conn.end();
  }
}
