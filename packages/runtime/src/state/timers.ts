import type { TimerService } from "./api.js";
import type { StateKey } from "./keys.js";
import { TimeBuckets } from "./time-buckets.js";

/** The in-memory {@link TimerService}: timers bucketed by timestamp, each bucket a set of keys. */
export class MemoryTimerService implements TimerService {
  readonly eventTime = new TimeBuckets<true>();
  readonly processingTime = new TimeBuckets<true>();
  watermark = Number.NEGATIVE_INFINITY;

  get currentWatermark(): number {
    return this.watermark;
  }

  registerEventTimeTimer(key: StateKey, timestamp: number): void {
    this.eventTime.put(timestamp, key, true);
  }

  deleteEventTimeTimer(key: StateKey, timestamp: number): void {
    this.eventTime.delete(timestamp, key);
  }

  registerProcessingTimeTimer(key: StateKey, timestamp: number): void {
    this.processingTime.put(timestamp, key, true);
  }

  deleteProcessingTimeTimer(key: StateKey, timestamp: number): void {
    this.processingTime.delete(timestamp, key);
  }

  advanceWatermark(watermark: number, onTimer: (key: StateKey, timestamp: number) => void): void {
    if (watermark > this.watermark) this.watermark = watermark;
    fire(this.eventTime, watermark, onTimer);
  }

  advanceProcessingTime(now: number, onTimer: (key: StateKey, timestamp: number) => void): void {
    fire(this.processingTime, now, onTimer);
  }

  nextEventTime(): number | undefined {
    return this.eventTime.min();
  }

  nextProcessingTime(): number | undefined {
    return this.processingTime.min();
  }
}

/**
 * Fires due timers oldest first. Each timer is removed just before its callback, so a callback may
 * delete a timer that has not fired yet (it will not fire) or register one that is already due (it
 * fires in this same call, after the others of its timestamp).
 */
function fire(
  timers: TimeBuckets<true>,
  upTo: number,
  onTimer: (key: StateKey, timestamp: number) => void,
): void {
  for (let ts = timers.min(); ts !== undefined && ts <= upTo; ts = timers.min()) {
    const bucket = timers.bucket(ts)!;
    for (const key of bucket.keys()) {
      timers.delete(ts, key);
      onTimer(key, ts);
    }
  }
}
