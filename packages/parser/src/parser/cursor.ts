import type { Identifier, QualifiedName, StringValue } from "../ast/common.js";
import { type Diagnostic, errorDiagnostic } from "../diagnostics.js";
import { type Span, spanCover } from "../span.js";
import { RESERVED, type Token } from "../tokens.js";

/** Thrown inside the parser to abandon the current statement; `parse` catches it and resynchronises. */
export class ParseError extends Error {
  constructor(readonly diagnostic: Diagnostic) {
    super(diagnostic.message);
  }
}

/** Lookahead calls allowed without consuming a token before the parser is declared stuck. */
const MAX_PEEKS_WITHOUT_PROGRESS = 10_000;
/** Maximum nesting of expressions and queries; deeper input is reported, not overflowed. */
const MAX_DEPTH = 400;

/**
 * The one place an `Identifier` is built from a token: a backquoted name keeps its unescaped value,
 * a word keeps its source spelling. The caller has checked that `t` is a word or quoted identifier.
 */
export function identifierOf(t: Token): Identifier {
  return t.kind === "quotedIdent"
    ? { kind: "Identifier", value: t.value, quoted: true, span: t.span }
    : { kind: "Identifier", value: t.text, quoted: false, span: t.span };
}

/** A one-part qualified name from a word token (function names such as `FLOOR`). */
export function nameOf(t: Token): QualifiedName {
  return { kind: "QualifiedName", parts: [identifierOf(t)], span: t.span };
}

/** Quoted, shortened text of a token for "but found ..." messages. */
export function describeToken(t: Token): string {
  if (t.kind === "eof") return "end of input";
  const text = t.text.length > 30 ? `${t.text.slice(0, 27)}...` : t.text;
  return `'${text}'`;
}

/** Keywords worth suggesting when a misspelt word stops the parser. */
const SUGGESTED_KEYWORDS = [
  "SELECT",
  "FROM",
  "WHERE",
  "GROUP",
  "HAVING",
  "ORDER",
  "LIMIT",
  "UNION",
  "INSERT",
  "CREATE",
  "TABLE",
  "VIEW",
  "WATERMARK",
  "PRIMARY",
  "EXPLAIN",
  "DESCRIBE",
  "EXECUTE",
  "STATEMENT",
  "WINDOW",
  "PARTITION",
  "BETWEEN",
  "INTERVAL",
  "DISTINCT",
  "VALUES",
  "JOIN",
  "INNER",
  "OUTER",
  "CROSS",
  "LEFT",
  "RIGHT",
  "FULL",
  "LATERAL",
  "DESCRIPTOR",
  "TUMBLE",
  "HOP",
  "CUMULATE",
  "SESSION",
  "SECOND",
  "MINUTE",
  "HOUR",
  "DAY",
  "MONTH",
  "YEAR",
];

/** Edit distance with an early exit once it exceeds `max`. */
function editDistance(a: string, b: string, max: number): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    let best = i;
    for (let j = 1; j <= b.length; j++) {
      const v = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
      cur.push(v);
      best = Math.min(best, v);
    }
    if (best > max) return max + 1;
    prev = cur;
  }
  return prev[b.length];
}

/** The keyword one or two edits away from a misspelt word (`GRUP` → `GROUP`), if any. */
export function suggestKeyword(t: Token): string | undefined {
  if (t.kind !== "word" || t.value.length < 3) return undefined;
  const max = t.value.length < 5 ? 1 : 2;
  let best: string | undefined;
  let bestDistance = max + 1;
  for (const k of SUGGESTED_KEYWORDS) {
    if (k === t.value) return undefined;
    const d = editDistance(t.value, k, max);
    if (d < bestDistance) {
      best = k;
      bestDistance = d;
    }
  }
  return best;
}

/**
 * A position in the token list with the helpers every sub-parser shares. Invariant: `pos` only
 * moves forward and never past the final `eof` token; lookahead without consumption is bounded
 * (`MAX_PEEKS_WITHOUT_PROGRESS`), so a parser bug shows up as an `internal` diagnostic, not a hang.
 */
export class Cursor {
  pos = 0;
  private peeks = 0;
  private depth = 0;
  /** Non-fatal diagnostics found while parsing (the statement is still produced). */
  readonly diagnostics: Diagnostic[] = [];

  constructor(readonly tokens: readonly Token[]) {}

  peek(k = 0): Token {
    if (++this.peeks > MAX_PEEKS_WITHOUT_PROGRESS) {
      this.peeks = 0;
      const t = this.tokens[this.pos];
      throw new ParseError(errorDiagnostic("internal", "parser made no progress (this is a bug)", t.span));
    }
    return this.tokens[Math.min(this.pos + k, this.tokens.length - 1)];
  }

