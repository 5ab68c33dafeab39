import { createInterface, emitKeypressEvents, type Interface } from "node:readline";
import { PassThrough } from "node:stream";
import { HISTORY_SIZE, saveHistory } from "./history.js";

/** What the shell reads next: a line, Ctrl-C at the prompt, or the end of input (Ctrl-D). */
export type InputEvent =
  | { readonly kind: "line"; readonly text: string }
  | { readonly kind: "interrupt"; readonly lineWasEmpty: boolean }
  | { readonly kind: "eof" };

/** A key as Node's keypress decoder reports it (`name` is absent for most printable characters). */
export interface Key {
  readonly name?: string | undefined;
  readonly sequence?: string | undefined;
  readonly ctrl?: boolean | undefined;
  readonly meta?: boolean | undefined;
  readonly shift?: boolean | undefined;
}

/** Ctrl-C, as a key (also what SIGINT becomes without a terminal). */
export const CTRL_C: Key = { name: "c", ctrl: true, sequence: "\u0003" };

export function isCtrlC(key: Key): boolean {
  return key.ctrl === true && key.name === "c";
}

/** The character a key types (`q`, `N`, ...), or undefined for a control or escape key. */
export function keyChar(key: Key): string | undefined {
  const s = key.sequence;
  return !key.ctrl && !key.meta && s !== undefined && s.length === 1 && s >= " " ? s : undefined;
}

/**
 * What a statement's work does with a key pressed while it runs: true when it used the key
 * (Ctrl-C stopped it, `N` turned a page); false leaves the key queued for the next prompt.
 */
export type BusyKeyHandler = (key: Key) => boolean;

export interface LineInputOptions {
  readonly input: NodeJS.ReadStream;
  readonly output: NodeJS.WriteStream;
  /** A real terminal: line editing, history, completion, keys read raw. */
  readonly terminal: boolean;
  /** Whole statements, newest first. */
  readonly history: readonly string[];
  /** Where history is saved after every statement (terminal only); undefined: not saved. */
  readonly historyFile?: string;
  readonly completer?: (line: string) => [string[], string];
}

type Pending = readonly [string | undefined, Key];

/** Ctrl-R's incremental search through the history, as in bash. */
interface Search {
  query: string;
  /** Index in the history of the match shown, -1 for none. */
  at: number;
  /** The query matches nothing from `at` on (the last match stays shown, as in bash). */
  failed: boolean;
  /** The line and cursor before the search began (restored by Ctrl-G). */
  readonly line: string;
  readonly cursor: number;
  readonly prompt: string;
}

/**
 * The shell's keyboard. On a terminal the keys are read raw, all the time, by one keypress
 * listener, and dispatched: at a prompt they go to a readline editor (which reads from no stream
 * of its own, only from what is written to it); while a statement runs they go to the
 * statement's handler (Ctrl-C stops it; a result view turns pages), and every key it does not
 * use is queued and replayed, in order, into the next prompt: keys typed ahead behave exactly as
 * if typed at that prompt (Tab completes, Enter submits). Lines typed ahead are handed out one at
 * a time by {@link next}, so a paste of several statements runs them in order.
 *
 * History holds whole statements ({@link remember}), so Up recalls a multi-line statement as one
 * entry; Ctrl-R searches it backwards. Without a terminal, input is read line by line and Ctrl-C
 * is the SIGINT signal.
 */
export class LineInput {
  private rl: Interface | null = null;
  private ended = false;
  private readonly queue: InputEvent[] = [];
  /** Keys typed while no prompt was up, in order. */
  private readonly keys: Pending[] = [];
  private waiter: ((e: InputEvent) => void) | null = null;
  private readonly history: string[];
  private onBusyKey: BusyKeyHandler | null = null;
  /** Notices that arrived while a statement ran with the screen in use; printed when it ends. */
  private readonly deferred: string[] = [];
  private search: Search | null = null;
  private prompt = "";
  private readonly onSignal = () => {
    if (this.onBusyKey) this.onBusyKey(CTRL_C);
    else this.emit({ kind: "interrupt", lineWasEmpty: true });
  };
  private readonly onKeypress = (s: string | undefined, key: Key | undefined) => {
    this.key(s, key ?? { sequence: s });
  };

