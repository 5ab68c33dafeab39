import { type Diagnostic, lex, renderDiagnostic, type Statement, type StringValue } from "@weir/parser";
import {
  type Catalog,
  type ConnectorCatalog,
  type PhysicalDag,
  redactOption,
  scrubSecrets,
  secretValues,
} from "@weir/planner";
import { ConnectorError } from "@weir/runtime";
import { sourceStack } from "../source-stack.js";

/** The `'key' = 'value'` pairs of `statements` (WITH, OPTIONS, hints, SET): an iterative walk of the syntax trees. */
function optionPairs(statements: readonly Statement[]): { key: StringValue; value: StringValue }[] {
  const found: { key: StringValue; value: StringValue }[] = [];
  const stack: unknown[] = [...statements];
  while (stack.length > 0) {
    const v = stack.pop();
    if (typeof v !== "object" || v === null) continue;
    if (Array.isArray(v)) {
      for (const x of v) stack.push(x);
      continue;
    }
    const node = v as { kind?: unknown; key?: StringValue; value?: StringValue };
    if (
      (node.kind === "OptionPair" || node.kind === "SetStatement") &&
      node.key?.kind === "StringValue" &&
      node.value?.kind === "StringValue"
    ) {
      found.push({ key: node.key, value: node.value });
      continue;
    }
    for (const key in node) if (key !== "span") stack.push((node as Record<string, unknown>)[key]);
  }
  return found;
}

/** A line of the script as a diagnostic echoes it, with its secret literals replaced. */
interface RedactedLine {
  readonly text: string;
  /** The replaced literals: at column index `at`, `from` characters became `to`. */
  readonly edits: readonly { readonly at: number; readonly from: number; readonly to: number }[];
}

/**
 * How output hides the secrets of a script: its file name is shown as it is, and a line of it
 * that a diagnostic echoes is redacted where its secret literals are (by position, so that
 * another literal that happens to spell the same word, `'connector' = 'postgres'` next to
 * `'password' = 'postgres'`, is left alone).
 */
export interface ScriptRedaction {
  readonly file: string;
  readonly secrets: readonly string[];
  /** Shown as they are: the file name, and the script's connectors where messages name them. */
  readonly keep: readonly string[];
  readonly lines: ReadonlyMap<string, RedactedLine>;
}

/**
 * The `'key' = 'value'` pairs of a script: those of its syntax trees, and those its tokens spell
 * (a statement that does not parse has no tree, but its error echoes its line).
 */
function scriptPairs(
  source: string,
  statements: readonly Statement[],
): { key: StringValue; value: StringValue }[] {
  const pairs = optionPairs(statements);
  const seen = new Set(pairs.map((p) => p.value.span.offset));
  const tokens = lex(source).tokens;
  for (let i = 0; i + 2 < tokens.length; i++) {
    const [k, eq, v] = [tokens[i]!, tokens[i + 1]!, tokens[i + 2]!];
    if (k.kind !== "string" || eq.kind !== "op" || eq.text !== "=" || v.kind !== "string") continue;
    if (seen.has(v.span.offset)) continue;
    pairs.push({
      key: { kind: "StringValue", value: k.value, span: k.span },
      value: { kind: "StringValue", value: v.value, span: v.span },
    });
  }
  return pairs;
}

