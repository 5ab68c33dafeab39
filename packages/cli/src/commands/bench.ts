import type { CommandLine } from "../args.js";
import { UsageError } from "../args.js";
import {
  type BenchResult,
  benchCeiling,
  benchParseCeiling,
  benchQuery,
  type CheckpointStats,
  countLines,
  defaultBenchRoot,
  NEXMARK_QUERIES,
  READ_QUERY,
  writeNexmarkFile,
} from "../bench/nexmark.js";
import type { Output } from "../output.js";

const DEFAULT_EVENTS = 1_000_000;

/**
 * `weir bench nexmark [--query q0,q5 | all] [--events N] [--warmup N] [--sample-memory[=N]] [--set key=value]... [--metrics] [--json]`:
 * runs each query of `sql/nexmark/` into a blackhole sink after a warm-up and reports events/s,
 * events/s per core (process CPU time, generator included) and peak memory; q0 also runs its
 * plain-JavaScript ceiling. `--sample-memory` also records heap (after a full GC) and RSS every
 * N events of the measured run (default: a tenth of `--events`); `--rate=N` sets the generator's
 * events per second of event time (default: the query's own, 10,000,000). `--set key=value`
 * applies settings before the query's own (e.g. `state.backend.type=rocksdb`);
 * `--set execution.checkpointing.interval=1s` takes checkpoints (into a temporary directory
 * unless `execution.checkpointing.dir` is set) and reports their count, duration and size. `--metrics` serves
 * `/metrics` and the job page and fetches both every second during the runs. Exit
 * code 0; 1 for bad arguments; 2 when a query failed (the others still run).
 *
 * `--write-file PATH [--events N] [--rate N]` writes the generator's events as JSON lines and
 * exits; `--from-file PATH` runs the queries over such a file (`filesystem` / `json`), the warm-up
 * being one whole run over it (none with `--warmup 0`), and the `read` query (every column into a
 * blackhole) beside its plain `JSON.parse`-per-line loop (`json-parse-js`); q10's filesystem sink
 * then writes into a temporary directory. `--steady-file LARGER` adds, per query, a run over the
 * larger file in the same process and the cost per event between the two runs (steady state).
 */
