import type { ConnectorDefinition } from "../connector-definition.js";
import { reachProblem, within } from "../reach.js";
import { connectKafkajs } from "./client.js";
import { connectionConfig } from "./options.js";
import { checkKafkaSinkTable, KafkaSinkWriter } from "./sink.js";
import { KafkaSourceReader } from "./source.js";
import { type KafkaConfig, kafkaSpec, upsertKafkaSpec } from "./spec.js";

/**
 * `--dry-run`: the cluster answers and a source's topics exist; a sink's table passes the
 * checks the writer makes before it connects.
 */
const reach: ConnectorDefinition<KafkaConfig>["reach"] = async (node, config) => {
  if (node.kind === "lookup-join") return;
  if (node.kind === "sink") checkKafkaSinkTable(node, config);
  const o = node.options;
  const admin = connectKafkajs(connectionConfig(o, node.table)).admin();
  const servers = o["properties.bootstrap.servers"];
  try {
    await within(`Kafka at ${servers}`, admin.connect());
  } catch (e) {
    // Stop kafkajs's own reconnect attempts so that the process can exit.
    await admin.disconnect().catch(() => undefined);
    throw reachProblem(
      `(${node.connector}) cannot reach it: ${(e as Error).message}`,
      "properties.bootstrap.servers",
    );
  }
  try {
    const topics = new Set(await within(`Kafka at ${servers}`, admin.listTopics()));
    if (node.kind === "source") {
      const missing = config.topics.filter((t) => !topics.has(t));
      if (missing.length > 0)
        throw reachProblem(`topic ${missing.join(", ")} does not exist on ${servers}`, "topic");
    }
  } finally {
    await admin.disconnect();
  }
};

function kafkaDefinition(spec: typeof kafkaSpec): ConnectorDefinition<KafkaConfig> {
  return {
    spec,
    createSource: (_node, config, env) => new KafkaSourceReader(env.kafka, config),
    createSink: (_node, config, env) => new KafkaSinkWriter(env.kafka, config),
    reach,
  };
}

/** Flink's `kafka`, over kafkajs (or the registry's Kafka client factory). */
export const kafkaConnector = kafkaDefinition(kafkaSpec);
/** Flink's `upsert-kafka`. */
export const upsertKafkaConnector = kafkaDefinition(upsertKafkaSpec);
