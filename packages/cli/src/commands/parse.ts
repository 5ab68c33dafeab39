import { readFileSync } from "node:fs";
import { parse, renderDiagnostic, statementKindLabel } from "@weir/parser";
import { scrubSecrets } from "@weir/planner";
import type { CommandLine } from "../args.js";
import { UsageError } from "../args.js";
import { scriptRedaction, scrubOutput } from "../engine/errors.js";
import type { Output } from "../output.js";

/**
 * `weir parse FILE.sql [--json]`: exit 0 and one line per statement (its kind and line) — with
 * `--json`, the syntax trees, secrets masked — or exit 1 and every diagnostic rendered with file,
 * line, column and a caret.
 */
export function parseCommand(cmd: CommandLine, out: Output): number {
  const file = cmd.positionals[0];
  if (file === undefined) throw new UsageError("weir parse needs a file: weir parse FILE.sql [--json]");
  const source = readSource(file, out);
  if (source === undefined) return 1;
  const result = parse(source);
  if (result.diagnostics.length > 0) {
    // An echoed line may hold a password: hidden as weir run hides it.
    const redaction = scriptRedaction(source, result.statements, file);
    for (const d of result.diagnostics)
      out.err(scrubOutput(renderDiagnostic(d, source, file), redaction.secrets, redaction));
    const errors = result.diagnostics.filter((d) => d.severity === "error").length;
    out.err(`${errors} error${errors === 1 ? "" : "s"} in ${file}`);
    if (errors > 0) return 1;
  }
  if (cmd.flags.has("json")) {
    // The syntax tree holds the options' values as written: every string of it is scrubbed of
    // the script's secrets before it is encoded (a secret with a quote in it is found as written).
    const { secrets, keep } = scriptRedaction(source, result.statements, file);
    const scrub = (_key: string, v: unknown) =>
      typeof v === "string" ? scrubSecrets(v, secrets, { keep }) : v;
    out.out(JSON.stringify(result.statements, secrets.length > 0 ? scrub : undefined, 2));
    return 0;
  }
  for (const stmt of result.statements) {
    out.out(`${file}:${stmt.span.line}: ${statementKindLabel(stmt)}`);
  }
  return 0;
}

/** Reads a script, or reports why it cannot (as a diagnostic the user can act on). */
export function readSource(file: string, out: Output): string | undefined {
  try {
    return readFileSync(file, "utf8");
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    const why = code === "ENOENT" ? "no such file" : code === "EISDIR" ? "is a directory" : String(e);
    out.err(`${file}: error: cannot read the script: ${why}`);
    return undefined;
  }
}
