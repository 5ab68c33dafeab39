import { LineMap } from "./line-map.js";
import type { Span } from "./span.js";

export type Severity = "error" | "warning";

/**
 * A problem found in the source, as data. `code` is stable and machine-readable (`syntax`,
 * `unterminated-string`, ...); `message` says what was expected and what was found; `span` points
 * at the offending token (an unterminated literal at its opening quote).
 */
export interface Diagnostic {
  readonly code: string;
  readonly message: string;
  readonly span: Span;
  readonly hint?: string;
  readonly severity: Severity;
}

export function errorDiagnostic(code: string, message: string, span: Span, hint?: string): Diagnostic {
  return hint === undefined
    ? { code, message, span, severity: "error" }
    : { code, message, span, hint, severity: "error" };
}

/**
 * Renders `FILE:LINE:COL: error: message`, the source line, a caret line (`^` under the first
 * character of the span, `~` under the rest of it on the same line) and `hint: ...` when present.
 * Lines are joined with `\n`; there is no trailing newline.
 */
export function renderDiagnostic(d: Diagnostic, source: string, file: string): string {
  const map = new LineMap(source);
  const line = d.span.line;
  const text = map.lineText(line);
  const col = Math.max(1, d.span.column);
  // Keep tabs so the caret lines up under the source text in a terminal.
  const pad = Array.from(text.slice(0, col - 1), (ch) => (ch === "\t" ? "\t" : " ")).join("");
  const lineEnd = map.lineStart(line) + text.length;
  const width = Math.max(1, Math.min(d.span.end, lineEnd) - d.span.offset);
  const out = [
    `${file}:${line}:${col}: ${d.severity}: ${d.message}`,
    text,
    `${pad}^${"~".repeat(width - 1)}`,
  ];
  if (d.hint !== undefined) out.push(`hint: ${d.hint}`);
  return out.join("\n");
}
