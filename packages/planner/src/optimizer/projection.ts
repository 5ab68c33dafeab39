import type { Expr } from "../expr.js";
import type { PhysicalNode, SourceNode } from "../physical.js";
import type { DataType } from "../types.js";

/**
 * Projection push-down into scans: a source whose every consumer is a calc learns which of its
 * columns the query reads (`projectedColumns`), so a format can leave the others unread. The
 * columns the source itself needs stay in: the watermark's, and the inputs of every computed
 * column that is read (transitively). Operators downstream still see full-width rows; columns
 * outside the projection are NULL.
 *
 * Nested projection push-down (Flink's `SupportsProjectionPushDown` with nested fields): of a
 * ROW column that is read only through field accesses (`bid.price`, `a.b.c`), only the fields
 * reached are listed (`projectedPaths`); a format may leave the other fields of the row NULL
 * (the row itself stays a full-width row, non-null where it was). Wherever the ROW value itself
 * is used (selected, compared, passed to a function, `IS NULL`, a primary key...), the column
 * is read whole.
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
    const used: Used = new Map();
    for (const u of users) {
      if (u.kind !== "calc") continue;
      for (const p of u.projections) readsOf(p, used);
      if (u.condition) readsOf(u.condition, used);
    }
    return withProjection(n, used);
  });
}

/** What is read of a value: all of it (`WHOLE`), or of a ROW, these fields by position. */
type Read = typeof WHOLE | Map<number, Read>;
const WHOLE = "whole" as const;
/** Per input column, what is read of it. */
type Used = Map<number, Read>;

function mark(used: Used, column: number, path: readonly number[]): void {
  let into: Map<number, Read> = used;
  let key = column;
  for (const f of path) {
    const cur = into.get(key);
    if (cur === WHOLE) return;
    let next = cur;
    if (next === undefined) {
      next = new Map();
      into.set(key, next);
    }
    into = next;
    key = f;
  }
  into.set(key, WHOLE);
}

/** Records in `used` what `expr` reads of its inputs: a chain of field accesses reads only its path. */
function readsOf(expr: Expr, used: Used): Used {
  switch (expr.kind) {
    case "input":
      mark(used, expr.index, []);
      break;
    case "literal":
      break;
    case "call":
      for (const a of expr.args) readsOf(a, used);
      break;
    case "cast":
      readsOf(expr.expr, used);
      break;
    case "case":
      for (const w of expr.whens) {
        readsOf(w.when, used);
        readsOf(w.result, used);
      }
      if (expr.otherwise) readsOf(expr.otherwise, used);
      break;
    case "field": {
      const path: number[] = [];
      let e: Expr = expr;
      while (e.kind === "field") {
        path.push(e.index);
        e = e.expr;
      }
      if (e.kind === "input" && e.type.kind === "ROW") mark(used, e.index, path.reverse());
      else readsOf(e, used);
      break;
    }
    default: {
      const _exhaustive: never = expr;
      return _exhaustive;
    }
  }
  return used;
}

function withProjection(n: SourceNode, used: Used): SourceNode {
  if (n.watermark) {
    mark(used, n.watermark.column, []);
    readsOf(n.watermark.expr, used);
  }
  if (n.primaryKey) for (const k of n.primaryKey) mark(used, k, []);
  // Quality rules read their columns for every row, whatever the query reads.
  for (const c of n.quality?.checks ?? []) readsOf(c.expr, used);
  for (const i of n.quality?.requireZoneColumns ?? []) mark(used, i, []);
  // Computed columns read other columns of the same row: keep what they read, transitively.
  const done = new Set<number>();
  for (let changed = true; changed; ) {
    changed = false;
    for (const c of [...used.keys()]) {
      const col = n.columns[c];
      if (col?.kind !== "computed" || done.has(c)) continue;
      done.add(c);
      readsOf(col.expr, used);
      changed = true;
    }
  }
  const paths: number[][] = [];
  for (const [c, read] of used) {
    const whole = read === WHOLE || covers(read, n.schema[c]!.type);
    if (whole) used.set(c, WHOLE);
    else if (n.columns[c]?.kind === "physical") pathsOf(read, [c], paths);
  }
  paths.sort(comparePaths);
  if (used.size >= n.schema.length && paths.length === 0) return n;
  const projected: SourceNode = { ...n, projectedColumns: [...used.keys()].sort((a, b) => a - b) };
  return paths.length === 0 ? projected : { ...projected, projectedPaths: paths };
}

/** Whether `read` reads every field of the ROW type `t`, each whole (then it reads `t` whole). */
function covers(read: Map<number, Read>, t: DataType): boolean {
  if (t.kind !== "ROW") return true;
  let all = read.size === t.fields.length;
  for (const [f, sub] of read) {
    if (sub === WHOLE) continue;
    if (covers(sub, t.fields[f]!.type)) read.set(f, WHOLE);
    else all = false;
  }
  return all;
}

function pathsOf(read: Map<number, Read>, prefix: readonly number[], out: number[][]): void {
  for (const [f, sub] of read) {
    if (sub === WHOLE) out.push([...prefix, f]);
    else pathsOf(sub, [...prefix, f], out);
  }
}

function comparePaths(a: readonly number[], b: readonly number[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return a.length - b.length;
}
