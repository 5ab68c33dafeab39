import type { Span } from "@weir/parser";
import type { Expr } from "../expr.js";
import { E } from "../expr.js";
import type { LogicalNode, LogicalProject } from "../logical.js";
import type { Field } from "../physical.js";
import { toSourceSpan } from "./errors.js";

/** A projection; returns `input` itself when the projection is the identity with the same names. */
export function project(
  input: LogicalNode,
  exprs: readonly Expr[],
  names: readonly string[],
  span?: Span,
): LogicalNode {
  const identity =
    exprs.length === input.schema.length &&
    exprs.every((e, i) => e.kind === "input" && e.index === i && names[i] === input.schema[i]!.name);
  if (identity) return input;
  const schema: Field[] = exprs.map((e, i) => ({ name: names[i]!, type: e.type }));
  const node: LogicalProject = { kind: "project", input, exprs, schema, ...spanOf(span) };
  return node;
}

/** Keeps the first `n` columns. */
export function keepColumns(input: LogicalNode, n: number): LogicalNode {
  const exprs = input.schema.slice(0, n).map((f, i) => E.input(i, f.type));
  return project(
    input,
    exprs,
    input.schema.slice(0, n).map((f) => f.name),
  );
}

export function spanOf(span: Span | undefined): { span?: ReturnType<typeof toSourceSpan> } {
  return span === undefined ? {} : { span: toSourceSpan(span) };
}

export function refs(schema: readonly Field[]): Expr[] {
  return schema.map((f, i) => E.input(i, f.type));
}

/**
 * Calcite's `uniquify`: a repeated name gets the first free suffix `0`, `1`, ... (`a`, `a0`, `a1`).
 */
export function uniquify(names: readonly string[]): string[] {
  const used = new Set<string>();
  const out: string[] = [];
  for (const n of names) {
    let candidate = n;
    for (let i = 0; used.has(candidate); i++) candidate = `${n}${i}`;
    used.add(candidate);
    out.push(candidate);
  }
  return out;
}
