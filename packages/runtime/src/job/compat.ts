import { createHash } from "node:crypto";
import type { PhysicalDag, PhysicalNode } from "@weir/planner";
import "../operators/index.js";
import { operatorStateInfo } from "../operators/registry.js";
import { describeNode } from "./errors.js";

/**
 * Whether a checkpoint fits a job, the way Flink's compiled plans decide it: every task has a
 * stable id (its uid) derived from its place in the DAG — not from its node number, its
 * expressions or its options — and a state descriptor: its kind's state schema version (from the
 * operator registry) and a hash of each part of the node that determines the meaning of its
 * state. A restore matches tasks by uid; a task whose descriptor differs is named with the parts
 * that changed. Stateless operators (calc, union, expand, unnest) fit whatever their expressions.
 * Connector options that do not change what a position or a transaction means — credentials,
 * URLs, broker lists, buffer and flush sizes, restore and startup policies — are left out.
 */

/** What the checkpoint records about one task, to check a later plan against. */
export interface TaskLayout {
  readonly kind: string;
  /** The node id in the plan that took the checkpoint (its metrics are keyed by it). */
  readonly node: number;
  /** `calc (node 3, line 4, column 8)`, for messages. */
  readonly describe: string;
  readonly stateVersion: number;
  readonly stateless: boolean;
  /** Per part of the node that determines its state, a hash. */
  readonly parts: { readonly [part: string]: string };
}

/**
 * Connector options that never change the meaning of a source position or a sink transaction.
 * Matched against the option key.
 */
const NON_STATE_OPTION =
  /(password|secret|token|credential|sasl|ssl|jaas|username|^user$|^url$|\.url$|hostname|^host$|^port$|bootstrap\.servers|brokers|^properties\.|buffer|flush|batch-size|fetch-size|max-retries|retry|timeout|linger|parallelism|cache|^scan\.restore\.|^scan\.startup\.|^scan\.bounded\.|^scan\.watermark\.idle-|^scan\.topic-partition-discovery\.|^source\.monitor-interval$|^sink\.create-table$)/i;

/** Node keys that never determine state (positions, derived facts of the plan). */
const SKIPPED_KEYS = new Set(["id", "inputs", "span", "projectedColumns", "projectedPaths"]);

/** Source and sink keys that determine their state; everything else about them does not. */
const CONNECTOR_KEYS = new Set(["table", "connector", "options"]);

/** Stable ids for every node of `dag`, by node id. */
export function taskUids(dag: PhysicalDag): Map<number, string> {
  const uids = new Map<number, string>();
  const seen = new Map<string, number>();
  for (const n of dag.nodes) {
    const base = [
      n.kind,
      n.kind === "source" || n.kind === "sink" ? n.table : "",
      ...n.inputs.map((i) => uids.get(i)),
    ];
    const h = hash(JSON.stringify(base)).slice(0, 16);
    const k = seen.get(h) ?? 0;
    seen.set(h, k + 1);
    uids.set(n.id, k === 0 ? h : `${h}-${k}`);
  }
  return uids;
}

/** The layout of every task of `dag`, by uid. */
export function taskLayouts(dag: PhysicalDag): Record<string, TaskLayout> {
  const uids = taskUids(dag);
  const out: Record<string, TaskLayout> = {};
  for (const n of dag.nodes) out[uids.get(n.id)!] = layoutOf(n);
  return out;
}

function layoutOf(n: PhysicalNode): TaskLayout {
  const connector = n.kind === "source" || n.kind === "sink";
  const info = connector ? { stateVersion: 1, stateless: false } : operatorStateInfo(n.kind);
  const parts: Record<string, string> = {};
  if (!info.stateless) {
    for (const [key, value] of Object.entries(n)) {
      if (SKIPPED_KEYS.has(key) || key === "kind") continue;
      if (connector && !CONNECTOR_KEYS.has(key)) continue;
      const v =
        key === "options"
          ? Object.fromEntries(
              Object.entries(value as Record<string, string>)
                .filter(([k]) => !NON_STATE_OPTION.test(k))
                .sort(([a], [b]) => (a < b ? -1 : 1)),
            )
          : value;
      parts[key] = hash(canonical(v)).slice(0, 16);
    }
  }
  return { kind: n.kind, node: n.id, describe: describeNode(n), ...info, parts };
}

/** JSON without names (field names and aliases never change state) and without spans. */
function canonical(v: unknown): string {
  return JSON.stringify(v, (key, value) => (key === "name" || key === "span" ? undefined : value)) ?? "null";
}

function hash(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

/** Part names as a user reads them: `groupKeys` → `group keys`. */
function human(part: string): string {
  return part.replace(/([A-Z])/g, " $1").toLowerCase();
}

/**
 * Why a checkpoint with `layout` (by uid) cannot be restored into `dag`, or null when it fits:
 * names each task that changed and how, a stateful task the checkpoint does not have, or state
 * in the checkpoint that no task of the job would take; a checkpoint that shares no source with
 * the job is from another job.
 */
export function incompatibility(
  layout: { readonly [uid: string]: TaskLayout },
  dag: PhysicalDag,
  /** Whether the checkpoint holds any state for task `uid` (a removed task without state is fine). */
  holdsState: (uid: string) => boolean = () => true,
): string | null {
  const now = taskLayouts(dag);
  const problems: string[] = [];
  let shared = 0;
  let stateful = 0;
  let sources = 0;
  let sharedSources = 0;
  for (const [uid, t] of Object.entries(now)) {
    if (!t.stateless) stateful++;
    if (t.kind === "source") {
      sources++;
      if (layout[uid]?.kind === "source") sharedSources++;
    }
    const old = layout[uid];
    if (old === undefined) {
      if (!t.stateless)
        problems.push(`${t.describe} has no state in the checkpoint (the query's shape changed)`);
      continue;
    }
    if (!t.stateless) shared++;
    if (old.kind !== t.kind) {
      problems.push(`${t.describe} was ${old.kind} in the checkpoint`);
      continue;
    }
    if (t.stateless) continue;
    if (old.stateVersion !== t.stateVersion) {
      problems.push(
        `${t.describe} keeps its state in version ${t.stateVersion}, the checkpoint holds version ${old.stateVersion}`,
      );
      continue;
    }
    const changed = Object.keys({ ...old.parts, ...t.parts }).filter((p) => old.parts[p] !== t.parts[p]);
    if (changed.length > 0)
      problems.push(`${t.describe} changed: its ${changed.map(human).join(", ")} differ`);
  }
  for (const [uid, old] of Object.entries(layout)) {
    if (now[uid] === undefined && !old.stateless && holdsState(uid))
      problems.push(`the checkpoint holds state of ${old.describe}, which this job does not have`);
  }
  // A job is its sources: one that reads none of the checkpoint's tables is another job.
  if (sources > 0 ? sharedSources === 0 : stateful > 0 && shared === 0)
    return "it is from another job (none of its sources is in this one)";
  return problems.length === 0 ? null : problems.join("; ");
}
