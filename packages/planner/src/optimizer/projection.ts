import { inputsOf } from "../expr.js";
import type { PhysicalNode, SourceNode } from "../physical.js";

/**
 * Projection push-down into scans: a source whose every consumer is a calc learns which of its
 * columns the query reads (`projectedColumns`), so a format can leave the others unread. The
 * columns the source itself needs stay in: the watermark's, and the inputs of every computed
 * column that is read (transitively). Operators downstream still see full-width rows; columns
 * outside the projection are NULL.
 */
export function pushProjectionsIntoSources(nodes: readonly PhysicalNode[]): PhysicalNode[] {
  const consumers = new Map<number, PhysicalNode[]>();
  for (const n of nodes) {
    for (const i of n.inputs) consumers.set(i, [...(consumers.get(i) ?? []), n]);
  }
  return nodes.map((n) => {
    if (n.kind !== "source") return n;
    const users = consumers.get(n.id) ?? [];
    if (users.length === 0 || users.some((u) => u.kind !== "calc")) return n;
    const used = new Set<number>();
    for (const u of users) {
      if (u.kind !== "calc") continue;
      for (const p of u.projections) inputsOf(p, used);
      if (u.condition) inputsOf(u.condition, used);
    }
    return withProjection(n, used);
  });
}

function withProjection(n: SourceNode, used: Set<number>): SourceNode {
  if (n.watermark) {
    used.add(n.watermark.column);
    inputsOf(n.watermark.expr, used);
  }
  if (n.primaryKey) for (const k of n.primaryKey) used.add(k);
  // Quality rules read their columns for every row, whatever the query reads.
  for (const c of n.quality?.checks ?? []) inputsOf(c.expr, used);
  for (const i of n.quality?.requireZoneColumns ?? []) used.add(i);
  // Computed columns read other columns of the same row: keep what they read, transitively.
  for (let changed = true; changed; ) {
    changed = false;
    for (const c of [...used]) {
      const col = n.columns[c];
      if (col?.kind !== "computed") continue;
      for (const i of inputsOf(col.expr)) {
        if (!used.has(i)) {
          used.add(i);
          changed = true;
        }
      }
    }
  }
  if (used.size >= n.schema.length) return n;
  return { ...n, projectedColumns: [...used].sort((a, b) => a - b) };
}
