import type { LookupJoinNode } from "@weir/planner";
import { type ChangeBatch, ChangeBatchBuilder, type Op, type Row } from "../changelog.js";
import type { LookupSource } from "../connector.js";
import type { Operator, OperatorContext } from "../operator.js";
import { encodeKeyValues } from "../state/keys.js";
import type { AsyncWork, Counter } from "../task.js";
import { registerOperator } from "./registry.js";
import { compileResidual, concat, padRow } from "./time-support.js";

/** A probe row waiting for (or holding) its dimension rows; `result` null = still in flight. */
interface RowEntry {
  readonly kind: 0;
  readonly op: Op;
  readonly row: Row;
  result: Row[] | null;
  emitted: boolean;
}

/** A watermark held back behind the rows before it. */
interface WatermarkEntry {
  readonly kind: 1;
  readonly watermark: number;
}

type Entry = RowEntry | WatermarkEntry;

/** A key to look up: its values (dimKeys order) and the probe rows that wait for it. */
interface KeyRequest {
  readonly values: readonly unknown[];
  readonly entries: RowEntry[];
}

interface CacheEntry {
  readonly rows: Row[];
  readonly writtenAt: number;
  accessedAt: number;
}

const NO_ROWS: readonly Row[] = [];

/** Keys per call of the lookup source (it splits them into statements itself). */
const KEYS_PER_REQUEST = 1000;

/**
 * Lookup join (Flink's LookupJoinRunner behind an AsyncWaitOperator): each probe row is joined
 * with the dimension table's rows as they are when it is looked up.
 *
 * - `processBatch` groups the batch's rows by key: a key in the PARTIAL cache (`'lookup.cache'`)
 *   is answered at once; the others are requested from the connector's {@link LookupSource}, in
 *   one call for the batch's distinct keys (with a PARTIAL cache, a key already in flight is not
 *   requested again; without one every batch queries its own keys). A row with a NULL key never
 *   matches (no request).
 * - At most `'table.exec.async-lookup.buffer-capacity'` probe rows are requested at once (rows of
 *   one key share a request, so one key may go beyond); rows of a batch beyond that wait here,
 *   unrequested. When that many rows are not emitted yet (in flight, waiting, or done behind an
 *   earlier row in ORDERED mode) the operator is `saturated` and the job stops polling sources
 *   until lookups complete (backpressure).
 * - Results are emitted when the job pumps (`emitCompleted`): ORDERED (default) in input order;
 *   ALLOW_UNORDERED as they complete, but never across a watermark. A watermark that arrives
 *   while rows are in flight is held back and forwarded after the rows before it.
 * - Output: each dimension row for which the residual condition holds, concatenated to the probe
 *   row, with the probe row's change kind; a LEFT join pads a row without one with NULLs. So the
 *   output is insert-only when the input is.
 * - A request that does not complete within `'table.exec.async-lookup.timeout'` fails the job;
 *   so does a lookup whose retries (`'lookup.max-retries'`, in the connector) are spent.
 * - Checkpoints: the job drains the operator before a barrier, so nothing is in flight in a
 *   checkpoint; the cache is not checkpointed (a restored job starts with an empty cache, as Flink).
 */
export class LookupJoinOperator implements Operator, AsyncWork {
  readonly async: AsyncWork = this;
  private ctx!: OperatorContext;
  private source: LookupSource | null = null;
  private condition: ((row: Row) => boolean) | null = null;
  private readonly leftOuter: boolean;
  private readonly width: number;
  /** The probe key of a FULL-cache lookup (`lookupNow`), reused row after row. */
  private readonly scratchKey: unknown[];
  private readonly queue: Entry[] = [];
  private head = 0;
  /** Probe rows whose key was requested and has not returned. */
  private inFlightRows = 0;
  /** Probe rows in the queue not emitted yet (in flight, waiting, or done behind an earlier row). */
  private unemitted = 0;
  /** Keys not requested yet (rows beyond the capacity), in arrival order. */
  private readonly waiting = new Map<string, KeyRequest>();
  private waitingRows = 0;
  /** Keys requested and not returned (shared by later rows only with a PARTIAL cache). */
  private readonly requested = new Map<string, KeyRequest>();
  private readonly cache = new Map<string, CacheEntry>();
  private failure: { readonly error: unknown } | null = null;
  private closed = false;
  private completed = false;
  private wakers: (() => void)[] = [];
  private readonly timers = new Set<ReturnType<typeof setTimeout>>();
  private requestsC!: Counter;
  private keysC!: Counter;
  private hitsC!: Counter;
  private missesC!: Counter;

