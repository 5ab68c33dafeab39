import type { ChangeBatch } from "../changelog.js";

/** Upper bounds (ms) of {@link LatencyHistogram}'s buckets; the last bucket is +∞. */
export const LATENCY_BUCKETS_MS: readonly number[] = [
  1, 2, 5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10_000, 30_000, 60_000,
];

/** A {@link LatencyHistogram} as plain JSON (it travels in checkpoints with the other counters). */
export interface HistogramJson {
  /** Cumulative counts per bucket of {@link LATENCY_BUCKETS_MS}, then +∞ (Prometheus `le`). */
  readonly buckets: readonly number[];
  readonly sum: number;
  readonly count: number;
}

/**
 * Counts of observed durations in fixed buckets (a Prometheus histogram): sink flush and commit
 * latencies. Cumulative from the job's first start: a restore adds the checkpoint's counts.
 */
export class LatencyHistogram {
  private readonly counts = new Float64Array(LATENCY_BUCKETS_MS.length + 1);
  sum = 0;
  count = 0;
  /** The last observed duration (ms), or null. */
  last: number | null = null;

  observe(ms: number): void {
    let i = 0;
    while (i < LATENCY_BUCKETS_MS.length && ms > LATENCY_BUCKETS_MS[i]!) i++;
    this.counts[i]!++;
    this.sum += ms;
    this.count++;
    this.last = ms;
  }

  toJson(): HistogramJson {
    const buckets: number[] = [];
    let c = 0;
    for (const n of this.counts) buckets.push((c += n));
    return { buckets, sum: this.sum, count: this.count };
  }

  /** Adds a checkpoint's cumulative counts (a restore continues them). */
  add(h: HistogramJson): void {
    if (h.buckets.length !== this.counts.length) return;
    let prev = 0;
    for (let i = 0; i < this.counts.length; i++) {
      this.counts[i]! += h.buckets[i]! - prev;
      prev = h.buckets[i]!;
    }
    this.sum += h.sum;
    this.count += h.count;
  }
}

/** Buckets per doubling of {@link EventTimeLagSketch}: a quantile is within √(9/8) − 1 ≈ 6 %. */
const PER_OCTAVE = 8;
/** Up to 2^41 ms (70 years); the last bucket holds anything larger. */
const LAG_BUCKETS = 1 + 41 * PER_OCTAVE;
/** The sketch rotates its two halves this often: quantiles cover the last 30 to 60 s. */
export const LAG_WINDOW_MS = 30_000;

/** Event-time lag quantiles at a sink, in ms. */
export interface LagQuantiles {
  readonly p50: number;
  readonly p95: number;
  readonly p99: number;
  /** Rows the quantiles are over. */
  readonly count: number;
}

/**
 * The distribution of processing time − event time of the rows reaching a sink, over the last
 * 30–60 s: log-scale buckets (8 per doubling, so a quantile is within ≈ 6 %), in two halves that
 * rotate every {@link LAG_WINDOW_MS}. Per row: a read, a subtraction, a few integer operations
 * ({@link lagBucket}) and an increment; no allocation, no floating-point log. Only inserts and update-afters count (a retraction's time is an old row's).
 */
export class EventTimeLagSketch {
  private current = new Float64Array(LAG_BUCKETS);
  private previous = new Float64Array(LAG_BUCKETS);
  private currentCount = 0;
  private previousCount = 0;
  private rotatedAt: number;

  constructor(
    /** The column of the sink's input that carries event time (epoch ms). */
    readonly column: number,
    now: number,
  ) {
    this.rotatedAt = now;
  }

  /** Adds the batch's rows, as of `now`. */
  addBatch(batch: ChangeBatch, now: number): void {
    if (now - this.rotatedAt >= LAG_WINDOW_MS) this.rotate(now);
    const { ops, rows } = batch;
    const col = this.column;
    const b = this.current;
    let n = 0;
    for (let i = 0; i < batch.length; i++) {
      // +I (0) and +U (2): the ops whose sign is +1 and that are not deletes.
      const op = ops[i];
      if (op !== 0 && op !== 2) continue;
      const t = rows[i]![col];
      if (typeof t !== "number") continue;
      b[lagBucket(now - t)]!++;
      n++;
    }
    this.currentCount += n;
  }

  /** The quantiles over the last 30–60 s, or null without rows in that time. */
  quantiles(now: number): LagQuantiles | null {
    if (now - this.rotatedAt >= 2 * LAG_WINDOW_MS) return null;
    if (now - this.rotatedAt >= LAG_WINDOW_MS) this.rotate(now);
    const total = this.currentCount + this.previousCount;
    if (total === 0) return null;
    const at = (q: number): number => {
      const rank = Math.max(1, Math.ceil(q * total));
      let c = 0;
      for (let k = 0; k < LAG_BUCKETS; k++) {
        c += this.current[k]! + this.previous[k]!;
        if (c >= rank) return bucketValue(k);
      }
      return bucketValue(LAG_BUCKETS - 1);
    };
    return { p50: at(0.5), p95: at(0.95), p99: at(0.99), count: total };
  }

  private rotate(now: number): void {
    const stale = now - this.rotatedAt >= 2 * LAG_WINDOW_MS;
    const old = this.previous;
    this.previous = stale ? old.fill(0) : this.current;
    this.previousCount = stale ? 0 : this.currentCount;
    this.current = stale ? this.current.fill(0) : old.fill(0);
    this.currentCount = 0;
    this.rotatedAt = now;
  }
}

/**
 * The bucket of a lag in ms, in integer arithmetic: 0 below 1 ms, else 1 + 8·e + m where 2^e is
 * the lag's leading power of two and m the three bits after it (the eighth of the doubling).
 * Lags of 2^31 ms (25 days) and more are bucketed in units of 1024 ms, up to 2^41 ms (70 years).
 */
export function lagBucket(lag: number): number {
  if (lag < 1) return 0;
  let v = lag;
  let shift = 0;
  if (v >= 2147483648) {
    v /= 1024;
    shift = 10;
    if (v >= 2147483648) return LAG_BUCKETS - 1;
  }
  const i = v | 0;
  const e = 31 - Math.clz32(i);
  const m = e >= 3 ? (i >>> (e - 3)) & 7 : (i << (3 - e)) & 7;
  return 1 + (e + shift) * PER_OCTAVE + m;
}

/** A bucket's representative lag (ms): the geometric middle of its bounds; bucket 0 is < 1 ms. */
function bucketValue(k: number): number {
  if (k === 0) return 0;
  const e = Math.floor((k - 1) / PER_OCTAVE);
  const m = (k - 1) % PER_OCTAVE;
  return 2 ** e * Math.sqrt((1 + m / PER_OCTAVE) * (1 + (m + 1) / PER_OCTAVE));
}
