import type { PhysicalNode } from "@weir/planner";
import { PHYSICAL_DAG_VERSION, T } from "@weir/planner";
import { OperatorHarness } from "@weir/runtime/testing";
import { describe, expect, it } from "vitest";
import type { ChangeBatch } from "../src/changelog.js";
import { Message } from "../src/changelog.js";
import { Job } from "../src/job/job.js";
import type { Operator, OperatorContext } from "../src/operator.js";
import { stateBackendFactory } from "../src/state/backends.js";
import { MemoryStateBackend } from "../src/state/memory.js";
import { BarrierAligner } from "../src/time/barriers.js";

// The task lifecycle: the order in which the driver calls a task, what its context holds, the
// late-row channel, the state backend setting and the AT_LEAST_ONCE (unaligned) barrier mode.

const INT = T.int();
const node: PhysicalNode = {
  kind: "calc",
  id: 7,
  inputs: [0, 1],
  changelogMode: { kind: "insert-only" },
  streamKey: null,
  watermarkColumn: null,
  schema: [{ name: "v", type: INT }],
  projections: [],
  condition: null,
};

/** Records every lifecycle call; a row with v < watermark goes to the late channel. */
class Recorder implements Operator {
  readonly calls: string[] = [];
  ctx!: OperatorContext;
  open(ctx: OperatorContext): void {
    this.ctx = ctx;
    this.calls.push(`open ${ctx.subtaskIndex}/${ctx.parallelism} ${ctx.state instanceof MemoryStateBackend}`);
    ctx.state.value<number>("seen");
  }
  processBatch(input: number, batch: ChangeBatch): void {
    for (const row of batch.rows) {
      if ((row[0] as number) <= this.ctx.watermark) this.ctx.late(row, "behind-watermark");
      else this.ctx.emit({ ops: [0], rows: [row], length: 1 });
    }
    this.calls.push(`batch ${input} ${batch.length}`);
  }
  onWatermark(watermark: number): number {
    // The context still shows the previous watermark while this one is processed.
    this.calls.push(`watermark ${watermark} (ctx ${this.ctx.watermark})`);
    return watermark;
  }
  onBarrier(id: number) {
    this.calls.push(`barrier ${id}`);
    return { mine: id };
  }
  endInput(): void {
    this.calls.push("endInput");
  }
}

describe("task lifecycle", () => {
  it("calls open, batches, watermarks, barriers and endInput in order; late rows go to ctx.late", () => {
    const rec = new Recorder();
    const h = new OperatorHarness(node, { factory: () => rec });
    h.push("+I 5", 0).watermark(10, 0).watermark(20, 1);
    h.push("+I 3\n+I 11\n+I 12", 1);
    h.barrier(1, 0);
    h.push("+I 30", 1); // before input 1's barrier: part of checkpoint 1
    const snap = h.barrier(1, 1);
    h.end();
    expect(rec.calls).toEqual([
      "open 0/1 true",
      "batch 0 1",
      "watermark 10 (ctx -Infinity)",
      "batch 1 3",
      "batch 1 1",
      "barrier 1",
      "watermark 20 (ctx 10)",
      "watermark Infinity (ctx 20)",
      "endInput",
    ]);
    expect(snap?.tables.seen).toBeDefined();
    expect(h.output()).toBe("+I 5\n+I 11\n+I 12\n+I 30");
    expect(h.metrics).toEqual({ recordsIn: 5, recordsOut: 4, lateRecordsDropped: 1 });
    expect(h.barriers).toEqual([1]);
    expect(h.ended).toBe(true);
  });

  it("'state.backend.type' picks the backend; an unknown name fails naming the option", () => {
    expect(stateBackendFactory({})(() => 0)).toBeInstanceOf(MemoryStateBackend);
    expect(stateBackendFactory({ "state.backend.type": "hashmap" })(() => 0)).toBeInstanceOf(
      MemoryStateBackend,
    );
    const dag = { version: PHYSICAL_DAG_VERSION, nodes: [], sinks: [], settings: {} };
    expect(
      () =>
        new Job(dag, {
          connectors: { source: () => undefined as never, sink: () => undefined as never },
          cwd: ".",
          settings: { "state.backend.type": "rocksdb2" },
        }),
    ).toThrow(
      "'state.backend.type' = 'rocksdb2' is not a state backend this Weir has; use one of: hashmap, memory",
    );
  });
});

describe("barrier modes", () => {
  function run(aligned: boolean): string[] {
    const seen: string[] = [];
    const a = new BarrierAligner(
      2,
      {
        onMessage: (i, m) => seen.push(`${m.kind}@${i}`),
        onCheckpoint: (id) => seen.push(`checkpoint ${id}`),
      },
      aligned,
    );
    a.receive(0, Message.barrier(1));
    a.receive(0, Message.watermark(5));
    a.receive(1, Message.watermark(4));
    a.receive(1, Message.barrier(1));
    return seen;
  }

  it("EXACTLY_ONCE holds an input back after its barrier until the checkpoint aligned", () => {
    expect(run(true)).toEqual(["watermark@1", "checkpoint 1", "watermark@0"]);
  });

  it("AT_LEAST_ONCE processes it at once; the snapshot comes with the last barrier", () => {
    expect(run(false)).toEqual(["watermark@0", "watermark@1", "checkpoint 1"]);
  });
});
