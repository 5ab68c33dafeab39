import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type Expr, parse, parseExpression, print, type Statement, stripSpans } from "@weir/parser";
import { expect } from "vitest";

export const repoRoot = fileURLToPath(new URL("../../../", import.meta.url));

/** Parses exactly one statement and fails the test on any diagnostic. */
export function parseOne(sql: string): Statement {
  const r = parse(sql);
  expect(r.diagnostics.map((d) => `${d.span.line}:${d.span.column} ${d.message}`)).toEqual([]);
  expect(r.statements).toHaveLength(1);
  return r.statements[0];
}

export function parseExpr(sql: string): Expr {
  const r = parseExpression(sql);
  expect(r.diagnostics.map((d) => d.message)).toEqual([]);
  if (r.node === undefined) throw new Error(`no expression for ${sql}`);
  return r.node;
}

/** Asserts that printing `stmt` and parsing the text again gives the same tree (spans aside). */
export function expectRoundTrip(stmt: Statement): void {
  const text = print(stmt);
  const again = parse(text);
  expect(
    again.diagnostics.map((d) => d.message),
    text,
  ).toEqual([]);
  expect(again.statements).toHaveLength(1);
  expect(stripSpans(again.statements[0]), text).toEqual(stripSpans(stmt));
}

/**
 * A fully parenthesised rendering of an expression's operator structure, so precedence tests can
 * state the expected tree compactly: `a + b * c` → `(a + (b * c))`.
 */
export function shape(e: Expr): string {
  switch (e.kind) {
    case "BinaryExpr":
      return `(${shape(e.left)} ${e.op} ${shape(e.right)})`;
    case "UnaryExpr":
      return `(${e.op} ${shape(e.operand)})`;
    case "IsExpr":
      return `(${shape(e.operand)} IS ${e.negated ? "NOT " : ""}${e.test})`;
    case "IsDistinctFromExpr":
      return `(${shape(e.left)} IS ${e.negated ? "NOT " : ""}DISTINCT FROM ${shape(e.right)})`;
    case "BetweenExpr":
      return `(${shape(e.operand)} ${e.negated ? "NOT " : ""}BETWEEN${e.symmetric ? " SYMMETRIC" : ""} ${shape(e.low)} AND ${shape(e.high)})`;
    case "LikeExpr":
      return `(${shape(e.operand)} ${e.negated ? "NOT " : ""}${e.op} ${shape(e.pattern)}${e.escape ? ` ESCAPE ${shape(e.escape)}` : ""})`;
    case "InListExpr":
      return `(${shape(e.operand)} ${e.negated ? "NOT " : ""}IN [${e.list.map(shape).join(", ")}])`;
    case "SubscriptExpr":
      return `${shape(e.target)}[${shape(e.index)}]`;
    case "FieldAccessExpr":
      return `${shape(e.target)}.${e.field.value}`;
    case "FunctionCall":
      return `${e.name.parts.map((p) => p.value).join(".")}(${e.star ? "*" : e.args.map(shape).join(", ")})`;
    default:
      return print(e);
  }
}

/** Every `*.sql` file under `dir`, recursively, sorted. */
export function sqlFiles(dir: string): string[] {
  let entries: string[];
  try {
    entries = readdirSync(dir);
  } catch {
    return [];
  }
  const out: string[] = [];
  for (const name of entries.sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...sqlFiles(path));
    else if (name.endsWith(".sql")) out.push(path);
  }
  return out;
}

export interface CorpusFile {
  readonly path: string;
  readonly source: string;
  /** Files under a directory named `errors/` must fail to parse. */
  readonly expectErrors: boolean;
}

/** The SQL corpus: `sql/` and `test/corpus/` at the repository root. */
export function corpusFiles(): CorpusFile[] {
  return [...sqlFiles(join(repoRoot, "sql")), ...sqlFiles(join(repoRoot, "test", "corpus"))].map((path) => ({
    path,
    source: readFileSync(path, "utf8"),
    expectErrors: /[\\/]errors[\\/]/.test(path),
  }));
}
