import type { AggregateCall, PhysicalDag, PhysicalNode, SinkNode, SourceNode } from "@weir/planner";
import { E, PHYSICAL_DAG_VERSION, T } from "@weir/planner";
import { describe, expect, it } from "vitest";
import type { Row } from "../src/changelog.js";
import { ChangeBatch, formatChange, type Op } from "../src/changelog.js";
import type { ConnectorRegistry, PollResult, SinkWriter, SourceReader } from "../src/connector.js";
import { ConnectorError } from "../src/connector.js";
import type { JobCheckpoint } from "../src/job/checkpoint.js";
import { Job, runJob } from "../src/job/job.js";
import type { Json } from "../src/state/codec.js";
import { materialize } from "../src/testing/harness.js";

// An in-memory connector registry: the source reads `splits` (rows per split, round robin, at
// most `perPoll` rows per poll), the sink collects the changelog as text lines.

interface MemTable {
  splits: Record<string, Row[]>;
  perPoll: number;
  /** Poll results before the data starts: unbounded sources that say `idle`. */
  unbounded?: boolean;
  failAt?: number;
}

class MemReader implements SourceReader {
  private offsets: Record<string, number> = {};
  private next = 0;
  constructor(private readonly t: MemTable) {
    for (const s of Object.keys(t.splits)) this.offsets[s] = 0;
  }
  async open(): Promise<void> {}
  async poll(maxRows: number): Promise<PollResult> {
    const names = Object.keys(this.t.splits);
    for (let k = 0; k < names.length; k++) {
      const split = names[(this.next + k) % names.length];
      const rows = this.t.splits[split];
      const at = this.offsets[split];
      if (at >= rows.length) continue;
      if (this.t.failAt !== undefined && at >= this.t.failAt) {
        throw new ConnectorError("bad record", "user", `split ${split} offset ${at}`);
      }
      this.next = (this.next + k + 1) % names.length;
      const take = rows.slice(at, at + Math.min(maxRows, this.t.perPoll));
      this.offsets[split] = at + take.length;
      return { kind: "data", splits: [{ split, batch: ChangeBatch.inserts(take.map((r) => [...r])) }] };
    }
    return this.t.unbounded ? { kind: "idle", waitMs: 1 } : { kind: "end" };
  }
  position(): Json {
    return { ...this.offsets, $next: this.next };
  }
  async restore(position: Json): Promise<void> {
    const p = position as Record<string, number>;
    this.next = p.$next;
    for (const s of Object.keys(this.offsets)) this.offsets[s] = p[s];
  }
  async close(): Promise<void> {}
}

class CollectWriter implements SinkWriter {
  flushed = 0;
  readonly commits: number[] = [];
  constructor(readonly lines: string[]) {}
  async open(): Promise<void> {}
  write(batch: ChangeBatch): void {
    for (const [op, row] of ChangeBatch.toArray(batch)) this.lines.push(formatChange(op as Op, row));
  }
  async flush(): Promise<void> {
    this.flushed = this.lines.length;
  }
  async preCommit(): Promise<Json> {
    return this.lines.length;
  }
  async commit(id: number): Promise<void> {
    this.commits.push(id);
  }
  async close(): Promise<void> {}
}

function registry(
  tables: Record<string, MemTable>,
  lines: string[],
): ConnectorRegistry & { writer?: CollectWriter } {
  const r: ConnectorRegistry & { writer?: CollectWriter } = {
    source: (node) => new MemReader(tables[node.table]),
    sink: () => {
      r.writer = new CollectWriter(lines);
      return r.writer;
    },
  };
  return r;
}

// The plan of:
//   CREATE TABLE clicks (k STRING, v INT, ts TIMESTAMP(3), d AS v * 2, WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
//   SELECT k, COUNT(*), SUM(d) FROM (SELECT k, d FROM clicks WHERE v > 0 UNION ALL VALUES ('z', 100)) GROUP BY k
const INT = T.int();
const STR = T.string();
const TS = { ...T.timestamp(3), timeAttribute: "rowtime" as const };
const BIGINT = T.bigint(false);
const f = (name: string, type: PhysicalNode["schema"][number]["type"]) => ({ name, type });
const common = { changelogMode: { kind: "insert-only" } as const, streamKey: null, watermarkColumn: null };

const source: SourceNode = {
  kind: "source",
  id: 0,
  inputs: [],
  ...common,
  watermarkColumn: 2,
  schema: [f("k", STR), f("v", INT), f("ts", TS), f("d", INT)],
  table: "clicks",
  connector: "mem",
  options: {},
  columns: [
    { kind: "physical", name: "k" },
    { kind: "physical", name: "v" },
    { kind: "physical", name: "ts" },
    { kind: "computed", expr: E.call("*", [E.input(1, INT), E.literal(2, INT)], INT) },
  ],
  watermark: { column: 2, expr: E.call("-", [E.input(2, TS), E.literal(1000, T.intervalDayTime())], TS) },
  idleTimeoutMs: 0,
  primaryKey: null,
  projectedColumns: null,
  span: { line: 1, column: 1, offset: 0, end: 10 },
};

