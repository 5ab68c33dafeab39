import type { AggregateCall, PhysicalDag, PhysicalNode, SinkNode, SourceNode } from "@weir/planner";
import { E, PHYSICAL_DAG_VERSION, T } from "@weir/planner";
import type { Row } from "../src/changelog.js";
import { ChangeBatch, formatChange, type Op } from "../src/changelog.js";
import type { ConnectorRegistry, PollResult, SinkWriter, SourceReader } from "../src/connector.js";
import { ConnectorError } from "../src/connector.js";
import { Job, type JobOptions } from "../src/job/job.js";
import type { Json } from "../src/state/codec.js";

// An in-memory connector registry: the source reads `splits` (rows per split, round robin, at
// most `perPoll` rows per poll), the sink collects the changelog as text lines.

export interface MemTable {
  splits: Record<string, Row[]>;
  perPoll: number;
  /** Poll results before the data starts: unbounded sources that say `idle`. */
  unbounded?: boolean;
  failAt?: number;
}

export class MemReader implements SourceReader {
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

export class CollectWriter implements SinkWriter {
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

export function registry(
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
export const INT = T.int();
export const STR = T.string();
export const TS = { ...T.timestamp(3), timeAttribute: "rowtime" as const };
export const BIGINT = T.bigint(false);
export const f = (name: string, type: PhysicalNode["schema"][number]["type"]) => ({ name, type });
export const common = {
  changelogMode: { kind: "insert-only" } as const,
  streamKey: null,
  watermarkColumn: null,
};

export const source: SourceNode = {
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

export const agg = (fn: string, args: number[]): AggregateCall => ({
  fn,
  args,
  argTypes: args.map(() => INT),
  distinct: false,
  filterColumn: null,
  type: BIGINT,
  name: fn,
});

export const nodes: PhysicalNode[] = [
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

export const dag: PhysicalDag = { version: PHYSICAL_DAG_VERSION, nodes, sinks: [5], settings: {} };

/** Deterministic rows over three splits: keys a..e, some filtered out (v <= 0). */
export function clicks(): MemTable {
  const splits: Record<string, Row[]> = { p0: [], p1: [], p2: [] };
  for (let i = 0; i < 60; i++) {
    const v = ((i * 7) % 11) - 2;
    splits[`p${i % 3}`].push([String.fromCharCode(97 + ((i * 3) % 5)), v, 1_000 * i]);
  }
  return { splits, perPoll: 4 };
}

/** The batch answer of the query over the same rows. */
export function expected(): string[] {
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

/** A sink whose pre-commit of checkpoint `hangAt` never settles (a stuck transaction). */
export class HangingWriter extends CollectWriter {
  constructor(
    lines: string[],
    private readonly hangAt: number,
  ) {
    super(lines);
  }
  override preCommit(id?: number): Promise<Json> {
    if (id === this.hangAt) return new Promise(() => undefined);
    return super.preCommit();
  }
}

/**
 * Options of the fixture's job that reads one row per poll into `writer`, on a clock that moves
 * 1 ms each time it is read (so that checkpoint intervals pass while it runs); `extra`: more.
 */
export function oneRowOptions(writer: SinkWriter, extra: Partial<JobOptions> = {}): JobOptions {
  let clock = 0;
  return {
    connectors: { source: () => new MemReader({ ...clicks(), perPoll: 1 }), sink: () => writer },
    cwd: ".",
    now: () => clock++,
    ...extra,
  };
}

/** The fixture's job with {@link oneRowOptions}. */
export function oneRowJob(writer: SinkWriter, extra: Partial<JobOptions> = {}): Job {
  return new Job(dag, oneRowOptions(writer, extra));
}
