import type { Span } from "./span.js";

/** Maps offsets in one source text to 1-based line and column numbers (lines end at `\n`). */
export class LineMap {
  private readonly lineStarts: number[] = [0];

  constructor(readonly source: string) {
    for (let i = 0; i < source.length; i++) {
      if (source.charCodeAt(i) === 10) this.lineStarts.push(i + 1);
    }
  }

  /** 1-based line of `offset`; offsets past the end belong to the last line. */
  lineOf(offset: number): number {
    let lo = 0;
    let hi = this.lineStarts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.lineStarts[mid] <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo + 1;
  }

  lineStart(line: number): number {
    return this.lineStarts[line - 1] ?? this.source.length;
  }

  /** The text of a 1-based line, without its line terminator. */
  lineText(line: number): string {
    const start = this.lineStart(line);
    const next = line < this.lineStarts.length ? this.lineStarts[line] - 1 : this.source.length;
    const text = this.source.slice(start, next);
    return text.endsWith("\r") ? text.slice(0, -1) : text;
  }

  span(offset: number, end: number): Span {
    const line = this.lineOf(offset);
    return { offset, end, line, column: offset - this.lineStart(line) + 1 };
  }
}