const agg = (fn: string, args: number[]): AggregateCall => ({
  fn,
  args,
  argTypes: args.map(() => INT),
  distinct: false,
  filterColumn: null,
  type: BIGINT,
  name: fn,
});

const nodes: PhysicalNode[] = [
  source,
  {
    kind: "calc",
    id: 1,
    inputs: [0],
    ...common,
    schema: [f("k", STR), f("d", INT)],
    projections: [E.input(0, STR), E.input(3, INT)],
    condition: E.call(">", [E.input(1, INT), E.literal(0, INT)], T.boolean()),
  },
  {
    kind: "values",
    id: 2,
    inputs: [],
    ...common,
    schema: [f("k", STR), f("d", INT)],
    rows: [[E.literal("z", STR), E.literal(100, INT)]],
  },
  { kind: "union", id: 3, inputs: [1, 2], ...common, schema: [f("k", STR), f("d", INT)] },
  {
    kind: "group-aggregate",
    id: 4,
    inputs: [3],
    ...common,
    changelogMode: { kind: "retract" },
    schema: [f("k", STR), f("cnt", BIGINT), f("total", BIGINT)],
    groupKeys: [0],
    aggregates: [agg("COUNT", []), agg("SUM", [1])],
    inputInsertOnly: true,
  },
  {
    kind: "sink",
    id: 5,
    inputs: [4],
    ...common,
    changelogMode: { kind: "retract" },
    schema: [f("k", STR), f("cnt", BIGINT), f("total", BIGINT)],
    table: "out",
    connector: "collect",
    options: {},
    tableSchema: [f("k", STR), f("cnt", BIGINT), f("total", BIGINT)],
    primaryKey: null,
    inputMode: { kind: "retract" },
  } satisfies SinkNode,
];

const dag: PhysicalDag = { version: PHYSICAL_DAG_VERSION, nodes, sinks: [5], settings: {} };

/** Deterministic rows over three splits: keys a..e, some filtered out (v <= 0). */
function clicks(): MemTable {
  const splits: Record<string, Row[]> = { p0: [], p1: [], p2: [] };
  for (let i = 0; i < 60; i++) {
    const v = ((i * 7) % 11) - 2;
    splits[`p${i % 3}`].push([String.fromCharCode(97 + ((i * 3) % 5)), v, 1_000 * i]);
  }
  return { splits, perPoll: 4 };
}

/** The batch answer of the query over the same rows. */
function expected(): string[] {
  const groups = new Map<string, [number, number]>([["z", [1, 100]]]);
  for (const rows of Object.values(clicks().splits)) {
    for (const [k, v] of rows as [string, number][]) {
      if (v <= 0) continue;
      const g = groups.get(k) ?? [0, 0];
      groups.set(k, [g[0] + 1, g[1] + v * 2]);
    }
  }
  return [...groups].map(([k, [c, s]]) => `${k} ${c} ${s}`).sort();
}

