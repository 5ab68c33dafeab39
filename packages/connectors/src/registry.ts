import type { LookupJoinNode, SinkNode, SourceNode } from "@weir/planner";
import {
  ConnectorError,
  type ConnectorRegistry,
  type LookupSource,
  type LookupSourceContext,
  type SinkWriter,
  type SourceReader,
} from "@weir/runtime";
import type { ConnectorDefinition, ConnectorEnv } from "./connector-definition.js";
import { connectorDefinitions } from "./connectors.js";
import { connectKafkajs, type KafkaConnect } from "./kafka/client.js";
import { parseNodeConfig } from "./node-config.js";
import type { TextOutput } from "./print/sink.js";

export interface ConnectorRegistryOptions {
  /** Epoch-ms clock for datagen timestamps and rate limiting; default `Date.now`. */
  readonly clock?: () => number;
  /** Where the print sink writes; default `process.stdout` / `process.stderr`. */
  readonly stdout?: TextOutput;
  readonly stderr?: TextOutput;
  /** The Kafka client factory of the kafka and upsert-kafka connectors; default kafkajs. */
  readonly kafka?: KafkaConnect;
  /** Connectors besides the list's (`connectors.ts`), e.g. a test's own. */
  readonly definitions?: readonly ConnectorDefinition[];
}

/**
 * The readers and writers of the connectors (`connectors.ts`) by `'connector'` name: each
 * factory gets the config its spec parses from the node's options.
 */
export function createConnectorRegistry(options: ConnectorRegistryOptions = {}): ConnectorRegistry {
  const env: ConnectorEnv = {
    clock: options.clock ?? Date.now,
    stdout: options.stdout ?? process.stdout,
    stderr: options.stderr ?? process.stderr,
    kafka: options.kafka ?? connectKafkajs,
  };
  const definitions = connectorDefinitions(options.definitions);
  const byName = new Map(definitions.map((d) => [d.spec.name, d]));
  /** The definition of `node`'s connector that has `part`, or the error naming those that do. */
  const definition = (
    node: SourceNode | SinkNode | LookupJoinNode,
    part: "createSource" | "createSink" | "createLookup",
    unknown: (known: string) => string,
  ): ConnectorDefinition => {
    const d = byName.get(node.connector);
    if (d?.[part] !== undefined) return d;
    const known = definitions.filter((x) => x[part] !== undefined).map((x) => x.spec.name);
    throw new ConnectorError(unknown(known.join(", ")), "user");
  };
  return {
    source(node: SourceNode): SourceReader {
      const d = definition(
        node,
        "createSource",
        (known) => `unknown source connector '${node.connector}' for table ${node.table} (known: ${known})`,
      );
      return d.createSource!(node, parseNodeConfig(d.spec, node), env);
    },
    lookup(node: LookupJoinNode, ctx: LookupSourceContext): LookupSource {
      const d = definition(
        node,
        "createLookup",
        (known) =>
          `connector '${node.connector}' of table ${node.table} is not a lookup source (lookup sources: ${known})`,
      );
      return d.createLookup!(node, parseNodeConfig(d.spec, node), ctx, env);
    },
    sink(node: SinkNode): SinkWriter {
      const d = definition(
        node,
        "createSink",
        (known) => `unknown sink connector '${node.connector}' for table ${node.table} (known: ${known})`,
      );
      return d.createSink!(node, parseNodeConfig(d.spec, node), env);
    },
  };
}
