import { type ConnectorCatalog, deliveryProblem, type PhysicalDag } from "@weir/planner";
import { connectorCatalog } from "./connectors.js";

/**
 * What stops the sinks' `'sink.delivery-guarantee'` from being honoured with this checkpoint
 * interval (0: the job takes no checkpoints), as `sink <table>: <problem>` lines, each sink's
 * spec answering (`deliveryProblem`: exactly-once commits at checkpoints, so it needs
 * checkpointing; a connector may need more, as Kafka's transactional ids). `weir run` checks
 * this before the job starts, and `--dry-run` reports it.
 */
export function deliveryProblems(
  dag: PhysicalDag,
  checkpointIntervalMs: number,
  connectors: ConnectorCatalog = connectorCatalog(),
): string[] {
  const out: string[] = [];
  for (const n of dag.nodes) {
    if (n.kind !== "sink") continue;
    const configured = connectors.configureNode(n);
    const sink = configured?.spec.sink;
    if (configured === undefined || sink === undefined) continue;
    const problem = deliveryProblem(sink, configured.config, checkpointIntervalMs);
    if (problem !== null) out.push(`sink ${n.table}: ${problem}`);
  }
  return out;
}
