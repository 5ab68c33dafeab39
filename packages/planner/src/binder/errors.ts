import type { Diagnostic, Span } from "@weir/parser";
import { nearest } from "../catalog/settings.js";
import type { SourceSpan } from "../physical.js";

/**
 * A binding error. Binding stops at the first error of a statement: the binder throws a
 * `BindError` and the statement entry points turn it into a `Diagnostic`.
 */
export class BindError extends Error {
  /** Never empty; several when one check finds several independent problems (table options). */
  readonly diagnostics: readonly Diagnostic[];
  constructor(diagnostics: readonly Diagnostic[]) {
    super(diagnostics[0]?.message ?? "binding failed");
    this.diagnostics = diagnostics;
  }
}

export function diagnostic(code: string, message: string, span: Span, hint?: string): Diagnostic {
  return hint === undefined
    ? { code, message, span, severity: "error" }
    : { code, message, span, hint, severity: "error" };
}

export function fail(code: string, message: string, span: Span, hint?: string): never {
  throw new BindError([diagnostic(code, message, span, hint)]);
}

/** Runs `f`, turning a thrown `BindError` into a diagnostic. Other errors propagate. */
export function catching<R>(
  f: () => R,
): { value: R; diagnostics: Diagnostic[] } | { diagnostics: Diagnostic[] } {
  try {
    return { value: f(), diagnostics: [] };
  } catch (e) {
    if (e instanceof BindError) return { diagnostics: [...e.diagnostics] };
    throw e;
  }
}

/** `did you mean 'x'?` when a candidate is close, else undefined (no long candidate lists). */
export function didYouMean(word: string, candidates: readonly string[]): string | undefined {
  const { best, distance } = nearest(word, candidates);
  return best !== undefined && distance <= Math.max(1, Math.floor(word.length / 3))
    ? `did you mean '${best}'?`
    : undefined;
}

export function toSourceSpan(span: Span): SourceSpan {
  return { line: span.line, column: span.column, offset: span.offset, end: span.end };
}
