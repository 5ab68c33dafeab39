import type { Expr } from "../ast/expressions.js";
import type { Statement } from "../ast/statements.js";
import type { DataTypeNode } from "../ast/types.js";
import { type Diagnostic, errorDiagnostic } from "../diagnostics.js";
import { lex } from "../lexer.js";
import type { Token } from "../tokens.js";
import { Cursor, describeToken, ParseError, suggestKeyword } from "./cursor.js";
import { parseExpr } from "./expressions.js";
import { parseStatement } from "./statements.js";
import { parseDataTypeNode } from "./types.js";

/** Statements in source order, and every diagnostic (lexical first within a position order). */
export interface ParseResult {
  readonly statements: readonly Statement[];
  readonly diagnostics: readonly Diagnostic[];
}

export interface ParseNodeResult<T> {
  /** Undefined exactly when `diagnostics` holds an error that stopped parsing. */
  readonly node: T | undefined;
  readonly diagnostics: readonly Diagnostic[];
}

/**
 * Parses a script of `;`-separated statements. Never throws. After a syntax error the parser skips
 * to the next `;` at nesting depth 0 (outside parentheses and outside a STATEMENT SET's
 * BEGIN ... END) and goes on, so one run reports every broken statement.
 */
export function parse(sql: string): ParseResult {
  try {
    return parseScript(sql);
  } catch (e) {
    // Unreachable unless the parser has a bug; `parse` still must not throw.
    const at = { offset: 0, end: 0, line: 1, column: 1 };
    const message = e instanceof Error ? e.message : String(e);
    return {
      statements: [],
      diagnostics: [errorDiagnostic("internal", `internal parser error: ${message}`, at)],
    };
  }
}

function parseScript(sql: string): ParseResult {
  const { tokens, diagnostics: lexical } = lex(sql);
  const c = new Cursor(tokens);
  const statements: Statement[] = [];
  const diagnostics: Diagnostic[] = [...lexical];
  while (true) {
    while (c.acceptOp(";"));
    if (c.atEnd()) break;
    const start = c.pos;
    try {
      const stmt = parseStatement(c);
      if (!c.atEnd() && !c.isOp(";")) {
        const suggestion = suggestKeyword(c.peek());
        c.fail("';' or end of statement", suggestion && `did you mean ${suggestion}?`);
      }
      statements.push(stmt);
    } catch (e) {
      const d = toDiagnostic(e, c.peek());
      if (!lexical.some((l) => l.span.offset >= tokens[start].span.offset && l.span.offset <= d.span.end)) {
        diagnostics.push(d);
      }
      c.pos = resyncPoint(tokens, start, c.pos);
    }
  }
  diagnostics.push(...c.diagnostics);
  diagnostics.sort((a, b) => a.span.offset - b.span.offset);
  return { statements, diagnostics };
}

/** Parses one expression covering the whole input. */
export function parseExpression(sql: string): ParseNodeResult<Expr> {
  return parseWhole(sql, parseExpr);
}

/** Parses one data type covering the whole input, e.g. `ROW<a INT, b ARRAY<STRING>> NOT NULL`. */
export function parseDataType(sql: string): ParseNodeResult<DataTypeNode> {
  return parseWhole(sql, parseDataTypeNode);
}

function parseWhole<T>(sql: string, f: (c: Cursor) => T): ParseNodeResult<T> {
  const { tokens, diagnostics: lexical } = lex(sql);
  const c = new Cursor(tokens);
  try {
    const node = f(c);
    if (!c.atEnd()) c.fail("end of input");
    return { node, diagnostics: [...lexical, ...c.diagnostics] };
  } catch (e) {
    const d = toDiagnostic(e, c.peek());
    return { node: undefined, diagnostics: lexical.length > 0 ? lexical : [...c.diagnostics, d] };
  }
}

function toDiagnostic(e: unknown, at: Token): Diagnostic {
  if (e instanceof ParseError) return e.diagnostic;
  // A bug in the parser must not escape `parse`; it becomes a diagnostic at the current token.
  const message = e instanceof Error ? e.message : String(e);
  return errorDiagnostic("internal", `internal parser error at ${describeToken(at)}: ${message}`, at.span);
}

/**
 * Where to resume after an error in the statement starting at token `start` that was detected at
 * token `errorAt`: just after the first `;` at or after `errorAt` whose nesting depth, counted from
 * the statement start, is 0. Parentheses nest; so does a STATEMENT SET's BEGIN ... END (with CASE
 * ... END inside it counted separately). When unbalanced input leaves no such `;`, the first `;`
 * after `errorAt` is used, else the end of input. The result is always greater than `start` (the
 * statement has at least one non-eof token), so the caller makes progress.
 */
export function resyncPoint(tokens: readonly Token[], start: number, errorAt: number): number {
  const isWord = (t: Token, w: string): boolean => t.kind === "word" && t.value === w;
  let parens = 0;
  let inSet = false;
  let cases = 0;
  let firstSemicolon = -1;
  for (let i = start; i < tokens.length; i++) {
    const t = tokens[i];
    if (t.kind === "eof") break;
    if (t.kind === "op") {
      if (t.value === "(" || t.value === "[") parens++;
      else if (t.value === ")" || t.value === "]") parens = Math.max(0, parens - 1);
      else if (t.value === ";" && i >= errorAt) {
        if (firstSemicolon < 0) firstSemicolon = i;
        if (parens === 0 && !inSet) return i + 1;
      }
    } else if (isWord(t, "BEGIN") && i > start && isWord(tokens[i - 1], "SET")) {
      inSet = true;
    } else if (inSet && isWord(t, "CASE")) {
      cases++;
    } else if (inSet && isWord(t, "END")) {
      if (cases > 0) cases--;
      else inSet = false;
    }
  }
  // Balanced to the end: the broken statement is the last one.
  if (parens === 0 && !inSet) return tokens.length - 1;
  if (firstSemicolon >= 0) return firstSemicolon + 1;
  return tokens.length - 1;
}
