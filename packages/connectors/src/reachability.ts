import { existsSync } from "node:fs";
import { resolve } from "node:path";
import type { SinkNode, SourceNode } from "@weir/planner";
import { connectKafkajs } from "./kafka/client.js";
import { connectionConfig, topicList } from "./kafka/options.js";
import { connectPg } from "./postgres/client.js";
import { readPostgresOptions } from "./postgres/options.js";

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
 * What `weir run --dry-run` checks of a source or sink without reading or writing a row: the
 * file exists, the Kafka cluster answers and a source's topics exist, the Postgres server
 * accepts a connection. Returns a problem to print, or null when the table is reachable (or its
 * connector needs nothing: datagen, print, blackhole, ...).
 */
export async function checkReachable(node: SourceNode | SinkNode, cwd: string): Promise<string | null> {
  const table = node.table;
  const o = node.options;
  try {
    switch (node.connector) {
      case "filesystem": {
        if (node.kind !== "source") return null;
        const path = resolve(cwd, o.path ?? "");
        return existsSync(path) ? null : `table '${table}': 'path' ${path} does not exist`;
      }
      case "kafka":
      case "upsert-kafka": {
        const admin = connectKafkajs(connectionConfig(o, table)).admin();
        const servers = o["properties.bootstrap.servers"];
        try {
          await within(`Kafka at ${servers}`, admin.connect());
        } catch (e) {
          // Stop kafkajs's own reconnect attempts so that the process can exit.
          await admin.disconnect().catch(() => undefined);
          throw e;
        }
        try {
          const topics = new Set(await within(`Kafka at ${servers}`, admin.listTopics()));
          if (node.kind === "source") {
            const missing = topicList(o).filter((t) => !topics.has(t));
            if (missing.length > 0)
              return `table '${table}': topic ${missing.join(", ")} does not exist on ${servers}`;
          }
        } finally {
          await admin.disconnect();
        }
        return null;
      }
      case "postgres":
      case "jdbc": {
        const settings = readPostgresOptions(table, o).connection;
        const conn = await within("Postgres", connectPg(settings)());
        try {
          await within("Postgres", conn.query("SELECT 1"));
        } finally {
          await conn.end();
        }
        return null;
      }
      default:
        return null;
    }
  } catch (e) {
    return `table '${table}' (${node.connector}): cannot reach it: ${e instanceof Error ? e.message : String(e)}`;
  }
}
