import { readFileSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";

/** Lines kept in the history file. */
export const HISTORY_SIZE = 1000;

/** `$WEIR_HISTORY`, else `~/.weir_history`. */
export function historyPath(env: NodeJS.ProcessEnv = process.env): string {
  return env.WEIR_HISTORY && env.WEIR_HISTORY.length > 0
    ? env.WEIR_HISTORY
    : join(homedir(), ".weir_history");
}

/**
 * Reads the history file (oldest line first, one entry a line) into readline's order: newest
 * first. A missing or unreadable file is an empty history.
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
    .reverse();
}

/** Writes readline's history (newest first) to the file, oldest first. Failures are ignored. */
export function saveHistory(path: string, history: readonly string[]): void {
  try {
    const lines = history.slice(0, HISTORY_SIZE).reverse();
    writeFileSync(path, lines.length > 0 ? `${lines.join("\n")}\n` : "");
  } catch {
    // A read-only home must not break the shell.
  }
}
