import type { Span } from "../span.js";

/**
 * A name as written. `value` keeps the source spelling (identifiers are case-sensitive); `quoted`
 * is true for a backquoted name, which may be any word including a keyword.
 */
export interface Identifier {
  readonly kind: "Identifier";
  readonly value: string;
  readonly quoted: boolean;
  readonly span: Span;
}

/** A dotted name such as `catalog.db.table`; `parts` is never empty. */
export interface QualifiedName {
  readonly kind: "QualifiedName";
  readonly parts: readonly Identifier[];
  readonly span: Span;
}

/** A string literal used as a key or value in `WITH (...)`, hints, `SET` and friends. */
export interface StringValue {
  readonly kind: "StringValue";
  readonly value: string;
  readonly span: Span;
}

/** `'key' = 'value'` in a `WITH (...)` list or a key-value hint. */
export interface OptionPair {
  readonly kind: "OptionPair";
  readonly key: StringValue;
  readonly value: StringValue;
  readonly span: Span;
}
