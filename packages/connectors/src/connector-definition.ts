import type { ConnectorSpec, LookupJoinNode, SinkNode, SourceNode } from "@weir/planner";
import type { LookupSource, LookupSourceContext, SinkWriter, SourceReader } from "@weir/runtime";
import type { KafkaConnect } from "./kafka/client.js";
import type { TextOutput } from "./print/sink.js";

/**
 * A connector as the runtime and the CLI use it: its spec (`spec.ts` of its folder: options,
 * formats, changelog, delivery, the answers `weir check` asks for — the planner's
 * `ConnectorSpec`) and the factories of its readers and writers. `connectors.ts` lists every
 * definition once; the catalog takes their specs, `createConnectorRegistry` their factories.
 *
 * Each factory receives the config `spec.parse` read from the node's options (what the planner
 * validated with the same parse), so a reader or writer takes its typed values from it and
 * reads no option text the spec reads. A part of the spec and its factory come together:
 * `spec.source` with `createSource`, `spec.sink` with `createSink`, `spec.lookup` with
 * `createLookup` (`packages/connectors/test/connectors-list.test.ts` checks it).
 */
export interface ConnectorDefinition<C = unknown> {
  readonly spec: ConnectorSpec<C>;
  createSource?(node: SourceNode, config: C, env: ConnectorEnv): SourceReader;
  createSink?(node: SinkNode, config: C, env: ConnectorEnv): SinkWriter;
  createLookup?(node: LookupJoinNode, config: C, ctx: LookupSourceContext, env: ConnectorEnv): LookupSource;
  /**
   * What `weir run --dry-run` checks of a source, sink or lookup table without reading or
   * writing a row, as the job checks it when it opens the connector (files exist, the service
   * answers, a table matches). Throws a `ConnectorError` (see `reachProblem`) for a problem;
   * `checkReachable` names the table and reports any other error as unreachable.
   */
  reach?(node: SourceNode | SinkNode | LookupJoinNode, config: C, cwd: string): Promise<void>;
}

/** What the factories may use besides their node and config (`ConnectorRegistryOptions` with defaults). */
export interface ConnectorEnv {
  /** Epoch-ms clock for generated timestamps and rate limiting. */
  readonly clock: () => number;
  /** Where console sinks write. */
  readonly stdout: TextOutput;
  readonly stderr: TextOutput;
  /** The Kafka client factory (kafkajs unless a test passes a fake). */
  readonly kafka: KafkaConnect;
}

/** A definition with its config type inferred from its spec (`defineConnector({ spec, ... })`). */
export function defineConnector<C>(definition: ConnectorDefinition<C>): ConnectorDefinition<C> {
  return definition;
}
