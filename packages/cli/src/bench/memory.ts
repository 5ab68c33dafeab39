import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import type { JobMetrics } from "@weir/runtime";

/** One memory reading during a measured run. */
export interface MemorySample {
  /** Events the sources had read when the sample was taken. */
  readonly events: number;
  /** `process.memoryUsage().heapUsed` after a full garbage collection: live JavaScript objects. */
  readonly heapUsedBytes: number;
  /** Resident set size of the whole process. */
  readonly rssBytes: number;
}

let collect: (() => void) | null = null;

/**
 * V8's full garbage collection, exposed at run time (`--expose-gc` set from inside the process),
 * so that a heap sample counts live objects rather than whatever garbage the young generation
 * holds at that moment.
 */
function fullGc(): void {
  if (collect === null) {
    setFlagsFromString("--expose-gc");
    collect = runInNewContext("gc") as () => void;
  }
  collect();
}

/**
 * Samples heap and RSS at most once per `everyEvents` events read, on the job's progress reports
 * (about once a second), and once at the start and the end of the run. Each sample runs a full
 * GC first, which costs time: runs that sample memory are not throughput measurements.
 */
export class MemorySampler {
  readonly samples: MemorySample[] = [];
  private next = 0;

  constructor(private readonly everyEvents: number) {}

  /** For `onProgress`: every nexmark source reads the whole stream, so events = the most any read. */
  onProgress(metrics: JobMetrics): void {
    let events = 0;
    for (const s of Object.values(metrics.sources)) events = Math.max(events, s.recordsRead);
    if (events >= this.next) this.sample(events);
  }

  sample(events: number): void {
    fullGc();
    const m = process.memoryUsage();
    this.samples.push({ events, heapUsedBytes: m.heapUsed, rssBytes: m.rss });
    this.next = (Math.floor(events / this.everyEvents) + 1) * this.everyEvents;
  }
}
