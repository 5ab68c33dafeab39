/**
 * What a compiled expression may ask of the running job. One context object serves every
 * expression of an operator; `currentWatermark` and `now` are called per evaluation.
 */
export interface EvalContext {
  /** `table.local-time-zone`: an IANA zone id, `UTC`, or a fixed offset such as `GMT+08:00`. */
  readonly localTimeZone: string;
  /** The operator's current watermark (epoch millis), or null before the first one. */
  currentWatermark(): number | null;
  /** Processing time, epoch millis. */
  now(): number;
}

/** A context for tests and constant folding: UTC, no watermark, the wall clock. */
export function defaultEvalContext(overrides: Partial<EvalContext> = {}): EvalContext {
  return {
    localTimeZone: overrides.localTimeZone ?? "UTC",
    currentWatermark: overrides.currentWatermark ?? (() => null),
    now: overrides.now ?? (() => Date.now()),
  };
}