  /** The last consumed token (the first token if nothing was consumed). */
  get prev(): Token {
    return this.tokens[Math.max(0, this.pos - 1)];
  }

  next(): Token {
    const t = this.peek();
    if (t.kind !== "eof") this.pos++;
    this.peeks = 0;
    return t;
  }

  atEnd(): boolean {
    return this.peek().kind === "eof";
  }

  isWord(word: string, k = 0): boolean {
    const t = this.peek(k);
    return t.kind === "word" && t.value === word;
  }

  isOp(op: string, k = 0): boolean {
    const t = this.peek(k);
    return t.kind === "op" && t.value === op;
  }

  acceptWord(word: string): Token | undefined {
    return this.isWord(word) ? this.next() : undefined;
  }

  acceptWords(...words: string[]): boolean {
    for (let k = 0; k < words.length; k++) if (!this.isWord(words[k], k)) return false;
    for (const _ of words) this.next();
    return true;
  }

  acceptOp(op: string): Token | undefined {
    return this.isOp(op) ? this.next() : undefined;
  }

  expectWord(word: string): Token {
    return this.acceptWord(word) ?? this.fail(`'${word}'`);
  }

  expectOp(op: string): Token {
    return this.acceptOp(op) ?? this.fail(`'${op}'`);
  }

  /** Throws `expected <what> but found <current token>`. */
  fail(what: string, hint?: string, at: Token = this.peek()): never {
    const suggestion = suggestKeyword(at);
    const h =
      hint ??
      (suggestion !== undefined && what.includes(suggestion) ? `did you mean ${suggestion}?` : undefined);
    throw new ParseError(
      errorDiagnostic("syntax", `expected ${what} but found ${describeToken(at)}`, at.span, h),
    );
  }

  /** Throws an error with a custom message at a span. */
  error(code: string, message: string, span: Span, hint?: string): never {
    throw new ParseError(errorDiagnostic(code, message, span, hint));
  }

  /** Records a non-fatal error; parsing continues. */
  report(code: string, message: string, span: Span, hint?: string): void {
    this.diagnostics.push(errorDiagnostic(code, message, span, hint));
  }

  /** The span from `start` to the end of the last consumed token. */
  spanFrom(start: Token | Span): Span {
    const s = "kind" in start ? start.span : start;
    const last = this.prev.span;
    return last.end >= s.offset ? spanCover(s, last) : { ...s, end: s.offset };
  }

  /** Runs `f` one nesting level deeper; reports input nested beyond `MAX_DEPTH`. */
  nested<T>(f: () => T): T {
    if (this.depth >= MAX_DEPTH) {
      this.error("too-deep", `nesting deeper than ${MAX_DEPTH} levels`, this.peek().span);
    }
    this.depth++;
    try {
      return f();
    } finally {
      this.depth--;
    }
  }

  /** True when the current token can be an unquoted identifier or a backquoted one. */
  isIdentifier(k = 0): boolean {
    const t = this.peek(k);
    return t.kind === "quotedIdent" || (t.kind === "word" && !RESERVED.has(t.value));
  }

  identifier(what = "an identifier"): Identifier {
    const t = this.peek();
    if (t.kind === "quotedIdent") {
      this.next();
      return identifierOf(t);
    }
    if (t.kind === "word") {
      if (RESERVED.has(t.value)) {
        this.fail(what, `'${t.text}' is a reserved word; write \`${t.text}\` to use it as a name`);
      }
      this.next();
      return identifierOf(t);
    }
    return this.fail(what);
  }

  qualifiedName(what = "a name"): QualifiedName {
    const first = this.peek();
    const parts = [this.identifier(what)];
    while (this.isOp(".") && this.isIdentifier(1)) {
      this.next();
      parts.push(this.identifier(what));
    }
    return { kind: "QualifiedName", parts, span: this.spanFrom(first) };
  }

  /** `(a, b, ...)` of identifiers. */
  identifierList(): Identifier[] {
    this.expectOp("(");
    const out = [this.identifier("a column name")];
    while (this.acceptOp(",")) out.push(this.identifier("a column name"));
    this.expectOp(")");
    return out;
  }

  stringValue(what = "a string literal", hint?: string): StringValue {
    const t = this.peek();
    if (t.kind === "string" || t.kind === "unicodeString") {
      this.next();
      return { kind: "StringValue", value: t.value, span: t.span };
    }
    return this.fail(what, hint);
  }

  /** A non-negative integer literal, e.g. a type length or precision. */
  integer(what = "an integer"): number {
    const t = this.peek();
    if (t.kind === "number" && /^\d+$/.test(t.text)) {
      this.next();
      return Number(t.text);
    }
    return this.fail(what);
  }
}