export function scriptRedaction(
  source: string,
  statements: readonly Statement[],
  file: string,
): ScriptRedaction {
  const perLine = new Map<number, { start: number; end: number; text: string }[]>();
  const secrets: string[] = [];
  // Messages name a table's connector as `connector 'postgres'` or `(postgres)`: a public name
  // (SHOW CREATE TABLE shows it), not the password that may spell the same word.
  const keep = file === "" ? [] : [file];
  for (const { key, value } of scriptPairs(source, statements)) {
    if (key.value === "connector" && value.value !== "")
      keep.push(`connector '${value.value}'`, `(${value.value})`);
    secrets.push(...secretValues({ [key.value]: value.value }));
    const shown = redactOption(key.value, value.value);
    if (shown === value.value) continue;
    const { offset, end } = value.span;
    const literal = source.slice(offset, end);
    if (literal.includes("\n") || !/^'.*'$/s.test(literal)) continue;
    const lineStart = source.lastIndexOf("\n", offset - 1) + 1;
    const line = value.span.line;
    const edits = perLine.get(line) ?? [];
    edits.push({ start: offset - lineStart, end: end - lineStart, text: `'${shown.replaceAll("'", "''")}'` });
    perLine.set(line, edits);
  }
  const lines = new Map<string, RedactedLine>();
  const sourceLines = source.split("\n").map((l) => (l.endsWith("\r") ? l.slice(0, -1) : l));
  for (const [line, edits] of perLine) {
    const original = sourceLines[line - 1];
    if (original === undefined) continue;
    edits.sort((a, b) => a.start - b.start);
    let text = "";
    let at = 0;
    for (const e of edits) {
      text += original.slice(at, e.start) + e.text;
      at = e.end;
    }
    text += original.slice(at);
    lines.set(original, {
      text,
      edits: edits.map((e) => ({ at: e.start, from: e.end - e.start, to: e.text.length })),
    });
  }
  // Output scrubbed twice (a command's output through the engine's) stays the same.
  for (const { text } of [...lines.values()]) if (!lines.has(text)) lines.set(text, { text, edits: [] });
  return { file, secrets: [...new Set(secrets)], keep: [...new Set(keep)], lines };
}

/** The `[start, end)` ranges of the quoted literals and names of a SQL line. */
function literalRanges(line: string): [number, number][] {
  const out: [number, number][] = [];
  for (let i = 0; i < line.length; i++) {
    const q = line[i]!;
    if (q !== "'" && q !== '"' && q !== "`") continue;
    let j = i + 1;
    while (j < line.length) {
      if (line[j] === q) {
        if (line[j + 1] === q) j += 2;
        else break;
      } else j++;
    }
    // A literal that does not close on this line may go on with a secret: it is not kept.
    if (j < line.length) out.push([i, j + 1]);
    i = j;
  }
  return out;
}

/** Where column index `c` of an echoed line is after its edits. */
function shiftColumn(c: number, edits: RedactedLine["edits"]): number {
  let delta = 0;
  for (const e of edits) {
    if (e.at + e.from <= c) delta += e.to - e.from;
    else if (e.at < c) return e.at + delta;
  }
  return c + delta;
}

/**
 * Output text with no secret in it: each of `secrets` standing as a token is masked
 * (`scrubSecrets`), but the script's file name and its `:line:column` are kept (and its
 * connectors' names where a message names them), and a script
 * line echoed by a diagnostic is redacted by position: its secret literals are replaced, its
 * other literals kept, the rest scrubbed, and the caret line under it moved with it.
 */
export function scrubOutput(text: string, secrets: readonly string[], script?: ScriptRedaction): string {
  const keep = script?.keep ?? [];
  if (script === undefined || script.lines.size === 0 || !text.includes("\n"))
    return scrubSecrets(text, secrets, { keep });
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const echoed = script.lines.get(line);
    if (echoed === undefined) {
      lines[i] = scrubSecrets(line, secrets, { keep });
      continue;
    }
    lines[i] = scrubSecrets(echoed.text, secrets, { keep, keepRanges: literalRanges(echoed.text) });
    const caret = /^([ \t]*)\^(~*)$/.exec(lines[i + 1] ?? "");
    if (caret !== null) {
      const start = shiftColumn(caret[1]!.length, echoed.edits);
      const end = Math.max(start + 1, shiftColumn(caret[1]!.length + 1 + caret[2]!.length, echoed.edits));
      const pad = Array.from(echoed.text.slice(0, start), (ch) => (ch === "\t" ? "\t" : " ")).join("");
      lines[i + 1] = `${pad}^${"~".repeat(end - start - 1)}`;
      i++;
    }
  }
  return lines.join("\n");
}

