import { type Diagnostic, errorDiagnostic } from "./diagnostics.js";
import { LineMap } from "./line-map.js";
import { OPERATORS, type Token, type TokenKind } from "./tokens.js";

/** The tokens of a source text, always ending with one `eof` token, plus lexical diagnostics. */
export interface LexResult {
  readonly tokens: readonly Token[];
  readonly diagnostics: readonly Diagnostic[];
  readonly lines: LineMap;
}

const isDigit = (c: string): boolean => c >= "0" && c <= "9";
const isHex = (c: string): boolean => /^[0-9a-fA-F]$/.test(c);
const isIdentStart = (c: string): boolean =>
  (c >= "a" && c <= "z") || (c >= "A" && c <= "Z") || c === "_" || (c > "\x7f" && /\p{L}/u.test(c));
const isIdentPart = (c: string): boolean =>
  isIdentStart(c) || isDigit(c) || c === "$" || (c > "\x7f" && /\p{N}|\p{M}/u.test(c));

/**
 * Splits SQL text into tokens. Comments (`--` to end of line, `/* *\/`) are skipped; a hint
 * `/*+ ... *\/` becomes `hintOpen`, its body's tokens, `hintClose`. Never throws: an unterminated
 * string, identifier or comment is reported at its opening character and the token runs to the end
 * of the input; an unexpected character is reported and skipped.
 */
