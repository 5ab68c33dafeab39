import { tmpdir } from "node:os";
import { join } from "node:path";
import type { DataType, Field, PhysicalNode } from "@weir/planner";
import { expect } from "vitest";
import { ChangeBatch as CB, type ChangeBatch, formatChange, type Op, type Row } from "../../src/changelog.js";
import { defaultEvalContext } from "../../src/expr/context.js";
import type { Operator, OperatorContext, OperatorMetrics } from "../../src/operator.js";
import type { StateBackend, StateSnapshot } from "../../src/state/api.js";
import { DiskStateBackend } from "../../src/state/disk.js";
import { MemoryStateBackend } from "../../src/state/memory.js";
import { TaskMetricGroup } from "../../src/task.js";

/**
 * A small driver for the time-based operator tests: pushes data and watermarks into one operator
 * and records what it emits. `runWithRestarts` also replays the steps with a snapshot and a restore
 * into a fresh operator at every step boundary, and checks the output is identical.
 */
export type Step =
  | { readonly kind: "data"; readonly input: number; readonly changes: readonly (readonly [Op, Row])[] }
  | { readonly kind: "wm"; readonly ts: number }
  | { readonly kind: "time"; readonly now: number };

export const data = (changes: readonly (readonly [Op, Row])[], input = 0): Step => ({
  kind: "data",
  input,
  changes,
});
export const inserts = (rows: readonly Row[], input = 0): Step => ({
  kind: "data",
  input,
  changes: rows.map((r) => [0, r] as const),
});
export const wm = (ts: number): Step => ({ kind: "wm", ts });
export const procTime = (now: number): Step => ({ kind: "time", now });

export interface RunResult {
  /** Every emitted change, in emission order, as `+I a b c` lines. */
  readonly lines: string[];
  readonly changes: [Op, Row][];
  readonly forwarded: number[];
  readonly metrics: OperatorMetrics;
  /** The state after the last step. */
  readonly state: StateBackend;
  /** For each emitted change, the index of the watermark forwarded last before it (-1: none). */
  readonly emittedAfterWatermark: number[];
}

interface Running {
  readonly op: Operator & { watermark(): number };
  readonly state: StateBackend;
  readonly metrics: OperatorMetrics;
  readonly out: [Op, Row][];
  readonly forwarded: number[];
  readonly clock: { now: number };
}

function start(
  make: () => Operator,
  node: PhysicalNode,
  settings: Record<string, string>,
  clock: { now: number },
  metrics: OperatorMetrics,
  out: [Op, Row][],
  forwarded: number[],
  restore?: { readonly state: StateSnapshot; readonly watermark: number },
): Running {
  const state = testStateBackend(() => clock.now);
  // The one copy of the operator's watermark, as the task driver keeps it (restored with the state).
  const time = {
    watermark: restore?.watermark ?? Number.NEGATIVE_INFINITY,
    advancing: null as number | null,
  };
  const group = new TaskMetricGroup(`${node.kind}-${node.id}`);
  const ctx: OperatorContext = {
    node,
    subtaskIndex: 0,
    parallelism: 1,
    emit: (batch: ChangeBatch) => {
      for (const c of CB.toArray(batch)) out.push(c);
    },
    state,
    timers: (name) => state.timers(name),
    metrics: group,
    late: () => {
      metrics.lateRecordsDropped++;
    },
    side: (port) => {
      throw new Error(`no side output '${port}' in the time driver`);
    },
    forwardWatermark: (w) => {
      forwarded.push(w);
    },
    get watermark() {
      return time.watermark;
    },
    evalContext: defaultEvalContext({
      currentWatermark: () => {
        const w = time.advancing ?? time.watermark;
        return Number.isFinite(w) ? w : null;
      },
      now: () => clock.now,
    }),
    settings,
    clock: () => clock.now,
    now: () => clock.now,
  };
  const op = make();
  op.open(ctx);
  if (restore !== undefined) state.restore(restore.state);
  const wrapped: Operator & { watermark(): number } = {
    open: () => {},
    watermark: () => time.watermark,
    processBatch: (i, b) => op.processBatch(i, b),
    onWatermark: (w) => {
      time.advancing = w;
      const fwd = op.onWatermark(w);
      time.advancing = null;
      if (w > time.watermark) time.watermark = w;
      return fwd;
    },
    onProcessingTime: (n) => op.onProcessingTime?.(n),
  };
  return { op: wrapped, state, metrics, out, forwarded, clock };
}

