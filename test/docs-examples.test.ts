import { spawnSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
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
 * 0, what goes to standard error (the diagnostics) otherwise. The run summary goes to standard
 * error: a `<!-- stderr -->` line before a later code block (after the output, if any) compares
 * it too, with durations (`0.01 s`) matching any duration. The script's file name is
 * `example.sql`; `<!-- file: NAME -->` also saves the block as NAME for the transcripts below.
 *
 * A code block whose first line is `$ bin/weir ...` is a **transcript**: the command runs (the
 * real CLI, bin/weir) in one working directory per docs file, which holds the file's saved
 * blocks (and `docs/examples`, `sql/` as for the SQL blocks), and must print the
 * rest of the block: standard output, then standard error. `...` in an expected line matches any
 * text, durations match any duration, and `/home/me/weir` stands for the working directory.
 * `<!-- exit: N -->` before a transcript expects exit code N (default 0).
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
  readonly stderr?: string;
  readonly saveAs?: string;
}

interface Transcript {
  readonly file: string;
  readonly line: number;
  readonly argv: readonly string[];
  readonly expected: string;
  readonly exit: number;
}

/** Every code block whose first line is `$ bin/weir ...`, with its expected output. */
function extractTranscripts(file: string, text: string): Transcript[] {
  const lines = text.split("\n");
  const out: Transcript[] = [];
  for (let i = 0; i < lines.length; i++) {
    const fence = /^```(\w*)$/.exec(lines[i]!.trim());
    if (!fence) continue;
    // Every block is skipped whole (its closing fence is no opening), transcripts are read.
    const start = i;
    const body: string[] = [];
    for (i++; i < lines.length && lines[i]!.trim() !== "```"; i++) body.push(lines[i]!);
    if (!["", "text", "console", "sh"].includes(fence[1]!)) continue;
    const m = /^\$ bin\/weir (.*)$/.exec(body[0] ?? "");
    if (!m) continue;
    let exit = 0;
    for (let j = start - 1; j >= 0 && lines[j]!.trim().startsWith("<!--"); j--) {
      const e = /^<!--\s*exit:\s*(\d+)\s*-->$/.exec(lines[j]!.trim());
      if (e) exit = Number(e[1]);
    }
    out.push({
      file,
      line: start + 1,
      argv: m[1]!.trim().split(/\s+/),
      expected: body.slice(1).join("\n"),
      exit,
    });
  }
  return out;
}

/** The working directory the docs show (`/home/me/weir`). */
const DOC_CWD = "/home/me/weir";

