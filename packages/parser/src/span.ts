/**
 * A source range. `offset` and `end` are 0-based UTF-16 offsets into the parsed text, `end` exclusive
 * (`end >= offset`); `line` and `column` are 1-based and describe `offset`.
 */
export interface Span {
  readonly offset: number;
  readonly end: number;
  readonly line: number;
  readonly column: number;
}

/** The span from the start of `first` to the end of `last`; `first` must not start after `last`. */
export function spanCover(first: Span, last: Span): Span {
  return { offset: first.offset, end: Math.max(first.end, last.end), line: first.line, column: first.column };
}
