import { ConnectorError, parseInt64 } from "@weir/runtime";
import type { KafkaMessage, KafkaRecordView } from "./client.js";

/** A metadata column's value for one record of `topic`/`partition`. */
export type MetadataGetter = (m: KafkaMessage, topic: string, partition: number) => unknown;

/** The same for record `i` of a {@link KafkaRecordView} (no record object built). */
export type ViewMetadataGetter = (
  view: KafkaRecordView,
  i: number,
  topic: string,
  partition: number,
) => unknown;

const TIMESTAMP_TYPES = ["CreateTime", "LogAppendTime"] as const;

/** Flink's readable Kafka metadata keys (all virtual for the source: none is written back yet). */
export const KAFKA_METADATA: Readonly<Record<string, MetadataGetter>> = {
  topic: (_m, topic) => topic,
  partition: (_m, _t, partition) => partition,
  // a 64-bit offset (a string from the client), exact over the whole BIGINT range
  offset: (m) => parseInt64(String(m.offset)),
  timestamp: (m) => {
    const ts = Number(m.timestamp);
    return ts < 0 ? null : ts;
  },
  "timestamp-type": (m) => {
    if (Number(m.timestamp) < 0) return "NoTimestampType";
    const t = m.batchContext?.timestampType;
    return t === undefined || t < 0 ? "NoTimestampType" : TIMESTAMP_TYPES[t];
  },
  key: (m) => (m.key === null ? null : new Uint8Array(m.key)),
  headers: (m) => {
    const out = new Map<string, Uint8Array | null>();
    for (const [k, v] of Object.entries(m.headers ?? {})) {
      if (v === undefined) continue;
      // A repeated header keeps its last value, as Flink's map does.
      const last = Array.isArray(v) ? v[v.length - 1] : v;
      out.set(
        k,
        last === undefined
          ? null
          : typeof last === "string"
            ? new Uint8Array(Buffer.from(last))
            : new Uint8Array(last),
      );
    }
    return out;
  },
  "leader-epoch": (m) => {
    const e = m.batchContext?.partitionLeaderEpoch;
    return e === undefined || e < 0 ? null : e;
  },
};

/**
 * The keys readable from a record view, each giving what `KAFKA_METADATA`'s gives for the record's
 * object: a view's offsets and timestamps are the safe integers whose text the object holds.
 */
const VIEW_METADATA: Readonly<Record<string, ViewMetadataGetter>> = {
  topic: (_v, _i, topic) => topic,
  partition: (_v, _i, _t, partition) => partition,
  offset: (v, i) => parseInt64(String(v.offsetAt(i))),
  timestamp: (v, i) => {
    const ts = v.timestampAt(i);
    return ts < 0 ? null : ts;
  },
};

/** The view getter of metadata key `key`, or null where the record object is needed. */
export function viewMetadataGetter(key: string): ViewMetadataGetter | null {
  return Object.hasOwn(VIEW_METADATA, key) ? VIEW_METADATA[key] : null;
}

export function metadataGetter(key: string, table: string): MetadataGetter {
  const get = KAFKA_METADATA[key];
  if (!get) {
    throw new ConnectorError(
      `table ${table}: unknown metadata key '${key}' for the Kafka connector (known: ${Object.keys(KAFKA_METADATA).join(", ")})`,
      "user",
    );
  }
  return get;
}
