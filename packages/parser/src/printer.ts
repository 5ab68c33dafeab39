import type { Expr } from "./ast/expressions.js";
import type { Query } from "./ast/query.js";
import type { Statement } from "./ast/statements.js";
import type { DataTypeNode } from "./ast/types.js";
import { printExpr } from "./printer/expressions.js";
import { printQuery } from "./printer/query.js";
import { printStatement } from "./printer/statements.js";
import { printDataType } from "./printer/types.js";

export type PrintableNode = Statement | Query | Expr | DataTypeNode;

const STATEMENT_KINDS: ReadonlySet<string> = new Set<Statement["kind"]>([
  "CreateTable",
  "CreateView",
  "CreateMaterializedView",
  "Drop",
  "Insert",
  "StatementSet",
  "SetStatement",
  "ResetStatement",
  "Show",
  "ShowCreate",
  "Describe",
  "Explain",
  "StopJob",
  "QueryStatement",
]);

const TYPE_KINDS: ReadonlySet<string> = new Set<DataTypeNode["kind"]>([
  "ScalarType",
  "IntervalType",
  "ArrayType",
  "MultisetType",
  "MapType",
  "RowType",
]);

/**
 * SQL text for a statement, query, expression or data type. Invariant (checked by the corpus test):
 * parsing the output gives a tree equal to `node` once spans are stripped. Statements are printed
 * without a trailing `;`.
 */
export function print(node: PrintableNode): string {
  if (node.kind === "Query") return printQuery(node);
  if (STATEMENT_KINDS.has(node.kind)) return printStatement(node as Statement);
  if (TYPE_KINDS.has(node.kind)) return printDataType(node as DataTypeNode);
  return printExpr(node as Expr);
}

/** A script of statements, each terminated by `;` and a newline. */
export function printScript(statements: readonly Statement[]): string {
  return statements.map((s) => `${printStatement(s)};\n`).join("");
}
