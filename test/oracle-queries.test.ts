// Weir against Flink 2.3 as the oracle for whole queries: each script of test/oracle/queries
// (CREATE TABLEs over checked-in files, then one SELECT) was run by scripts/flink-oracle
// (`regenerate.sh queries`, a MiniCluster at parallelism 1, watermarks emitted per row as Weir
// does) and its changelog checked in as NAME.expected.tsv, every value CAST to STRING. Here
// Weir runs the same script, the query wrapped in the same CASTs, twice: straight through, and
// with a checkpoint and a restore into a fresh job in the middle. Compared:
// - the materialised result (the changelog applied to a multiset of rows), always;
// - the changes as a multiset (`-- compare: changes`, the default): the same +I/-U/+U/-D rows,
//   in any order (the order across keys or across two sources is not Flink's contract);
// - the changelog in order (`-- compare: changelog`), for single-source queries whose order is
//   determined by the input;
// - only the result (`-- compare: result`): queries over two sources whose intermediate changes
//   depend on how the sources interleave (a LEFT join's padded row and its retraction);
// - a script Flink refuses (`!INVALID`) must be refused by Weir's planner, one whose job fails
//   (`!ERROR`) must fail in Weir; with `-- compare: message`, with Flink's message.
// Deliberate differences are listed in test/oracle/queries/differences.tsv with their reason;
// the comparison honours exactly those (a listed difference that goes away fails too).
import { readdirSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { planScript, runDag } from "./smoke/script-job.js";

const DIR = resolve(import.meta.dirname, "oracle", "queries");
const OPS = ["+I", "-U", "+U", "-D"] as const;

type Compare = "changelog" | "changes" | "result";

interface Expected {
  readonly outcome: "rows" | "!INVALID" | "!ERROR";
  readonly message: string;
  readonly columns: string[];
  readonly changes: string[];
}

function readExpected(name: string): Expected {
  const lines = readFileSync(resolve(DIR, `${name}.expected.tsv`), "utf8").split("\n");
  let columns: string[] = [];
  const changes: string[] = [];
  for (const line of lines) {
    if (line === "") continue;
    if (line.startsWith("!INVALID") || line.startsWith("!ERROR")) {
      const sp = line.indexOf(" ");
      const outcome = line.slice(0, sp) as "!INVALID" | "!ERROR";
      return { outcome, message: line.slice(sp + 1), columns, changes };
    }
    if (line.startsWith("# columns:")) {
      columns = line
        .slice("# columns:".length)
        .split(";")
        .map((c) => c.trim())
        .filter((c) => c !== "")
        .map((c) => c.slice(0, c.indexOf(" ")));
      continue;
    }
    if (line.startsWith("#")) continue;
    changes.push(line);
  }
  return { outcome: "rows", message: "", columns, changes };
}

/** `name TAB what TAB reason`, what one of result | changes | changelog | outcome. */
function readDifferences(): Map<string, string> {
  const out = new Map<string, string>();
  let text = "";
  try {
    text = readFileSync(resolve(DIR, "differences.tsv"), "utf8");
  } catch {
    return out;
  }
  for (const line of text.split("\n")) {
    if (line === "" || line.startsWith("#")) continue;
    const [name, what, reason] = line.split("\t");
    if (!name || !what || !["result", "changes", "changelog", "outcome"].includes(what) || !reason)
      throw new Error(`bad line in differences.tsv: ${line}`);
    out.set(`${name}\t${what}`, reason);
  }
  return out;
}

/** Splits a script into its statements (each ends with `;` at the end of a line), comments dropped. */
function statements(script: string): string[] {
  const out: string[] = [];
  let cur: string[] = [];
  for (const line of script.split("\n")) {
    const t = line.trim();
    if (t.startsWith("--")) continue;
    cur.push(line);
    if (t.endsWith(";")) {
      const s = cur.join("\n").trim();
      out.push(s.slice(0, -1));
      cur = [];
    }
  }
  if (cur.join("").trim() !== "") out.push(cur.join("\n").trim());
  return out;
}

const escapeTsv = (s: string) => s.replace(/\\/g, "\\\\").replace(/\t/g, "\\t").replace(/\n/g, "\\n");

const quoteIdent = (n: string) => `\`${n.replace(/`/g, "``")}\``;

/**
 * The one class of differences normalised here (documented in docs/reference/sql.md): Weir keeps
 * an update as a `-U` immediately followed by its `+U`, and a filter or projection that keeps
 * only one row of the pair turns it into `-D` or `+I` (the filter rule); Flink passes the lone
 * `-U` or `+U` on unchanged. Both changelogs are compared in Weir's form.
 */
function updatePairs(changes: readonly string[]): string[] {
  const op = (c: string | undefined) => (c === undefined ? "" : c.slice(0, 2));
  const out: string[] = [];
  for (let i = 0; i < changes.length; i++) {
    const c = changes[i]!;
    if (op(c) === "-U" && op(changes[i + 1]) === "+U") {
      out.push(c, changes[++i]!);
    } else if (op(c) === "-U") out.push(`-D${c.slice(2)}`);
    else if (op(c) === "+U") out.push(`+I${c.slice(2)}`);
    else out.push(c);
  }
  return out;
}

