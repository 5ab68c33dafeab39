import { type DataType, formatType, type SourceNode } from "@weir/planner";
import {
  ChangeBatch,
  ConnectorError,
  isPreciseTimestamp,
  type Json,
  type PollResult,
  type Row,
  type SourceReader,
  type SourceReaderContext,
} from "@weir/runtime";
import { type NexmarkConfig, parseNexmarkConfig } from "./config.js";
import { EventType, NexmarkGenerator } from "./generator.js";

/** The one split: the reference runs one generator per parallel subtask; Weir runs one. */
export const NEXMARK_SPLIT = "nexmark-0";

/** The reference's physical columns and, for the ROW columns, their field names in order. */
const LAYOUT: Readonly<Record<string, readonly string[] | null>> = {
  event_type: null,
  person: ["id", "name", "emailAddress", "creditCard", "city", "state", "dateTime", "extra"],
  auction: [
    "id",
    "itemName",
    "description",
    "initialBid",
    "reserve",
    "dateTime",
    "expires",
    "seller",
    "category",
    "extra",
  ],
  bid: ["auction", "bidder", "price", "channel", "url", "dateTime", "extra"],
};
const SLOT: Readonly<Record<string, number>> = { event_type: -1, person: 0, auction: 1, bid: 2 };

/** Where one physical output column comes from. */
interface ColumnPlan {
  /** −1: `event_type`; otherwise the event kind whose row fills this column (null for others). */
  readonly slot: number;
  /** Declared ROW field i takes generated field `fields[i]`; null = same order as generated. */
  readonly fields: readonly number[] | null;
}

/** `clock` (epoch ms) sets the default base time and paces `'rate.limited'` mode. */
export function createNexmarkSource(
  node: SourceNode,
  clock: () => number = Date.now,
  config?: NexmarkConfig,
): SourceReader {
  return new NexmarkSource(node, clock, config);
}

/**
 * The `'connector' = 'nexmark'` source: nexmark-flink's generator as one split. Emits as fast as
 * it is polled (event time is synthetic) unless `'rate.limited' = 'true'`, which paces events to
 * their event time against the wall clock like the reference's source function. Bounded by
 * `'events.num'`. The position is the next event number plus the base time, so a restore
 * regenerates exactly the events that follow.
 */
export class NexmarkSource implements SourceReader {
  private readonly config: NexmarkConfig;
  private readonly plan: readonly ColumnPlan[];
  /** True when the physical columns are exactly `event_type, person, auction, bid` as declared by the reference. */
  private readonly canonical: boolean;
  private generator: NexmarkGenerator | null = null;
  private next = 0;
  private restoredBaseTime: number | null = null;
  private wallclockBase = 0;

  /** `config`: the spec's parse of the node's options (`nexmarkSpec`); by default read from them here. */
  constructor(
    node: SourceNode,
    private readonly clock: () => number = Date.now,
    config?: NexmarkConfig,
  ) {
    this.config = config ?? parseNexmarkConfig(node.options);
    this.plan = planColumns(node);
    this.canonical =
      this.plan.length === 4 && this.plan.every((p, i) => p.slot === i - 1 && p.fields === null);
  }

  async open(_ctx: SourceReaderContext): Promise<void> {
    this.start();
  }

  private start(): NexmarkGenerator {
    const baseTime = this.restoredBaseTime ?? this.config.baseTime ?? this.clock();
    const g = new NexmarkGenerator(this.config, baseTime);
    this.generator = g;
    // Wall-clock time of event time `baseTime`: the last emitted event is due now (rate.limited).
    this.wallclockBase = this.clock() - (g.timestampForEvent(this.next) - baseTime);
    return g;
  }

