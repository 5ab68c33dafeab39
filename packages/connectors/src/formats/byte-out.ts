/**
 * An append-only byte buffer for writers that encode records straight to UTF-8: a list of
 * reusable chunks (one `Buffer` each), so that a sink writes its lines without a string per line,
 * a joined string per flush or a `Buffer` copy of it. A writer reserves room with `ensure(n)` and
 * then writes `buf[pos..pos + n)` itself (advancing `pos`); a record may span two chunks.
 *
 * `take()` hands the bytes written so far to the caller (for one `writev`) and starts over;
 * `release()` gives the taken chunks back once the write is done. `mark()`/`rollback()` cut a
 * record that failed half-way back out.
 */

const CHUNK = 256 * 1024;
/** Chunks kept for reuse between flushes (8 MiB); more are left to the garbage collector. */
const POOL_MAX = 32;

export class ByteOut {
  /** The chunk being written. */
  buf: Buffer;
  /** The next free byte of `buf`. */
  pos = 0;
  /** Full chunks before `buf`, with the bytes used in each. */
  private readonly chunks: Buffer[] = [];
  private readonly used: number[] = [];
  private usedBytes = 0;
  private readonly pool: Buffer[] = [];
  private markChunks = 0;
  private markPos = 0;

  constructor(private readonly chunkSize = CHUNK) {
    this.buf = Buffer.allocUnsafeSlow(chunkSize);
  }

  /** Bytes written since the last `take`. */
  get length(): number {
    return this.usedBytes + this.pos;
  }

  /** Makes room for `n` more bytes in `buf` at `pos` (moving on to a new chunk if need be). */
  ensure(n: number): void {
    if (this.pos + n > this.buf.length) this.roll(n);
  }

  private roll(n: number): void {
    if (this.pos > 0) {
      this.chunks.push(this.buf);
      this.used.push(this.pos);
      this.usedBytes += this.pos;
    } else {
      this.recycle(this.buf);
    }
    this.buf = n > this.chunkSize ? Buffer.allocUnsafeSlow(n) : this.fresh();
    this.pos = 0;
  }

  private fresh(): Buffer {
    return this.pool.pop() ?? Buffer.allocUnsafeSlow(this.chunkSize);
  }

  private recycle(b: Buffer): void {
    if (b.length === this.chunkSize && this.pool.length < POOL_MAX) this.pool.push(b);
  }

  /** Appends one byte. */
  byte(b: number): void {
    if (this.pos >= this.buf.length) this.roll(1);
    this.buf[this.pos++] = b;
  }

  /** Appends `bytes`. */
  bytes(bytes: Uint8Array): void {
    this.ensure(bytes.length);
    this.buf.set(bytes, this.pos);
    this.pos += bytes.length;
  }

  /** Appends a string of one-byte characters (code units below 0x100) as Latin-1 bytes. */
  ascii(s: string): void {
    const n = s.length;
    this.ensure(n);
    const buf = this.buf;
    let p = this.pos;
    for (let i = 0; i < n; i++) buf[p++] = s.charCodeAt(i);
    this.pos = p;
  }

  /** Appends `s` as UTF-8 (a lone surrogate becomes U+FFFD, as `Buffer.from(s)` does). */
  utf8(s: string): void {
    this.ensure(s.length * 3);
    this.pos += this.buf.write(s, this.pos, "utf8");
  }

  /** Remembers where the current record starts. */
  mark(): void {
    this.markChunks = this.chunks.length;
    this.markPos = this.pos;
  }

  /** Drops everything written since the last `mark`. */
  rollback(): void {
    if (this.chunks.length > this.markChunks) {
      this.recycle(this.buf);
      while (this.chunks.length > this.markChunks + 1) {
        this.usedBytes -= this.used.pop()!;
        this.recycle(this.chunks.pop()!);
      }
      this.usedBytes -= this.used.pop()!;
      this.buf = this.chunks.pop()!;
    }
    this.pos = this.markPos;
  }

  /** The bytes written since the last `take`, in order (views of the chunks), and starts over. */
  take(): Buffer[] {
    const out: Buffer[] = [];
    for (let i = 0; i < this.chunks.length; i++) out.push(this.chunks[i]!.subarray(0, this.used[i]));
    if (this.pos > 0) {
      out.push(this.buf.subarray(0, this.pos));
      this.buf = this.fresh();
      this.pos = 0;
    }
    this.chunks.length = 0;
    this.used.length = 0;
    this.usedBytes = 0;
    this.markChunks = 0;
    this.markPos = 0;
    return out;
  }

  /** Gives back chunks `take` returned, once nothing reads them any more. */
  release(taken: readonly Buffer[]): void {
    for (const b of taken) {
      if (b.byteOffset === 0 && b.buffer.byteLength === this.chunkSize) {
        this.recycle(Buffer.from(b.buffer, 0, this.chunkSize));
      }
    }
  }
}
