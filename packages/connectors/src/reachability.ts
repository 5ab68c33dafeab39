import type { LookupJoinNode, SinkNode, SourceNode } from "@weir/planner";
import { ConnectorError } from "@weir/runtime";
import type { ConnectorDefinition } from "./connector-definition.js";
import { connectorDefinitions } from "./connectors.js";
import { parseNodeConfig } from "./node-config.js";

/**
 * What `weir run --dry-run` checks of a source, sink or lookup table without reading or
 * writing a row — what `weir run` checks when it opens the connectors, as each connector's
 * definition says (`reach`: input files exist, the Kafka cluster answers and a source's topics
 * exist, the Postgres server accepts a connection and its table matches the Weir table). Returns
 * the problem (naming the table, and the option it is about) or null when all is well (or the
 * connector needs nothing: datagen, print, blackhole, ...).
 */
export async function checkReachable(
  node: SourceNode | SinkNode | LookupJoinNode,
  cwd: string,
  definitions: readonly ConnectorDefinition[] = connectorDefinitions(),
): Promise<ConnectorError | null> {
  const table = node.table;
  const d = definitions.find((x) => x.spec.name === node.connector);
  if (d?.reach === undefined) return null;
  try {
    await d.reach(node, parseNodeConfig(d.spec, node), cwd);
    return null;
  } catch (e) {
    if (e instanceof ConnectorError) return e.ofTable(table);
    return new ConnectorError(
      `(${node.connector}) cannot reach it: ${e instanceof Error ? e.message : String(e)}`,
      "user",
      undefined,
      false,
      { table },
    );
  }
}
