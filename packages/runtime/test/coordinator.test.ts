import { materialize } from "@weir/runtime/testing";
import { describe, expect, it } from "vitest";
import type { SinkWriterContext } from "../src/connector.js";
import { checkpointConfig } from "../src/job/checkpoint-config.js";
import { runJob } from "../src/job/job.js";
import { CollectWriter, dag, expected, HangingWriter, oneRowJob, oneRowOptions } from "./job-fixture.js";

// The checkpoint coordinator: timeout, min-pause and the settings it honours.

describe("checkpoint coordinator", () => {
  it("takes checkpoints on 'execution.checkpointing.interval' alone: no other option names the interval", async () => {
    const lines: string[] = [];
    const opened: SinkWriterContext[] = [];
    const writer = new (class extends CollectWriter {
      override async open(ctx?: SinkWriterContext): Promise<void> {
        if (ctx) opened.push(ctx);
      }
    })(lines);
    const result = await runJob(
      { ...dag, settings: { "execution.checkpointing.interval": "10 ms" } },
      oneRowOptions(writer),
    );
    expect(result.reason).toBe("end");
    expect(result.checkpoints).toBeGreaterThan(1);
    // Every one completed: the sink committed each, in order, and the last is the result's.
    expect(writer.commits).toEqual(Array.from({ length: result.checkpoints }, (_, i) => i + 1));
    expect(result.lastCheckpoint?.checkpointId).toBe(result.checkpoints);
    // The sink learns the interval the job checkpoints on (exactly-once sinks check it).
    expect(opened[0]!.checkpointIntervalMs).toBe(10);
    expect(materialize(lines.join("\n"))).toEqual(expected());
  });

  it("aborts a checkpoint a task never acknowledges; the job goes on and the next one completes", async () => {
    const lines: string[] = [];
    const writer = new HangingWriter(lines, 1);
    const completed: number[] = [];
    const aborted: [number, string][] = [];
    const result = await runJob(
      dag,
      oneRowOptions(writer, {
        settings: { "execution.checkpointing.interval": "5 ms", "execution.checkpointing.timeout": "50 ms" },
        checkpoint: {
          onCheckpoint: async (cp) => {
            completed.push(cp.checkpointId);
          },
          onAborted: (id, reason) => aborted.push([id, reason]),
        },
      }),
    );
    expect(result.reason).toBe("end");
    expect(aborted).toEqual([[1, "not acknowledged within 50 ms by sink 'out' (node 5)"]]);
    expect(result.abortedCheckpoints).toBe(1);
    expect(completed.length).toBeGreaterThan(0);
    expect(completed[0]).toBe(2);
    expect(result.checkpoints).toBe(completed.length);
    // Sinks commit completed checkpoints only; the rows written while the pre-commit hung are kept.
    expect(writer.commits).toEqual(completed);
    expect(materialize(lines.join("\n"))).toEqual(expected());
  });

  it("'execution.checkpointing.min-pause': no checkpoint starts sooner after the previous one ended", async () => {
    async function run(settings: Record<string, string>): Promise<number[]> {
      let clock = 0;
      const ended = new Map<number, number>();
      const gaps: number[] = [];
      await runJob(
        dag,
        oneRowOptions(new CollectWriter([]), {
          now: () => clock++,
          settings: { "execution.checkpointing.interval": "1 ms", ...settings },
          checkpoint: {
            onCheckpoint: async (cp) => {
              const prev = ended.get(cp.checkpointId - 1);
              if (prev !== undefined) gaps.push(cp.timestamp - prev);
              ended.set(cp.checkpointId, clock);
            },
          },
        }),
      );
      return gaps;
    }
    const paused = await run({ "execution.checkpointing.min-pause": "40 ms" });
    expect(paused.length).toBeGreaterThan(1);
    for (const g of paused) expect(g).toBeGreaterThanOrEqual(40);
    // Without the pause, checkpoints follow each other closer than that.
    const eager = await run({});
    expect(Math.min(...eager)).toBeLessThan(40);
  });
});

describe("metrics groups", () => {
  it("name every task's counters and gauges, and count the coordinator's checkpoints", async () => {
    const job = oneRowJob(new CollectWriter([]), {
      settings: { "execution.checkpointing.interval": "10 ms" },
    });
    await job.open();
    const result = await job.run();
    await job.close();
    const m = job.metricValues();
    expect(result.checkpoints).toBeGreaterThan(0);
    expect(m["job.numberOfCompletedCheckpoints"]).toBe(result.checkpoints);
    expect(m["job.checkpointDurationMs"]).toMatchObject({ count: result.checkpoints });
    expect(m["source-0.numRecordsOut"]).toBe(60);
    expect(m["source-0.currentWatermark"]).toBe(Number.POSITIVE_INFINITY);
    expect(m["calc-1.numRecordsIn"]).toBe(60);
    expect(m["group-aggregate-4.numLateRecordsDropped"]).toBe(0);
    expect(m["sink-5.numRecordsIn"]).toBe(result.metrics.sinks[5]!.recordsWritten);
  });
});

describe("checkpoint settings", () => {
  it("reads Flink's names and defaults", () => {
    expect(checkpointConfig({})).toEqual({
      intervalMs: 0,
      timeoutMs: 600_000,
      minPauseMs: 0,
      mode: "EXACTLY_ONCE",
      numRetained: 1,
      dir: null,
      savepointDir: null,
    });
    expect(
      checkpointConfig({
        "execution.checkpointing.interval": "10 s",
        "execution.checkpointing.timeout": "1 min",
        "execution.checkpointing.min-pause": "500 ms",
        "execution.checkpointing.mode": "at_least_once",
        "execution.checkpointing.max-concurrent-checkpoints": "1",
        "state.checkpoints.num-retained": "3",
        "state.checkpoints.dir": "chk",
        "state.savepoints.dir": "sp",
      }),
    ).toEqual({
      intervalMs: 10_000,
      timeoutMs: 60_000,
      minPauseMs: 500,
      mode: "AT_LEAST_ONCE",
      numRetained: 3,
      dir: "chk",
      savepointDir: "sp",
    });
    expect(checkpointConfig({ "execution.checkpointing.num-retained": "2" }).numRetained).toBe(2);
  });

  const errors: [Record<string, string>, string][] = [
    [{ "execution.checkpointing.timeout": "soon" }, "'execution.checkpointing.timeout' expects a duration"],
    [{ "execution.checkpointing.timeout": "0 s" }, "'execution.checkpointing.timeout' must be positive"],
    [{ "execution.checkpointing.min-pause": "x" }, "'execution.checkpointing.min-pause' expects a duration"],
    [
      { "execution.checkpointing.mode": "EXACTLY_TWICE" },
      "'execution.checkpointing.mode' expects EXACTLY_ONCE or AT_LEAST_ONCE",
    ],
    [
      { "execution.checkpointing.max-concurrent-checkpoints": "2" },
      "'execution.checkpointing.max-concurrent-checkpoints' = '2': Weir runs one checkpoint at a time",
    ],
    [
      { "state.checkpoints.num-retained": "0" },
      "'state.checkpoints.num-retained' expects a positive integer",
    ],
    [
      { "state.checkpoints.num-retained": "2", "execution.checkpointing.num-retained": "3" },
      "'state.checkpoints.num-retained' = 2 and 'execution.checkpointing.num-retained' = 3 disagree",
    ],
  ];
  for (const [settings, message] of errors) {
    it(`refuses ${JSON.stringify(settings)}`, () => {
      expect(() => checkpointConfig(settings)).toThrow(message);
    });
  }
});
