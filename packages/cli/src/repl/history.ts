import { readFileSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";

/** Statements kept in the history file. */
export const HISTORY_SIZE = 1000;

/** `$WEIR_HISTORY`, else `~/.weir_history`. */
export function historyPath(env: NodeJS.ProcessEnv = process.env): string {
  return env.WEIR_HISTORY && env.WEIR_HISTORY.length > 0
    ? env.WEIR_HISTORY
    : join(homedir(), ".weir_history");
}

/**
 * Reads the history file into the shell's order: newest first. The file holds one statement a
 * line, oldest first; a statement's line breaks are written `\n` and a backslash `\\` (as
 * JLine, which Flink's client uses, does), so a multi-line statement comes back whole. A missing
 * or unreadable file is an empty history.
 */
export function loadHistory(path: string): string[] {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch {
    return [];
  }
  return text
    .split("\n")
    .filter((l) => l.trim().length > 0)
    .slice(-HISTORY_SIZE)
    .map(decodeEntry)
    .reverse();
}

/** Writes the history (newest first) to the file, oldest first. Failures are ignored. */
export function saveHistory(path: string, history: readonly string[]): void {
  try {
    const lines = history.slice(0, HISTORY_SIZE).reverse().map(encodeEntry);
    writeFileSync(path, lines.length > 0 ? `${lines.join("\n")}\n` : "");
  } catch {
    // A read-only home must not break the shell.
  }
}

/** One statement as one line of the history file: `\\` for a backslash, `\n` for a line break. */
export function encodeEntry(entry: string): string {
  return entry.replace(/\\/g, "\\\\").replace(/\r?\n/g, "\\n");
}

export function decodeEntry(line: string): string {
  return line.replace(/\\(\\|n)/g, (_, c: string) => (c === "n" ? "\n" : "\\"));
}
