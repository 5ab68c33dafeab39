// Weir against Flink 2.3 as the oracle: every expression of test/oracle/expressions.sql (session
// time zone UTC) and test/oracle/expressions_new_york.sql (America/New_York), whose Flink results
// (type and CAST(... AS STRING) value, produced by scripts/flink-oracle on a MiniCluster at
// parallelism 1) are checked in as test/oracle/*.expected.tsv. No Java is needed here. The few
// deliberate differences are listed, with their reason, in test/oracle/differences.tsv; the
// comparison honours exactly those (a listed difference that goes away fails too).
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { formatType } from "@weir/planner";
import { describe, expect, it } from "vitest";
import { planScript, runDag } from "./smoke/script-job.js";

const DIR = resolve(import.meta.dirname, "oracle");

interface Expected {
  readonly expr: string;
  readonly type: string;
  readonly value: string;
}

function readExpected(file: string): Expected[] {
  const out: Expected[] = [];
  for (const line of readFileSync(resolve(DIR, file), "utf8").split("\n")) {
    if (line === "" || line.startsWith("#")) continue;
    const [expr, type, value] = line.split("\t");
    if (expr === undefined || type === undefined || value === undefined) throw new Error(`bad line: ${line}`);
    out.push({ expr, type, value });
  }
  return out;
}

/** `expression TAB what (value | type) TAB reason`. */
function readDifferences(): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of readFileSync(resolve(DIR, "differences.tsv"), "utf8").split("\n")) {
    if (line === "" || line.startsWith("#")) continue;
    const [expr, what, reason] = line.split("\t");
    if (!expr || (what !== "value" && what !== "type") || !reason) throw new Error(`bad line: ${line}`);
    out.set(`${what}\t${expr}`, reason);
  }
  return out;
}

const escapeTsv = (s: string) => s.replace(/\\/g, "\\\\").replace(/\t/g, "\\t").replace(/\n/g, "\\n");

/**
 * Types compare with CHAR(n)/VARCHAR(n) as STRING: Weir types computed strings as STRING where
 * Flink derives lengths (the one class of differences normalised here, documented in functions.md).
 */
const normaliseType = (t: string) => t.replace(/\b(?:CHAR|VARCHAR)\(\d+\)/g, "STRING");

/**
 * A failure is a failure: Flink's `!ERROR` covers errors of its code generator (after validation)
 * and of the job; Weir refusing the expression while planning is the same outcome for a user.
 */
const normaliseValue = (flink: string, weir: string) =>
  flink === "!ERROR" && weir === "!INVALID" ? "!ERROR" : weir;

async function weir(expr: string, zone: string): Promise<{ type: string; value: string }> {
  const settings = { "table.local-time-zone": zone };
  const set = `SET 'table.local-time-zone' = '${zone}';\n`;
  let type: string;
  try {
    const dag = planScript(`${set}SELECT ${expr};`, "oracle.sql", DIR);
    const sink = dag.nodes[dag.sinks[0]!]!;
    type = formatType(sink.schema[0]!.type);
  } catch {
    return { type: "!INVALID", value: "!INVALID" };
  }
  let dag: ReturnType<typeof planScript>;
  try {
    dag = planScript(`${set}SELECT CAST((${expr}) AS STRING);`, "oracle.sql", DIR);
  } catch {
    return { type, value: "!INVALID" };
  }
  try {
    const r = await runDag(dag, { cwd: DIR, pollBatchSize: 10, settings });
    if (r.changes.length !== 1) return { type, value: `!ROWS ${r.changes.length}` };
    const v = r.changes[0]!.row[0];
    return { type, value: v === null || v === undefined ? "\\N" : escapeTsv(String(v)) };
  } catch {
    return { type, value: "!ERROR" };
  }
}

/** Each corpus with its session time zone (scripts/flink-oracle/regenerate.sh runs the same). */
const CORPORA = [
  { file: "expressions.expected.tsv", zone: "UTC" },
  { file: "expressions_new_york.expected.tsv", zone: "America/New_York" },
  { file: "expressions_timestamp_precision.expected.tsv", zone: "UTC" },
  { file: "expressions_timestamp_precision_new_york.expected.tsv", zone: "America/New_York" },
] as const;
const corpora = CORPORA.map((c) => ({ ...c, expected: readExpected(c.file) }));
const differences = readDifferences();

describe("Flink 2.3 oracle: expressions", () => {
  it("has the corpus", () => {
    expect(corpora.reduce((n, c) => n + c.expected.length, 0)).toBeGreaterThanOrEqual(900);
    for (const key of differences.keys()) {
      const expr = key.slice(key.indexOf("\t") + 1);
      expect(
        corpora.some((c) => c.expected.some((e) => e.expr === expr)),
        `differences.tsv names an expression not in the corpus: ${expr}`,
      ).toBe(true);
    }
  });

  for (const { zone, expected } of corpora) {
    for (const e of expected) {
      // Flink refuses it while planning: Weir may accept more (no value to compare).
      if (e.value === "!INVALID") continue;
      it(`${e.expr} [${zone}]`, async () => {
        const got = await weir(e.expr, zone);
        const value = normaliseValue(e.value, got.value);
        const valueWhy = differences.get(`value\t${e.expr}`);
        if (valueWhy === undefined) expect(value, "value (CAST to STRING)").toBe(e.value);
        else expect(value, `listed as a difference (${valueWhy}) but equal`).not.toBe(e.value);
        if (got.type === "!INVALID" && e.value === "!ERROR") return;
        const typeWhy = differences.get(`type\t${e.expr}`);
        const type = normaliseType(got.type);
        if (typeWhy === undefined) expect(type, "type").toBe(normaliseType(e.type));
        else expect(type, `listed as a difference (${typeWhy}) but equal`).not.toBe(normaliseType(e.type));
      });
    }
  }
});
