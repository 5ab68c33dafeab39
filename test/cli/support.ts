import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Engine, type Output } from "@weir/cli";
import { createConnectorRegistry } from "@weir/connectors";

/** Runs a script as `weir run` does, in `cwd`, capturing standard output and error. */
export async function run(
  sql: string,
  cwd: string,
  extra: { dryRun?: boolean; json?: boolean; restore?: string } = {},
) {
  const stdout: string[] = [];
  const stderr: string[] = [];
  const out: Output = { out: (l) => stdout.push(l), err: (l) => stderr.push(l) };
  const text = (sink: string[]) => ({
    write: (t: string) => {
      sink.push(...t.replace(/\n$/, "").split("\n"));
      return true;
    },
  });
  const engine = new Engine({ cwd, out, connectors: createConnectorRegistry({ stdout: text(stdout) }) });
  const code = await engine.runScript(sql, { file: "job.sql", ...extra });
  return { code, stdout: stdout.join("\n"), stderr: stderr.join("\n") };
}

export function workdir(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), "weir-rt-"));
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(join(dir, name, ".."), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
  return dir;
}
