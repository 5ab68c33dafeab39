import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { Engine, type Output } from "@weir/cli";
import { parse } from "@weir/parser";
import type { PhysicalDag, PhysicalNode, PlanTarget } from "@weir/planner";
import { type ChangeBatch, Op } from "@weir/runtime";
import { beforeAll, describe, expect, it } from "vitest";
import { writeNexmarkFile } from "../../packages/cli/src/bench/nexmark.js";
import { ROOT, rowText } from "./harness.js";

/**
 * Nested projection push-down end to end: Nexmark queries reading a JSON-lines file of events
 * (person/auction/bid ROWs), run as planned (the JSON reader builds only the nested fields the
 * query reads) and with the nested projection taken out of the plan (every nested field built,
 * as before): the same changelog, change for change.
 */
const quiet: Output = { out: () => undefined, err: () => undefined };
let file = "";
beforeAll(() => {
  file = join(mkdtempSync(join(tmpdir(), "weir-nested-")), "events.json");
  writeNexmarkFile(file, 20_000, ROOT, quiet);
});

function fileSql(query: string): string {
  const sql = readFileSync(resolve(ROOT, `sql/nexmark/${query}.sql`), "utf8");
  const replaced = sql.replace(
    /'connector' = 'nexmark',[^)]*'bid\.proportion' = '46'\s*\)/,
    `'connector' = 'filesystem', 'path' = '${file}', 'format' = 'json')`,
  );
  if (replaced === sql) throw new Error(`${query}.sql: the generator options are not in the expected form`);
  return replaced;
}

function plan(engine: Engine, sql: string, name: string): PhysicalDag {
  const parsed = parse(sql);
  if (parsed.diagnostics.length > 0) throw new Error(parsed.diagnostics.map((d) => d.message).join("\n"));
  const targets: PlanTarget[] = [];
  for (const stmt of parsed.statements) {
    const bound = engine.bindOne(stmt, sql, name);
    if (bound === undefined) throw new Error(`${name}: does not bind`);
    if (bound.kind === "insert") targets.push({ kind: "collect", plan: bound.insert.plan });
  }
  const dag = engine.tryPlan(targets, sql, name);
  if (dag === undefined) throw new Error(`${name}: does not plan`);
  return dag;
}

/** Every change the sinks receive, as `op row` texts in arrival order. */
async function changelog(engine: Engine, dag: PhysicalDag): Promise<string[]> {
  const changes: string[] = [];
  const collect = (batch: ChangeBatch): void => {
    for (let i = 0; i < batch.length; i++) changes.push(`${batch.ops[i]} ${rowText(batch.rows[i]!)}`);
  };
  const result = await engine.runDag(dag, { collect });
  expect(result.reason).toBe("end");
  return changes;
}

describe("nested projection push-down: the same results as reading every nested field", () => {
  it.each(["q0", "q1", "q2", "q3", "q8", "q11", "q14", "q22"])("%s", async (q) => {
    const engine = new Engine({ cwd: ROOT, out: quiet });
    try {
      const dag = plan(engine, fileSql(q), `${q}.sql`);
      const sources = dag.nodes.filter((n) => n.kind === "source");
      expect(
        sources.some((s) => (s.projectedPaths?.length ?? 0) > 0),
        "a nested projection is pushed",
      ).toBe(true);
      const whole: PhysicalDag = {
        ...dag,
        nodes: dag.nodes.map((n): PhysicalNode => {
          if (n.kind !== "source") return n;
          const { projectedPaths: _, ...rest } = n;
          return rest;
        }),
      };
      const pushed = await changelog(engine, dag);
      const before = await changelog(engine, whole);
      expect(pushed.length).toBeGreaterThan(0);
      expect(pushed.filter((c) => c.startsWith(`${Op.INSERT} `)).length).toBeGreaterThan(0);
      expect(pushed).toEqual(before);
    } finally {
      await engine.close();
    }
  });
});
