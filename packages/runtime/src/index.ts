// The public API of @weir/runtime: what connectors and the CLI build on. The operator test
// harness is its own entry point, `@weir/runtime/testing`; everything else (operators, state
// backends, the expression compiler, the job's internals) is imported by path inside this package.

// The changelog: ops, rows, batches, the messages between tasks.
export {
  ChangeBatch,
  ChangeBatchBuilder,
  Message,
  Op,
  type OpDisplay,
  opDisplay,
  opSign,
  parseOp,
  type Row,
} from "./changelog.js";
// What a connector implements, and the errors it reports.
export {
  ConnectorError,
  type ConnectorRegistry,
  type LookupSource,
  type LookupSourceContext,
  type PollResult,
  type RecordOrigins,
  type SinkWriter,
  type SinkWriterContext,
  type SourceReader,
  type SourceReaderContext,
  type SplitBatch,
} from "./connector.js";
// SQL values as connectors read and write them: 64-bit integers, dates, timestamps with nanoseconds.
export { type Int64, int64ToBigint, normInt64, parseInt64 } from "./expr/bigint.js";
export { daysFromCivil } from "./expr/datetime.js";
export {
  isPreciseTimestamp,
  millisToNanos,
  nanoOfMilli,
  nanosToMillis,
  truncateNanos,
  viaMillis,
} from "./expr/timestamp-precision.js";
// The job: running a plan, its checkpoints and savepoints, its metrics and errors.
export type {
  JobCheckpoint,
  OperatorCheckpoint,
  SinkCheckpoint,
  SourceCheckpoint,
} from "./job/checkpoint.js";
export { checkRestorable, releaseCheckpoint, restoreProblem } from "./job/checkpoint.js";
export { CHECKPOINT_SETTINGS, type CheckpointConfig, checkpointConfig } from "./job/checkpoint-config.js";
export type { CheckpointRecord } from "./job/checkpoint-coordinator.js";
export type { CheckpointHooks, SavepointRequest } from "./job/checkpoint-driver.js";
export { type CheckpointFit, CheckpointStore, readCheckpoint } from "./job/checkpoint-store.js";
export { JobError } from "./job/errors.js";
export { Job, type JobOptions, type JobResult, runJob } from "./job/job.js";
export { type HistogramJson, LATENCY_BUCKETS_MS, type LagQuantiles } from "./job/latency.js";
export type { JobMetrics, OperatorRunMetrics, SinkMetrics, SourceMetrics } from "./job/metrics.js";
export { stateBackendFactory } from "./state/backends.js";
// A connector's positions and keys, as a checkpoint stores them.
export { decodeJson, type EncodedNumber, encodeJson, type Json } from "./state/codec.js";
export { encodeKeyValues, type KeyCodec, keyCodec, type StateKey } from "./state/keys.js";
export type { WatermarkTrackerSnapshot } from "./time/watermarks.js";
