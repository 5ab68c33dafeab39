import type { Span } from "./span.js";

/**
 * Token kinds. `word` covers keywords and unquoted identifiers alike: whether a word is a keyword
 * depends on where the parser meets it. `hintOpen` (`/*+`) and `hintClose` (`*\/`) bracket a table
 * or query hint whose body is lexed as ordinary tokens.
 */
export type TokenKind =
  | "word"
  | "quotedIdent"
  | "number"
  | "string"
  | "unicodeString"
  | "binaryString"
  | "op"
  | "hintOpen"
  | "hintClose"
  | "eof";

/**
 * One token. `text` is the exact source slice. `value` is: for `word` the upper-cased text (so
 * keyword tests are case-insensitive); for `quotedIdent` the unescaped name; for `string` and
 * `unicodeString` the decoded text; for `binaryString` the hex digits; for `number` and `op` the
 * source text; for `eof` the empty string.
 */
export interface Token {
  readonly kind: TokenKind;
  readonly text: string;
  readonly value: string;
  readonly span: Span;
}

/** Operators and punctuation, longest first so the lexer can match greedily. */
export const OPERATORS: readonly string[] = [
  "<>",
  "<=",
  ">=",
  "!=",
  "=>",
  "||",
  "=",
  "<",
  ">",
  "+",
  "-",
  "*",
  "/",
  "%",
  "(",
  ")",
  "[",
  "]",
  ",",
  ";",
  ".",
  "?",
];

/**
 * Words that can never be an unquoted identifier or an implicit alias, because they start or
 * continue a clause. Everything else (`user`, `value`, `date`, `timestamp`, `data`, `size`, ...)
 * is accepted as an identifier where the grammar allows one; backquotes make any word a name.
 */
export const RESERVED: ReadonlySet<string> = new Set([
  "ALL",
  "AND",
  "ANY",
  "AS",
  "ASC",
  "BETWEEN",
  "BOTH",
  "BY",
  "CASE",
  "CAST",
  "CROSS",
  "DESC",
  "DISTINCT",
  "ELSE",
  "END",
  "ESCAPE",
  "EXCEPT",
  "EXISTS",
  "FALSE",
  "FETCH",
  "FILTER",
  "FOR",
  "FROM",
  "FULL",
  "GROUP",
  "HAVING",
  "IN",
  "INNER",
  "INTERSECT",
  "INTERVAL",
  "INTO",
  "IS",
  "JOIN",
  "LATERAL",
  "LEADING",
  "LEFT",
  "LIKE",
  "LIMIT",
  "MATCH_RECOGNIZE",
  "MINUS",
  "NATURAL",
  "NOT",
  "NULL",
  "OFFSET",
  "ON",
  "OR",
  "ORDER",
  "OUTER",
  "OVER",
  "PARTITION",
  "PLACING",
  "RIGHT",
  "SELECT",
  "SIMILAR",
  "SOME",
  "TABLE",
  "TABLESAMPLE",
  "THEN",
  "TO",
  "TRAILING",
  "TRUE",
  "TRY_CAST",
  "UNION",
  "UNKNOWN",
  "UNNEST",
  "USING",
  "VALUES",
  "WHEN",
  "WHERE",
  "WINDOW",
  "WITH",
  "WITHIN",
]);
