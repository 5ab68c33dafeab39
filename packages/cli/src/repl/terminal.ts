import { createInterface, type Interface } from "node:readline";
import { HISTORY_SIZE, saveHistory } from "./history.js";

/** What the shell reads next: a line, Ctrl-C at the prompt, or the end of input (Ctrl-D). */
export type InputEvent =
  | { readonly kind: "line"; readonly text: string }
  | { readonly kind: "interrupt"; readonly lineWasEmpty: boolean }
  | { readonly kind: "eof" };

/** A key the user pressed while a statement runs (the prompt is away). */
export type BusyKey = "interrupt" | "quit";

export interface LineInputOptions {
  readonly input: NodeJS.ReadStream;
  readonly output: NodeJS.WriteStream;
  /** A real terminal: line editing, history, completion, raw keys while busy. */
  readonly terminal: boolean;
  /** readline order: newest first. */
  readonly history: readonly string[];
  /** Where history is saved after every line (terminal only); undefined: not saved. */
  readonly historyFile?: string;
  readonly completer?: (line: string) => [string[], string];
}

/**
 * The shell's keyboard. Lines typed (or pasted) ahead are queued and handed out one at a time by
 * {@link next}, so a paste of several statements runs them in order.
 *
 * On a terminal, readline owns the keyboard only while the shell waits at a prompt: {@link busy}
 * closes it and reads raw keys itself, so Ctrl-C cancels the running statement instead of
 * editing a line, and keys typed meanwhile do not echo into the result view. The next prompt
 * opens a new readline on the same history. Without a terminal, Ctrl-C is the SIGINT signal.
 */
export class LineInput {
  private rl: Interface | null = null;
  private closingOnPurpose = false;
  private ended = false;
  private readonly queue: InputEvent[] = [];
  private waiter: ((e: InputEvent) => void) | null = null;
  private history: string[];
  private onBusyKey: ((key: BusyKey) => void) | null = null;
  private readonly onSignal = () => {
    if (this.onBusyKey) this.onBusyKey("interrupt");
    else this.emit({ kind: "interrupt", lineWasEmpty: true });
  };

  constructor(private readonly options: LineInputOptions) {
    this.history = [...options.history];
    process.on("SIGINT", this.onSignal);
  }

  /** The next event; shows `prompt` when nothing was typed ahead. */
  next(prompt: string): Promise<InputEvent> {
    const queued = this.queue.shift();
    if (queued) return Promise.resolve(queued);
    if (this.ended) return Promise.resolve({ kind: "eof" });
    const rl = this.open();
    return new Promise((resolve) => {
      this.waiter = resolve;
      if (this.options.terminal) {
        rl.setPrompt(prompt);
        rl.prompt();
      }
    });
  }

  /**
   * Runs `work` with the prompt away. Ctrl-C calls `onKey("interrupt")`; on a terminal, `q`
   * calls `onKey("quit")` (leave a result view, as in Flink's client). Other keys are ignored.
   */
  async busy<T>(onKey: (key: BusyKey) => void, work: () => Promise<T>): Promise<T> {
    const { input, terminal } = this.options;
    this.onBusyKey = onKey;
    const onData = (data: Buffer | string) => {
      for (const ch of data.toString()) {
        if (ch === "\u0003") onKey("interrupt");
        else if (ch === "q" || ch === "Q") onKey("quit");
      }
    };
    if (terminal && !this.ended) {
      this.closeReadline();
      input.setRawMode(true);
      input.on("data", onData);
      input.resume();
    }
    try {
      return await work();
    } finally {
      this.onBusyKey = null;
      if (terminal && !this.ended) {
        input.off("data", onData);
        input.setRawMode(false);
        input.pause();
      }
    }
  }

  close(): void {
    process.off("SIGINT", this.onSignal);
    this.closeReadline();
    this.ended = true;
    this.options.input.pause();
  }

  private open(): Interface {
    if (this.rl) return this.rl;
    const { input, output, terminal, completer, historyFile } = this.options;
    const rl = createInterface({
      input,
      output,
      terminal,
      history: this.history,
      historySize: HISTORY_SIZE,
      removeHistoryDuplicates: true,
      tabSize: 4,
      ...(completer && terminal ? { completer } : {}),
    });
    rl.on("line", (text) => this.emit({ kind: "line", text }));
    rl.on("close", () => {
      if (this.closingOnPurpose) return;
      this.ended = true;
      this.emit({ kind: "eof" });
    });
    rl.on("history", (h: string[]) => {
      this.history = [...h];
      if (historyFile !== undefined) saveHistory(historyFile, this.history);
    });
    if (terminal) {
      rl.on("SIGINT", () => {
        const lineWasEmpty = rl.line.length === 0;
        // Leave the typed text on screen with ^C after it, then drop it from the line (Ctrl-U).
        rl.write("", { ctrl: true, name: "e" });
        output.write("^C\n");
        rl.write("", { ctrl: true, name: "u" });
        this.emit({ kind: "interrupt", lineWasEmpty });
      });
    }
    this.rl = rl;
    return rl;
  }

  private closeReadline(): void {
    if (!this.rl) return;
    this.history = [...(this.rl as unknown as { history: string[] }).history];
    this.closingOnPurpose = true;
    this.rl.close();
    this.closingOnPurpose = false;
    this.rl = null;
  }

  private emit(e: InputEvent): void {
    const w = this.waiter;
    if (w) {
      this.waiter = null;
      w(e);
    } else this.queue.push(e);
  }
}
