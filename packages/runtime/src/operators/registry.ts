import type { ChangelogMode, LookupJoinNode, PhysicalNode, PhysicalNodeKind } from "@weir/planner";
import type { LookupSource } from "../connector.js";
import type { Operator } from "../operator.js";

/** A node of one kind. */
export type NodeOfKind<K extends PhysicalNodeKind> = Extract<PhysicalNode, { kind: K }>;

/**
 * What the job knows about a node's surroundings when it builds the operator: the changelog mode
 * of each input (so an operator can drop state that an insert-only input can never retract).
 */
export interface OperatorBuildInfo {
  readonly inputModes: readonly ChangelogMode[];
  /** The connectors' lookup sources (for a lookup join's dimension table). */
  readonly lookup?: (node: LookupJoinNode) => LookupSource;
}

export type KindFactory<K extends PhysicalNodeKind> = (
  node: NodeOfKind<K>,
  info: OperatorBuildInfo,
) => Operator;

/** Kinds that the job runs itself rather than through an operator. */
const BUILT_IN = new Set<PhysicalNodeKind>(["source", "sink"]);

/**
 * What a restore needs to know about an operator's state (see `job/compat.ts`): `stateVersion`
 * (default 1) is bumped whenever the operator changes the layout or meaning of its state tables,
 * so a checkpoint of the old layout is refused; `stateless` operators (no state tables) fit any
 * checkpoint whatever their expressions.
 */
export interface OperatorStateInfo {
  readonly stateVersion?: number;
  readonly stateless?: boolean;
}

const factories = new Map<PhysicalNodeKind, KindFactory<PhysicalNodeKind>>();
const stateInfo = new Map<PhysicalNodeKind, OperatorStateInfo>();

/**
 * Registers the operator for a node kind. Each operator module registers its kinds when it is
 * imported (`operators/index.ts` imports them all); registering a kind twice is a bug.
 */
export function registerOperator<K extends PhysicalNodeKind>(
  kind: K,
  factory: KindFactory<K>,
  info: OperatorStateInfo = {},
): void {
  if (BUILT_IN.has(kind)) throw new Error(`node kind '${kind}' is run by the job, not by an operator`);
  if (factories.has(kind)) throw new Error(`an operator for node kind '${kind}' is registered twice`);
  factories.set(kind, factory as unknown as KindFactory<PhysicalNodeKind>);
  stateInfo.set(kind, info);
}

/** The state facts of a node kind's operator (sources and sinks: version 1, stateful). */
export function operatorStateInfo(kind: PhysicalNodeKind): Required<OperatorStateInfo> {
  const i = stateInfo.get(kind) ?? {};
  return { stateVersion: i.stateVersion ?? 1, stateless: i.stateless ?? false };
}

/** Builds the operator for `node`; throws a clear error when no operator runs its kind. */
export function createOperator(node: PhysicalNode, info: OperatorBuildInfo): Operator {
  const f = factories.get(node.kind);
  if (f === undefined) {
    throw new Error(
      `the runtime has no operator for plan node '${node.kind}' (node ${node.id}); registered: ${[...factories.keys()].sort().join(", ")}`,
    );
  }
  return f(node, info);
}

export function registeredOperatorKinds(): PhysicalNodeKind[] {
  return [...factories.keys()].sort();
}
