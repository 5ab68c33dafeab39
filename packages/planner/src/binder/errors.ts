import type { Diagnostic, Span } from "@weir/parser";
import { suggest } from "../catalog/connector-options.js";
import type { SourceSpan } from "../physical.js";

/**
 * A binding error. Binding stops at the first error of a statement: the binder throws a
 * `BindError` and the statement entry points turn it into a `Diagnostic`.
 */
export class BindError extends Error {
  readonly diagnostic: Diagnostic;
  constructor(code: string, message: string, span: Span, hint?: string) {
    super(message);
    this.diagnostic =
      hint === undefined ? { code, message, span, severity: "error" } : { code, message, span, hint, severity: "error" };
  }
}

export function fail(code: string, message: string, span: Span, hint?: string): never {
  throw new BindError(code, message, span, hint);
}

/** Runs `f`, turning a thrown `BindError` into a diagnostic. Other errors propagate. */
export function catching<R>(f: () => R): { value: R; diagnostics: Diagnostic[] } | { diagnostics: Diagnostic[] } {
  try {
    return { value: f(), diagnostics: [] };
  } catch (e) {
    if (e instanceof BindError) return { diagnostics: [e.diagnostic] };
    throw e;
  }
}

/** `did you mean 'x'?` when a candidate is close, else undefined (no long candidate lists). */
export function didYouMean(word: string, candidates: readonly string[]): string | undefined {
  if (candidates.length === 0) return undefined;
  const s = suggest(word, candidates, "");
  return s.startsWith("did you mean") ? s : undefined;
}

export function toSourceSpan(span: Span): SourceSpan {
  return { line: span.line, column: span.column, offset: span.offset, end: span.end };
}
