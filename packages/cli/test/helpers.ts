import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Output, weir } from "@weir/cli";

/** Runs `weir` in-process and captures what it prints. */
export async function runWeir(argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const output: Output = { out: (l) => out.push(l), err: (l) => err.push(l) };
  const code = await weir(argv, output);
  return { code, stdout: out.join("\n"), stderr: err.join("\n") };
}

/** Writes `text` to a fresh temporary file and returns its path. */
export function tempFile(name: string, text: string): string {
  const dir = mkdtempSync(join(tmpdir(), "weir-cli-"));
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}
