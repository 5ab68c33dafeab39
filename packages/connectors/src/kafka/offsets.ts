import { ConnectorError } from "@weir/runtime";
import type { KafkaAdmin } from "./client.js";
import { parseSpecificOffsets } from "./options.js";

/** A topic-partition the source reads, with the offsets resolved at open. */
export interface PartitionRange {
  readonly topic: string;
  readonly partition: number;
  /** First offset to read. */
  readonly start: number;
  /** Offset to stop before (exclusive), or null for an unbounded source. */
  readonly end: number | null;
  /** The partition's end offset (next offset to be written; last stable for read_committed) at open. */
  readonly high: number;
}

interface Watermarks {
  readonly low: Map<number, number>;
  readonly high: Map<number, number>;
}

/**
 * Resolves `'scan.startup.mode'` and `'scan.bounded.mode'` to concrete offsets, once, against
 * the broker: Weir then seeks to exact offsets and never relies on the client's reset policy.
 */
export async function resolveRanges(
  admin: KafkaAdmin,
  table: string,
  options: Readonly<Record<string, string>>,
  partitions: ReadonlyMap<string, readonly number[]>,
): Promise<PartitionRange[]> {
  const groupId = options["properties.group.id"];
  const startup = options["scan.startup.mode"] ?? "group-offsets";
  const bounded = options["scan.bounded.mode"] ?? "unbounded";
  const fail = (message: string): never => {
    throw new ConnectorError(`table ${table}: ${message}`, "user");
  };
  const needsGroup = startup === "group-offsets" || bounded === "group-offsets";
  if (needsGroup && groupId === undefined) {
    fail(
      `'${startup === "group-offsets" ? "scan.startup.mode" : "scan.bounded.mode"}' = 'group-offsets' needs 'properties.group.id'`,
    );
  }
  const committed = new Map<string, Map<number, number>>();
  if (groupId !== undefined && (needsGroup || startup === "specific-offsets")) {
    const fetched = await admin.fetchOffsets({ groupId, topics: [...partitions.keys()] });
    for (const t of fetched) {
      const m = new Map<number, number>();
      for (const p of t.partitions) if (Number(p.offset) >= 0) m.set(p.partition, Number(p.offset));
      committed.set(t.topic, m);
    }
  }
  const out: PartitionRange[] = [];
  for (const [topic, parts] of partitions) {
    const marks = await watermarks(admin, topic);
    const byTimestamp = async (key: string): Promise<Map<number, number>> => {
      const text = options[key];
      if (text === undefined || !/^\d+$/.test(text.trim())) fail(`'${key}' (epoch milliseconds) is required`);
      const offsets = await admin.fetchTopicOffsetsByTimestamp(topic, Number(text));
      return new Map(offsets.map((o) => [o.partition, Number(o.offset)]));
    };
    const resetTo = (): Map<number, number> => {
      const reset = (options["properties.auto.offset.reset"] ?? "none").toLowerCase();
      if (reset === "earliest") return marks.low;
      if (reset === "latest") return marks.high;
      return new Map();
    };
    let start: Map<number, number>;
    switch (startup) {
      case "earliest-offset":
        start = marks.low;
        break;
      case "latest-offset":
        start = marks.high;
        break;
      case "timestamp":
        start = await byTimestamp("scan.startup.timestamp-millis");
        break;
      case "group-offsets": {
        start = new Map(resetTo());
        for (const [p, o] of committed.get(topic) ?? []) start.set(p, o);
        break;
      }
      case "specific-offsets": {
        const text = options["scan.startup.specific-offsets"];
        if (text === undefined)
          fail("'scan.startup.specific-offsets' is required in mode 'specific-offsets'");
        // Partitions not listed start at the group's committed offset, else the earliest (Flink's rule).
        start = new Map(marks.low);
        for (const [p, o] of committed.get(topic) ?? []) start.set(p, o);
        for (const [p, o] of parseSpecificOffsets(text!, "scan.startup.specific-offsets")) start.set(p, o);
        break;
      }
      default:
        return fail(`unknown 'scan.startup.mode' '${startup}'`);
    }
    let end: Map<number, number> | null;
    switch (bounded) {
      case "unbounded":
        end = null;
        break;
      case "latest-offset":
        end = marks.high;
        break;
      case "timestamp":
        end = await byTimestamp("scan.bounded.timestamp-millis");
        break;
      case "group-offsets":
        end = new Map(marks.high);
        for (const [p, o] of committed.get(topic) ?? []) end.set(p, o);
        break;
      case "specific-offsets": {
        const text = options["scan.bounded.specific-offsets"];
        if (text === undefined)
          fail("'scan.bounded.specific-offsets' is required in mode 'specific-offsets'");
        // Partitions not listed end at their latest offset when the job starts.
        end = new Map(marks.high);
        for (const [p, o] of parseSpecificOffsets(text!, "scan.bounded.specific-offsets")) end.set(p, o);
        break;
      }
      default:
        return fail(`unknown 'scan.bounded.mode' '${bounded}'`);
    }
    for (const partition of parts) {
      let s = start.get(partition);
      if (s === undefined) {
        return fail(
          `no committed offset for topic ${topic} partition ${partition} of group '${groupId}' ` +
            "(set 'properties.auto.offset.reset' to 'earliest' or 'latest', or choose another 'scan.startup.mode')",
        );
      }
      // An offset below the log start (deleted by retention) reads from the log start.
      s = Math.max(s, marks.low.get(partition) ?? 0);
      out.push({
        topic,
        partition,
        start: s,
        end: end === null ? null : (end.get(partition) ?? 0),
        high: marks.high.get(partition) ?? s,
      });
    }
  }
  return out;
}

async function watermarks(admin: KafkaAdmin, topic: string): Promise<Watermarks> {
  const offsets = await admin.fetchTopicOffsets(topic);
  return {
    low: new Map(offsets.map((o) => [o.partition, Number(o.low)])),
    high: new Map(offsets.map((o) => [o.partition, Number(o.high)])),
  };
}