  constructor(
    private readonly node: LookupJoinNode,
    private readonly createSource: ((node: LookupJoinNode) => LookupSource) | undefined,
  ) {
    this.leftOuter = node.joinType === "left";
    this.width = node.schema.length;
    this.scratchKey = new Array<unknown>(node.leftKeys.length);
  }

  open(ctx: OperatorContext): void {
    this.ctx = ctx;
    this.condition = compileResidual(this.node.condition, ctx.evalContext);
    if (this.createSource === undefined)
      throw new Error(`lookup join on table ${this.node.table}: the job has no lookup connectors`);
    this.source = this.createSource(this.node);
    const m = ctx.metrics;
    this.requestsC = m.counter("lookupRequests");
    this.keysC = m.counter("lookupKeys");
    this.hitsC = m.counter("lookupCacheHits");
    this.missesC = m.counter("lookupCacheMisses");
    m.gauge("lookupInFlight", () => this.inFlightRows + this.waitingRows);
    m.gauge("lookupCacheSize", () => this.source?.cacheSize ?? this.cache.size);
    m.gauge("lookupRetries", () => this.source?.retries ?? null);
    m.gauge("lookupConnects", () => this.source?.connects ?? null);
  }

  async start(): Promise<void> {
    await this.source!.open();
  }

  get pending(): boolean {
    return this.head < this.queue.length || this.waitingRows > 0;
  }

  /** Flink's queue capacity: rows not emitted yet, done or not (ORDERED keeps done rows behind a slow one). */
  get saturated(): boolean {
    return this.unemitted >= this.node.lookup.bufferCapacity;
  }

  progress(): Promise<void> {
    if (this.completed || this.failure !== null || !this.pending) return Promise.resolve();
    return new Promise((resolve) => this.wakers.push(resolve));
  }

  private wake(): void {
    this.completed = true;
    const w = this.wakers;
    this.wakers = [];
    for (const f of w) f();
  }

  processBatch(_input: number, batch: ChangeBatch): void {
    if (this.source!.lookupNow !== undefined) {
      this.joinNow(batch);
      return;
    }
    const { ops, rows, length } = batch;
    const keys = this.node.leftKeys;
    const cached = this.node.lookup.cache !== null;
    for (let i = 0; i < length; i++) {
      const row = rows[i];
      const entry: RowEntry = { kind: 0, op: ops[i] as Op, row, result: null, emitted: false };
      this.queue.push(entry);
      this.unemitted++;
      const values = new Array<unknown>(keys.length);
      let nullKey = false;
      for (let k = 0; k < keys.length; k++) {
        const v = row[keys[k]];
        if (v === null || v === undefined) nullKey = true;
        values[k] = v;
      }
      if (nullKey) {
        entry.result = [];
        continue;
      }
      const key = encodeKeyValues(values);
      if (cached) {
        const hit = this.cacheGet(key);
        if (hit !== undefined) {
          this.hitsC.inc();
          entry.result = hit;
          continue;
        }
        this.missesC.inc();
        const inFlight = this.requested.get(key);
        if (inFlight !== undefined) {
          inFlight.entries.push(entry);
          this.inFlightRows++;
          continue;
        }
      }
      const w = this.waiting.get(key);
      if (w !== undefined) w.entries.push(entry);
      else this.waiting.set(key, { values, entries: [entry] });
      this.waitingRows++;
    }
    this.issue();
    this.emitCompleted();
  }

