import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync, writeSync } from "node:fs";
import { Agent, get as httpGet } from "node:http";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import {
  blackholeSpec,
  connectorCatalog,
  EventType,
  FormatOptions,
  filesystemSpec,
  jsonFormat,
  LineReader,
  NexmarkGenerator,
  nexmarkEventOptions,
  nexmarkSpec,
  parseNexmarkConfig,
  writeNexmarkSideInput,
} from "@weir/connectors";
import { parse, renderDiagnostic } from "@weir/parser";
import {
  Catalog,
  compileScript,
  type DataType,
  type Field,
  type PhysicalDag,
  type PhysicalNode,
  Session,
  type SinkNode,
  type SourceNode,
} from "@weir/planner";
import { type JobCheckpoint, type JobOptions, Op } from "@weir/runtime";
import { UsageError } from "../args.js";
import { checkpointBytes, checkpointJobOptions, planCheckpoints } from "../engine/checkpointing.js";
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
  /** With `'execution.checkpointing.interval'` set: the measured run's checkpoints. */
  readonly checkpoints?: CheckpointStats;
  /** With a second, larger file (`--steady-file`): the cost per event between the two runs. */
  readonly steady?: SteadyState;
}

/**
 * The cost per event at steady state: a measured run over a larger file after the one over the
 * smaller file, in the same process, and the difference of the two — the fixed per-run cost
 * (planning, start-up, the first events' JIT) cancels, what is left is what each further event costs.
 */
export interface SteadyState {
  /** Events of the larger file. */
  readonly toEvents: number;
  /** Process CPU seconds of the run over the larger file. */
  readonly toCpuSeconds: number;
  readonly toPeakRssBytes: number;
  /** (cpu(larger) − cpu(smaller)) / (events(larger) − events(smaller)), in microseconds. */
  readonly cpuMicrosecondsPerEvent: number;
  /** The inverse: events per CPU-second at steady state. */
  readonly eventsPerSecondPerCore: number;
}

/**
 * The checkpoints of a measured run. Duration: from the trigger until the checkpoint is durable
 * (every task acknowledged, the manifest and state files written and fsynced); size: the
 * `chk-N` directory on disk.
 */
export interface CheckpointStats {
  readonly count: number;
  readonly meanDurationMs: number;
  readonly maxDurationMs: number;
  readonly meanBytes: number;
  readonly maxBytes: number;
}

