import { E, type Expr, inputsOf } from "../expr.js";
import type { PhysicalNode } from "../physical.js";
import { hasNondeterministic } from "./builder.js";
import { refs, substitute } from "./exprs.js";
import type { Translator } from "./translate.js";

/** An equality between an expression of the left columns and one of the right columns. */
export interface ComputedKey {
  /** Over the left input's columns. */
  readonly left: Expr;
  /** Over the right input's columns (indices relative to the right input). */
  readonly right: Expr;
  readonly pred: Expr;
}

/**
 * Equalities `f(left) = g(right)` where at least one side is computed (`MOD(b.auction, 10000) =
 * s.key`): a regular join can hash on them once each side projects the expression as a column,
 * as Flink's planner does, instead of testing the condition against every buffered row.
 * Deterministic expressions only, each reading at least one column of its own side alone.
 */
export function computedKeys(preds: readonly Expr[], leftWidth: number): ComputedKey[] {
  const keys: ComputedKey[] = [];
  const side = (e: Expr): "left" | "right" | null => {
    const cols = [...inputsOf(e)];
    if (cols.length === 0 || hasNondeterministic(e)) return null;
    if (cols.every((c) => c < leftWidth)) return "left";
    if (cols.every((c) => c >= leftWidth)) return "right";
    return null;
  };
  for (const p of preds) {
    if (p.kind !== "call" || p.fn !== "=" || p.args.length !== 2) continue;
    const [a, b] = p.args as [Expr, Expr];
    if (a.kind === "input" && b.kind === "input") continue;
    const sa = side(a);
    const sb = side(b);
    const l = sa === "left" && sb === "right" ? a : sb === "left" && sa === "right" ? b : null;
    if (l === null) continue;
    const r = l === a ? b : a;
    keys.push({ left: l, right: shift(r, -leftWidth), pred: p });
  }
  return keys;
}

function shift(e: Expr, by: number): Expr {
  return substitute(e, retype(e, [], by));
}

/** Input references of `e` keep their own types when re-indexed. */
function retype(e: Expr, map: Expr[], by: number): Expr[] {
  const visit = (x: Expr): void => {
    switch (x.kind) {
      case "input":
        map[x.index] = E.input(x.index + by, x.type);
        return;
      case "literal":
        return;
      case "call":
        for (const a of x.args) visit(a);
        return;
      case "cast":
      case "field":
        visit(x.expr);
        return;
      case "case":
        for (const w of x.whens) {
          visit(w.when);
          visit(w.result);
        }
        if (x.otherwise) visit(x.otherwise);
        return;
      default: {
        const _exhaustive: never = x;
        throw new Error(`retype: unknown expression ${JSON.stringify(_exhaustive)}`);
      }
    }
  };
  visit(e);
  return map;
}

/**
 * Each side with its computed key expressions appended as columns (`$key0`, ...), and the remap
 * of the join condition's column references onto the widened, concatenated row.
 */
export function widenSides(
  t: Translator,
  left: PhysicalNode,
  right: PhysicalNode,
  keys: readonly ComputedKey[],
): { left: PhysicalNode; right: PhysicalNode; remap: (e: Expr) => Expr } {
  const lw = left.schema.length;
  const rw = right.schema.length;
  const names = (n: PhysicalNode) => [...n.schema.map((f) => f.name), ...keys.map((_, i) => `$key${i}`)];
  const wideLeft = t.b.calc(left, [...refs(left.schema), ...keys.map((k) => k.left)], null, names(left));
  const wideRight = t.b.calc(right, [...refs(right.schema), ...keys.map((k) => k.right)], null, names(right));
  const k = keys.length;
  const targets = [
    ...left.schema.map((f, i) => E.input(i, f.type)),
    ...right.schema.map((f, i) => E.input(lw + k + i, f.type)),
  ];
  if (targets.length !== lw + rw) throw new Error("widenSides: width mismatch");
  return { left: wideLeft, right: wideRight, remap: (e) => substitute(e, targets) };
}
