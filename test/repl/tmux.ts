import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const WEIR = join(ROOT, "bin/weir");
const MAIN = join(ROOT, "packages/cli/dist/main.js");

/** Fails with what to do when the shell cannot be driven (no tmux, CLI not built). */
export function checkPrerequisites(): void {
  try {
    execFileSync("sh", ["-c", "command -v tmux"], { stdio: "pipe" });
  } catch {
    throw new Error(
      "the REPL tests drive a real terminal through tmux, which is not installed: apt-get install -y tmux",
    );
  }
  if (!existsSync(MAIN)) throw new Error(`${MAIN} is missing: build first with pnpm exec tsc -b`);
}

export interface ShellOptions {
  readonly args?: readonly string[];
  readonly env?: Readonly<Record<string, string>>;
  readonly width?: number;
  readonly height?: number;
}

let counter = 0;
const live = new Set<TmuxShell>();
process.on("exit", () => {
  for (const s of [...live]) s.kill();
});

const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/**
 * `bin/weir` running in a detached tmux session of its own server: keys go in with send-keys,
 * the screen comes back with capture-pane. When weir exits, the pane prints `[weir exited N]`.
 */
export class TmuxShell {
  private readonly socket: string;
  readonly historyFile: string;

  private constructor(options: ShellOptions) {
    this.socket = `weir-repl-${process.pid}-${counter++}`;
    this.historyFile =
      options.env?.WEIR_HISTORY ?? join(mkdtempSync(join(tmpdir(), "weir-repl-")), "history");
    const env = { WEIR_HISTORY: this.historyFile, ...options.env };
    const assignments = Object.entries(env).map(([k, v]) => `${k}=${quote(v)}`);
    // The timeouts bound what a test run that died before its cleanup can leave behind.
    const command = `env ${assignments.join(" ")} timeout --foreground 300 ${quote(WEIR)} ${(options.args ?? []).map(quote).join(" ")}; echo "[weir exited $?]"; sleep 120`;
    this.tmux(
      "new-session",
      "-d",
      "-s",
      "weir",
      "-x",
      String(options.width ?? 160),
      "-y",
      String(options.height ?? 45),
      "-c",
      ROOT,
      command,
    );
  }

  static start(options: ShellOptions = {}): TmuxShell {
    const shell = new TmuxShell(options);
    live.add(shell);
    return shell;
  }

  private tmux(...args: string[]): string {
    return execFileSync("tmux", ["-L", this.socket, ...args], { encoding: "utf8" });
  }

  /** Types `text` literally and presses Enter (one line of input). */
  type(text: string): void {
    this.typeNoEnter(text);
    this.keys("Enter");
  }

  /** Types `text` literally (tmux reads an argument ending in `;` as a separator, hence the escape). */
  typeNoEnter(text: string): void {
    this.tmux("send-keys", "-t", "weir", "-l", text.endsWith(";") ? `${text.slice(0, -1)}\\;` : text);
  }

  /** Presses keys by tmux name: `C-c`, `C-d`, `Tab`, `Up`, `Enter`. */
  keys(...keys: string[]): void {
    this.tmux("send-keys", "-t", "weir", ...keys);
  }

  /** The pane with its scrollback, wrapped lines joined. */
  screen(): string {
    return this.tmux("capture-pane", "-p", "-J", "-S", "-", "-t", "weir");
  }

  /** Only what is visible now. */
  visible(): string {
    return this.tmux("capture-pane", "-p", "-J", "-t", "weir");
  }

  /** Polls the screen until `pattern` occurs at least `count` times; fails with the screen. */
  async waitFor(pattern: RegExp | string, count = 1, timeoutMs = 15_000): Promise<string> {
    const re =
      typeof pattern === "string"
        ? new RegExp(escapeRegExp(pattern), "g")
        : new RegExp(pattern.source, `${pattern.flags.replace("g", "")}g`);
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const text = this.screen();
      if ((text.match(re)?.length ?? 0) >= count) return text;
      if (Date.now() > deadline)
        throw new Error(`timed out waiting for ${re} (x${count}); the screen was:\n${text}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  /** Polls until the shell waits at an empty `weir> ` prompt (the last thing on the screen). */
  async waitForPrompt(timeoutMs = 15_000): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const text = this.visible();
      if (text.trimEnd().endsWith("weir>")) return text;
      if (Date.now() > deadline)
        throw new Error(`timed out waiting for the prompt; the screen was:\n${text}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  /** Counts the occurrences of `text` on the screen now. */
  count(text: string): number {
    return this.screen().split(text).length - 1;
  }

  /** Waits for weir to exit and returns its exit code. */
  async exitCode(timeoutMs = 15_000): Promise<number> {
    const text = await this.waitFor(/\[weir exited (\d+)\]/, 1, timeoutMs);
    return Number(/\[weir exited (\d+)\]/.exec(text)![1]);
  }

  /**
   * Does `action` (typing `QUIT;`, say) and waits for weir to exit: its exit code, and the
   * milliseconds from the action until the exit was seen on the screen (polled, so a little late).
   */
  async timeExit(action: () => void, timeoutMs = 15_000): Promise<{ code: number; ms: number }> {
    const started = Date.now();
    action();
    const code = await this.exitCode(timeoutMs);
    return { code, ms: Date.now() - started };
  }

  /** The last non-empty line visible now (where the prompt and the text typed on it are). */
  lastLine(): string {
    const lines = this.visible().trimEnd().split("\n");
    return lines[lines.length - 1] ?? "";
  }

  kill(): void {
    live.delete(this);
    try {
      this.tmux("kill-server");
    } catch {
      // Already gone.
    }
    // tmux can leave the socket file of a killed server behind.
    const uid = process.getuid?.() ?? 0;
    rmSync(join(process.env.TMUX_TMPDIR ?? "/tmp", `tmux-${uid}`, this.socket), { force: true });
  }
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
