import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import {
  benchParseCeiling,
  benchQuery,
  countLines,
  planNexmarkQuery,
  withFile,
  writeNexmarkFile,
} from "../../packages/cli/src/bench/nexmark.js";
import type { Output } from "../../packages/cli/src/output.js";
import { runWeir } from "../../packages/cli/test/helpers.js";

const ROOT = resolve(import.meta.dirname, "../..");
const quiet: Output = { out: () => {}, err: (l) => process.stderr.write(`${l}\n`) };

describe("weir bench nexmark --write-file / --from-file (issue 18 item 5)", () => {
  it("writes the generator's events as JSON lines and the queries read them back", async () => {
    const file = join(mkdtempSync(join(tmpdir(), "weir-bench-file-")), "events.json");
    const bytes = writeNexmarkFile(file, 2000, ROOT, quiet);
    const text = readFileSync(file, "utf8");
    expect(Buffer.byteLength(text)).toBe(bytes);
    expect(await countLines(file)).toBe(2000);
    // The same command writes the same file (a fixed base time).
    expect(writeNexmarkFile(`${file}.2`, 2000, ROOT, quiet)).toBe(bytes);
    expect(readFileSync(`${file}.2`, "utf8")).toBe(text);
    const first = JSON.parse(text.split("\n")[0]!) as Record<string, unknown>;
    expect(Object.keys(first)).toEqual(["event_type", "person", "auction", "bid"]);
    const kind = ["person", "auction", "bid"][first.event_type as number]!;
    expect((first[kind] as Record<string, unknown>).dateTime).toBe("2026-01-01 00:00:00.000");

    const options = { events: 2000, warmupEvents: 0, root: ROOT };
    const fromFile = { ...options, fromFile: file };
    // q0 passes every bid through; q2 filters them; both see the generator's events.
    for (const q of ["q0", "q2"]) {
      const generated = await benchQuery(q, options, quiet);
      const read = await benchQuery(q, fromFile, quiet);
      expect({ q, outputs: read.outputs }).toEqual({ q, outputs: generated.outputs });
    }
    expect((await benchQuery("q0", fromFile, quiet)).outputs).toBe(1840);
    const all = await benchQuery("read", fromFile, quiet);
    expect(all.outputs).toBe(2000);
    expect((await benchParseCeiling(fromFile)).outputs).toBe(2000);
  });

  it("--steady-file: a second run over a larger file and the cost per event between the two", async () => {
    const dir = mkdtempSync(join(tmpdir(), "weir-bench-steady-"));
    writeNexmarkFile(join(dir, "small.json"), 1000, ROOT, quiet);
    writeNexmarkFile(join(dir, "large.json"), 3000, ROOT, quiet);
    const r = await runWeir([
      "bench",
      "nexmark",
      "--from-file",
      join(dir, "small.json"),
      "--steady-file",
      join(dir, "large.json"),
      "--query",
      "q0,q10",
      "--warmup",
      "0",
      "--json",
    ]);
    expect(r.code).toBe(0);
    const results = (JSON.parse(r.stdout) as { results: Record<string, unknown>[] }).results;
    // 46 of every 50 events are bids: q0 passes each through, q10 writes each to its files.
    expect(results.map((x) => [x.query, x.events, x.outputs])).toEqual([
      ["q0", 1000, 920],
      ["q10", 1000, 920],
    ]);
    for (const x of results) {
      const s = x.steady as Record<string, number>;
      expect(s.toEvents).toBe(3000);
      // (Per event in µs; the JSON keeps three decimals of each number.)
      expect(s.cpuMicrosecondsPerEvent).toBeCloseTo(
        (1e6 * (s.toCpuSeconds! - (x.cpuSeconds as number))) / 2000,
        0,
      );
      expect((s.eventsPerSecondPerCore * s.cpuMicrosecondsPerEvent) / 1e6).toBeCloseTo(1, 2);
    }
    const swapped = ["--from-file", join(dir, "large.json"), "--steady-file", join(dir, "small.json")];
    const refused = await runWeir(["bench", "nexmark", ...swapped, "--query", "q0"]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/--steady-file must hold more events than --from-file/);
  });

  it("reading a file, q10's filesystem sink writes into the run's directory; other sinks are blackholes", () => {
    const dag = planNexmarkQuery("q10", ROOT, quiet);
    const sinks = (d: typeof dag) =>
      d.nodes.filter((n) => n.kind === "sink").map((n) => [n.connector, n.options.path]);
    expect(sinks(withFile(dag, "events.json", "/tmp/run-dir"))).toEqual([["filesystem", "/tmp/run-dir"]]);
    expect(sinks(withFile(dag, "events.json"))).toEqual([["blackhole", undefined]]);
  });

  it("refuses what a file fixes, and a missing path", async () => {
    for (const [argv, message] of [
      [["--from-file", "x.json", "--events", "10"], /--from-file reads every event of the file/],
      [["--from-file", "x.json", "--rate", "10"], /--rate is the generator's/],
      [["--write-file", "a.json", "--from-file", "b.json"], /cannot be combined/],
      [["--write-file"], /--write-file needs a/],
      [["--steady-file", "b.json"], /--steady-file needs --from-file/],
      [
        ["--events", "10", "--set", "execution.state-recovery.path=/tmp/x"],
        /--set execution.state-recovery.path: a benchmark starts every run from the first event/,
      ],
    ] as const) {
      const r = await runWeir(["bench", "nexmark", ...argv]);
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(message);
    }
  });
});
