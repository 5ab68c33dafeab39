import type { ConnectorCatalog } from "../catalog/connector-catalog.js";
import type { Expr } from "../expr.js";
import type { CalcNode, ChangelogMode, Field, PhysicalNode, SourceSpan } from "../physical.js";
import { isTimeAttribute } from "../types.js";
import { and, isIdentity, substitute } from "./exprs.js";

const NONDETERMINISTIC = new Set(["RAND", "RAND_INTEGER", "UUID"]);

export function hasNondeterministic(e: Expr): boolean {
  switch (e.kind) {
    case "call":
      return NONDETERMINISTIC.has(e.fn) || e.args.some(hasNondeterministic);
    case "cast":
      return hasNondeterministic(e.expr);
    case "case":
      return (
        e.whens.some((w) => hasNondeterministic(w.when) || hasNondeterministic(w.result)) ||
        (e.otherwise !== null && hasNondeterministic(e.otherwise))
      );
    case "field":
      return hasNondeterministic(e.expr);
    default:
      return false;
  }
}

export const INSERT_ONLY: ChangelogMode = { kind: "insert-only" };
export const RETRACT: ChangelogMode = { kind: "retract" };

export function isInsertOnly(node: PhysicalNode): boolean {
  return node.changelogMode.kind === "insert-only";
}

/** Distributes `Omit` over the node union so each kind keeps its own fields. */
export type NodeInit<N extends PhysicalNode> = N extends PhysicalNode ? Omit<N, "id"> : never;

/** Appends physical nodes in topological order, giving each the next id. */
export class DagBuilder {
  readonly nodes: PhysicalNode[] = [];

  constructor(
    readonly settings: Readonly<Record<string, string>>,
    /** The connectors' specs: what a scan produces, what a sink takes, which tables a lookup reads. */
    readonly connectors: ConnectorCatalog,
  ) {}

  add<N extends PhysicalNode>(init: NodeInit<N>): N {
    const node = { ...init, id: this.nodes.length } as unknown as N;
    this.nodes.push(node);
    return node;
  }

  /**
   * A calc over `input`; returns `input` itself when the projection is the identity and there is
   * no condition. Stream key and watermark column follow the columns that are projected as plain
   * references (a key column that is dropped or computed leaves the key unknown).
   */
  calc(
    input: PhysicalNode,
    projections: readonly Expr[],
    condition: Expr | null,
    names: readonly string[] | null,
    span?: SourceSpan,
  ): PhysicalNode {
    if (condition === null && isIdentity(projections, input.schema.length)) {
      const sameNames = names === null || names.every((n, i) => n === input.schema[i]!.name);
      if (sameNames) return input;
    }
    // Fuse with a calc just built for this consumer alone: one compiled function per row.
    const last = this.nodes[this.nodes.length - 1];
    if (input.kind === "calc" && last === input && !input.projections.some(hasNondeterministic)) {
      this.nodes.pop();
      const below = this.node(input.inputs[0]!);
      const fused = projections.map((e) => substitute(e, input.projections));
      const cond = condition === null ? null : substitute(condition, input.projections);
      const merged = and([...(input.condition ? [input.condition] : []), ...(cond ? [cond] : [])]);
      const fusedNames =
        names ?? projections.map((e, i) => (e.kind === "input" ? input.schema[e.index]!.name : `EXPR$${i}`));
      return this.calc(below, fused, merged, fusedNames, span ?? input.span);
    }
    const schema: Field[] = projections.map((e, i) => ({
      name: names?.[i] ?? (e.kind === "input" ? input.schema[e.index]!.name : `EXPR$${i}`),
      type: e.type,
    }));
    const position = (col: number): number =>
      projections.findIndex((e) => e.kind === "input" && e.index === col);
    let streamKey: number[] | null = null;
    if (input.streamKey) {
      const mapped = input.streamKey.map(position);
      streamKey = mapped.every((i) => i >= 0) ? mapped : null;
    }
    let watermarkColumn: number | null = null;
    if (input.watermarkColumn !== null) {
      const p = position(input.watermarkColumn);
      if (p >= 0 && isTimeAttribute(schema[p]!.type)) watermarkColumn = p;
    }
    return this.add<CalcNode>({
      kind: "calc",
      inputs: [input.id],
      schema,
      changelogMode: input.changelogMode,
      streamKey,
      watermarkColumn,
      projections,
      condition,
      ...(span ? { span } : {}),
    });
  }

  node(id: number): PhysicalNode {
    const n = this.nodes[id];
    if (!n) throw new Error(`no physical node ${id}`);
    return n;
  }
}