/** The changelog applied to a multiset: the rows left at the end, sorted. */
function materialise(changes: readonly string[]): string[] {
  const rows = new Map<string, number>();
  for (const c of changes) {
    const tab = c.indexOf("\t");
    const op = tab < 0 ? c : c.slice(0, tab);
    const row = tab < 0 ? "" : c.slice(tab + 1);
    const add = op === "+I" || op === "+U" ? 1 : -1;
    rows.set(row, (rows.get(row) ?? 0) + add);
  }
  const out: string[] = [];
  for (const [row, n] of rows) {
    if (n < 0) out.push(`!RETRACTED ${-n}x\t${row}`);
    for (let i = 0; i < n; i++) out.push(row);
  }
  return out.sort();
}

interface WeirRun {
  readonly outcome: "rows" | "!INVALID" | "!ERROR";
  readonly message: string;
  readonly columns: string[];
  readonly changes: string[];
  readonly polls: number;
}

async function weir(script: string, checkpointAfterPolls?: number): Promise<WeirRun> {
  const stmts = statements(script);
  const ddl = stmts.slice(0, -1).map((s) => `${s};\n`);
  const query = stmts[stmts.length - 1]!;
  let columns: string[];
  let dag: ReturnType<typeof planScript>;
  try {
    const plain = planScript(`${ddl.join("")}${query};\n`, "oracle.sql", DIR);
    columns = plain.nodes[plain.sinks[0]!]!.schema.map((f) => f.name);
    const casts = columns.map((c) => `CAST(${quoteIdent(c)} AS STRING)`).join(", ");
    dag = planScript(`${ddl.join("")}SELECT ${casts} FROM (${query});\n`, "oracle.sql", DIR);
  } catch (e) {
    return { outcome: "!INVALID", message: (e as Error).message, columns: [], changes: [], polls: 0 };
  }
  try {
    const r = await runDag(dag, {
      cwd: DIR,
      pollBatchSize: 2,
      ...(checkpointAfterPolls === undefined ? {} : { checkpointAfterPolls }),
    });
    const changes = r.changes.map(
      (c) =>
        `${OPS[c.op]}${c.row.map((v) => `\t${v === null || v === undefined ? "\\N" : escapeTsv(String(v))}`).join("")}`,
    );
    return { outcome: "rows", message: "", columns, changes, polls: r.polls };
  } catch (e) {
    return { outcome: "!ERROR", message: (e as Error).message, columns, changes: [], polls: 0 };
  }
}

const differences = readDifferences();
const names = readdirSync(DIR)
  .filter((f) => f.endsWith(".sql"))
  .map((f) => f.slice(0, -4))
  .sort();

/** Asserts equal, or, when listed in differences.tsv, different. */
function check(name: string, what: string, got: unknown, want: unknown): void {
  const why = differences.get(`${name}\t${what}`);
  if (why === undefined) expect(got, what).toEqual(want);
  else expect(got, `listed as a difference (${why}) but equal`).not.toEqual(want);
}

describe("Flink 2.3 oracle: query shapes", () => {
  it("has the corpus, each script with Flink's output", () => {
    expect(names.length).toBeGreaterThanOrEqual(60);
    for (const key of differences.keys()) {
      const name = key.slice(0, key.indexOf("\t"));
      expect(names, `differences.tsv names a script that does not exist: ${name}`).toContain(name);
    }
  });

  for (const name of names) {
    it(name, async () => {
      const script = readFileSync(resolve(DIR, `${name}.sql`), "utf8");
      const compare: Compare = (/^-- compare: (changelog|changes|result)\b/m.exec(script)?.[1] ??
        "changes") as Compare;
      const want = readExpected(name);
      const got = await weir(script);
      check(name, "outcome", got.outcome, want.outcome);
      // `-- compare: message`: Weir refuses with Flink's message (its first line).
      if (want.outcome !== "rows" && /^-- compare: message\b/m.test(script))
        expect(got.message).toContain(want.message.split("\\n")[0]!.split(" The physical plan")[0]);
      if (want.outcome !== "rows" || got.outcome !== "rows") return;
      expect(got.columns, "column names").toEqual(want.columns);
      check(name, "result", materialise(got.changes), materialise(want.changes));
      const gotPairs = updatePairs(got.changes);
      const wantPairs = updatePairs(want.changes);
      if (compare === "changelog") check(name, "changelog", gotPairs, wantPairs);
      else if (compare === "changes") check(name, "changes", [...gotPairs].sort(), [...wantPairs].sort());
      // The same through a checkpoint and a restore into a fresh job halfway (a job of
      // constants only has no poll to checkpoint after).
      if (got.polls < 2) return;
      const restored = await weir(script, Math.max(1, Math.floor(got.polls / 2)));
      expect(restored.outcome, restored.message).toBe("rows");
      expect(materialise(restored.changes), "result after a restore").toEqual(materialise(got.changes));
      expect([...restored.changes].sort(), "changes after a restore").toEqual([...got.changes].sort());
    });
  }
});
