import type * as ast from "@weir/parser";
import { fail } from "./errors.js";

/**
 * How deep a statement's syntax tree may nest (one level per operator of `a + a + …`, per
 * `AND` / `OR` of a condition, per `UNION ALL` branch, per nested subquery). The binder, the
 * planner and the expression compiler recurse over the tree; past this depth they could exhaust
 * the stack, so a deeper statement is refused where it gets too deep, before any of them runs.
 * The parser itself accepts any depth.
 */
export const MAX_STATEMENT_DEPTH = 1000;

interface Node {
  readonly kind: string;
  readonly span?: ast.Span;
}

function isNode(v: unknown): v is Node {
  return typeof v === "object" && v !== null && typeof (v as { kind?: unknown }).kind === "string";
}

/** Fails with a positioned error when `stmt` nests deeper than {@link MAX_STATEMENT_DEPTH}. */
export function checkStatementDepth(stmt: ast.Statement): void {
  // Iterative: the check itself must not overflow on the input it refuses.
  const stack: [unknown, number, ast.Span | undefined][] = [[stmt, 0, stmt.span]];
  while (stack.length > 0) {
    const [value, depth, near] = stack.pop()!;
    if (Array.isArray(value)) {
      for (const v of value) stack.push([v, depth, near]);
      continue;
    }
    if (!isNode(value)) continue;
    const span = value.span ?? near;
    if (depth > MAX_STATEMENT_DEPTH && span !== undefined) {
      fail(
        "statement-too-large",
        `the statement is too large: its expressions or queries nest deeper than ${MAX_STATEMENT_DEPTH} levels here (each operator of a chain such as a + a + … or x AND y AND …, and each UNION ALL branch, is one level)`,
        span,
        "split it: compute parts in views or WITH clauses, write long OR lists of equalities as IN (...), and long UNION ALL chains as a few views of fewer branches",
      );
    }
    for (const key in value) {
      if (key === "span") continue;
      const child = (value as unknown as Record<string, unknown>)[key];
      if (typeof child === "object" && child !== null) stack.push([child, depth + 1, span]);
    }
  }
}
