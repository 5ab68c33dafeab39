import type {
  ChangelogMode,
  LookupJoinNode,
  PhysicalDag,
  PhysicalNode,
  SinkNode,
  SourceNode,
} from "@weir/planner";
import { QUARANTINE_PORT } from "@weir/planner";
import { ChangeBatch, Message, type Row } from "../changelog.js";
import type { LookupSource, SinkWriter, SinkWriterContext, SourceReader } from "../connector.js";
import "../operators/index.js";
import type { Operator } from "../operator.js";
import { createOperator } from "../operators/registry.js";
import type { StateBackend } from "../state/api.js";
import type { Clock } from "../time/watermarks.js";
import { NO_WATERMARK } from "../time/watermarks.js";
import { SinkTask } from "./connector-tasks.js";
import type { OwnOf, TaskAck } from "./driver.js";
import { evalContextOf, TaskDriver } from "./driver.js";
import { nodeFailure } from "./errors.js";
import { SourceTask } from "./source-task.js";

/**
 * Where a node's output goes: input `input` of node `target`. A side edge (`port` set) leads to
 * a side-output node: it carries the node's rows routed to that port (`TaskContext.side`) and its
 * watermarks, barriers and end of input, never its main output.
 */
interface Edge {
  readonly target: number;
  readonly input: number;
  readonly port?: string;
}

export interface SourceRuntime {
  readonly kind: "source";
  readonly node: SourceNode;
  readonly driver: TaskDriver<SourceTask>;
  readonly task: SourceTask;
}

export interface OperatorRuntime {
  readonly kind: "operator";
  readonly node: PhysicalNode;
  readonly driver: TaskDriver<Operator>;
}

export interface SinkRuntime {
  readonly kind: "sink";
  readonly node: SinkNode;
  readonly driver: TaskDriver<SinkTask>;
  readonly task: SinkTask;
}

/** One task of the job: every node — source, operator or sink — runs in a {@link TaskDriver}. */
export type NodeRuntime = SourceRuntime | OperatorRuntime | SinkRuntime;

export interface GraphOptions {
  readonly settings: Readonly<Record<string, string>>;
  readonly now: Clock;
  readonly cwd: string;
  readonly reader: (node: SourceNode) => SourceReader;
  readonly writer: (node: SinkNode) => SinkWriter;
  /** The dimension table of a lookup join. */
  readonly lookup?: (node: LookupJoinNode) => LookupSource;
  readonly collect?: SinkWriterContext["collect"];
  /** EXACTLY_ONCE (aligned barriers, the default) or AT_LEAST_ONCE. */
  readonly aligned?: boolean;
  /** The state backend of each task (`node`: the task's node). */
  readonly stateBackend: (clock: Clock, node: PhysicalNode) => StateBackend;
  /** Whether the checkpoint being taken is a savepoint (state in the canonical, backend-neutral form). */
  readonly canonicalSnapshots?: () => boolean;
  /** Whether the checkpoint being taken has an asynchronous phase (snapshots copy-on-write, encoded later). */
  readonly deferredSnapshots?: () => boolean;
}

/** What the graph reports while messages flow; the job's checkpoint coordinator collects it. */
export interface GraphListener {
  /** A task aligned checkpoint `id`: its acknowledgement (a snapshot or the promise of one). */
  onAck(rt: NodeRuntime, id: number, ack: TaskAck | Promise<TaskAck>): void;
}

/** The acknowledgement of a task of the graph, with its own part typed by the task's kind. */
export type AckOf<R extends NodeRuntime> = R extends { readonly driver: TaskDriver<infer T> }
  ? TaskAck<OwnOf<T>>
  : never;

/**
 * The running DAG: one task driver per node and the edges between them. `deliver` pushes a
 * message into a node synchronously, and everything it causes flows downstream before it
 * returns; the graph is quiescent between two calls.
 */
