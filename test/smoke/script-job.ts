// Shared by the smoke and differential suites: plans a SQL script (CREATE TABLEs and one SELECT)
// with the planner's script compiler and runs it as a `Job` driven poll by poll, with an optional checkpoint
// (serialised through JSON) and a restore into a fresh job in the middle.
import { createConnectorRegistry, printChange } from "@weir/connectors";
import type { Field, PhysicalDag } from "@weir/planner";
import { Job, type JobCheckpoint, type Op, type Row, releaseCheckpoint } from "@weir/runtime";
import { compileSql } from "../support/plan.js";

export interface Change {
  readonly op: Op;
  readonly row: Row;
}

/** Plans a script whose statements are DDL/SET and exactly one bare SELECT (a collect sink). */
export function planScript(source: string, file: string, _cwd: string): PhysicalDag {
  const { dag, results } = compileSql(source, { file });
  if (results.some((r) => r.kind === "job"))
    throw new Error(`${file}: smoke scripts end in one bare SELECT (collected), not INSERT`);
  const queries = results.filter((r) => r.kind === "query").length;
  if (queries !== 1) throw new Error(`${file}: expected exactly one SELECT, got ${queries}`);
  return dag;
}

export interface RunOptions {
  readonly cwd: string;
  /** Rows per source poll (small, so that a run has many polls). */
  readonly pollBatchSize: number;
  /** Take a checkpoint after this many polls, close the job and continue in a restored one. */
  readonly checkpointAfterPolls?: number;
  readonly settings?: Readonly<Record<string, string>>;
}

export interface RunResult {
  readonly changes: Change[];
  readonly schema: readonly Field[];
  /** Changes emitted before the checkpoint (only with `checkpointAfterPolls`). */
  readonly beforeCheckpoint: number;
  readonly polls: number;
  /** Late records dropped, summed over the operators. */
  readonly lateDropped: number;
  /** Late records routed to side-output tables, summed over the operators. */
  readonly lateRouted: number;
  /** Late records that corrected an emitted result ('late.policy' update/retract), summed. */
  readonly lateUpdated: number;
}

/**
 * Processing time is a logical clock: 1 s per poll (it starts at 1 s and is carried over the
 * restore), so PROCTIME, state TTL and idleness are deterministic and independent of the machine.
 */
const POLL_MS = 1000;
/** Polls processed after a copy-on-write checkpoint before it is serialised and the job restarted. */
const AFTER_CHECKPOINT_POLLS = 2;

/** Runs the planned script to the end; the JSON round trip of the checkpoint is part of the test. */
export async function runDag(dag: PhysicalDag, o: RunOptions): Promise<RunResult> {
  const changes: Change[] = [];
  let schema: readonly Field[] = [];
  let polls = 0;
  const now = (): number => (polls + 1) * POLL_MS;
  const connectors = createConnectorRegistry({ clock: now });
  const start = (restoreFrom?: JobCheckpoint): Job =>
    new Job(dag, {
      connectors,
      cwd: o.cwd,
      now,
      pollBatchSize: o.pollBatchSize,
      ...(o.settings ? { settings: o.settings } : {}),
      ...(restoreFrom ? { restoreFrom } : {}),
      collect: (batch, s) => {
        schema = s;
        for (let i = 0; i < batch.length; i++) changes.push({ op: batch.ops[i] as Op, row: batch.rows[i]! });
      },
    });
  let job = start();
  await job.open();
  let beforeCheckpoint = -1;
  try {
    while (!job.finished) {
      const kind = await job.step();
      if (kind === null) break;
      polls++;
      job.tick(true);
      await job.flushSinks();
      if (polls === o.checkpointAfterPolls) {
        // Copy-on-write, as `weir run` takes it: the job goes on for a few polls (changing the
        // state the snapshot must not see) before the checkpoint is serialised; then the job
        // "crashes" and a fresh one restores it, its output and clock cut back to the barrier.
        const cow = await job.checkpoint(undefined, { copyOnWrite: true });
        await job.commit(cow);
        beforeCheckpoint = changes.length;
        const pollsAtCheckpoint = polls;
        for (let i = 0; i < AFTER_CHECKPOINT_POLLS && !job.finished; i++) {
          if ((await job.step()) === null) break;
          polls++;
          job.tick(true);
          await job.flushSinks();
        }
        const cp = JSON.parse(JSON.stringify(cow)) as JobCheckpoint;
        releaseCheckpoint(cow);
        await job.close();
        changes.length = beforeCheckpoint;
        polls = pollsAtCheckpoint;
        job = start(cp);
        await job.open();
      }
    }
    await job.flushSinks(true);
  } finally {
    await job.close();
  }
  if (o.checkpointAfterPolls !== undefined && beforeCheckpoint < 0)
    throw new Error(`the job ended after ${polls} polls, before the checkpoint at ${o.checkpointAfterPolls}`);
  let lateDropped = 0;
  let lateRouted = 0;
  let lateUpdated = 0;
  for (const m of Object.values(job.metrics().operators)) {
    lateDropped += m.lateRecordsDropped;
    lateRouted += m.lateRecordsRouted ?? 0;
    lateUpdated += m.lateRecordsUpdated ?? 0;
  }
  return { changes, schema, beforeCheckpoint, polls, lateDropped, lateRouted, lateUpdated };
}

/** One change in the print connector's form: `+I[2020-04-15 08:00, 11.00]`. */
export function printed(c: Change, schema: readonly Field[]): string {
  return printChange("", c.op, c.row, schema);
}