describe("job", () => {
  it("runs a bounded job to the end, with the batch answer and metrics", async () => {
    const lines: string[] = [];
    const result = await runJob(dag, { connectors: registry({ clicks: clicks() }, lines), cwd: "." });
    expect(result.reason).toBe("end");
    expect(materialize(lines.join("\n"))).toEqual(expected());
    const m = result.metrics;
    expect(m.sources[0]).toMatchObject({
      table: "clicks",
      recordsRead: 60,
      watermark: Number.POSITIVE_INFINITY,
    });
    expect(m.operators[1].recordsIn).toBe(60);
    expect(m.operators[3].recordsIn).toBe(m.operators[1].recordsOut + 1);
    expect(m.sinks[5].recordsWritten).toBe(lines.length);
  });

  it("runs a job without sources (VALUES only)", async () => {
    const lines: string[] = [];
    const valuesOnly: PhysicalDag = {
      ...dag,
      nodes: [nodes[2], { ...nodes[5], inputs: [2] } as SinkNode],
    };
    const result = await runJob(valuesOnly, { connectors: registry({}, lines), cwd: "." });
    expect(result.reason).toBe("end");
    expect(lines).toEqual(["+I z 100"]);
  });

  it("tracks the source watermark from the WATERMARK expression", async () => {
    const lines: string[] = [];
    const job = new Job(dag, { connectors: registry({ clicks: clicks() }, lines), cwd: "." });
    await job.open();
    // Four rows per poll, splits in turn. p0 has ts 0..9000, p1 1000..10000, p2 2000..11000; the
    // reader announces a split with its first rows, so until then it does not hold the watermark.
    const seen: (number | null)[] = [];
    for (let i = 0; i < 4; i++) {
      await job.step();
      seen.push(job.metrics().sources[0].watermark);
    }
    // then p0 reaches 21000 (20000 after the bound) and p1 (9000) holds the minimum
    expect(seen).toEqual([8_000, 8_000, 8_000, 9_000]);
    await job.close();
  });

  it("lets splits a reader announces at open hold the watermark back until they deliver", async () => {
    class AnnouncingReader extends MemReader {
      splits(): readonly string[] {
        return ["p0", "p1", "p2"];
      }
    }
    const lines: string[] = [];
    const connectors: ConnectorRegistry = {
      ...registry({ clicks: clicks() }, lines),
      source: () => new AnnouncingReader(clicks()),
    };
    const job = new Job(dag, { connectors, cwd: "." });
    await job.open();
    const seen: (number | null)[] = [];
    for (let i = 0; i < 4; i++) {
      await job.step();
      seen.push(job.metrics().sources[0].watermark);
    }
    // p1 and p2 have not delivered in the first poll: no watermark until all three have.
    expect(seen).toEqual([null, null, 8_000, 9_000]);
    await job.close();
  });

  // Snapshot mid-stream after `cut` polls, restore into a fresh job: what the sink got before the
  // checkpoint plus what the restored job writes is exactly what an uninterrupted run writes.
  it.each([0, 1, 2, 5, 8, 13, 20])(
    "restores a checkpoint taken after %i polls with identical output",
    async (cut) => {
      const full: string[] = [];
      const a = new Job(dag, { connectors: registry({ clicks: clicks() }, full), cwd: "." });
      await a.open();
      for (let i = 0; i < cut; i++) await a.step();
      const cp = JSON.parse(JSON.stringify(await a.checkpoint(7))) as JobCheckpoint;
      const atCut = full.length;
      expect(cp.sinks[5].preCommitted).toBe(atCut);
      while (!a.finished) await a.step();
      await a.close();

      const rest: string[] = [];
      const result = await runJob(dag, {
        connectors: registry({ clicks: clicks() }, rest),
        cwd: ".",
        restoreFrom: cp,
      });
      expect([...full.slice(0, atCut), ...rest]).toEqual(full);
      expect(result.metrics.sources[0].recordsRead).toBe(60);
      expect(result.metrics.sinks[5].recordsWritten).toBe(full.length);
    },
  );

  it("takes checkpoints on the interval and commits sinks after onCheckpoint", async () => {
    const lines: string[] = [];
    const conn = registry({ clicks: clicks() }, lines);
    let t = 0;
    const seen: number[] = [];
    const result = await runJob(dag, {
      connectors: conn,
      cwd: ".",
      now: () => t++,
      checkpoint: {
        intervalMs: 10,
        onCheckpoint: async (cp) => {
          expect(conn.writer!.commits).not.toContain(cp.checkpointId);
          seen.push(cp.checkpointId);
        },
      },
    });
    expect(result.checkpoints).toBeGreaterThan(1);
    expect(seen).toEqual(conn.writer!.commits);
    expect(seen).toEqual(seen.map((_, i) => i + 1));
  });

  it("refuses a checkpoint of another plan", async () => {
    const lines: string[] = [];
    const a = new Job(dag, { connectors: registry({ clicks: clicks() }, lines), cwd: "." });
    await a.open();
    const cp = await a.checkpoint();
    await a.close();
    const other: PhysicalDag = {
      ...dag,
      nodes: dag.nodes.map((n) => (n.kind === "calc" ? { ...n, condition: null } : n)),
    };
    expect(
      () => new Job(other, { connectors: registry({ clicks: clicks() }, []), cwd: ".", restoreFrom: cp }),
    ).toThrow(/different query plan/);
    expect(
      () => new Job(dag, { connectors: registry({}, []), cwd: ".", restoreFrom: { ...cp, version: 99 } }),
    ).toThrow(/format version 99/);
  });

  it("keeps a connector error's location", async () => {
    const t = { ...clicks(), failAt: 8 };
    await expect(runJob(dag, { connectors: registry({ clicks: t }, []), cwd: "." })).rejects.toThrow(
      /split p\d offset 8: bad record/,
    );
  });

  it("fails on a NULL rowtime, naming the table", async () => {
    const t = clicks();
    t.splits.p1[2][2] = null;
    await expect(runJob(dag, { connectors: registry({ clicks: t }, []), cwd: "." })).rejects.toThrow(
      /source 'clicks' \(node 0, line 1, column 1\) failed: table 'clicks': the rowtime column 'ts' is NULL/,
    );
  });

  it("stops an unbounded job on maxRuntimeMs and on abort, flushing the sinks", async () => {
    const lines: string[] = [];
    const conn = registry({ clicks: { ...clicks(), unbounded: true } }, lines);
    const result = await runJob(dag, { connectors: conn, cwd: ".", maxRuntimeMs: 200 });
    expect(result.reason).toBe("max-runtime");
    expect(result.metrics.sources[0].recordsRead).toBe(60);
    expect(conn.writer!.flushed).toBe(lines.length);

    const ac = new AbortController();
    setTimeout(() => ac.abort(), 50);
    const aborted = await runJob(dag, {
      connectors: registry({ clicks: { ...clicks(), unbounded: true } }, []),
      cwd: ".",
      signal: ac.signal,
    });
    expect(aborted.reason).toBe("aborted");
  });
});
