// Lookup join against a filesystem table held in a FULL cache (issue 18, Nexmark q13's side
// input): the file is loaded into an index on the lookup keys when the job opens, and each probe
// row is answered from it when it arrives; nothing of the probe side is stored. The probe side is
// an unbounded source the test feeds itself (`Job.pushSource`); every check waits for conditions
// (the rows drained, a reload seen), never for time.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createConnectorRegistry, createFilesystemLookup, printChange } from "@weir/connectors";
import type { LookupJoinNode, PhysicalDag } from "@weir/planner";
import { ChangeBatch, ConnectorError, Job, type JobCheckpoint, type Op } from "@weir/runtime";
import { describe, expect, it } from "vitest";
import { planScript } from "../smoke/script-job.js";
import { eventually } from "./pg-helpers.js";

const dir = mkdtempSync(join(tmpdir(), "lookup-join-fs-"));
mkdirSync(join(dir, "orders"));
let seq = 0;

/** A CSV dimension file `dim-<n>.csv` (id, tier) in the test's directory; returns its name. */
function dimFile(lines: string[], name = `dim-${++seq}.csv`): string {
  writeFileSync(join(dir, name), lines.map((l) => `${l}\n`).join(""));
  return name;
}

function script(file: string, opts = "", joinKind = "JOIN", on = "MOD(o.customer, 10) = c.id"): string {
  return `
    CREATE TABLE orders (order_id INT, customer INT, proc_time AS PROCTIME())
    WITH ('connector' = 'filesystem', 'path' = 'orders', 'format' = 'json', 'source.monitor-interval' = '1 h');
    CREATE TABLE customers (id INT, tier STRING)
    WITH ('connector' = 'filesystem', 'path' = '${file}', 'format' = 'csv'${opts});
    SELECT o.order_id, o.customer, c.tier
    FROM orders AS o ${joinKind} customers FOR SYSTEM_TIME AS OF o.proc_time AS c ON ${on};`;
}

async function start(dag: PhysicalDag, restoreFrom?: JobCheckpoint) {
  const lines: string[] = [];
  const job = new Job(dag, {
    connectors: createConnectorRegistry(),
    cwd: dir,
    ...(restoreFrom ? { restoreFrom } : {}),
    collect: (batch, schema) => {
      for (let i = 0; i < batch.length; i++)
        lines.push(printChange("", batch.ops[i] as Op, batch.rows[i]!, schema));
    },
  });
  await job.open();
  const source = dag.nodes.find((n) => n.kind === "source")!;
  const lookup = () => job.graph.operators().find((o) => o.node.kind === "lookup-join")!;
  const push = async (rows: [number, number | null][]) => {
    job.pushSource(source.id, {
      kind: "data",
      splits: [{ split: "orders", batch: ChangeBatch.inserts(rows.map((r) => [...r])) }],
    });
    await job.drainAsync();
    await job.flushSinks(true);
  };
  const metric = (name: string) => {
    const v = job.metricValues()[`lookup-join-${lookup().node.id}.${name}`];
    return typeof v === "number" ? v : null;
  };
  return { job, lines, push, metric };
}

function lookupNode(dag: PhysicalDag): LookupJoinNode {
  return dag.nodes.find((n) => n.kind === "lookup-join") as LookupJoinNode;
}

