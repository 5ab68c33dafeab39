import { existsSync, readFileSync } from "node:fs";
import { Agent, get as httpGet } from "node:http";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { EventType, NexmarkGenerator, parseNexmarkConfig, writeNexmarkSideInput } from "@weir/connectors";
import { parse } from "@weir/parser";
import type { PhysicalDag, PhysicalNode, PlanTarget } from "@weir/planner";
import { Engine } from "../engine/engine.js";
import type { Output } from "../output.js";
import { type MemorySample, MemorySampler } from "./memory.js";

/** The queries of `sql/nexmark/` that Weir runs (q6 is unsupported, as in Flink). */
export const NEXMARK_QUERIES: readonly string[] = [
  "q0",
  "q1",
  "q2",
  "q3",
  "q4",
  "q5",
  "q7",
  "q8",
  "q9",
  "q10",
  "q11",
  "q12",
  "q13",
  "q14",
  "q15",
  "q16",
  "q17",
  "q18",
  "q19",
  "q20",
  "q21",
  "q22",
];

/** Flink's events/s per core, as published by the Nexmark project (GUIDE_V1). */
export const FLINK_PER_CORE: Readonly<Record<string, number>> = {
  q0: 155_000,
  q1: 158_000,
  q2: 175_000,
  q3: 152_000,
  q4: 34_000,
  q5: 22_000,
  q7: 12_000,
  q8: 146_000,
  q9: 14_000,
  q11: 40_000,
  q12: 76_000,
  q14: 161_000,
  q15: 72_000,
  q16: 19_000,
  q17: 117_000,
  q18: 54_000,
  q19: 44_000,
  q20: 19_000,
  q21: 98_000,
  q22: 130_000,
};

/** The target of issue 6: twice Flink per core, and at least 1M events/s per core for q0–q2. */
export function targetPerCore(query: string): number | null {
  const flink = FLINK_PER_CORE[query];
  if (flink === undefined) return null;
  return query === "q0" || query === "q1" || query === "q2" ? Math.max(1_000_000, 2 * flink) : 2 * flink;
}

export interface BenchResult {
  /** A query name, or `q0-js` for the plain-JavaScript ceiling. */
  readonly query: string;
  readonly events: number;
  readonly wallSeconds: number;
  /** Process CPU time (user + system) of the measured run, generator included. */
  readonly cpuSeconds: number;
  readonly eventsPerSecond: number;
  readonly eventsPerSecondPerCore: number;
  /** Highest resident set size sampled during the measured run (start, about once a second, end). */
  readonly peakRssBytes: number;
  /** `process.resourceUsage().maxRSS` after the run: the process's peak so far (includes earlier runs). */
  readonly maxRssBytes: number;
  /** Changes the sink received. */
  readonly outputs: number;
  readonly targetPerCore: number | null;
  /** With `sampleMemoryEvery`: heap (after a full GC) and RSS along the measured run. */
  readonly memory?: readonly MemorySample[];
}

export interface BenchOptions {
  readonly events: number;
  /** Events of the warm-up run before the measured one (0: none). */
  readonly warmupEvents: number;
  /** Directory holding `sql/nexmark/` (relative paths in the queries resolve against it). */
  readonly root: string;
  /** Sample heap and RSS every this many events of the measured run (absent: only peak RSS). */
  readonly sampleMemoryEvery?: number;
  /** Events per second of event time (the queries' own `'first-event.rate'` when absent). */
  readonly rate?: number;
  /**
   * Serve `/metrics` and the job page (free ports) and fetch both once a second while the query
   * runs, as Prometheus and an open job page would (`--metrics`): the cost of observability.
   */
  readonly metrics?: boolean;
}

/** The checkout's root: the working directory if it has `sql/nexmark/`, else the one this module is built in. */
export function defaultBenchRoot(cwd: string): string {
  if (existsSync(join(cwd, "sql/nexmark"))) return cwd;
  return resolve(dirname(fileURLToPath(import.meta.url)), "../../../..");
}

/**
 * Plans `sql/nexmark/<query>.sql` as written, then points every sink at `blackhole` (q10's
 * filesystem sink included), so that the run measures the query and nothing else.
 */
export function planNexmarkQuery(query: string, root: string, out: Output): PhysicalDag {
  // q13's side input is generated, not checked in.
  if (query === "q13") writeNexmarkSideInput(join(root, "sql/nexmark/data/side_input.csv"));
  const file = join(root, "sql/nexmark", `${query}.sql`);
  const sql = readFileSync(file, "utf8");
  const engine = new Engine({ cwd: root, out });
  const parsed = parse(sql);
  if (parsed.diagnostics.length > 0) throw new Error(`${file}: ${parsed.diagnostics[0]!.message}`);
  const targets: PlanTarget[] = [];
  for (const stmt of parsed.statements) {
    const bound = engine.bindOne(stmt, sql, file);
    if (bound === undefined) throw new Error(`${file}: the script does not bind (see above)`);
    if (bound.kind === "insert") {
      targets.push({
        kind: "table",
        table: bound.insert.sink,
        plan: bound.insert.plan,
        span: bound.insert.span,
      });
    }
  }
  const dag = engine.tryPlan(targets, sql, file);
  if (dag === undefined) throw new Error(`${file}: the planner rejects the query (see above)`);
  return dag;
}

/**
 * The plan with `'events.num' = events` on its nexmark sources and blackhole sinks; with `rate`,
 * also `'first-event.rate'` and `'next-event.rate'` (events per second of event time).
 */