export interface BenchOptions {
  /** Events per run (with `fromFile`: the file's line count). */
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
   * `--set` settings, applied before the query's own; `'execution.checkpointing.interval'`
   * makes the runs take checkpoints (into `'execution.checkpointing.dir'`, by default a
   * temporary directory removed afterwards).
   */
  readonly settings?: readonly (readonly [string, string])[];
  /**
   * A JSON-lines file of Nexmark events (`writeNexmarkFile`): the queries read it with the
   * `filesystem` connector and the `json` format instead of generating events. The warm-up is then
   * one whole run over the file when `warmupEvents` > 0.
   */
  readonly fromFile?: string;
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
 * The pseudo-query `read`: every column of every event (the nested rows included) into a
 * blackhole — what reading and decoding the events costs, with no query work.
 */
export const READ_QUERY = "read";

/** q0's script with its sink and INSERT replaced by `read`'s: all of `datagen`, as it is. */
function readQuerySql(q0: string): string {
  const at = q0.indexOf("CREATE TABLE nexmark_q0");
  if (at < 0) throw new Error("sql/nexmark/q0.sql has no CREATE TABLE nexmark_q0");
  return `${q0.slice(0, at)}CREATE TABLE nexmark_read WITH ('connector' = '${blackholeSpec.name}') LIKE datagen (EXCLUDING ALL);
INSERT INTO nexmark_read SELECT event_type, person, auction, bid FROM datagen;
`;
}

/**
 * Plans `sql/nexmark/<query>.sql` as written, then points every sink at `blackhole` (q10's
 * filesystem sink included), so that the run measures the query and nothing else.
 */
export function planNexmarkQuery(
  query: string,
  root: string,
  out: Output,
  settings: readonly (readonly [string, string])[] = [],
): PhysicalDag {
  // q13's side input is generated, not checked in.
  if (query === "q13") writeNexmarkSideInput(join(root, "sql/nexmark/data/side_input.csv"));
  const file = join(root, "sql/nexmark", `${query === READ_QUERY ? "q0" : query}.sql`);
  const sql = query === READ_QUERY ? readQuerySql(readFileSync(file, "utf8")) : readFileSync(file, "utf8");
  const parsed = parse(sql);
  if (parsed.diagnostics.length > 0) throw new Error(`${file}: ${parsed.diagnostics[0]!.message}`);
  const session = new Session();
  for (const [k, v] of settings) session.set(k, v);
  // The query's INSERT is the job (a SELECT would be run apart, as `weir run` runs it).
  const compiled = compileScript(parsed.statements, new Catalog(connectorCatalog()), session, {
    queries: "run",
  });
  for (const d of compiled.diagnostics) out.err(renderDiagnostic(d, sql, file));
  if (!compiled.ok)
    throw new Error(
      compiled.results.at(-1)?.kind === "invalid"
        ? `${file}: the script does not bind (see above)`
        : `${file}: the planner rejects the query (see above)`,
    );
  const dag = compiled.dag;
  if (dag === null) throw new Error(`${file}: the script has no INSERT`);
  return dag;
}

/** A source of the `nexmark` connector (what the bench sizes, or replaces by a file). */
function isNexmark(n: PhysicalNode): n is SourceNode {
  return n.kind === "source" && n.connector === nexmarkSpec.name;
}

/** A sink that discards what it receives (the bench measures the query, not the output). */
function blackhole(n: SinkNode): SinkNode {
  return { ...n, connector: blackholeSpec.name, options: { connector: blackholeSpec.name } };
}

/**
 * The plan with `'events.num' = events` on its nexmark sources and blackhole sinks; with `rate`,
 * also `'first-event.rate'` and `'next-event.rate'` (events per second of event time).
 */
export function withEvents(dag: PhysicalDag, events: number, rate?: number): PhysicalDag {
  const nodes = dag.nodes.map((n): PhysicalNode => {
    if (isNexmark(n)) return { ...n, options: nexmarkEventOptions(n.options, events, rate) };
    if (n.kind === "sink") return blackhole(n);
    return n;
  });
  return { ...dag, nodes };
}

/**
 * The plan reading the events from `file` (JSON lines, as `writeNexmarkFile` writes them) with
 * the `filesystem` connector and the `json` format in place of its nexmark sources: the same
 * columns, computed `dateTime` and watermark. Sinks become blackholes, except `filesystem` sinks
 * when `sinkDir` is given (q10): they write into that directory instead of the query's path, so
 * that the file's cost is measured as another engine writing the same files measures it.
 */
export function withFile(dag: PhysicalDag, file: string, sinkDir?: string): PhysicalDag {
  const nodes = dag.nodes.map((n): PhysicalNode => {
    if (isNexmark(n)) {
      const connector = filesystemSpec.name;
      return { ...n, connector, options: { connector, path: resolve(file), format: "json" } };
    }
    if (n.kind === "sink" && n.connector === filesystemSpec.name && sinkDir !== undefined) {
      return { ...n, options: { ...n.options, path: sinkDir } };
    }
    if (n.kind === "sink") return blackhole(n);
    return n;
  });
  return { ...dag, nodes };
}

/** Runs one query: a warm-up, then the measured run. */
export async function benchQuery(query: string, options: BenchOptions, out: Output): Promise<BenchResult> {
  const planned = planNexmarkQuery(query, options.root, out, options.settings);
  const dag: PhysicalDag = options.metrics
    ? { ...planned, settings: { ...planned.settings, "weir.metrics.port": "0", "weir.ui.port": "0" } }
    : planned;
  // The endpoints' address lines are not the bench's output.
  const engine = new Engine({
    cwd: options.root,
    out: options.metrics ? { ...out, err: () => undefined } : out,
  });
  const file = options.fromFile;
  const checkpointing = benchCheckpoints(dag);
  let stats: { durations: number[]; bytes: number[] } = { durations: [], bytes: [] };
  // Reading a file, q10's filesystem sink writes: into a fresh directory per run, all removed at the end.
  const sinkDirs: string[] = [];
  const writesFiles = dag.nodes.some((n) => n.kind === "sink" && n.connector === filesystemSpec.name);
  const run = async (events: number, sampler?: MemorySampler): Promise<number> => {
    stats = { durations: [], bytes: [] };
    let sinkDir: string | undefined;
    if (file !== undefined && writesFiles) {
      sinkDir = mkdtempSync(join(tmpdir(), `weir-bench-${query}-`));
      sinkDirs.push(sinkDir);
    }
    const input = file === undefined ? withEvents(dag, events, options.rate) : withFile(dag, file, sinkDir);
    const scraper = options.metrics ? scrapeEverySecond(engine) : null;
    let result: Awaited<ReturnType<Engine["runDag"]>>;
    try {
      result = await engine.runDag(input, {
        ...(checkpointing ? checkpointing.options(stats) : {}),
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
    const r = await benchRuns(query, options, run);
    return checkpointing ? { ...r, checkpoints: summarise(stats) } : r;
  } finally {
    checkpointing?.cleanup();
    await engine.close();
    for (const d of sinkDirs) rmSync(d, { recursive: true, force: true });
  }
}

/**
 * The checkpoint options of the benchmark runs when `dag`'s settings set an interval: each
 * completed checkpoint's duration (trigger to durable) and size are recorded into `stats`.
 */
function benchCheckpoints(dag: PhysicalDag):
  | {
      options(stats: {
        durations: number[];
        bytes: number[];
      }): Pick<JobOptions, "checkpointConfig" | "checkpoint">;
      cleanup(): void;
    }
  | undefined {
  const settings = { ...dag.settings };
  const interval = settings["execution.checkpointing.interval"];
  if (interval === undefined) return undefined;
  let temp: string | null = null;
  if (
    settings["execution.checkpointing.dir"] === undefined &&
    settings["state.checkpoints.dir"] === undefined
  ) {
    temp = mkdtempSync(join(tmpdir(), "weir-bench-checkpoints-"));
    settings["execution.checkpointing.dir"] = temp;
  }
  const planned = planCheckpoints(settings, undefined, process.cwd());
  if (!planned.ok) throw new Error(planned.message);
  const plan = planned.plan;
  if (plan.store === null) return undefined;
  return {
    options: (stats) => {
      const job = checkpointJobOptions(plan);
      const base = job.checkpoint!;
      return {
        ...job,
        checkpoint: {
          ...base,
          onCheckpoint: async (cp: JobCheckpoint, savepoint: boolean) => {
            await base.onCheckpoint?.(cp, savepoint);
            stats.durations.push(Date.now() - cp.timestamp);
            stats.bytes.push(checkpointBytes(cp) ?? 0);
          },
        },
      };
    },
    cleanup: () => {
      if (temp !== null) rmSync(temp, { recursive: true, force: true });
    },
  };
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

function summarise(stats: { durations: number[]; bytes: number[] }): CheckpointStats {
  const n = stats.durations.length;
  const mean = (xs: number[]) => (xs.length === 0 ? 0 : xs.reduce((a, b) => a + b, 0) / xs.length);
  return {
    count: n,
    meanDurationMs: mean(stats.durations),
    maxDurationMs: n === 0 ? 0 : Math.max(...stats.durations),
    meanBytes: mean(stats.bytes),
    maxBytes: n === 0 ? 0 : Math.max(...stats.bytes),
  };
}

/** The `datagen` table of `sql/nexmark/q0.sql`: the physical columns the events file holds. */
function nexmarkSource(root: string, out: Output): SourceNode {
  const dag = planNexmarkQuery("q0", root, out);
  const source = dag.nodes.find(isNexmark);
  if (source === undefined) throw new Error("sql/nexmark/q0.sql reads no nexmark table");
  return source;
}

/** The default `'base-time'` of a written events file, so that the same command writes the same file. */
export const FILE_BASE_TIME = Date.UTC(2026, 0, 1);

/**
 * Writes `events` Nexmark events (q0's generator options; `rate` events per second of event time
 * when given) as JSON lines in the `json` format's layout of the `datagen` table — `event_type`
 * and the nested `person` / `auction` / `bid` rows, timestamps as `yyyy-MM-dd HH:mm:ss.SSS` — for
 * `--from-file` and for another engine reading the same events. Returns the bytes written.
 */
export function writeNexmarkFile(
  path: string,
  events: number,
  root: string,
  out: Output,
  rate?: number,
): number {
  const source = nexmarkSource(root, out);
  const fields: Field[] = [];
  source.columns.forEach((c, i) => {
    if (c.kind === "physical") fields.push({ name: c.name, type: source.schema[i]!.type as DataType });
  });
  if (fields.map((f) => f.name).join(",") !== "event_type,person,auction,bid") {
    throw new Error("sql/nexmark/q0.sql's datagen table is not (event_type, person, auction, bid)");
  }
  const rates: Record<string, string> =
    rate === undefined ? {} : { "first-event.rate": String(rate), "next-event.rate": String(rate) };
  const config = parseNexmarkConfig({ ...source.options, ...rates, "events.num": String(events) });
  const g = new NexmarkGenerator(config, config.baseTime ?? FILE_BASE_TIME);
  const encoder = jsonFormat.encoder(fields, new FormatOptions({}, "json"));
  let fd: number;
  try {
    fd = openSync(path, "w");
  } catch (e) {
    throw new UsageError(
      `bench: cannot write --write-file ${path}: ${(e as Error).message} (create its directory, or name a writable file)`,
    );
  }
  let bytes = 0;
  try {
    let chunk = "";
    for (let n = 0; n < events; n++) {
      const e = g.generate(n);
      const t = g.lastType;
      const row = [
        t,
        t === EventType.PERSON ? e : null,
        t === EventType.AUCTION ? e : null,
        t === EventType.BID ? e : null,
      ];
      chunk += `${encoder.encode(Op.INSERT, row)}\n`;
      if (chunk.length >= 1 << 20) {
        bytes += writeSync(fd, chunk);
        chunk = "";
      }
    }
    bytes += writeSync(fd, chunk);
  } finally {
    closeSync(fd);
  }
  return bytes;
}

/** The number of lines of `path` (a last line without a terminator counts). */
export async function countLines(path: string): Promise<number> {
  const reader = new LineReader(path);
  let n = 0;
  try {
    while ((await reader.next()) !== null) n++;
  } finally {
    await reader.close();
  }
  return n;
}

/**
 * The file's ceiling: a plain loop over the events file — the same chunked line reader, then
 * `JSON.parse` per line, touching one field — no engine at all.
 */
export async function benchParseCeiling(options: BenchOptions & { fromFile: string }): Promise<BenchResult> {
  const loop = async (): Promise<number> => {
    const reader = new LineReader(options.fromFile);
    let n = 0;
    let checksum = 0;
    try {
      for (;;) {
        const line = reader.nextBuffered();
        if (line === undefined) {
          await reader.fill();
          continue;
        }
        if (line === null) break;
        const e = JSON.parse(line) as { event_type: number };
        checksum = (checksum + e.event_type) % 1_000_003;
        n++;
      }
    } finally {
      await reader.close();
    }
    if (checksum < 0) throw new Error("unreachable");
    return n;
  };
  if (options.warmupEvents > 0) await loop();
  return measure("json-parse-js", options.events, loop);
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