describe("lookup join against a filesystem table (FULL cache)", () => {
  it("joins each row with the file as loaded at open, on a computed probe key; a restore loads the file again and stores nothing of the probe side", async () => {
    const file = dimFile(["1,gold", "2,silver", "2,silver-b", ",no-key", "3,bronze"]);
    const dag = planScript(script(file), "lookup.sql", dir);
    const node = lookupNode(dag);
    expect(node).toMatchObject({ connector: "filesystem", lookup: { full: { reloadIntervalMs: null } } });
    // The probe key MOD(customer, 10) is computed before the lookup join, not stored in state.
    expect(dag.nodes.some((n) => n.kind === "join")).toBe(false);

    const r = await start(dag);
    let cp: JobCheckpoint;
    try {
      expect(r.metric("lookupCacheSize")).toBe(3);
      await r.push([
        [1, 11],
        [2, 2],
        [3, null],
        [4, 7],
      ]);
      // Key 2 has two rows; NULL keys (the probe's, the file's) never match; 7 has no row.
      expect(r.lines).toEqual(["+I[1, 11, gold]", "+I[2, 2, silver]", "+I[2, 2, silver-b]"]);
      // Without a reload interval a change of the file is not seen by the running job.
      dimFile(["1,platinum", "7,new"], file);
      await r.push([[5, 1]]);
      expect(r.lines.at(-1)).toBe("+I[5, 1, gold]");
      cp = await r.job.checkpoint();
    } finally {
      await r.job.close();
    }
    const r2 = await start(dag, cp);
    try {
      await r2.push([
        [6, 1],
        [7, 17],
      ]);
      // Only the rows pushed after the restore, joined with the file as it is now.
      expect(r2.lines).toEqual(["+I[6, 1, platinum]", "+I[7, 17, new]"]);
    } finally {
      await r2.job.close();
    }
  });

  it("loads a dimension file larger than one load batch (8,192 rows) and the 1 MiB read, lines across reads, every key found", async () => {
    // 40,000 rows of ~60 bytes (~2.4 MB): five load batches, several 1 MiB reads with lines
    // straddling them, two-byte characters shifting byte offsets.
    const n = 40_000;
    const file = dimFile(Array.from({ length: n }, (_, i) => `${i},tier-é-${"x".repeat(40)}-${i}`));
    const dag = planScript(script(file, "", "JOIN", "o.customer = c.id"), "lookup.sql", dir);
    const r = await start(dag);
    try {
      expect(r.metric("lookupCacheSize")).toBe(n);
      const probes = [0, 1, 8191, 8192, 8193, 17_000, 24_575, 24_576, 32_768, n - 1, n];
      await r.push(probes.map((k, i) => [i, k] as [number, number]));
      expect(r.lines).toEqual(
        probes.slice(0, -1).map((k, i) => `+I[${i}, ${k}, tier-é-${"x".repeat(40)}-${k}]`),
      );
    } finally {
      await r.job.close();
    }
  });

  it("LEFT lookup join is insert-only: a row without a match is padded once, the residual condition applies after the lookup", async () => {
    const file = dimFile(["1,gold", "2,silver"]);
    const dag = planScript(
      script(file, "", "LEFT JOIN", "o.customer = c.id AND c.tier <> 'silver'"),
      "lookup.sql",
      dir,
    );
    expect(lookupNode(dag).changelogMode).toEqual({ kind: "insert-only" });
    const r = await start(dag);
    try {
      await r.push([
        [1, 1],
        [2, 2],
        [3, 9],
      ]);
      expect(r.lines).toEqual(["+I[1, 1, gold]", "+I[2, 2, null]", "+I[3, 9, null]"]);
    } finally {
      await r.job.close();
    }
  });

  it("reloads the file every 'lookup.full-cache.periodic-reload.interval'; a failed reload fails the next lookup", async () => {
    const file = dimFile(["1,gold"]);
    const dag = planScript(
      script(file, ", 'lookup.full-cache.periodic-reload.interval' = '20 ms'"),
      "lookup.sql",
      dir,
    );
    const node = lookupNode(dag);
    expect(node.lookup.full).toEqual({ reloadIntervalMs: 20, fixedRate: false });
    const source = createFilesystemLookup(node, { settings: {}, cwd: dir });
    try {
      await source.open();
      expect(source.lookupNow!([1]).map((row) => row[1])).toEqual(["gold"]);
      dimFile(["1,platinum", "2,silver"], file);
      await eventually(
        async () => source.lookupNow!([2]).length === 1,
        () => "the reload never saw the new file",
      );
      expect(source.lookupNow!([1]).map((row) => row[1])).toEqual(["platinum"]);
      rmSync(join(dir, file));
      await eventually(
        async () => {
          try {
            source.lookupNow!([1]);
            return false;
          } catch {
            return true;
          }
        },
        () => "a reload of a missing file never failed",
      );
      let failure: unknown;
      try {
        source.lookupNow!([1]);
      } catch (e) {
        failure = e;
      }
      expect(failure).toBeInstanceOf(ConnectorError);
      expect((failure as ConnectorError).message).toMatch(
        new RegExp(`reloading the FULL lookup cache failed: cannot read '${file}' \\(no such file\\)`),
      );
      expect((failure as ConnectorError).context.table).toBe("customers");
    } finally {
      await source.close();
    }
  });

  it("a bad record fails the job at open, naming the table, the file and the line", async () => {
    const file = dimFile(["1,gold", "two,silver"]);
    const dag = planScript(script(file), "lookup.sql", dir);
    const job = new Job(dag, { connectors: createConnectorRegistry(), cwd: dir, collect: () => undefined });
    const failure = await job.open().then(
      () => null,
      (e: unknown) => e,
    );
    expect(String(failure)).toContain(`file ${file} line 2: field 'id': cannot read 'two' as INT`);
    expect((failure as ConnectorError).table).toBe("customers");
    await job.close().catch(() => undefined);
  });
});