export async function benchCommand(cmd: CommandLine, out: Output): Promise<number> {
  const suite = cmd.positionals[0];
  if (suite !== "nexmark") {
    throw new UsageError(
      "weir bench needs a suite: weir bench nexmark [--query q0,q5 | all] [--events N] [--json]",
    );
  }
  const fromFile = pathFlag(cmd.flags.get("from-file"), "--from-file");
  const writeFile = pathFlag(cmd.flags.get("write-file"), "--write-file");
  const root = defaultBenchRoot(process.cwd());
  const rate = parseCount(cmd.flags.get("rate"), "--rate");
  if (writeFile !== undefined) {
    if (fromFile !== undefined) throw new UsageError("--write-file and --from-file cannot be combined");
    const n = parseCount(cmd.flags.get("events"), "--events") ?? DEFAULT_EVENTS;
    const bytes = writeNexmarkFile(writeFile, n, root, out, rate);
    out.out(
      `wrote ${n.toLocaleString("en-US")} events (${(bytes / 2 ** 20).toFixed(1)} MiB) to ${writeFile}`,
    );
    return 0;
  }
  const steadyFile = pathFlag(cmd.flags.get("steady-file"), "--steady-file");
  if (steadyFile !== undefined && fromFile === undefined) {
    throw new UsageError(
      "--steady-file needs --from-file (the smaller events file; --steady-file the larger)",
    );
  }
  if (fromFile !== undefined && cmd.flags.has("events")) {
    throw new UsageError("--from-file reads every event of the file; --events is for the generator");
  }
  if (fromFile !== undefined && rate !== undefined) {
    throw new UsageError("--rate is the generator's; a file's event times are fixed when it is written");
  }
  const queries = parseQueries(cmd.flags.get("query"));
  const events =
    fromFile !== undefined
      ? await countLines(fromFile)
      : (parseCount(cmd.flags.get("events"), "--events") ?? DEFAULT_EVENTS);
  const warmupEvents =
    parseCount(cmd.flags.get("warmup"), "--warmup") ??
    (fromFile !== undefined ? events : Math.ceil(events / 10));
  const steadyEvents = steadyFile !== undefined ? await countLines(steadyFile) : 0;
  if (steadyFile !== undefined && steadyEvents <= events) {
    throw new UsageError(
      `--steady-file must hold more events than --from-file (${steadyEvents.toLocaleString("en-US")} <= ${events.toLocaleString("en-US")})`,
    );
  }
  const recovery = cmd.sets.find(
    ([k]) => k === "execution.state-recovery.path" || k === "execution.savepoint.path",
  );
  if (recovery !== undefined)
    throw new UsageError(
      `--set ${recovery[0]}: a benchmark starts every run from the first event (restore a job with weir run --from-savepoint)`,
    );
  const json = cmd.flags.has("json");
  const sampleFlag = cmd.flags.get("sample-memory");
  const sampleMemoryEvery =
    sampleFlag === undefined
      ? undefined
      : sampleFlag === true
        ? Math.max(1, Math.ceil(events / 10))
        : parseCount(sampleFlag, "--sample-memory");
  const options = {
    events,
    warmupEvents,
    root,
    ...(fromFile !== undefined ? { fromFile } : {}),
    ...(sampleMemoryEvery !== undefined ? { sampleMemoryEvery } : {}),
    ...(rate !== undefined ? { rate } : {}),
    settings: cmd.sets,
    ...(cmd.flags.has("metrics") ? { metrics: true } : {}),
  };
  const results: BenchResult[] = [];
  const failed: string[] = [];
  if (!json) out.out(header());
  for (const q of queries) {
    let r: BenchResult;
    try {
      r = await benchQuery(q, options, out);
      if (steadyFile !== undefined) {
        // The larger file right after, in the same (warm) process, no further warm-up.
        const big = await benchQuery(
          q,
          { ...options, fromFile: steadyFile, events: steadyEvents, warmupEvents: 0 },
          out,
        );
        const perEvent = (big.cpuSeconds - r.cpuSeconds) / (steadyEvents - events);
        // (In µs: the JSON output keeps three decimals.)
        r = {
          ...r,
          steady: {
            toEvents: steadyEvents,
            toCpuSeconds: big.cpuSeconds,
            toPeakRssBytes: big.peakRssBytes,
            cpuMicrosecondsPerEvent: perEvent * 1e6,
            eventsPerSecondPerCore: 1 / perEvent,
          },
        };
      }
    } catch (e) {
      out.err(`weir bench: ${q} failed: ${e instanceof Error ? e.message : String(e)}`);
      failed.push(q);
      continue;
    }
    results.push(r);
    if (!json) {
      out.out(line(r));
      if (r.memory) for (const l of memoryLines(r)) out.out(l);
      if (r.checkpoints) out.out(checkpointLine(r.checkpoints));
      if (r.steady) out.out(steadyLine(r));
    }
    if (q === READ_QUERY && fromFile !== undefined) {
      const c = await benchParseCeiling({ ...options, fromFile });
      results.push(c);
      if (!json) {
        out.out(line(c));
        out.out(
          `read / json-parse-js (events/s per core): ${Math.round((100 * c.cpuSeconds) / r.cpuSeconds)}%`,
        );
      }
    }
    if (q === "q0" && fromFile === undefined) {
      const c = await benchCeiling(options);
      results.push(c);
      if (!json) out.out(line(c));
    }
  }
  // The node flags in effect (bin/weir's --max-semi-space-size, WEIR_NODE_OPTIONS, NODE_OPTIONS):
  // they move the GC-heavy queries' figures.
  const nodeFlags = process.execArgv.join(" ");
  const nodeOptions = process.env.NODE_OPTIONS ?? "";
  if (!json) {
    out.out(
      `node ${process.version}, flags: ${nodeFlags || "(none)"}${nodeOptions ? `, NODE_OPTIONS: ${nodeOptions}` : ""}`,
    );
  }
  if (json) {
    out.out(
      JSON.stringify(
        { node: process.version, nodeFlags, nodeOptions, events, warmupEvents, results, failed },
        (_k, v) => (typeof v === "number" && !Number.isInteger(v) ? Math.round(v * 1000) / 1000 : v),
      ),
    );
  }
  return failed.length > 0 ? 2 : 0;
}

