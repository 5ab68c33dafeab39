import type { ChangelogMode, PhysicalNode } from "@weir/planner";
import type { Row } from "../changelog.js";
import {
  ChangeBatch,
  formatChange,
  formatChangelog,
  Message,
  Op,
  opSign,
  parseChangelog,
} from "../changelog.js";
import { TaskDriver } from "../job/driver.js";
import type { Operator } from "../operator.js";
import "../operators/index.js";
import type { OperatorBuildInfo } from "../operators/registry.js";
import { createOperator } from "../operators/registry.js";
import type { StateSnapshot } from "../state/api.js";

export interface HarnessOptions {
  /** Job settings, e.g. `{ "table.exec.state.ttl": "10 s" }`. */
  readonly settings?: Readonly<Record<string, string>>;
  /** Initial processing time (epoch ms); default 0. */
  readonly time?: number;
  /** The changelog mode of each input; default retract for every input. */
  readonly inputModes?: readonly ChangelogMode[];
  /** Builds the operator; default: the operator registry. */
  readonly factory?: (node: PhysicalNode, info: OperatorBuildInfo) => Operator;
}

/**
 * Runs one operator the way the job does (watermark merging, barrier alignment, the final
 * watermark at the end of the inputs — the same {@link TaskDriver}) and records what it
 * emits. Changes are written in the changelog text form (`+I 1 a`, `-U 1 a`, `+U 1 b`).
 *
 * ```ts
 * const h = new OperatorHarness(node);
 * h.push("+I 1 a\n+I 1 b").watermark(10);
 * expect(h.output()).toBe("+I 1 2");
 * ```
 */
export class OperatorHarness {
  /** Processing time seen by the operator (`ctx.now()`, state TTL). */
  time: number;
  private driver: TaskDriver;
  private changes: [Op, Row][] = [];
  /** Watermarks the operator forwarded, in order. */
  readonly watermarks: number[] = [];
  /** Barriers the operator forwarded, in order. */
  readonly barriers: number[] = [];
  /** Whether the operator forwarded `end`. */
  ended = false;
  private readonly snapshots = new Map<number, StateSnapshot>();
  /** Rows the operator routed to each side-output port (`ctx.side`, late rows), in order. */
  readonly sideRows = new Map<string, Row[]>();

  constructor(
    readonly node: PhysicalNode,
    private readonly options: HarnessOptions = {},
  ) {
    this.time = options.time ?? 0;
    this.driver = this.build();
  }

  get metrics(): TaskDriver["metrics"] {
    return this.driver.metrics;
  }

  /** The operator's current (merged input) watermark. */
  get currentWatermark(): number {
    return this.driver.watermark;
  }

  /** Pushes changes (changelog text, a batch, or pairs) on input `input`, as one batch. */
  push(changes: string | ChangeBatch | readonly (readonly [Op, Row])[], input = 0): this {
    const batch =
      typeof changes === "string"
        ? ChangeBatch.of(parseChangelog(changes))
        : "ops" in changes
          ? changes
          : ChangeBatch.of(changes);
    this.driver.receive(input, Message.data(batch));
    return this;
  }

  /** A watermark on `input`, or on every input when `input` is omitted. */
  watermark(timestamp: number, input?: number): this {
    for (const i of this.inputs(input)) this.driver.receive(i, Message.watermark(timestamp));
    return this;
  }

  idle(input?: number): this {
    for (const i of this.inputs(input)) this.driver.receive(i, Message.idle());
    return this;
  }

  /** Ends `input`, or every input (a node without inputs: ends it). */
  end(input?: number): this {
    if (this.node.inputs.length === 0) this.driver.finishWithoutInputs();
    else for (const i of this.inputs(input)) this.driver.receive(i, Message.end());
    return this;
  }

  /**
   * A barrier on `input`, or on every input. Returns the operator's snapshot if the checkpoint
   * aligned with this barrier, else null.
   */
  barrier(checkpointId: number, input?: number): StateSnapshot | null {
    for (const i of this.inputs(input)) this.driver.receive(i, Message.barrier(checkpointId));
    return this.snapshots.get(checkpointId) ?? null;
  }

  /** Moves processing time to `now` and lets the operator react (TTL cleanup, timers). */
  setTime(now: number): this {
    this.time = now;
    this.driver.onProcessingTime(now);
    return this;
  }

  /** The changes emitted since the last call, as changelog text (one change per line). */
  output(): string {
    return formatChangelog(this.take());
  }

  /** The changes emitted since the last call. */
  take(): [Op, Row][] {
    const out = this.changes;
    this.changes = [];
    return out;
  }

  /**
   * Moves the operator's state (and watermarks and metrics) into a freshly built operator, as a
   * restore from a checkpoint taken now would. Output not yet taken is kept.
   */
  snapshotAndRestore(): this {
    const old = this.driver;
    const snapshot = JSON.parse(JSON.stringify(old.snapshot())) as StateSnapshot;
    const next = this.build();
    next.restoreSync(snapshot, old.watermark, old.forwarded);
    next.restoreMetrics(old.metrics);
    this.driver = next;
    return this;
  }

  private build(): TaskDriver {
    const n = this.node.inputs.length;
    const info: OperatorBuildInfo = {
      inputModes: this.options.inputModes ?? new Array(n).fill({ kind: "retract" }),
    };
    const op = (this.options.factory ?? createOperator)(this.node, info);
    const driver = new TaskDriver(this.node, op, {
      settings: this.options.settings ?? {},
      now: () => this.time,
      output: (m) => this.onOutput(m),
      side: (port, batch) => {
        const list = this.sideRows.get(port) ?? [];
        for (let i = 0; i < batch.length; i++) list.push(batch.rows[i]);
        this.sideRows.set(port, list);
      },
      onAck: (id, ack) => {
        if (!(ack instanceof Promise)) this.snapshots.set(id, ack.state);
      },
    });
    driver.open();
    return driver;
  }

  private onOutput(m: Message): void {
    switch (m.kind) {
      case "data":
        for (let i = 0; i < m.batch.length; i++) this.changes.push([m.batch.ops[i] as Op, m.batch.rows[i]]);
        return;
      case "watermark":
        this.watermarks.push(m.timestamp);
        return;
      case "idle":
        return;
      case "barrier":
        this.barriers.push(m.checkpointId);
        return;
      case "end":
        this.ended = true;
        return;
      default: {
        const _exhaustive: never = m;
        throw new Error(`unknown message ${JSON.stringify(_exhaustive)}`);
      }
    }
  }

  private inputs(input: number | undefined): number[] {
    if (input !== undefined) return [input];
    return this.node.inputs.map((_, i) => i);
  }
}

/**
 * Applies a changelog to a multiset of rows and returns the rows left, formatted and sorted: the
 * materialised result that a retract sink would hold. Throws when a retraction removes a row
 * that is not there (the changelog is inconsistent).
 */
export function materialize(changes: string | readonly (readonly [Op, Row])[]): string[] {
  const list = typeof changes === "string" ? parseChangelog(changes) : changes;
  const counts = new Map<string, number>();
  for (const [op, row] of list) {
    const key = formatChange(Op.INSERT, row).slice(3);
    const n = (counts.get(key) ?? 0) + opSign(op);
    if (n < 0) throw new Error(`changelog retracts a row that is not there: ${formatChange(op, row)}`);
    if (n === 0) counts.delete(key);
    else counts.set(key, n);
  }
  const out: string[] = [];
  for (const [k, n] of counts) for (let i = 0; i < n; i++) out.push(k);
  return out.sort();
}
