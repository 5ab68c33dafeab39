import { createHash } from "node:crypto";
import type { PhysicalDag } from "@weir/planner";
import { PHYSICAL_DAG_VERSION } from "@weir/planner";
import type { StateSnapshot } from "../state/api.js";
import { isDeferredSnapshot, STATE_SNAPSHOT_VERSION } from "../state/api.js";
import type { EncodedNumber, Json } from "../state/codec.js";
import type { WatermarkTrackerSnapshot } from "../time/watermarks.js";
import { incompatibility, type TaskLayout } from "./compat.js";
import type { JobMetrics } from "./metrics.js";

/**
 * 2: per-job directories (`jobId`), trigger `timestamp`, operator state in handle files, tasks
 * keyed by their stable uid with a `layout` that decides whether a later plan fits.
 */
export const JOB_CHECKPOINT_VERSION = 2;

/**
 * One consistent cut of a running job, as plain JSON: every source's position (the next record
 * after the cut) and watermark state, every operator's state after exactly the records before the
 * cut, every sink's pre-committed transaction, and the cumulative metrics. A job restored from it
 * produces, after the cut, exactly what the original job produced after it.
 */
export interface JobCheckpoint {
  readonly version: number;
  /** The job that took it: its directory under the checkpoint base, kept across restores. */
  readonly jobId: string;
  readonly checkpointId: number;
  /** When the checkpoint was triggered (the job's clock, epoch ms). */
  readonly timestamp: number;
  /** {@link planFingerprint} of the DAG that took it (informational: `layout` decides fitness). */
  readonly planFingerprint: string;
  /** Every task of the plan that took it, by uid (see `compat.ts`). */
  readonly layout: { readonly [uid: string]: TaskLayout };
  readonly dagVersion: number;
  readonly stateVersion: number;
  /** By task uid. */
  readonly sources: { readonly [uid: string]: SourceCheckpoint };
  readonly operators: { readonly [uid: string]: OperatorCheckpoint };
  readonly sinks: { readonly [uid: string]: SinkCheckpoint };
  readonly metrics: JobMetrics;
  /** Where the sources' round robin continues (absent in checkpoints of older runs: 0). */
  readonly pollCursor?: number;
}

/** What a source adds to a checkpoint (its task's `onBarrier`). */
export interface SourceCheckpoint {
  /** The reader's position, the next record after the cut: the connector's own JSON. */
  readonly position: Json;
  /** The per-split watermark tracker's state. */
  readonly watermarks: WatermarkTrackerSnapshot;
  /** The source had ended (a restore ends it again without polling). */
  readonly ended: boolean;
}

export interface OperatorCheckpoint {
  readonly state: StateSnapshot;
  /** The last watermark the operator processed and the last it forwarded. */
  readonly watermark: EncodedNumber;
  readonly forwarded: EncodedNumber;
}

/** What a sink adds to a checkpoint (its task's `onBarrier`). */
export interface SinkCheckpoint {
  /** What `preCommit` returned, the connector's own JSON (null for a sink without two-phase commit). */
  readonly preCommitted: Json;
}

/**
 * Ends the copy-on-write of `cp`'s operator states (a checkpoint taken with `copyOnWrite`): the
 * states that were not read as a whole can no longer be read.
 */
export function releaseCheckpoint(cp: JobCheckpoint): void {
  for (const oc of Object.values(cp.operators)) if (isDeferredSnapshot(oc.state)) oc.state.release();
}

/**
 * A hash of what determines the meaning of state: the nodes and sinks, without source spans (a
 * comment added to the script does not change the plan) and without settings.
 */
export function planFingerprint(dag: PhysicalDag): string {
  const text = JSON.stringify({ version: dag.version, nodes: dag.nodes, sinks: dag.sinks }, (key, value) =>
    key === "span" ? undefined : value,
  );
  return createHash("sha256").update(text).digest("hex").slice(0, 32);
}

/**
 * Throws a message saying what does not fit when `cp` cannot be restored into `dag`: another
 * format, plan or state version, another job, or tasks whose state changed (named, with why).
 */
export function checkRestorable(cp: JobCheckpoint, dag: PhysicalDag): void {
  const problem = restoreProblem(cp, dag);
  if (problem !== null) throw new Error(`cannot restore checkpoint ${cp.checkpointId}: ${problem}`);
}

/** Why `cp` cannot be restored into `dag`, or null when it fits. */
export function restoreProblem(cp: JobCheckpoint, dag: PhysicalDag): string | null {
  if (cp.version !== JOB_CHECKPOINT_VERSION)
    return `it has format version ${cp.version}, this Weir reads version ${JOB_CHECKPOINT_VERSION}`;
  if (cp.dagVersion !== PHYSICAL_DAG_VERSION || cp.stateVersion !== STATE_SNAPSHOT_VERSION)
    return `it was taken with plan version ${cp.dagVersion} and state version ${cp.stateVersion}, this Weir uses ${PHYSICAL_DAG_VERSION} and ${STATE_SNAPSHOT_VERSION}`;
  const problem = incompatibility(cp.layout ?? {}, dag, (uid) => {
    if (cp.sources[uid] !== undefined || cp.sinks[uid] !== undefined) return true;
    const op = cp.operators[uid];
    if (op === undefined) return false;
    if (op.state.native !== undefined) return !op.state.native.empty;
    return Object.values(op.state.tables).some((t) => !isEmptyTable(t));
  });
  return problem === null
    ? null
    : `${problem} — the state of a changed query cannot be reused; start without the checkpoint`;
}

function isEmptyTable(t: StateSnapshot["tables"][string]): boolean {
  switch (t.kind) {
    case "time":
      return t.buckets.length === 0;
    case "timers":
      return t.eventTime.length === 0 && t.processingTime.length === 0;
    default:
      return t.entries.length === 0;
  }
}