  constructor(private readonly options: LineInputOptions) {
    this.history = options.history.slice(0, HISTORY_SIZE);
    // On a terminal Ctrl-C is a key (raw mode); SIGINT is then only a signal sent from outside.
    process.on("SIGINT", this.onSignal);
    if (options.terminal) {
      const { input } = options;
      emitKeypressEvents(input);
      input.setRawMode(true);
      input.on("keypress", this.onKeypress);
      input.on("end", () => this.end());
      input.resume();
      // Back in the foreground after Ctrl-Z: the shell that resumed us reset the terminal.
      process.on("SIGCONT", this.onContinue);
    }
  }

  private readonly onContinue = () => {
    if (this.ended || !this.options.input.isTTY) return;
    this.options.input.setRawMode(true);
    if (this.waiter !== null) this.rl?.prompt(true);
  };

  /** The next event; shows `prompt` when nothing was typed ahead. */
  next(prompt: string): Promise<InputEvent> {
    const queued = this.queue.shift();
    if (queued) return Promise.resolve(queued);
    if (this.ended) return Promise.resolve({ kind: "eof" });
    const rl = this.open();
    return new Promise((resolve) => {
      this.waiter = resolve;
      if (this.options.terminal) {
        this.prompt = prompt;
        rl.setPrompt(prompt);
        rl.prompt();
        // Replay what was typed meanwhile, up to the key that completes a line.
        while (this.waiter !== null && this.keys.length > 0 && !this.ended) {
          const [s, key] = this.keys.shift()!;
          this.feed(s, key);
        }
      }
    });
  }

  /** Adds a statement (its text as typed, lines and all) to the history and saves it. */
  remember(statement: string): void {
    const text = statement.trim();
    if (text.length === 0 || !this.options.terminal) return;
    const seen = this.history.indexOf(text);
    if (seen >= 0) this.history.splice(seen, 1);
    this.history.unshift(text);
    if (this.history.length > HISTORY_SIZE) this.history.length = HISTORY_SIZE;
    if (this.options.historyFile !== undefined) saveHistory(this.options.historyFile, this.history);
  }

  /**
   * Runs `work` with the prompt away. Each key pressed meanwhile goes to `onKey`; the keys it
   * does not use wait for the next prompt. Without a terminal only Ctrl-C (SIGINT) reaches it.
   */
  async busy<T>(onKey: BusyKeyHandler, work: () => Promise<T>): Promise<T> {
    const outer = this.onBusyKey;
    this.onBusyKey = onKey;
    try {
      return await work();
    } finally {
      this.onBusyKey = outer;
      if (outer === null) {
        const lines = this.deferred.splice(0);
        if (lines.length > 0) this.options.output.write(`${lines.join("\n")}\n`);
      }
    }
  }

