import { E, type Expr, inputsOf, remapInputs } from "../expr.js";
import type { LogicalFilter, LogicalJoin, LogicalNode } from "../logical.js";
import { T } from "../types.js";
import { and, conjuncts, substitute } from "./exprs.js";

/**
 * Predicate push-down, a logical rewrite run before translation: each conjunct of a WHERE (or of
 * a join's ON) moves as close to the scan as it can go without changing the result, so fewer
 * rows reach the joins and aggregates that keep state.
 *
 * - Through a projection: the conjunct is rewritten over the projection's input.
 * - Into a join: conjuncts on one side only go into that side — both sides for an inner join,
 *   the preserved side for the WHERE of an outer join, the null-producing side for its ON;
 *   conjuncts on both sides of an inner join join its ON condition.
 * - Into each input of a UNION ALL, and below an aggregate when they read group keys only.
 *
 * Never moved: a filter on a ranking function's result (it roots a Top-N), anything below an OVER
 * or into a window's aggregation, and non-deterministic conjuncts.
 */
export function pushDownPredicates(node: LogicalNode): LogicalNode {
  switch (node.kind) {
    case "filter":
      return pushFilter(node);
    case "join":
      return pushJoin(node, []);
    default:
      return withInputs(node, childrenOf(node).map(pushDownPredicates));
  }
}

const NONDETERMINISTIC = new Set([
  "RAND",
  "RAND_INTEGER",
  "UUID",
  "PROCTIME",
  "NOW",
  "CURRENT_TIMESTAMP",
  "CURRENT_WATERMARK",
]);

function deterministic(e: Expr): boolean {
  switch (e.kind) {
    case "call":
      return !NONDETERMINISTIC.has(e.fn) && e.args.every(deterministic);
    case "cast":
      return deterministic(e.expr);
    case "case":
      return (
        e.whens.every((w) => deterministic(w.when) && deterministic(w.result)) &&
        (e.otherwise === null || deterministic(e.otherwise))
      );
    case "field":
      return deterministic(e.expr);
    default:
      return true;
  }
}

function filter(input: LogicalNode, preds: readonly Expr[], span?: LogicalFilter["span"]): LogicalNode {
  const condition = and(preds);
  if (condition === null) return input;
  return { kind: "filter", input, condition, schema: input.schema, ...(span ? { span } : {}) };
}

function isRankFilterInput(node: LogicalNode): boolean {
  const inner = node.kind === "project" ? node.input : node;
  return inner.kind === "over";
}

function pushFilter(node: LogicalFilter): LogicalNode {
  const preds = conjuncts(node.condition);
  const movable = preds.filter(deterministic);
  const fixed = preds.filter((p) => !deterministic(p));
  const input = node.input;
  // A filter over an OVER (directly or through a projection) may be a Top-N: keep its shape.
  if (isRankFilterInput(input) || movable.length === 0) {
    return filter(pushDownPredicates(input), preds, node.span);
  }
  switch (input.kind) {
    case "project": {
      const below = movable.map((p) => substitute(p, input.exprs));
      const moved = withInputs(input, [pushDownPredicates(filter(input.input, below, node.span))]);
      return filter(moved, fixed, node.span);
    }
    case "filter":
      return pushDownPredicates(filter(input.input, [...conjuncts(input.condition), ...preds], node.span));
    case "join":
      return filter(pushJoin(input, movable), fixed, node.span);
    case "union": {
      const inputs = input.inputs.map((i) => pushDownPredicates(filter(i, movable, node.span)));
      return filter({ ...input, inputs }, fixed, node.span);
    }
    case "aggregate": {
      if (input.groupingSets || input.groupWindow) break;
      const k = input.groupKeys.length;
      const onKeys = movable.filter((p) => [...inputsOf(p)].every((c) => c < k));
      if (onKeys.length === 0) break;
      const rest = preds.filter((p) => !onKeys.includes(p));
      const below = onKeys.map((p) => remapInputs(p, (c) => input.groupKeys[c]!));
      const moved = { ...input, input: pushDownPredicates(filter(input.input, below, node.span)) };
      return filter(moved, rest, node.span);
    }
    default:
      break;
  }
  return filter(pushDownPredicates(input), preds, node.span);
}

/** Pushes `where` (conjuncts over the join's output) and the join's own ON conjuncts. */
function pushJoin(join: LogicalJoin, where: readonly Expr[]): LogicalNode {
  const lw = join.left.schema.length;
  const side = (p: Expr): "left" | "right" | "both" | "none" => {
    const cols = [...inputsOf(p)];
    if (cols.length === 0) return "none";
    if (cols.every((c) => c < lw)) return "left";
    if (cols.every((c) => c >= lw)) return "right";
    return "both";
  };
  const toRight = (p: Expr) => remapInputs(p, (c) => c - lw);
  const leftPreds: Expr[] = [];
  const rightPreds: Expr[] = [];
  const on: Expr[] = [];
  const above: Expr[] = [];
  const t = join.joinType;
  const temporal = join.temporal !== undefined;
  // WHERE conjuncts: a side may take them when its rows are never null-extended in the output.
  const semi = t === "semi" || t === "anti";
  for (const p of where) {
    const s = side(p);
    if (s === "left" && (t === "inner" || t === "left" || semi)) leftPreds.push(p);
    else if (s === "right" && (t === "inner" || t === "right") && !temporal) rightPreds.push(toRight(p));
    else if (s === "both" && t === "inner" && !temporal) on.push(p);
    else above.push(p);
  }
  // ON conjuncts: one side's may go into that side when that side is the one being matched
  // (inner: both; left join: the right side; right join: the left side).
  for (const p of conjuncts(join.condition)) {
    const s = side(p);
    if (!deterministic(p) || temporal || semi) on.push(p);
    else if (s === "left" && (t === "inner" || t === "right")) leftPreds.push(p);
    else if (s === "right" && (t === "inner" || t === "left")) rightPreds.push(toRight(p));
    else on.push(p);
  }
  const left = pushDownPredicates(filter(join.left, leftPreds));
  const right = pushDownPredicates(filter(join.right, rightPreds));
  const condition = join.condition === null && on.length === 0 ? null : (and(on) ?? trueLiteral());
  const rebuilt: LogicalJoin = { ...join, left, right, condition };
  return filter(rebuilt, above, join.span);
}

/** `TRUE`, for a join whose every ON conjunct moved into its inputs. */
function trueLiteral(): Expr {
  return E.literal(true, T.boolean(false));
}

function childrenOf(node: LogicalNode): LogicalNode[] {
  switch (node.kind) {
    case "scan":
    case "values":
      return [];
    case "join":
    case "setop":
      return [node.left, node.right];
    case "union":
      return [...node.inputs];
    default:
      return [node.input];
  }
}

function withInputs(node: LogicalNode, children: readonly LogicalNode[]): LogicalNode {
  switch (node.kind) {
    case "scan":
    case "values":
      return node;
    case "join":
    case "setop":
      return { ...node, left: children[0]!, right: children[1]! };
    case "union":
      return { ...node, inputs: children };
    default:
      return { ...node, input: children[0]! } as LogicalNode;
  }
}
