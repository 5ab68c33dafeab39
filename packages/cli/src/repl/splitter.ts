import { lex, type Token } from "@weir/parser";

/** One complete statement cut from the input, with its text trimmed and ending in `;`. */
export interface SplitStatement {
  readonly text: string;
}

/**
 * Collects typed lines into complete statements, as Flink's SQL client does: a statement ends at
 * a `;` that is outside strings, quoted identifiers, comments, parentheses and a STATEMENT SET's
 * `BEGIN ... END` (where a `CASE ... END` nests). Tokenising uses the parser's own lexer, so the
 * shell and the parser agree on what a string or a comment is.
 *
 * Invariants: {@link push} returns the statements completed by the line, in order; what is left
 * is kept for the next line. A buffer holding only whitespace and finished comments is dropped,
 * so the next statement's line 1 is the line it starts on.
 */
export class StatementSplitter {
  private buffer = "";

  /** True when a statement has begun and waits for more lines (the prompt becomes `->`). */
  get pending(): boolean {
    return this.buffer.length > 0;
  }

  clear(): void {
    this.buffer = "";
  }

  push(line: string): SplitStatement[] {
    this.buffer += `${line}\n`;
    const { tokens, diagnostics } = lex(this.buffer);
    const unterminated = diagnostics.some((d) => d.code.startsWith("unterminated-"));
    const ends = statementEnds(tokens);
    const out: SplitStatement[] = [];
    let from = 0;
    for (const end of ends) {
      const text = this.buffer.slice(from, end).trim();
      from = end;
      if (hasContent(text)) out.push({ text });
    }
    const rest = this.buffer.slice(from);
    this.buffer = unterminated || hasContent(rest) ? rest : "";
    return out;
  }
}

/** True when the text has a token other than `;` (not only whitespace, comments and `;`). */
function hasContent(text: string): boolean {
  return lex(text).tokens.some((t) => t.kind !== "eof" && !(t.kind === "op" && t.value === ";"));
}

/**
 * Source offsets just after each `;` that ends a statement. Parentheses nest; `SET BEGIN` opens a
 * statement set that its matching `END` closes. An unterminated token runs to the end of input,
 * so it never contains a `;` token.
 */
export function statementEnds(tokens: readonly Token[]): number[] {
  const ends: number[] = [];
  let parens = 0;
  let inSet = false;
  let cases = 0;
  let prev: Token | undefined;
  for (const t of tokens) {
    if (t.kind === "eof") break;
    if (t.kind === "op") {
      if (t.value === "(" || t.value === "[") parens++;
      else if (t.value === ")" || t.value === "]") parens = Math.max(0, parens - 1);
      else if (t.value === ";" && parens === 0 && !inSet) ends.push(t.span.end);
    } else if (t.kind === "word") {
      if (t.value === "BEGIN" && prev?.kind === "word" && prev.value === "SET") inSet = true;
      else if (inSet && t.value === "CASE") cases++;
      else if (inSet && t.value === "END") {
        if (cases > 0) cases--;
        else inSet = false;
      }
    }
    prev = t;
  }
  return ends;
}