export function lex(source: string): LexResult {
  const lines = new LineMap(source);
  const tokens: Token[] = [];
  const diagnostics: Diagnostic[] = [];
  const n = source.length;
  let i = 0;
  let hintStart = -1;

  const push = (kind: TokenKind, start: number, value: string): void => {
    tokens.push({ kind, text: source.slice(start, i), value, span: lines.span(start, i) });
  };
  const report = (code: string, message: string, start: number, end: number, hint?: string): void => {
    diagnostics.push(errorDiagnostic(code, message, lines.span(start, end), hint));
  };

  /** Reads a quoted body after the opening quote at `start`; a doubled quote is one quote. */
  const readQuoted = (quote: string, start: number, what: string): { value: string; closed: boolean } => {
    let value = "";
    let from = i;
    while (i < n) {
      const c = source[i];
      if (c === quote) {
        if (source[i + 1] === quote) {
          value += source.slice(from, i + 1);
          i += 2;
          from = i;
          continue;
        }
        value += source.slice(from, i);
        i++;
        return { value, closed: true };
      }
      i++;
    }
    value += source.slice(from, n);
    report(`unterminated-${what}`, `unterminated ${what}: missing closing ${quote}`, start, start + 1);
    return { value, closed: false };
  };

  while (i < n) {
    const c = source[i];
    const start = i;
    if (c === " " || c === "\t" || c === "\n" || c === "\r" || c === "\f") {
      i++;
      continue;
    }
    if (c === "-" && source[i + 1] === "-") {
      while (i < n && source[i] !== "\n") i++;
      continue;
    }
    if (c === "/" && source[i + 1] === "*") {
      if (source[i + 2] === "+" && hintStart < 0) {
        i += 3;
        hintStart = start;
        push("hintOpen", start, "/*+");
        continue;
      }
      const close = source.indexOf("*/", i + 2);
      if (close < 0) {
        report("unterminated-comment", "unterminated comment: missing closing */", start, start + 2);
        i = n;
      } else {
        i = close + 2;
      }
      continue;
    }
    if (c === "*" && source[i + 1] === "/" && hintStart >= 0) {
      i += 2;
      hintStart = -1;
      push("hintClose", start, "*/");
      continue;
    }
    if (c === "'") {
      i++;
      push("string", start, readQuoted("'", start, "string").value);
      continue;
    }
    if ((c === "u" || c === "U") && source[i + 1] === "&" && source[i + 2] === "'") {
      i += 3;
      const body = readQuoted("'", start, "string");
      push("unicodeString", start, decodeUnicode(body.value, start + 3, report));
      continue;
    }
    if ((c === "x" || c === "X") && source[i + 1] === "'") {
      i += 2;
      const body = readQuoted("'", start, "string");
      const hex = body.value.replace(/\s+/g, "");
      if (!/^[0-9a-fA-F]*$/.test(hex) || hex.length % 2 !== 0) {
        report(
          "invalid-binary-literal",
          "invalid binary literal: expected an even number of hexadecimal digits",
          start,
          i,
        );
      }
      push("binaryString", start, hex.toUpperCase());
      continue;
    }
    if (c === "`") {
      i++;
      const body = readQuoted("`", start, "identifier");
      if (body.closed && body.value === "") report("empty-identifier", "empty quoted identifier", start, i);
      push("quotedIdent", start, body.value);
      continue;
    }
    if (c === '"') {
      i++;
      const body = readQuoted('"', start, "identifier");
      report(
        "double-quoted-identifier",
        "double-quoted identifiers are not supported",
        start,
        i,
        `quote identifiers with backquotes: \`${body.value}\`; strings use single quotes`,
      );
      push("quotedIdent", start, body.value);
      continue;
    }
    if (isDigit(c) || (c === "." && isDigit(source[i + 1] ?? ""))) {
      while (i < n && isDigit(source[i])) i++;
      if (source[i] === "." && (start !== i || isDigit(source[i + 1] ?? ""))) {
        i++;
        while (i < n && isDigit(source[i])) i++;
      }
      if (source[i] === "e" || source[i] === "E") {
        const sign = source[i + 1] === "+" || source[i + 1] === "-" ? 1 : 0;
        if (isDigit(source[i + 1 + sign] ?? "")) {
          i += 1 + sign;
          while (i < n && isDigit(source[i])) i++;
        }
      }
      push("number", start, source.slice(start, i));
      continue;
    }
    if (isIdentStart(c)) {
      i++;
      while (i < n && isIdentPart(source[i])) i++;
      push("word", start, source.slice(start, i).toUpperCase());
      continue;
    }
    const op = OPERATORS.find((o) => source.startsWith(o, i));
    if (op !== undefined) {
      i += op.length;
      push("op", start, op);
      continue;
    }
    const cp = source.codePointAt(i) ?? 0;
    const ch = String.fromCodePoint(cp);
    i += ch.length;
    report("unexpected-character", `unexpected character '${ch}'`, start, i);
  }
  if (hintStart >= 0) {
    report("unterminated-hint", "unterminated hint: missing closing */", hintStart, hintStart + 3);
  }
  tokens.push({ kind: "eof", text: "", value: "", span: lines.span(n, n) });
  return { tokens, diagnostics, lines };
}

/** Decodes the body of `U&'...'`: `\XXXX` and `\+XXXXXX` are code points, `\\` is a backslash. */
function decodeUnicode(
  body: string,
  bodyOffset: number,
  report: (code: string, message: string, start: number, end: number) => void,
): string {
  let out = "";
  for (let k = 0; k < body.length; k++) {
    const c = body[k];
    if (c !== "\\") {
      out += c;
      continue;
    }
    if (body[k + 1] === "\\") {
      out += "\\";
      k++;
      continue;
    }
    const long = body[k + 1] === "+";
    const digits = body.slice(k + (long ? 2 : 1), k + (long ? 8 : 5));
    const want = long ? 6 : 4;
    const cp = Number.parseInt(digits, 16);
    if (digits.length !== want || ![...digits].every(isHex) || cp > 0x10ffff) {
      // Source offsets are approximate only when the body contained doubled quotes before here.
      const at = bodyOffset + k;
      report(
        "invalid-unicode-escape",
        `invalid Unicode escape: expected \\ and ${want} hex digits`,
        at,
        at + 1,
      );
      out += c;
      continue;
    }
    out += String.fromCodePoint(cp);
    k += want + (long ? 1 : 0);
  }
  return out;
}
