import type { ChangelogMode, PhysicalDag, PhysicalNode, SinkNode, SourceNode } from "@weir/planner";
import type { Message } from "../changelog.js";
import type { SinkWriter, SourceReader } from "../connector.js";
import "../operators/index.js";
import { createOperator } from "../operators/registry.js";
import { BarrierAligner } from "../time/barriers.js";
import type { Clock } from "../time/watermarks.js";
import { NO_WATERMARK } from "../time/watermarks.js";
import { evalContextOf, OperatorDriver } from "./driver.js";
import { nodeFailure } from "./errors.js";
import { SourceOperator } from "./source-operator.js";

/** Where a node's output goes: input `input` of node `target`. */
interface Edge {
  readonly target: number;
  readonly input: number;
}

export interface SourceRuntime {
  readonly kind: "source";
  readonly node: SourceNode;
  readonly reader: SourceReader;
  readonly op: SourceOperator;
  readonly counters: Map<string, number>;
  recordsRead: number;
}

export interface OperatorRuntime {
  readonly kind: "operator";
  readonly node: PhysicalNode;
  readonly driver: OperatorDriver;
}

export interface SinkRuntime {
  readonly kind: "sink";
  readonly node: SinkNode;
  readonly writer: SinkWriter;
  readonly counters: Map<string, number>;
  readonly aligner: BarrierAligner;
  recordsWritten: number;
  batchesSinceFlush: number;
  ended: boolean;
}

export type NodeRuntime = SourceRuntime | OperatorRuntime | SinkRuntime;

export interface GraphOptions {
  readonly settings: Readonly<Record<string, string>>;
  readonly now: Clock;
  readonly reader: (node: SourceNode) => SourceReader;
  readonly writer: (node: SinkNode) => SinkWriter;
}

/** What the graph reports while messages flow; the job turns it into checkpoints. */
export interface GraphListener {
  /** An operator aligned checkpoint `id`: its state is the cut. */
  onOperatorCheckpoint(rt: OperatorRuntime, id: number): void;
  onSinkCheckpoint(rt: SinkRuntime, id: number): void;
}

/**
 * The running DAG: one runtime per node and the edges between them. `deliver` pushes a message
 * into a node synchronously, and everything it causes flows downstream before it returns; the
 * graph is quiescent between two calls.
 */
export class JobGraph {
  readonly nodes = new Map<number, NodeRuntime>();
  private readonly edges = new Map<number, Edge[]>();
  listener: GraphListener | null = null;

  constructor(
    readonly dag: PhysicalDag,
    private readonly options: GraphOptions,
  ) {
    const byId = new Map(dag.nodes.map((n) => [n.id, n]));
    for (const n of dag.nodes) {
      this.edges.set(n.id, []);
      n.inputs.forEach((from, input) => {
        const list = this.edges.get(from);
        if (list === undefined)
          throw new Error(`plan node ${n.id} reads node ${from}, which does not precede it`);
        list.push({ target: n.id, input });
      });
    }
    for (const n of dag.nodes) {
      try {
        this.nodes.set(
          n.id,
          this.build(
            n,
            n.inputs.map((i) => byId.get(i)!.changelogMode),
          ),
        );
      } catch (e) {
        throw nodeFailure(n, e);
      }
    }
  }

  sources(): SourceRuntime[] {
    return [...this.nodes.values()].filter((n): n is SourceRuntime => n.kind === "source");
  }

  operators(): OperatorRuntime[] {
    return [...this.nodes.values()].filter((n): n is OperatorRuntime => n.kind === "operator");
  }

  sinks(): SinkRuntime[] {
    return [...this.nodes.values()].filter((n): n is SinkRuntime => n.kind === "sink");
  }

  /** Sends `message` from node `from` to every node that reads it. */
  forward(from: number, message: Message): void {
    const edges = this.edges.get(from)!;
    for (let i = 0; i < edges.length; i++) this.deliver(edges[i].target, edges[i].input, message);
  }

  deliver(target: number, input: number, message: Message): void {
    const rt = this.nodes.get(target)!;
    switch (rt.kind) {
      case "operator":
        rt.driver.receive(input, message);
        return;
      case "sink":
        rt.aligner.receive(input, message);
        return;
      case "source":
        throw new Error(`source node ${target} has no inputs`);
      default: {
        const _exhaustive: never = rt;
        throw new Error(`unknown message ${JSON.stringify(_exhaustive)}`);
      }
    }
  }

  private build(node: PhysicalNode, inputModes: ChangelogMode[]): NodeRuntime {
    switch (node.kind) {
      case "source": {
        const ctx = evalContextOf(this.options.settings, this.options.now, () => NO_WATERMARK);
        return {
          kind: "source",
          node,
          reader: this.options.reader(node),
          op: new SourceOperator(node, ctx, this.options.now),
          counters: new Map(),
          recordsRead: 0,
        };
      }
      case "sink": {
        const rt: SinkRuntime = {
          kind: "sink",
          node,
          writer: this.options.writer(node),
          counters: new Map(),
          aligner: new BarrierAligner(Math.max(1, node.inputs.length), {
            onMessage: (_input, m) => this.onSinkMessage(rt, m),
            onCheckpoint: (id) => this.listener?.onSinkCheckpoint(rt, id),
          }),
          recordsWritten: 0,
          batchesSinceFlush: 0,
          ended: false,
        };
        return rt;
      }
      default:
        return this.buildOperator(node, inputModes);
    }
  }

  private buildOperator(node: PhysicalNode, inputModes: ChangelogMode[]): OperatorRuntime {
    const op = createOperator(node, { inputModes });
    const driver = new OperatorDriver(node, op, {
      settings: this.options.settings,
      now: this.options.now,
      output: (m) => this.forward(node.id, m),
      onCheckpoint: (id) => this.listener?.onOperatorCheckpoint(rt, id),
    });
    const rt: OperatorRuntime = { kind: "operator", node, driver };
    return rt;
  }

  private onSinkMessage(rt: SinkRuntime, m: Exclude<Message, { kind: "barrier" }>): void {
    switch (m.kind) {
      case "data":
        if (m.batch.length === 0) return;
        try {
          rt.writer.write(m.batch);
        } catch (e) {
          throw nodeFailure(rt.node, e);
        }
        rt.recordsWritten += m.batch.length;
        rt.batchesSinceFlush++;
        return;
      case "watermark":
      case "idle":
        return;
      case "end":
        rt.ended = true;
        return;
      default: {
        const _exhaustive: never = m;
        throw new Error(`unknown message ${JSON.stringify(_exhaustive)}`);
      }
    }
  }
}
