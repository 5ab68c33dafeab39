import { mkdirSync, renameSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";

/** Keys of Nexmark q13's side input: `MOD(auction, 10000)` reaches every one of them. */
export const NEXMARK_SIDE_INPUT_KEYS = 10_000;

/** Nexmark q13's side input as CSV lines `key,value` (`0,side-0000` … `9999,side-9999`). */
export function nexmarkSideInput(keys = NEXMARK_SIDE_INPUT_KEYS): string {
  const lines: string[] = [];
  for (let k = 0; k < keys; k++) lines.push(`${k},side-${String(k).padStart(4, "0")}`);
  return `${lines.join("\n")}\n`;
}

/**
 * Writes the side input to `path` (atomically: a temporary file renamed over it), which is how
 * the test suite and `weir bench` produce `sql/nexmark/data/side_input.csv` before q13 runs.
 */
export function writeNexmarkSideInput(path: string): void {
  mkdirSync(dirname(path), { recursive: true });
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, nexmarkSideInput());
  renameSync(tmp, path);
}
