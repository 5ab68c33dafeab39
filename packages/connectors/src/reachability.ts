import type { Field, SinkNode, SourceNode } from "@weir/planner";
import { ConnectorError } from "@weir/runtime";
import { listInputFiles } from "./filesystem/files.js";
import { connectKafkajs } from "./kafka/client.js";
import { connectionConfig, topicList } from "./kafka/options.js";
import { checkKafkaSinkTable } from "./kafka/sink.js";
import { connectPg, type PgConnection } from "./postgres/client.js";
import { formatQualifiedName, type QualifiedName, readPostgresOptions } from "./postgres/options.js";
import { bindTable } from "./postgres/table.js";

const TIMEOUT_MS = 5000;

function within<T>(what: string, p: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`no answer within ${TIMEOUT_MS / 1000} s from ${what}`)),
      TIMEOUT_MS,
    );
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}

/**
 * What `weir run --dry-run` checks of a source or sink without reading or writing a row — what
 * `weir run` checks when it opens the connectors: the input files exist, the Kafka cluster
 * answers and a source's topics exist, the Postgres server accepts a connection and its table
 * matches the Weir table (columns, types and key, as the connector checks it on open). Returns
 * the problem (naming the table, and the option it is about) or null when all is well (or the
 * connector needs nothing: datagen, print, blackhole, ...).
 */
export async function checkReachable(
  node: SourceNode | SinkNode,
  cwd: string,
): Promise<ConnectorError | null> {
  const table = node.table;
  const o = node.options;
  const problem = (message: string, option?: string) =>
    new ConnectorError(message, "user", undefined, false, {
      table,
      ...(option !== undefined ? { option } : {}),
    });
  try {
    switch (node.connector) {
      case "filesystem": {
        if (node.kind !== "source") return null;
        await listInputFiles(o.path ?? "", cwd);
        return null;
      }
      case "kafka":
      case "upsert-kafka": {
        if (node.kind === "sink") checkKafkaSinkTable(node);
        const admin = connectKafkajs(connectionConfig(o, table)).admin();
        const servers = o["properties.bootstrap.servers"];
        try {
          await within(`Kafka at ${servers}`, admin.connect());
        } catch (e) {
          // Stop kafkajs's own reconnect attempts so that the process can exit.
          await admin.disconnect().catch(() => undefined);
          return problem(
            `(${node.connector}) cannot reach it: ${(e as Error).message}`,
            "properties.bootstrap.servers",
          );
        }
        try {
          const topics = new Set(await within(`Kafka at ${servers}`, admin.listTopics()));
          if (node.kind === "source") {
            const missing = topicList(o).filter((t) => !topics.has(t));
            if (missing.length > 0)
              return problem(`topic ${missing.join(", ")} does not exist on ${servers}`, "topic");
          }
        } finally {
          await admin.disconnect();
        }
        return null;
      }
      case "postgres":
      case "jdbc": {
        const opts = readPostgresOptions(table, o);
        let conn: PgConnection;
        try {
          conn = await within("Postgres", connectPg(opts.connection)());
        } catch (e) {
          return problem(`(${node.connector}) cannot reach it: ${(e as Error).message}`, "url");
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
        return null;
      }
      default:
        return null;
    }
  } catch (e) {
    if (e instanceof ConnectorError) return e.ofTable(table);
    return problem(`(${node.connector}) cannot reach it: ${e instanceof Error ? e.message : String(e)}`);
  }
}

async function tableExists(conn: PgConnection, table: QualifiedName): Promise<boolean> {
  const r = await conn.query("SELECT to_regclass($1) IS NOT NULL", [formatQualifiedName(table)]);
  return r.rows[0]?.[0] === "t";
}