  /**
   * A source with its whole table in memory (a FULL cache) answers each row at once: nothing is
   * ever in flight, so rows and watermarks pass in order without the queue.
   */
  private joinNow(batch: ChangeBatch): void {
    const { ops, rows, length } = batch;
    const keys = this.node.leftKeys;
    const source = this.source!;
    const key = this.scratchKey;
    const out = new ChangeBatchBuilder(length);
    let hits = 0;
    for (let i = 0; i < length; i++) {
      const row = rows[i];
      let dims: readonly Row[] = NO_ROWS;
      let nullKey = false;
      for (let k = 0; k < keys.length; k++) {
        const v = row[keys[k]];
        if (v === null || v === undefined) {
          nullKey = true;
          break;
        }
        key[k] = v;
      }
      if (!nullKey) {
        dims = source.lookupNow!(key);
        if (dims.length > 0) hits++;
      }
      let matched = false;
      for (let d = 0; d < dims.length; d++) {
        const joined = concat(row, dims[d]);
        if (this.condition !== null && !this.condition(joined)) continue;
        matched = true;
        out.push(ops[i] as Op, joined);
      }
      if (!matched && this.leftOuter) out.push(ops[i] as Op, padRow(0, row, this.width));
    }
    this.hitsC.inc(hits);
    this.missesC.inc(length - hits);
    if (out.length > 0) this.ctx.emit(out.finish());
  }

  /** Requests waiting keys, in arrival order, while fewer than the capacity's rows are in flight. */
  private issue(): void {
    if (this.waiting.size === 0) return;
    const capacity = this.node.lookup.bufferCapacity;
    const cached = this.node.lookup.cache !== null;
    const batch: [string, KeyRequest][] = [];
    let rows = this.inFlightRows;
    for (const [key, req] of this.waiting) {
      if (batch.length >= KEYS_PER_REQUEST) break;
      // The first key goes even beyond the capacity when nothing else is in flight.
      if (rows >= capacity && (batch.length > 0 || this.inFlightRows > 0)) break;
      batch.push([key, req]);
      rows += req.entries.length;
    }
    if (batch.length === 0) return;
    for (const [key, req] of batch) {
      this.waiting.delete(key);
      this.waitingRows -= req.entries.length;
      this.inFlightRows += req.entries.length;
      if (cached) this.requested.set(key, req);
    }
    this.request(batch);
  }

