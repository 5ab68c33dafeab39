import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { Output } from "@weir/cli";
import { createConnectorRegistry } from "@weir/connectors";
import type { PhysicalDag, PhysicalNode } from "@weir/planner";
import { type ChangeBatch, Op, runJob } from "@weir/runtime";
import { beforeAll, describe, expect, it } from "vitest";
import { writeNexmarkFile } from "../../packages/cli/src/bench/nexmark.js";
import { collectInserts, planSql } from "../support/plan.js";
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

/** Every change the sinks receive, as `op row` texts in arrival order. */
async function changelog(dag: PhysicalDag): Promise<string[]> {
  const changes: string[] = [];
  const collect = (batch: ChangeBatch): void => {
    for (let i = 0; i < batch.length; i++) changes.push(`${batch.ops[i]} ${rowText(batch.rows[i]!)}`);
  };
  const result = await runJob(dag, { connectors: createConnectorRegistry(), cwd: ROOT, collect });
  expect(result.reason).toBe("end");
  return changes;
}

describe("nested projection push-down: the same results as reading every nested field", () => {
  it.each(["q0", "q1", "q2", "q3", "q8", "q11", "q14", "q22"])("%s", async (q) => {
    const dag = planSql(fileSql(q), { file: `${q}.sql`, queries: "run", targets: collectInserts });
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
    const pushed = await changelog(dag);
    const before = await changelog(whole);
    expect(pushed.length).toBeGreaterThan(0);
    expect(pushed.filter((c) => c.startsWith(`${Op.INSERT} `)).length).toBeGreaterThan(0);
    expect(pushed).toEqual(before);
  });
});