export function withEvents(dag: PhysicalDag, events: number, rate?: number): PhysicalDag {
  const nodes = dag.nodes.map((n): PhysicalNode => {
    if (n.kind === "source" && n.connector === "nexmark") {
      const rates: Record<string, string> =
        rate === undefined ? {} : { "first-event.rate": String(rate), "next-event.rate": String(rate) };
      return { ...n, options: { ...n.options, ...rates, "events.num": String(events) } };
    }
    if (n.kind === "sink") return { ...n, connector: "blackhole", options: { connector: "blackhole" } };
    return n;
  });
  return { ...dag, nodes };
}

/** Runs one query: a warm-up, then the measured run. */
export async function benchQuery(query: string, options: BenchOptions, out: Output): Promise<BenchResult> {
  const planned = planNexmarkQuery(query, options.root, out);
  const dag: PhysicalDag = options.metrics
    ? { ...planned, settings: { ...planned.settings, "weir.metrics.port": "0", "weir.ui.port": "0" } }
    : planned;
  // The endpoints' address lines are not the bench's output.
  const engine = new Engine({
    cwd: options.root,
    out: options.metrics ? { ...out, err: () => undefined } : out,
  });
  const run = async (events: number, sampler?: MemorySampler): Promise<number> => {
    const scraper = options.metrics ? scrapeEverySecond(engine) : null;
    let result: Awaited<ReturnType<Engine["runDag"]>>;
    try {
      result = await engine.runDag(withEvents(dag, events, options.rate), {
        onProgress: (m) => {
          sampleRss();
          sampler?.onProgress(m);
        },
      });
    } finally {
      await scraper?.stop();
    }
    let outputs = 0;
    for (const s of Object.values(result.metrics.sinks)) outputs += s.recordsWritten;
    return outputs;
  };
  try {
    return await benchRuns(query, options, run);
  } finally {
    await engine.close();
  }
}

/**
 * Fetches `/metrics` and the job page's `/api/jobs` once a second (once both serve), with
 * node:http on a keep-alive agent: the scraper runs in the measured process, but in production
 * it is another one (Prometheus, a browser), so its own cost is kept small.
 */
function scrapeEverySecond(engine: Engine): { stop(): Promise<void> } {
  const agent = new Agent({ keepAlive: true });
  const get = (url: string): Promise<void> =>
    new Promise((resolve) => {
      httpGet(url, { agent }, (res) => {
        res.on("data", () => undefined);
        res.on("end", resolve);
        res.on("error", () => resolve());
      }).on("error", () => resolve());
    });
  let inflight: Promise<unknown> = Promise.resolve();
  const timer = setInterval(() => {
    const urls = [engine.metrics.url, engine.metrics.uiUrl && `${engine.metrics.uiUrl}api/jobs`];
    inflight = Promise.all(urls.map((u) => (u ? get(u) : undefined)));
  }, 1000);
  return {
    async stop() {
      clearInterval(timer);
      await inflight;
      agent.destroy();
    },
  };
}

async function benchRuns(
  query: string,
  options: BenchOptions,
  run: (events: number, sampler?: MemorySampler) => Promise<number>,
): Promise<BenchResult> {
  if (options.warmupEvents > 0) await run(options.warmupEvents);
  const every = options.sampleMemoryEvery;
  if (every === undefined) return measure(query, options.events, () => run(options.events));
  const sampler = new MemorySampler(every);
  sampler.sample(0);
  const r = await measure(query, options.events, () => run(options.events, sampler));
  sampler.sample(options.events);
  return { ...r, memory: sampler.samples };
}

/**
 * q0's ceiling: the same generator, and per bid the projection q0 makes, into a sink that only
 * keeps a checksum — no engine at all.
 */
export async function benchCeiling(options: BenchOptions): Promise<BenchResult> {
  const loop = (events: number): number => {
    const config = parseNexmarkConfig({ "first-event.rate": "10000000", "events.num": String(events) });
    const g = new NexmarkGenerator(config, Date.now());
    let outputs = 0;
    let checksum = 0;
    for (let n = 0; n < events; n++) {
      const e = g.generate(n);
      if (g.lastType !== EventType.BID) continue;
      const row = [e[0], e[1], e[2], e[5], e[6]];
      checksum = (checksum + (row[2] as number)) % 1_000_003;
      outputs++;
    }
    if (checksum < 0) throw new Error("unreachable");
    return outputs;
  };
  if (options.warmupEvents > 0) loop(options.warmupEvents);
  return measure("q0-js", options.events, async () => loop(options.events));
}

let peakRss = 0;
function sampleRss(): void {
  const rss = process.memoryUsage.rss();
  if (rss > peakRss) peakRss = rss;
}

async function measure(query: string, events: number, run: () => Promise<number>): Promise<BenchResult> {
  peakRss = 0;
  sampleRss();
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const outputs = await run();
  const wallSeconds = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  sampleRss();
  const cpuSeconds = (cpu.user + cpu.system) / 1e6;
  return {
    query,
    events,
    wallSeconds,
    cpuSeconds,
    eventsPerSecond: events / wallSeconds,
    eventsPerSecondPerCore: events / cpuSeconds,
    peakRssBytes: peakRss,
    maxRssBytes: process.resourceUsage().maxRSS * 1024,
    outputs,
    targetPerCore: targetPerCore(query === "q0-js" ? "q0" : query),
  };
}
