import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { planScript, printed, type RunResult, runDag } from "./smoke/script-job.js";

/**
 * Golden SQL smoke tests: each folder of test/smoke/ holds `query.sql` (CREATE TABLEs over the
 * folder's JSONL files and one SELECT), its inputs, and a hand-written `expected.changelog`
 * derived from Flink's semantics (see the folder's README). Each case runs straight through and
 * again with a checkpoint (JSON round trip) and a restore into a fresh job after each poll; all runs
 * must give the same changelog, equal to the golden one. Goldens are never regenerated.
 *
 * `expected.changelog` header directives (`# key: value`):
 * - `order: exact` (default) — the whole changelog in order (single-parallelism Flink order);
 * - `order: multiset` — sorted, for outputs whose order Flink leaves open (rows of one window
 *   firing, or of one watermark);
 * - `kinds: sign` — compare `+U` as `+I` and `-U` as `-D` (for operators where Weir documents that
 *   it emits only `+I`/`-D` where Flink keeps the input's row kind);
 * - `differs: why` — a difference from Flink that is known and explained: the exact comparison
 *   runs as an expected failure (it flags when the difference goes away); the materialised result
 *   must still be equal.
 * - `late: N` — the number of late records the operators must report dropped;
 * - `poll: N` — rows per source poll (default 3).
 */
const DIR = resolve(import.meta.dirname, "smoke");
const CASES = readdirSync(DIR)
  .filter((d) => statSync(join(DIR, d)).isDirectory())
  .sort();

interface Golden {
  readonly lines: string[];
  readonly order: "exact" | "multiset";
  readonly late: number | undefined;
  readonly poll: number;
  readonly bySign: boolean;
  readonly differs: string | undefined;
}

function readGolden(dir: string): Golden {
  const text = readFileSync(join(dir, "expected.changelog"), "utf8");
  const directives = new Map<string, string>();
  const lines: string[] = [];
  for (const raw of text.split("\n")) {
    const line = raw.trim();
    const d = /^#\s*(order|late|poll|kinds|differs):\s*(\S.*)/.exec(line);
    if (d) directives.set(d[1]!, d[2]!);
    else if (line !== "" && !line.startsWith("#")) lines.push(line);
  }
  const order = directives.get("order") ?? "exact";
  if (order !== "exact" && order !== "multiset") throw new Error(`${dir}: unknown order '${order}'`);
  const late = directives.get("late");
  return {
    lines,
    order,
    late: late === undefined ? undefined : Number(late),
    poll: Number(directives.get("poll") ?? "3"),
    bySign: directives.get("kinds") === "sign",
    differs: directives.get("differs"),
  };
}

function lines(r: RunResult): string[] {
  return r.changes.map((c) => printed(c, r.schema));
}

/** `+U[…]` as `+I[…]`, `-U[…]` as `-D[…]`. */
function bySign(line: string): string {
  return line.replace(/^\+U\[/, "+I[").replace(/^-U\[/, "-D[");
}

/** The rows a retract sink holds after applying the changelog lines, sorted. */
function materialized(changes: readonly string[]): string[] {
  const counts = new Map<string, number>();
  for (const line of changes) {
    const m = /^([+-][IUD])(\[.*\])$/.exec(line);
    if (!m) throw new Error(`not a changelog line: ${line}`);
    const n = (counts.get(m[2]!) ?? 0) + (m[1]!.startsWith("+") ? 1 : -1);
    if (n < 0) throw new Error(`the changelog retracts a row that is not there: ${line}`);
    if (n === 0) counts.delete(m[2]!);
    else counts.set(m[2]!, n);
  }
  return [...counts].flatMap(([row, n]) => new Array<string>(n).fill(row)).sort();
}

function compareExactly(golden: Golden, actual: readonly string[]): void {
  const want = golden.bySign ? golden.lines.map(bySign) : golden.lines;
  const got = golden.bySign ? actual.map(bySign) : actual;
  if (golden.order === "exact") expect(got).toEqual(want);
  else expect([...got].sort()).toEqual([...want].sort());
}

const runs = new Map<string, Promise<{ golden: Golden; actual: string[] }>>();

/** Runs a case straight through and with a checkpoint/restore after each poll (memoised per case). */
function runCase(name: string): Promise<{ golden: Golden; actual: string[] }> {
  let r = runs.get(name);
  if (r) return r;
  r = (async () => {
    const dir = join(DIR, name);
    const golden = readGolden(dir);
    const dag = planScript(readFileSync(join(dir, "query.sql"), "utf8"), `${name}/query.sql`, dir);
    const straight = await runDag(dag, { cwd: dir, pollBatchSize: golden.poll });
    const actual = lines(straight);
    if (golden.late !== undefined) expect(straight.lateDropped, "late records dropped").toBe(golden.late);
    // The same run with a checkpoint after every poll in turn, a JSON round trip and a fresh,
    // restored job (a job without sources — VALUES only — ends when it opens: no checkpoint).
    for (let at = 1; at < straight.polls; at++) {
      const restored = await runDag(dag, { cwd: dir, pollBatchSize: golden.poll, checkpointAfterPolls: at });
      expect(restored.beforeCheckpoint, "changes before the checkpoint").toBeGreaterThanOrEqual(0);
      expect(lines(restored), `checkpoint after poll ${at} + restore gives the same changelog`).toEqual(
        actual,
      );
      expect(restored.lateDropped).toBe(straight.lateDropped);
    }
    return { golden, actual };
  })();
  runs.set(name, r);
  return r;
}

describe("SQL smoke tests", () => {
  it("has cases", () => {
    expect(CASES.length).toBeGreaterThan(20);
  });

  for (const name of CASES) {
    const differs = readGolden(join(DIR, name)).differs;
    it(name, async () => {
      const { golden, actual } = await runCase(name);
      const sign = (l: string[]) => (golden.bySign ? l.map(bySign) : l);
      expect(materialized(sign(actual)), "materialised result").toEqual(materialized(sign(golden.lines)));
      if (differs === undefined) compareExactly(golden, actual);
    });
    if (differs !== undefined) {
      it.fails(`${name}: known difference from Flink: ${differs}`, async () => {
        const { golden, actual } = await runCase(name);
        compareExactly(golden, actual);
      });
    }
  }
});
