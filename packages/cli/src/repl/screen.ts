/** Where the shell draws: text to standard output, and the terminal's size when there is one. */
export interface Screen {
  /** A terminal that understands ANSI cursor movement. */
  readonly tty: boolean;
  write(text: string): void;
  /** One line (a newline is added). */
  line(text: string): void;
  readonly rows: number;
  readonly columns: number;
}

export function processScreen(stream: NodeJS.WriteStream = process.stdout): Screen {
  return {
    tty: stream.isTTY === true,
    write: (text) => stream.write(text),
    line: (text) => stream.write(`${text}\n`),
    get rows() {
      return stream.rows ?? 24;
    },
    get columns() {
      return stream.columns ?? 80;
    },
  };
}

/**
 * A block of lines redrawn in place: each {@link draw} moves the cursor back to the block's first
 * line and clears to the end of the screen before writing. The block never grows taller than the
 * screen (less one line), and lines are cut to its width, so the cursor can always get back up.
 */
export class LiveBlock {
  private height = 0;

  constructor(private readonly screen: Screen) {}

  draw(lines: readonly string[]): void {
    const width = Math.max(10, this.screen.columns - 1);
    const fitted = lines.map((l) => (l.length > width ? `${l.slice(0, width - 1)}…` : l));
    let text = this.height > 0 ? `\r\u001b[${this.height}A\u001b[J` : "";
    text += fitted.map((l) => `${l}\n`).join("");
    this.screen.write(text);
    this.height = fitted.length;
  }

  /** Lines the block may use: the screen less the prompt line. */
  get maxHeight(): number {
    return Math.max(6, this.screen.rows - 1);
  }
}
