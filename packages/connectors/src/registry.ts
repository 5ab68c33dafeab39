import type { LookupJoinNode, SinkNode, SourceNode } from "@weir/planner";
import {
  ConnectorError,
  type ConnectorRegistry,
  type LookupSource,
  type LookupSourceContext,
  type SinkWriter,
  type SourceReader,
} from "@weir/runtime";
import { DatagenSource } from "./datagen/source.js";
import { ArrowFileSink } from "./filesystem/arrow-sink.js";
import { ArrowFileSource } from "./filesystem/arrow-source.js";
import { createFilesystemLookup } from "./filesystem/lookup.js";
import { FilesystemSink } from "./filesystem/sink.js";
import { FilesystemSource } from "./filesystem/source.js";
import { connectKafkajs, type KafkaConnect } from "./kafka/client.js";
import { KafkaSinkWriter } from "./kafka/sink.js";
import { KafkaSourceReader } from "./kafka/source.js";
import { createNexmarkSource } from "./nexmark/index.js";
import { createPostgresLookup, createPostgresSink, createPostgresSource } from "./postgres/index.js";
import { BlackholeSink } from "./sinks/blackhole.js";
import { CollectSink } from "./sinks/collect.js";
import { PrintSink, type TextOutput } from "./sinks/print.js";

export interface ConnectorRegistryOptions {
  /** Epoch-ms clock for datagen timestamps and rate limiting; default `Date.now`. */
  readonly clock?: () => number;
  /** Where the print sink writes; default `process.stdout` / `process.stderr`. */
  readonly stdout?: TextOutput;
  readonly stderr?: TextOutput;
  /** The Kafka client factory of the kafka and upsert-kafka connectors; default kafkajs. */
  readonly kafka?: KafkaConnect;
}

const SOURCES = ["filesystem", "datagen", "nexmark", "postgres", "jdbc", "kafka", "upsert-kafka"] as const;
const SINKS = [
  "filesystem",
  "print",
  "blackhole",
  "collect",
  "postgres",
  "jdbc",
  "kafka",
  "upsert-kafka",
] as const;

/** The file, generator and console connectors by `'connector'` name. */
export function createConnectorRegistry(options: ConnectorRegistryOptions = {}): ConnectorRegistry {
  const clock = options.clock ?? Date.now;
  const kafka = options.kafka ?? connectKafkajs;
  const outputs = { stdout: options.stdout ?? process.stdout, stderr: options.stderr ?? process.stderr };
  return {
    source(node: SourceNode): SourceReader {
      switch (node.connector) {
        case "filesystem":
          return node.options.format === "arrow" ? new ArrowFileSource() : new FilesystemSource();
        case "datagen":
          return new DatagenSource(clock);
        case "nexmark":
          return createNexmarkSource(node, clock);
        case "postgres":
        case "jdbc":
          return createPostgresSource(node);
        case "kafka":
        case "upsert-kafka":
          return new KafkaSourceReader(kafka);
        default:
          throw new ConnectorError(
            `unknown source connector '${node.connector}' for table ${node.table} (known: ${SOURCES.join(", ")})`,
            "user",
          );
      }
    },
    lookup(node: LookupJoinNode, ctx: LookupSourceContext): LookupSource {
      switch (node.connector) {
        case "postgres":
        case "jdbc":
          return createPostgresLookup(node);
        case "filesystem":
          return createFilesystemLookup(node, ctx);
        default:
          throw new ConnectorError(
            `connector '${node.connector}' of table ${node.table} is not a lookup source (lookup sources: postgres, jdbc, filesystem)`,
            "user",
          );
      }
    },
    sink(node: SinkNode): SinkWriter {
      switch (node.connector) {
        case "filesystem":
          return node.options.format === "arrow" ? new ArrowFileSink() : new FilesystemSink();
        case "print":
          return new PrintSink(outputs);
        case "blackhole":
          return new BlackholeSink();
        case "collect":
          return new CollectSink();
        case "postgres":
        case "jdbc":
          return createPostgresSink(node);
        case "kafka":
        case "upsert-kafka":
          return new KafkaSinkWriter(kafka);
        default:
          throw new ConnectorError(
            `unknown sink connector '${node.connector}' for table ${node.table} (known: ${SINKS.join(", ")})`,
            "user",
          );
      }
    },
  };
}