  /**
   * Prints lines at once, wherever the shell is: above the prompt (which is drawn again below
   * them, with what was typed on it) while it waits for input, after the statement's output
   * while one runs with the screen in use (a live result view), else straight away.
   */
  notify(lines: readonly string[]): void {
    if (lines.length === 0) return;
    const { output, terminal } = this.options;
    const rl = this.rl as (Interface & { prevRows?: number }) | null;
    if (terminal && this.waiter !== null && rl !== null) {
      const up = rl.prevRows ?? 0;
      output.write(`${up > 0 ? `\u001b[${up}A` : ""}\r\u001b[J${lines.join("\n")}\n`);
      rl.prevRows = 0;
      rl.prompt(true);
    } else if (this.onBusyKey !== null) {
      this.deferred.push(...lines);
    } else {
      output.write(`${lines.join("\n")}\n`);
    }
  }

  close(): void {
    const { input, terminal } = this.options;
    this.ended = true;
    process.off("SIGINT", this.onSignal);
    if (terminal) {
      process.off("SIGCONT", this.onContinue);
      input.off("keypress", this.onKeypress);
      if (input.isTTY) input.setRawMode(false);
    }
    const rl = this.rl;
    this.rl = null;
    rl?.close();
    input.pause();
  }

  private end(): void {
    if (this.ended) return;
    this.ended = true;
    this.emit({ kind: "eof" });
  }

  /** One key from the terminal. */
  private key(s: string | undefined, key: Key): void {
    if (this.ended) return;
    if (this.onBusyKey !== null && this.waiter === null) {
      if (this.onBusyKey(key)) return;
      this.keys.push([s, key]);
      return;
    }
    if (this.waiter === null || this.keys.length > 0) {
      this.keys.push([s, key]);
      return;
    }
    this.feed(s, key);
  }

  /** A key at the prompt: to the reverse search when one is on, else to readline. */
  private feed(s: string | undefined, key: Key): void {
    const rl = this.rl;
    if (rl === null) return;
    if (this.search !== null) {
      this.searchKey(rl, s, key);
      return;
    }
    if (key.ctrl && key.name === "z" && process.platform !== "win32") {
      // Suspend with the terminal as the shell that takes it back expects it (SIGCONT re-raws).
      this.options.input.setRawMode(false);
      process.kill(process.pid, "SIGTSTP");
      return;
    }
    if (key.ctrl && key.name === "r") {
      this.search = {
        query: "",
        at: -1,
        failed: false,
        line: rl.line,
        cursor: rl.cursor,
        prompt: this.prompt,
      };
      this.drawSearch(rl);
      return;
    }
    rl.write(s ?? "", key as Parameters<Interface["write"]>[1]);
  }

  private searchKey(rl: Interface, s: string | undefined, key: Key): void {
    const search = this.search!;
    const ch = keyChar(key);
    if (key.ctrl && key.name === "r") {
      this.find(search, search.at + 1);
      this.drawSearch(rl);
    } else if (ch !== undefined) {
      search.query += ch;
      this.find(search, Math.max(0, search.at));
      this.drawSearch(rl);
    } else if (key.name === "backspace") {
      search.query = search.query.slice(0, -1);
      this.find(search, 0);
      this.drawSearch(rl);
    } else if (key.ctrl && key.name === "g") {
      this.leaveSearch(rl, search.line, search.cursor);
    } else if (isCtrlC(key)) {
      this.leaveSearch(rl, search.line, search.cursor);
      rl.write("", key as Parameters<Interface["write"]>[1]);
    } else {
      // Any other key takes the match onto the line and then does what it does there (Enter
      // runs it, arrows and Ctrl-A/E start editing it), as in bash.
      const match = search.at >= 0 ? this.history[search.at]! : search.line;
      this.leaveSearch(rl, match, match.length);
      if (key.name !== "escape") rl.write(s ?? "", key as Parameters<Interface["write"]>[1]);
    }
  }

  /** The newest entry from `from` on that contains the query (no match keeps the last one). */
  private find(search: Search, from: number): void {
    search.failed = false;
    if (search.query === "") {
      search.at = -1;
      return;
    }
    const q = search.query.toLowerCase();
    for (let i = from; i < this.history.length; i++) {
      if (this.history[i]!.toLowerCase().includes(q)) {
        search.at = i;
        return;
      }
    }
    search.failed = true;
  }

  private drawSearch(rl: Interface): void {
    const search = this.search!;
    const match = search.at >= 0 ? this.history[search.at]! : "";
    rl.setPrompt(`(${search.failed ? "failed " : ""}reverse-i-search)'${search.query}': `);
    this.setLine(rl, match, Math.max(0, match.toLowerCase().indexOf(search.query.toLowerCase())));
  }

  private leaveSearch(rl: Interface, line: string, cursor: number): void {
    this.search = null;
    rl.setPrompt(this.prompt);
    this.setLine(rl, line, cursor);
  }

  private setLine(rl: Interface, line: string, cursor: number): void {
    const editable = rl as unknown as { line: string; cursor: number };
    editable.line = line;
    editable.cursor = cursor;
    rl.prompt(true);
  }

  private open(): Interface {
    if (this.rl) return this.rl;
    const { input, output, terminal, completer } = this.options;
    // On a terminal readline reads nothing itself: the keypress listener writes keys to it.
    const rl = createInterface({
      input: terminal ? new PassThrough() : input,
      output,
      terminal,
      history: this.history,
      // The shell adds whole statements to the history itself (`remember`).
      historySize: 0,
      tabSize: 4,
      ...(completer && terminal ? { completer } : {}),
    });
    rl.on("line", (text) => this.emit({ kind: "line", text }));
    rl.on("close", () => {
      if (this.rl !== rl) return;
      this.rl = null;
      this.end();
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

  private emit(e: InputEvent): void {
    const w = this.waiter;
    if (w) {
      this.waiter = null;
      w(e);
    } else this.queue.push(e);
  }
}