  private request(batch: readonly [string, KeyRequest][]): void {
    this.requestsC.inc();
    this.keysC.inc(batch.length);
    const { timeoutMs } = this.node.lookup;
    let done = false;
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      if (done) return;
      done = true;
      this.fail(
        new Error(
          `lookup join on table ${this.node.table}: Async function call has timed out: no answer for key ${keyText(batch[0]![1].values)}${batch.length > 1 ? ` (and ${batch.length - 1} more keys)` : ""} within ${timeoutMs} ms ('table.exec.async-lookup.timeout')`,
        ),
      );
    }, timeoutMs);
    this.timers.add(timer);
    const source = this.source!;
    source.lookup(batch.map(([, r]) => r.values)).then(
      (results) => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        this.timers.delete(timer);
        this.complete(batch, results);
      },
      (error) => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        this.timers.delete(timer);
        this.fail(error);
      },
    );
  }

  private complete(batch: readonly [string, KeyRequest][], results: Row[][]): void {
    if (this.closed) return;
    const cache = this.node.lookup.cache;
    const now = this.ctx.now();
    batch.forEach(([key, req], i) => {
      const rows = results[i] ?? [];
      if (cache !== null) {
        if (this.requested.get(key) === req) this.requested.delete(key);
        if (rows.length > 0 || cache.cacheMissingKey) this.cachePut(key, rows, now);
      }
      for (const e of req.entries) e.result = rows;
      this.inFlightRows -= req.entries.length;
    });
    this.issue();
    this.wake();
  }

  private fail(error: unknown): void {
    this.failure ??= { error };
    this.wake();
  }

  private cacheGet(key: string): Row[] | undefined {
    const c = this.node.lookup.cache!;
    const e = this.cache.get(key);
    if (e === undefined) return undefined;
    const now = this.ctx.now();
    if (
      (c.expireAfterWriteMs !== null && now - e.writtenAt >= c.expireAfterWriteMs) ||
      (c.expireAfterAccessMs !== null && now - e.accessedAt >= c.expireAfterAccessMs)
    ) {
      this.cache.delete(key);
      return undefined;
    }
    e.accessedAt = now;
    // Most recently used last: eviction takes the first.
    this.cache.delete(key);
    this.cache.set(key, e);
    return e.rows;
  }

  private cachePut(key: string, rows: Row[], now: number): void {
    const max = this.node.lookup.cache!.maxRows;
    this.cache.delete(key);
    this.cache.set(key, { rows, writtenAt: now, accessedAt: now });
    if (max !== null) {
      while (this.cache.size > max) {
        const oldest = this.cache.keys().next().value as string;
        this.cache.delete(oldest);
      }
    }
  }

  emitCompleted(): void {
    this.completed = false;
    if (this.failure !== null) throw this.failure.error;
    const out = new ChangeBatchBuilder();
    const q = this.queue;
    const ordered = this.node.lookup.ordered;
    while (this.head < q.length) {
      const e = q[this.head]!;
      if (e.kind === 1) {
        if (out.length > 0) this.ctx.emit(out.finish());
        this.head++;
        this.ctx.forwardWatermark(e.watermark);
        continue;
      }
      if (e.emitted) {
        this.head++;
        continue;
      }
      if (e.result !== null) {
        this.join(e, out);
        this.head++;
        continue;
      }
      if (ordered) break;
      // Unordered: what completed before the next watermark may go out now.
      for (let j = this.head + 1; j < q.length; j++) {
        const f = q[j]!;
        if (f.kind === 1) break;
        if (!f.emitted && f.result !== null) this.join(f, out);
      }
      break;
    }
    if (out.length > 0) this.ctx.emit(out.finish());
    if (this.head > 1024 && this.head * 2 > q.length) {
      q.splice(0, this.head);
      this.head = 0;
    }
  }

  private join(e: RowEntry, out: ChangeBatchBuilder): void {
    e.emitted = true;
    this.unemitted--;
    let matched = false;
    for (const dim of e.result!) {
      const joined = concat(e.row, dim);
      if (this.condition !== null && !this.condition(joined)) continue;
      matched = true;
      out.push(e.op, joined);
    }
    if (!matched && this.leftOuter) out.push(e.op, padRow(0, e.row, this.width));
    e.result = null;
    (e as { row: Row | null }).row = null;
  }

  onWatermark(watermark: number): number {
    if (!this.pending) return watermark;
    this.queue.push({ kind: 1, watermark });
    return Number.NEGATIVE_INFINITY;
  }

  onBarrier(checkpointId: number): null {
    if (this.pending)
      throw new Error(
        `lookup join on table ${this.node.table}: checkpoint ${checkpointId} reached it with ${this.inFlightRows + this.waitingRows} lookups in flight (the job drains lookup joins before a checkpoint)`,
      );
    return null;
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    await this.source?.close();
  }
}

function keyText(values: readonly unknown[]): string {
  const parts = values.map((v) =>
    typeof v === "string" ? `'${v}'` : typeof v === "bigint" ? String(v) : JSON.stringify(v),
  );
  return `(${parts.join(", ")})`;
}

registerOperator("lookup-join", (node, info) => new LookupJoinOperator(node, info.lookup), {
  stateless: true,
});