/**
 * A bad record that names its position but no table (`topic t partition p offset o: ...`): the
 * source whose record it is (its spec's `recordFormat`) is found in the plan, and the hint names
 * its format's `ignore-parse-errors` option.
 */
function recordError(
  e: ConnectorError,
  dag: PhysicalDag,
  connectors: ConnectorCatalog,
): ConnectorError | undefined {
  const location = e.location;
  if (location === undefined || e.domain !== "user") return undefined;
  const owners = dag.nodes.flatMap((n) => {
    if (n.kind !== "source") return [];
    const c = connectors.configureNode(n);
    const format = c?.spec.source?.recordFormat?.(c.config, location) ?? null;
    return format === null ? [] : [{ node: n, format }];
  });
  const owner = owners[0];
  if (owners.length !== 1 || owner === undefined) return undefined;
  const table = owner.node.table;
  return new ConnectorError(e.reason, e.domain, e.location, e.retryable, {
    table,
    hint:
      e.hint ??
      `to skip records that do not parse (and count them), set '${owner.format}.ignore-parse-errors' = 'true' on table '${table}'`,
  });
}

/**
 * A run-time failure as the user reads it. A connector error that names its table is shown at
 * that table's DDL (at the option it is about, when it names one), like a compile-time error.
 */
export function renderRuntimeError(
  e: unknown,
  dag: PhysicalDag,
  catalog: Catalog,
  source: string,
  file: string,
): string {
  if (e instanceof ConnectorError && e.table === undefined) {
    const named = recordError(e, dag, catalog.connectors);
    if (named !== undefined) return renderRuntimeError(named, dag, catalog, source, file);
  }
  const message = e instanceof Error ? e.message : String(e);
  if (e instanceof ConnectorError && e.table !== undefined) {
    const object = catalog.get(e.table);
    const table = object?.kind === "table" ? object : undefined;
    const option = e.context.option;
    const node = dag.nodes.find((n) => (n.kind === "source" || n.kind === "sink") && n.table === e.table);
    const span =
      (option !== undefined ? table?.optionSpans[option]?.value : undefined) ?? table?.span ?? node?.span;
    // Connectors often name the table themselves (`table k: ...`): say it once.
    const own = `table ${e.table}: `;
    const text = e.message.startsWith(own) ? e.message.slice(own.length) : e.message;
    if (span !== undefined && span.end <= source.length) {
      const d: Diagnostic = {
        code: "runtime-error",
        message: `table '${e.table}': ${text}`,
        span,
        severity: "error",
        ...(e.hint !== undefined ? { hint: e.hint } : {}),
      };
      return renderDiagnostic(d, source, file);
    }
    return `${file}: runtime error: table '${e.table}': ${message}${e.hint !== undefined ? `\nhint: ${e.hint}` : ""}`;
  }
  const hint = e instanceof ConnectorError && e.hint !== undefined ? `\nhint: ${e.hint}` : "";
  return `${file}: runtime error: ${message}${hint}`;
}

/**
 * For a run-time failure caused by a JavaScript engine error (a TypeError or ReferenceError among
 * its causes) — a bug in Weir, which no input should reach — the lines that ask for a report and
 * give that error's stack frames at the TypeScript sources; else undefined. Other failures (bad
 * records, connectors, expressions) explain themselves and get no stack.
 */
export function internalErrorFrames(e: unknown): string | undefined {
  let c: unknown = e;
  for (let depth = 0; c instanceof Error && depth < 10; depth++, c = c.cause) {
    if (!(c instanceof TypeError || c instanceof ReferenceError)) continue;
    const frames = sourceStack(c)
      .split("\n")
      .filter((line) => /^\s+at /.test(line));
    return [
      `this is a bug in Weir (${c.name}: ${c.message}); please report it with these frames:`,
      ...frames,
    ].join("\n");
  }
  return undefined;
}