function apply(r: Running, step: Step): void {
  switch (step.kind) {
    case "data":
      r.op.processBatch(step.input, CB.of(step.changes));
      return;
    case "wm":
      r.forwarded.push(r.op.onWatermark(step.ts));
      return;
    case "time":
      r.clock.now = step.now;
      r.op.onProcessingTime?.(step.now);
      return;
    default: {
      const _exhaustive: never = step;
      throw new Error(`unknown step ${JSON.stringify(_exhaustive)}`);
    }
  }
}

function freshMetrics(): OperatorMetrics {
  return { recordsIn: 0, recordsOut: 0, lateRecordsDropped: 0 };
}

/** Runs the steps once, without a restart. */
export function run(
  make: () => Operator,
  node: PhysicalNode,
  steps: readonly Step[],
  settings: Record<string, string> = {},
): RunResult {
  const r = start(make, node, settings, { now: 0 }, freshMetrics(), [], []);
  const emittedAfterWatermark: number[] = [];
  for (const s of steps) {
    const before = r.forwarded.length - 1;
    const n = r.out.length;
    apply(r, s);
    for (let i = n; i < r.out.length; i++) emittedAfterWatermark.push(before);
  }
  return {
    lines: r.out.map(([op, row]) => formatChange(op, row)),
    changes: r.out,
    forwarded: r.forwarded,
    metrics: r.metrics,
    state: r.state,
    emittedAfterWatermark,
  };
}

/**
 * Runs the steps, and again with a snapshot after step `k` restored into a fresh operator and
 * state backend, for every `k`; each restarted run must emit exactly what the uninterrupted run
 * emitted. The snapshot goes through JSON, as a checkpoint does. Returns the uninterrupted run.
 */
export function runWithRestarts(
  make: () => Operator,
  node: PhysicalNode,
  steps: readonly Step[],
  settings: Record<string, string> = {},
): RunResult {
  const base = run(make, node, steps, settings);
  for (let k = 1; k < steps.length; k++) {
    const clock = { now: 0 };
    const metrics = freshMetrics();
    const out: [Op, Row][] = [];
    const forwarded: number[] = [];
    const first = start(make, node, settings, clock, metrics, out, forwarded);
    for (let i = 0; i < k; i++) apply(first, steps[i]);
    const snap = JSON.parse(JSON.stringify(first.state.snapshot())) as StateSnapshot;
    const second = start(make, node, settings, clock, metrics, out, forwarded, {
      state: snap,
      watermark: first.op.watermark(),
    });
    for (let i = k; i < steps.length; i++) apply(second, steps[i]);
    expect(
      out.map(([op, row]) => formatChange(op, row)),
      `restart after step ${k}`,
    ).toEqual(base.lines);
    expect(forwarded, `forwarded watermarks, restart after step ${k}`).toEqual(base.forwarded);
  }
  return base;
}

// Types and schemas ---------------------------------------------------------------------------

export const T = {
  int: { kind: "INT", nullable: true } as DataType,
  bigint: { kind: "BIGINT", nullable: true } as DataType,
  double: { kind: "DOUBLE", nullable: true } as DataType,
  bool: { kind: "BOOLEAN", nullable: true } as DataType,
  str: { kind: "VARCHAR", length: 2147483647, nullable: true } as DataType,
  ts: { kind: "TIMESTAMP", precision: 3, nullable: true } as DataType,
  rowtime: { kind: "TIMESTAMP", precision: 3, nullable: false, timeAttribute: "rowtime" } as DataType,
  decimal: (precision: number, scale: number): DataType => ({
    kind: "DECIMAL",
    precision,
    scale,
    nullable: true,
  }),
} as const;

export function fields(...types: DataType[]): Field[] {
  return types.map((type, i) => ({ name: `f${i}`, type }));
}

/** The common node fields, for building physical nodes in tests. */
export function base(schema: readonly Field[], inputs: readonly number[] = [0]) {
  return {
    id: 1,
    inputs,
    schema,
    changelogMode: { kind: "insert-only" } as const,
    streamKey: null,
    watermarkColumn: null,
  };
}

/** Sorted lines: for comparing changelogs whose order is not specified. */
export function sorted(lines: readonly string[]): string[] {
  return [...lines].sort();
}

let diskBackends = 0;

/**
 * The backend the operator tests run on: in memory, or with `WEIR_TEST_STATE_BACKEND=rocksdb`
 * the on-disk one with a cache of 4 entries per table (so LMDB serves most reads).
 */
export function testStateBackend(clock: () => number): StateBackend {
  if (process.env.WEIR_TEST_STATE_BACKEND !== "rocksdb") return new MemoryStateBackend({ clock });
  diskBackends++;
  return new DiskStateBackend({
    clock,
    dir: join(tmpdir(), "weir-operator-tests", `${process.pid}-${diskBackends}`),
    cacheEntries: 4,
  });
}
