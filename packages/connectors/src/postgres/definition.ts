import type { Field } from "@weir/planner";
import type { ConnectorDefinition } from "../connector-definition.js";
import { reachProblem, within } from "../reach.js";
import { connectPg, type PgConnection } from "./client.js";
import { PostgresLookupSource } from "./lookup.js";
import { formatQualifiedName, type PostgresOptions, type QualifiedName } from "./options.js";
import { PostgresSinkWriter } from "./sink.js";
import { PostgresSourceReader } from "./source.js";
import { jdbcSpec, postgresSpec } from "./spec.js";
import { bindTable } from "./table.js";

/**
 * `--dry-run`: the server accepts a connection and its table matches the Weir table (columns,
 * types and key, as the connector checks it on open). A lookup table is checked when the job opens.
 */
const reach: ConnectorDefinition<PostgresOptions>["reach"] = async (node, opts) => {
  if (node.kind === "lookup-join") return;
  let conn: PgConnection;
  try {
    conn = await within("Postgres", connectPg(opts.connection)());
  } catch (e) {
    throw reachProblem(`(${node.connector}) cannot reach it: ${(e as Error).message}`, "url");
  }
  try {
    await within("Postgres", conn.query("SELECT 1"));
    if (node.kind === "sink") {
      const key = node.primaryKey && node.primaryKey.length > 0 ? node.primaryKey : null;
      // With 'sink.create-table' the job creates a missing table: only an existing one is checked.
      const exists = await tableExists(conn, opts.table);
      if (!opts.createTable || exists) await bindTable(conn, opts.table, node.tableSchema, key, true);
    } else {
      const fields: Field[] = [];
      node.columns.forEach((c, i) => {
        if (c.kind === "physical") fields.push({ name: c.name, type: node.schema[i]!.type });
      });
      await bindTable(conn, opts.table, fields, null, false);
    }
  } finally {
    await conn.end();
  }
};

async function tableExists(conn: PgConnection, table: QualifiedName): Promise<boolean> {
  const r = await conn.query("SELECT to_regclass($1) IS NOT NULL", [formatQualifiedName(table)]);
  return r.rows[0]?.[0] === "t";
}

function postgresDefinition(spec: typeof postgresSpec): ConnectorDefinition<PostgresOptions> {
  return {
    spec,
    createSource: (node, opts) => new PostgresSourceReader(node, {}, opts),
    createSink: (node, opts) => new PostgresSinkWriter(node, {}, opts),
    createLookup: (node, opts) => new PostgresLookupSource(node, {}, opts),
    reach,
  };
}

/** A PostgreSQL table (sink with upserts and exactly-once commits, scan source, lookup source), over `pg`. */
export const postgresConnector = postgresDefinition(postgresSpec);
/** The same connector under Flink's JDBC name. */
export const jdbcConnector = postgresDefinition(jdbcSpec);