export class JobGraph {
  readonly nodes = new Map<number, NodeRuntime>();
  /** Every task, in node order. */
  readonly tasks: NodeRuntime[] = [];
  private readonly drivers: TaskDriver[] = [];
  private readonly edges = new Map<number, Edge[]>();
  private readonly sourceList: SourceRuntime[] = [];
  private readonly operatorList: OperatorRuntime[] = [];
  private readonly sinkList: SinkRuntime[] = [];
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
        list.push(n.kind === "side-output" ? { target: n.id, input, port: n.port } : { target: n.id, input });
      });
    }
    for (const n of dag.nodes) {
      let rt: NodeRuntime;
      try {
        rt = this.build(
          n,
          n.inputs.map((i) => byId.get(i)!.changelogMode),
        );
      } catch (e) {
        throw nodeFailure(n, e);
      }
      this.nodes.set(n.id, rt);
      this.tasks.push(rt);
      this.drivers[n.id] = rt.driver;
      if (rt.kind === "source") this.sourceList.push(rt);
      else if (rt.kind === "sink") this.sinkList.push(rt);
      else this.operatorList.push(rt);
    }
  }

  sources(): readonly SourceRuntime[] {
    return this.sourceList;
  }

  operators(): readonly OperatorRuntime[] {
    return this.operatorList;
  }

  sinks(): readonly SinkRuntime[] {
    return this.sinkList;
  }

  /** Sends `message` from node `from` to every node that reads it (data: not to side edges). */
  forward(from: number, message: Message): void {
    const edges = this.edges.get(from)!;
    const data = message.kind === "data";
    for (let i = 0; i < edges.length; i++) {
      const e = edges[i];
      if (data && e.port !== undefined) continue;
      this.drivers[e.target]!.receive(e.input, message);
    }
  }

  /** Sends the rows node `from` routed to side-output port `port` to that port's node. */
  private side(from: number, port: string, batch: ChangeBatch): void {
    const edge = this.edges.get(from)!.find((e) => e.port === port);
    if (edge === undefined) {
      const n = this.nodes.get(from)?.node;
      throw new Error(
        `${n?.kind ?? "node"} (node ${from}) routed a row to port '${port}', which has no side output`,
      );
    }
    this.drivers[edge.target]!.receive(edge.input, Message.data(batch));
  }

  deliver(target: number, input: number, message: Message): void {
    this.drivers[target]!.receive(input, message);
  }

  private driver<T extends Operator | SourceTask | SinkTask>(node: PhysicalNode, task: T): TaskDriver<T> {
    let driver: TaskDriver<T> | null = null;
    driver = new TaskDriver(node, task, {
      settings: this.options.settings,
      now: this.options.now,
      output: (m) => this.forward(node.id, m),
      side: (port, batch) => this.side(node.id, port, batch),
      onAck: (id, ack) => this.listener?.onAck(this.nodes.get(node.id)!, id, ack),
      aligned: this.options.aligned ?? true,
      state: this.options.stateBackend(this.options.now, node),
      ...(this.options.canonicalSnapshots ? { canonicalSnapshots: this.options.canonicalSnapshots } : {}),
      ...(this.options.deferredSnapshots ? { deferredSnapshots: this.options.deferredSnapshots } : {}),
    });
    return driver;
  }

  private build(node: PhysicalNode, inputModes: ChangelogMode[]): NodeRuntime {
    switch (node.kind) {
      case "source": {
        const ctx = evalContextOf(this.options.settings, this.options.now, () => NO_WATERMARK);
        const quarantine = (rows: readonly Row[]) =>
          this.side(node.id, QUARANTINE_PORT, ChangeBatch.inserts(rows as Row[]));
        const task = new SourceTask(
          node,
          this.options.reader(node),
          ctx,
          this.options.now,
          this.options.cwd,
          quarantine,
        );
        return { kind: "source", node, task, driver: this.driver(node, task) };
      }
      case "sink": {
        const task = new SinkTask(node, this.options.writer(node), this.options.cwd, this.options.collect);
        return { kind: "sink", node, task, driver: this.driver(node, task) };
      }
      default: {
        const driver = this.driver(
          node,
          createOperator(node, {
            inputModes,
            ...(this.options.lookup ? { lookup: this.options.lookup } : {}),
          }),
        );
        driver.open();
        return { kind: "operator", node, driver };
      }
    }
  }
}
