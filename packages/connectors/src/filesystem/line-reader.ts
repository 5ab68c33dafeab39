import type { FileHandle } from "node:fs/promises";
import { open } from "node:fs/promises";

/** The first read of a file; each further read doubles, up to {@link MAX_CHUNK}. */
const FIRST_CHUNK = 64 * 1024;
/** Large reads: a read through `fs/promises` costs ~35 µs of CPU whatever its size. */
const MAX_CHUNK = 1024 * 1024;
const NL = 10;
const CR = 13;

/**
 * Reads a file line by line in chunks, tracking the exact byte offset after each line so a
 * checkpoint can resume at a line boundary. Lines end at `\n`; a `\r` before it is dropped; a
 * last line without a terminator is still a line.
 */
export class LineReader {
  private fh: FileHandle | null = null;
  private buf: Buffer = Buffer.alloc(0);
  /** Start of unconsumed data in `buf`. */
  private start = 0;
  /** File offset of `buf[0]`. */
  private bufOffset: number;
  private eof = false;
  private chunk = FIRST_CHUNK;
  /** Byte offset just after the last line returned. */
  offset: number;
  /** Number of lines returned so far (1-based number of the last line), counting from the file start. */
  line: number;
  /**
   * The bytes of the last line returned (without its terminator): valid until the next call;
   * `length` bytes from `start` of `buffer`.
   */
  readonly lastLine: { buffer: Buffer; start: number; length: number } = {
    buffer: Buffer.alloc(0),
    start: 0,
    length: 0,
  };

  constructor(
    private readonly file: string,
    offset = 0,
    line = 0,
  ) {
    this.offset = offset;
    this.bufOffset = offset;
    this.line = line;
  }

  /** The next line, or null at the end of the file. */
  async next(): Promise<string | null> {
    for (;;) {
      const nl = this.buf.indexOf(NL, this.start);
      if (nl >= 0) return this.take(nl, nl + 1);
      if (this.eof) {
        if (this.start < this.buf.length) return this.take(this.buf.length, this.buf.length);
        return null;
      }
      await this.fill();
    }
  }

  /**
   * The next line if it is already buffered (no I/O); `undefined` when a read is needed. Lets a
   * caller drain a chunk synchronously and await only once per chunk.
   */
  nextBuffered(): string | null | undefined {
    const nl = this.buf.indexOf(NL, this.start);
    if (nl >= 0) return this.take(nl, nl + 1);
    if (!this.eof) return undefined;
    if (this.start < this.buf.length) return this.take(this.buf.length, this.buf.length);
    return null;
  }

  /**
   * Moves to the next line if it is already buffered, without decoding it: true (the line is in
   * `lastLine`, its text is `lastText()`), false when a read is needed (`fill`), null at the end
   * of the file. For a caller that reads most lines from their bytes.
   */
  advanceBuffered(): boolean | null {
    const nl = this.buf.indexOf(NL, this.start);
    if (nl >= 0) {
      this.mark(nl, nl + 1);
      return true;
    }
    if (!this.eof) return false;
    if (this.start < this.buf.length) {
      this.mark(this.buf.length, this.buf.length);
      return true;
    }
    return null;
  }

  /** The text of the last line returned or advanced to (UTF-8). */
  lastText(): string {
    const last = this.lastLine;
    return last.buffer.toString("utf8", last.start, last.start + last.length);
  }

  private take(end: number, next: number): string {
    this.mark(end, next);
    return this.lastText();
  }

  private mark(end: number, next: number): void {
    let stop = end;
    if (stop > this.start && this.buf[stop - 1] === CR) stop--;
    const last = this.lastLine;
    last.buffer = this.buf;
    last.start = this.start;
    last.length = stop - this.start;
    this.start = next;
    this.offset = this.bufOffset + next;
    this.line++;
  }

  /** Reads the next chunk, keeping the unconsumed tail of the buffer. */
  async fill(): Promise<void> {
    if (this.fh === null) this.fh = await open(this.file, "r");
    const tail = this.buf.length - this.start;
    const chunk = this.chunk;
    this.chunk = Math.min(MAX_CHUNK, chunk * 2);
    const next = Buffer.allocUnsafe(tail + chunk);
    this.buf.copy(next, 0, this.start);
    const { bytesRead } = await this.fh.read(next, tail, chunk, this.bufOffset + this.buf.length);
    this.bufOffset += this.start;
    this.buf = next.subarray(0, tail + bytesRead);
    this.start = 0;
    if (bytesRead === 0) this.eof = true;
  }

  async close(): Promise<void> {
    const fh = this.fh;
    this.fh = null;
    if (fh) await fh.close();
  }
}
