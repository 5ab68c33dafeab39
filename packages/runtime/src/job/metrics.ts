import type { HistogramJson, LagQuantiles } from "./latency.js";

/**
 * The run summary of a job. All counters are cumulative from the job's first start: a job restored
 * from a checkpoint continues the counts the checkpoint carries. Keys of the records are node ids.
 */
export interface JobMetrics {
  /** Wall time of this run (since `open`), in ms. */
  readonly durationMs: number;
  readonly sources: { readonly [nodeId: string]: SourceMetrics };
  readonly operators: { readonly [nodeId: string]: OperatorRunMetrics };
  readonly sinks: { readonly [nodeId: string]: SinkMetrics };
}

export interface SourceMetrics {
  readonly table: string;
  readonly connector: string;
  readonly recordsRead: number;
  /** The source's current watermark, or null before the first one. `Infinity` once it ended. */
  readonly watermark: number | null;
  /** The connector's own counters (skipped bad records, bytes, ...). */
  readonly counters: { readonly [name: string]: number };
  /**
   * Consumer lag per split, for sources that can tell (Kafka: records on the broker after the
   * position, per topic-partition). A gauge of this run, not carried across restores.
   */
  readonly lag?: { readonly [split: string]: number };
}

export interface OperatorRunMetrics {
  readonly kind: string;
  readonly recordsIn: number;
  readonly recordsOut: number;
  readonly lateRecordsDropped: number;
  readonly lateRecordsRouted?: number;
  readonly lateRecordsUpdated?: number;
  /** The operator's state now (a gauge, not carried across restores). */
  readonly state?: { readonly keys: number; readonly timeEntries: number };
}

export interface SinkMetrics {
  readonly table: string;
  readonly connector: string;
  readonly recordsWritten: number;
  readonly counters: { readonly [name: string]: number };
  /** Durations of the flushes that wrote something (cumulative across restores). */
  readonly flushLatency?: HistogramJson;
  /** Durations of the commits of completed checkpoints (cumulative across restores). */
  readonly commitLatency?: HistogramJson;
  /**
   * Rows now in the target table as the sink last counted them (Postgres), or absent. A gauge:
   * unlike `recordsWritten` and the upsert/delete counters, it is what a reader of the table sees.
   */
  readonly tableRows?: number;
  /** Processing time − event time of the rows reaching the sink over the last 30–60 s (ms). */
  readonly eventTimeLag?: LagQuantiles;
}