  async poll(maxRows: number): Promise<PollResult> {
    const g = this.generator ?? this.start();
    const start = this.next;
    let end = Math.min(start + Math.max(1, maxRows), this.config.maxEvents);
    if (start >= end) return { kind: "end" };
    if (this.config.rateLimited) {
      const dueBy = this.clock() - this.wallclockBase + g.baseTime;
      let n = start;
      while (n < end && g.timestampForEvent(n + 1) <= dueBy) n++;
      if (n === start) {
        return { kind: "idle", waitMs: Math.max(1, Math.ceil(g.timestampForEvent(start + 1) - dueBy)) };
      }
      end = n;
    }
    const rows: Row[] = new Array(end - start);
    if (this.canonical) {
      for (let n = start; n < end; n++) {
        const event = g.generate(n);
        const t = g.lastType;
        rows[n - start] = [
          t,
          t === EventType.PERSON ? event : null,
          t === EventType.AUCTION ? event : null,
          t === EventType.BID ? event : null,
        ];
      }
    } else {
      const plan = this.plan;
      for (let n = start; n < end; n++) {
        const event = g.generate(n);
        const t = g.lastType;
        const row: Row = new Array(plan.length);
        for (let c = 0; c < plan.length; c++) {
          const p = plan[c];
          if (p.slot === -1) row[c] = t;
          else if (p.slot !== t) row[c] = null;
          else row[c] = p.fields === null ? event : p.fields.map((f) => event[f]);
        }
        rows[n - start] = row;
      }
    }
    this.next = end;
    return { kind: "data", splits: [{ split: NEXMARK_SPLIT, batch: ChangeBatch.inserts(rows) }] };
  }

  position(): Json {
    return { next: this.next, baseTime: this.generator?.baseTime ?? this.restoredBaseTime ?? null };
  }

  async restore(position: Json): Promise<void> {
    const p = position as { next?: unknown; baseTime?: unknown } | null;
    if (
      !p ||
      typeof p.next !== "number" ||
      !Number.isSafeInteger(p.next) ||
      p.next < 0 ||
      (p.baseTime !== null && typeof p.baseTime !== "number")
    ) {
      throw new ConnectorError("cannot restore the nexmark source: malformed position", "internal");
    }
    this.next = p.next;
    this.restoredBaseTime = p.baseTime as number | null;
    if (this.generator !== null) this.start();
  }

  async close(): Promise<void> {}
}

function planColumns(node: SourceNode): ColumnPlan[] {
  const plan: ColumnPlan[] = [];
  node.columns.forEach((column, i) => {
    if (column.kind === "computed") return;
    if (column.kind === "metadata") {
      throw new ConnectorError(`the nexmark connector has no metadata column '${column.key}'`, "user");
    }
    const name = column.name.toLowerCase();
    const generated = LAYOUT[name];
    if (generated === undefined) {
      throw new ConnectorError(
        `the nexmark connector has no column '${column.name}' (it provides event_type, person, auction, bid)`,
        "user",
      );
    }
    plan.push({
      slot: SLOT[name],
      fields: generated === null ? null : fieldOrder(column.name, node.schema[i].type, generated),
    });
  });
  return plan;
}

/** Maps the declared ROW fields onto the generated ones by name (case-insensitive). */
function fieldOrder(column: string, type: DataType, generated: readonly string[]): number[] | null {
  if (type.kind !== "ROW") {
    throw new ConnectorError(`nexmark column '${column}' must be a ROW, declared ${type.kind}`, "user");
  }
  const lower = generated.map((f) => f.toLowerCase());
  const order = type.fields.map((f) => {
    const j = lower.indexOf(f.name.toLowerCase());
    // the generator's times are milliseconds (a TIMESTAMP(4..9) value is bigint nanos)
    if (isPreciseTimestamp(f.type)) {
      throw new ConnectorError(
        `nexmark column '${column}' field '${f.name}' is declared ${formatType(f.type)}: the generator's times are milliseconds; declare it TIMESTAMP(3)`,
        "user",
      );
    }
    if (j < 0) {
      throw new ConnectorError(
        `nexmark column '${column}' has no field '${f.name}' (it provides ${generated.join(", ")})`,
        "user",
      );
    }
    return j;
  });
  const identity = order.length === generated.length && order.every((j, i) => j === i);
  return identity ? null : order;
}