/** Whether `actual` is what the docs show as `expected` (`...`, durations and DOC_CWD as above). */
function matchesDocumented(actual: string, expected: string, cwd: string): boolean {
  const a = normalise(actual.split(cwd).join(DOC_CWD)).split("\n");
  const e = normalise(expected).split("\n");
  if (a.length !== e.length) return false;
  return e.every((line, i) => {
    const pattern = line
      .split("...")
      .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&").replace(/\d+\\\.\d+ s\b/g, "\\d+\\.\\d+ s"))
      .join(".*");
    return new RegExp(`^${pattern}$`).test(a[i]!);
  });
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
    let saveAs: string | undefined;
    let exit = 0;
    for (let j = start - 1; j >= 0 && lines[j]!.trim().startsWith("<!--"); j--) {
      const m = /^<!--\s*([a-z-]+):\s*(.*?)\s*-->$/.exec(lines[j]!.trim());
      if (!m) continue;
      if (m[1] === "continues") continues = m[2]!;
      else if (m[1] === "not-runnable")
        throw new Error(`${file}:${j + 1}: every docs example runs; use continues: or plan-only:`);
      else if (m[1] === "plan-only") planOnly = m[2]!;
      else if (m[1] === "file") saveAs = m[2]!;
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
    // `<!-- stderr -->` before a later block (prose may come between) compares standard error.
    let stderr: string | undefined;
    for (let j = i + 1; j < lines.length && !lines[j]!.trim().startsWith("```"); j++) {
      if (lines[j]!.trim() !== "<!-- stderr -->") continue;
      let b = j + 1;
      while (b < lines.length && lines[b]!.trim() === "") b++;
      if (!lines[b]?.trim().startsWith("```"))
        throw new Error(`${file}:${j + 1}: <!-- stderr --> must be followed by a code block`);
      const expected: string[] = [];
      for (b++; b < lines.length && lines[b]!.trim() !== "```"; b++) expected.push(lines[b]!);
      stderr = expected.join("\n");
      i = b;
      break;
    }
    examples.push({
      file,
      line: start + 1,
      sql: body.join("\n"),
      exit,
      ...(continues !== undefined ? { continues } : {}),
      ...(planOnly !== undefined ? { planOnly } : {}),
      ...(output !== undefined ? { output } : {}),
      ...(stderr !== undefined ? { stderr } : {}),
      ...(saveAs !== undefined ? { saveAs } : {}),
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
const transcripts = markdownFiles(DOCS).flatMap((f) =>
  extractTranscripts(relative(ROOT, f), readFileSync(f, "utf8")),
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

/** Per docs file, the directory its transcripts run in: `<!-- file: NAME -->` blocks are saved there. */
const transcriptDirs = new Map<string, string>();
function transcriptDir(file: string): string {
  let dir = transcriptDirs.get(file);
  if (dir === undefined) {
    dir = workdir();
    transcriptDirs.set(file, dir);
  }
  return dir;
}

describe("extractTranscripts and matchesDocumented", () => {
  it("reads `$ bin/weir` blocks (not the closing fence of a sql block) and their exit marker", () => {
    const md = [
      "```sql",
      "SELEC 1;",
      "```",
      "",
      "<!-- exit: 1 -->",
      "```",
      "$ bin/weir parse bad.sql",
      "bad.sql:1:1: error: x",
      "```",
    ].join("\n");
    expect(extractTranscripts("x.md", md)).toEqual([
      { file: "x.md", line: 6, argv: ["parse", "bad.sql"], expected: "bad.sql:1:1: error: x", exit: 1 },
    ]);
  });

  it("matches '...', any duration and the documented working directory, and nothing else", () => {
    expect(
      matchesDocumented(
        "Job finished in 1.23 s\n  at /tmp/w/x",
        "Job finished in 0.00 s\n  at /home/me/weir/x",
        "/tmp/w",
      ),
    ).toBe(true);
    expect(matchesDocumented("Sink(fields=[a, b]), k", "Sink(fields=[...]), k", "/")).toBe(true);
    expect(matchesDocumented("Sink(fields=[a, b])", "Sink(fields=[...]), k", "/")).toBe(false);
    expect(matchesDocumented("a\nb", "a", "/")).toBe(false);
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
      if (ex.saveAs !== undefined) writeFileSync(join(transcriptDir(ex.file), ex.saveAs), `${ex.sql}\n`);
      const run = await runExample(ex, cwd);
      expect(run.code, `${name}\n--- stderr:\n${run.stderr}\n--- stdout:\n${run.stdout}`).toBe(ex.exit);
      if (ex.output !== undefined) {
        const actual = ex.exit === 0 ? run.stdout : run.stderr;
        expect(normalise(actual), name).toBe(normalise(ex.output));
      }
      if (ex.stderr !== undefined)
        expect(matchesDocumented(run.stderr, ex.stderr, cwd), `${name} standard error:\n${run.stderr}`).toBe(
          true,
        );
    });
  }
});

describe("weir transcripts in docs/", () => {
  it("finds the transcripts", () => {
    expect(transcripts.length).toBeGreaterThan(3);
  });

  const built = existsSync(join(ROOT, "packages/cli/dist/main.js"));
  for (const t of transcripts) {
    const name = `${t.file}:${t.line}: $ bin/weir ${t.argv.join(" ")}`;
    it.skipIf(!built)(name, () => {
      // The SQL examples ran first and saved their `<!-- file: -->` blocks here.
      const cwd = transcriptDir(t.file);
      const r = spawnSync(join(ROOT, "bin/weir"), [...t.argv], { cwd, encoding: "utf8" });
      const actual = [r.stdout.trimEnd(), r.stderr.trimEnd()].filter((x) => x !== "").join("\n");
      expect(r.status, `${name}\n${actual}`).toBe(t.exit);
      expect(
        matchesDocumented(actual, t.expected, cwd),
        `${name}: the docs show\n${t.expected}\n--- it prints:\n${actual}`,
      ).toBe(true);
    });
  }
});