/** The steady state between the two files, indented under the smaller file's line. */
function steadyLine(r: BenchResult): string {
  const s = r.steady!;
  return `  steady state, events ${r.events.toLocaleString("en-US")} → ${s.toEvents.toLocaleString("en-US")}: cpu ${r.cpuSeconds.toFixed(2)} s → ${s.toCpuSeconds.toFixed(2)} s, ${s.cpuMicrosecondsPerEvent.toFixed(2)} µs per event, ${Math.round(s.eventsPerSecondPerCore).toLocaleString("en-US")} events/s per core, peak RSS ${Math.round(s.toPeakRssBytes / 2 ** 20)} MiB`;
}

/** The measured run's checkpoints, indented under its line. */
function checkpointLine(c: CheckpointStats): string {
  const kib = (b: number) => `${(b / 1024).toFixed(1)} KiB`;
  return `  checkpoints: ${c.count}, duration mean ${Math.round(c.meanDurationMs)} ms / max ${Math.round(c.maxDurationMs)} ms, size mean ${kib(c.meanBytes)} / max ${kib(c.maxBytes)}`;
}

/** The memory samples of a run, indented under its line: events, heap after GC, RSS. */
function memoryLines(r: BenchResult): string[] {
  const mib = (b: number) => `${(b / 2 ** 20).toFixed(1)} MiB`.padStart(11);
  return [
    `  ${"events".padStart(13)} ${"heap (GC'd)".padStart(11)} ${"RSS".padStart(11)}`,
    ...(r.memory ?? []).map(
      (s) => `  ${s.events.toLocaleString("en-US").padStart(13)} ${mib(s.heapUsedBytes)} ${mib(s.rssBytes)}`,
    ),
  ];
}

function pathFlag(flag: string | true | undefined, name: string): string | undefined {
  if (flag === true || flag === "") throw new UsageError(`${name} needs a file path`);
  return flag;
}

function parseQueries(flag: string | true | undefined): string[] {
  if (flag === undefined || flag === "all") return [...NEXMARK_QUERIES];
  if (flag === true) throw new UsageError("--query needs a list, e.g. --query q0,q5 (or all)");
  const qs = flag.split(",").map((q) => q.trim().toLowerCase());
  for (const q of qs) {
    if (!NEXMARK_QUERIES.includes(q) && q !== READ_QUERY) {
      throw new UsageError(
        `unknown Nexmark query '${q}' (known: ${NEXMARK_QUERIES.join(", ")}, and ${READ_QUERY}: every column into a blackhole; q6 is unsupported)`,
      );
    }
  }
  return qs;
}

function parseCount(flag: string | true | undefined, name: string): number | undefined {
  if (flag === undefined) return undefined;
  const text = flag === true ? "" : flag.replace(/_/g, "");
  const m = /^(\d+(?:\.\d+)?)([kKmM]?)$/.exec(text);
  if (!m) throw new UsageError(`${name} expects a count such as 1000000, 500k or 10M`);
  const n = Math.round(Number(m[1]) * (m[2] === "" ? 1 : /k/i.test(m[2]!) ? 1e3 : 1e6));
  if (name === "--events" && n < 1) throw new UsageError("--events must be at least 1");
  return n;
}

const COLUMNS = [
  "query",
  "events",
  "wall s",
  "cpu s",
  "events/s",
  "events/s/core",
  "target/core",
  "peak RSS",
  "outputs",
];
const WIDTHS = [13, 11, 8, 8, 12, 14, 12, 9, 11];

function header(): string {
  return COLUMNS.map((c, i) => (i === 0 ? c.padEnd(WIDTHS[i]!) : c.padStart(WIDTHS[i]!))).join(" ");
}

function line(r: BenchResult): string {
  const cells = [
    r.query,
    r.events.toLocaleString("en-US"),
    r.wallSeconds.toFixed(2),
    r.cpuSeconds.toFixed(2),
    Math.round(r.eventsPerSecond).toLocaleString("en-US"),
    Math.round(r.eventsPerSecondPerCore).toLocaleString("en-US"),
    r.targetPerCore === null ? "-" : r.targetPerCore.toLocaleString("en-US"),
    `${Math.round(r.peakRssBytes / 2 ** 20)} MiB`,
    r.outputs.toLocaleString("en-US"),
  ];
  return cells.map((c, i) => (i === 0 ? c.padEnd(WIDTHS[i]!) : c.padStart(WIDTHS[i]!))).join(" ");
}
