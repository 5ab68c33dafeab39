import type { PhysicalDag } from "@weir/planner";
import { kafkaDeliveryProblem } from "./kafka/sink.js";

/**
 * What stops the sinks' `'sink.delivery-guarantee'` from being honoured with this checkpoint
 * interval (0: the job takes no checkpoints), as `sink <table>: <problem>` lines: exactly-once
 * commits at checkpoints, so it needs checkpointing; a Kafka sink also needs a transactional id
 * prefix and a transaction timeout longer than the interval; the Arrow file format has no
 * exactly-once mode. `weir run` checks this before the job starts, and `--dry-run` reports it.
 */
export function deliveryProblems(dag: PhysicalDag, checkpointIntervalMs: number): string[] {
  const out: string[] = [];
  for (const n of dag.nodes) {
    if (n.kind !== "sink") continue;
    if ((n.options["sink.delivery-guarantee"] ?? "at-least-once") !== "exactly-once") continue;
    let problem: string | null = null;
    if (n.connector === "kafka") problem = kafkaDeliveryProblem(n.options, checkpointIntervalMs);
    else if (n.connector === "filesystem" && n.options.format === "arrow")
      problem =
        "format 'arrow' has no exactly-once mode (its file is written as it goes and finished at close): use 'at-least-once' or a line format";
    else if (checkpointIntervalMs <= 0)
      problem =
        "'sink.delivery-guarantee' = 'exactly-once' commits at checkpoints: enable checkpointing (SET 'execution.checkpointing.interval' = '10 s' and 'execution.checkpointing.dir'), or use 'at-least-once'";
    if (problem !== null) out.push(`sink ${n.table}: ${problem}`);
  }
  return out;
}
