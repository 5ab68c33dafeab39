import { mkdirSync, mkdtempSync, readdirSync, readFileSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative, resolve } from "node:path";
import { Engine, type Output } from "@weir/cli";
import { createConnectorRegistry } from "@weir/connectors";
import { describe, expect, it } from "vitest";

/**
 * Every ```sql block of `docs/**\/*.md` runs through the engine, as `weir run` would run it from
 * the repository root: parse, bind, plan and (for INSERT / SELECT over bounded sources) run.
 *
 * Markers, each an HTML comment on the line(s) right before the block:
 * - `<!-- continues: reason -->` runs the block in the working directory of the file's previous
 *   block (to read what it wrote);
 * - `<!-- plan-only: reason -->` plans without running (`weir run --dry-run`), for sources that
 *   need a server (Kafka, Postgres);
 * - `<!-- exit: N -->` expects exit code N instead of 0 (examples of errors).
 * A block followed by `<!-- output -->` and a ```text block must print exactly that text: what
 * goes to standard output (print sink lines and SELECT tableaus) when the expected exit code is
 * 0, what goes to standard error (the diagnostics) otherwise. The run summary (timings) goes to
 * standard error and is not compared for successful runs. The script's file name is
 * `example.sql`.
 */

const ROOT = resolve(import.meta.dirname, "..");
const DOCS = join(ROOT, "docs");

interface SqlExample {
  readonly file: string;
  readonly line: number;
  readonly sql: string;
  readonly continues?: string;
  readonly planOnly?: string;
  readonly exit: number;
  readonly output?: string;
}

function markdownFiles(dir: string): string[] {
  const files: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) files.push(...markdownFiles(p));
    else if (e.name.endsWith(".md")) files.push(p);
  }
  return files.sort();
}

/** The ```sql blocks of one Markdown text with their markers and expected output. */
function extractSqlExamples(file: string, text: string): SqlExample[] {
  const lines = text.split("\n");
  const examples: SqlExample[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (lines[i]!.trim() !== "```sql") continue;
    const start = i;
    const body: string[] = [];
    for (i++; i < lines.length && lines[i]!.trim() !== "```"; i++) body.push(lines[i]!);
    let continues: string | undefined;
    let planOnly: string | undefined;
    let exit = 0;
    for (let j = start - 1; j >= 0 && lines[j]!.trim().startsWith("<!--"); j--) {
      const m = /^<!--\s*([a-z-]+):\s*(.*?)\s*-->$/.exec(lines[j]!.trim());
      if (!m) continue;
      if (m[1] === "continues") continues = m[2]!;
      else if (m[1] === "not-runnable")
        throw new Error(`${file}:${j + 1}: every docs example runs; use continues: or plan-only:`);
      else if (m[1] === "plan-only") planOnly = m[2]!;
      else if (m[1] === "exit") exit = Number(m[2]);
    }
    let k = i + 1;
    while (k < lines.length && lines[k]!.trim() === "") k++;
    let output: string | undefined;
    if (lines[k]?.trim() === "<!-- output -->") {
      k++;
      while (k < lines.length && lines[k]!.trim() === "") k++;
      if (lines[k]?.trim() !== "```text")
        throw new Error(`${file}:${k + 1}: <!-- output --> must be followed by a \`\`\`text block`);
      const expected: string[] = [];
      for (k++; k < lines.length && lines[k]!.trim() !== "```"; k++) expected.push(lines[k]!);
      output = expected.join("\n");
      i = k;
    }
    examples.push({
      file,
      line: start + 1,
      sql: body.join("\n"),
      exit,
      ...(continues !== undefined ? { continues } : {}),
      ...(planOnly !== undefined ? { planOnly } : {}),
      ...(output !== undefined ? { output } : {}),
    });
  }
  return examples;
}

/** A working directory like the repository root: the example data and `sql/` are linked in. */
function workdir(): string {
  const dir = mkdtempSync(join(tmpdir(), "weir-docs-"));
  mkdirSync(join(dir, "docs"));
  symlinkSync(join(DOCS, "examples"), join(dir, "docs", "examples"));
  symlinkSync(join(ROOT, "sql"), join(dir, "sql"));
  return dir;
}

interface Run {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

async function runExample(ex: SqlExample, cwd: string): Promise<Run> {
  const stdout: string[] = [];
  const stderr: string[] = [];
  const out: Output = { out: (l) => stdout.push(l), err: (l) => stderr.push(l) };
  const text = (sink: string[]) => ({
    write: (t: string) => {
      sink.push(...t.replace(/\n$/, "").split("\n"));
      return true;
    },
  });
  const engine = new Engine({
    cwd,
    out,
    connectors: createConnectorRegistry({ stdout: text(stdout), stderr: text(stderr) }),
  });
  const code = await engine.runScript(ex.sql, {
    file: "example.sql",
    maxRuntimeMs: 20_000,
    ...(ex.planOnly !== undefined ? { dryRun: true } : {}),
  });
  return { code, stdout: stdout.join("\n"), stderr: stderr.join("\n") };
}

function normalise(text: string): string {
  return text
    .split("\n")
    .map((l) => l.trimEnd())
    .join("\n")
    .trim();
}

const examples = markdownFiles(DOCS).flatMap((f) =>
  extractSqlExamples(relative(ROOT, f), readFileSync(f, "utf8")),
);

describe("extractSqlExamples", () => {
  it("reads blocks, markers and expected output", () => {
    const md = [
      "text",
      "```sql",
      "SELECT 1;",
      "```",
      "<!-- output -->",
      "```text",
      "+I 1",
      "```",
      "<!-- continues: reads the file above -->",
      "```sql",
      "WHERE x",
      "```",
      "<!-- exit: 1 -->",
      "<!-- plan-only: needs Kafka -->",
      "```sql",
      "SELECT 2;",
      "```",
    ].join("\n");
    expect(extractSqlExamples("x.md", md)).toEqual([
      { file: "x.md", line: 2, sql: "SELECT 1;", exit: 0, output: "+I 1" },
      { file: "x.md", line: 10, sql: "WHERE x", exit: 0, continues: "reads the file above" },
      { file: "x.md", line: 15, sql: "SELECT 2;", exit: 1, planOnly: "needs Kafka" },
    ]);
  });
});

describe("SQL examples in docs/", () => {
  it("finds the examples", () => {
    expect(examples.length).toBeGreaterThan(20);
  });

  const lastDir = new Map<string, string>();
  for (const ex of examples) {
    const name = `${ex.file}:${ex.line}`;
    it(name, async () => {
      // Blocks of a file run in order; a `continues` block reuses the previous block's directory.
      const cwd = ex.continues !== undefined ? (lastDir.get(ex.file) ?? workdir()) : workdir();
      lastDir.set(ex.file, cwd);
      const run = await runExample(ex, cwd);
      expect(run.code, `${name}\n--- stderr:\n${run.stderr}\n--- stdout:\n${run.stdout}`).toBe(ex.exit);
      if (ex.output !== undefined) {
        const actual = ex.exit === 0 ? run.stdout : run.stderr;
        expect(normalise(actual), name).toBe(normalise(ex.output));
      }
    });
  }
});
