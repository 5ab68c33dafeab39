import type { SinkNode } from "@weir/planner";
import { EXACTLY_ONCE_NEEDS_CHECKPOINTS, formatType } from "@weir/planner";
import {
  type ChangeBatch,
  ConnectorError,
  decodeJson,
  encodeJson,
  type Json,
  keyCodec,
  Op,
  type Row,
  type SinkWriter,
  type SinkWriterContext,
} from "@weir/runtime";
import { isConnectionError, type PgConnect, type PgConnection, pgEndpoint, sqlState } from "./client.js";
import type { PostgresOptions } from "./options.js";
import { SinkProgress } from "./progress.js";
import { type PendingKey, type ReducedChanges, UpsertReducer } from "./reduce.js";
import { type Statement, StatementBuilder } from "./statements.js";
import { bindTable, createTableSql } from "./table.js";

/** What one flush writes, in one transaction. */
type FlushBatch =
  | { readonly kind: "upsert"; readonly reduced: ReducedChanges }
  | { readonly kind: "append"; readonly rows: readonly Row[] }
  /** Exactly-once: the epochs of a completed checkpoint, with the sink's progress row. */
  | { readonly kind: "commit"; readonly checkpointId: number; readonly epochs: readonly Epoch[] };

/** Exactly-once: the changes written between two checkpoints, staged until the checkpoint commits. */
interface Epoch {
  /** The checkpoint whose barrier ended the epoch. */
  readonly id: number;
  readonly changes:
    | { readonly kind: "upsert"; readonly reduced: ReducedChanges }
    | { readonly kind: "append"; readonly rows: readonly Row[] };
}

/** What an exactly-once sink's pre-commit puts into the checkpoint: every uncommitted epoch up to it. */
interface PreCommitted {
  readonly version: 1;
  readonly epochs: readonly Json[];
}

export interface PostgresSinkDeps {
  /** Opens connections; default: the real `pg` client with the table's connection options. */
  readonly connect?: PgConnect;
  /** Waits between retries (tests pass a fast one). */
  readonly sleep?: (ms: number) => Promise<void>;
}

/** The wait before retry `attempt + 1`: 100 ms doubling, at most 5 s (3 retries wait 0.7 s in all). */
function backoffMs(attempt: number): number {
  return Math.min(5000, 100 * 2 ** attempt);
}

const VERSION_KINDS = new Set([
  "TINYINT",
  "SMALLINT",
  "INT",
  "BIGINT",
  "FLOAT",
  "DOUBLE",
  "DECIMAL",
  "DATE",
  "TIME",
  "TIMESTAMP",
  "TIMESTAMP_LTZ",
]);

export function createPostgresSink(node: SinkNode, deps: PostgresSinkDeps = {}): SinkWriter {
  return new PostgresSinkWriter(node, deps);
}

/**
 * Writes a changelog into a Postgres table: upserts and deletes by primary key when the sink has
 * one (changes reduced per key, reduce.ts), plain INSERTs otherwise.
 *
 * Flushes are strictly ordered: at most one transaction is in flight, and at most one more is
 * queued behind it, which takes the whole buffer when it starts (changes that arrive meanwhile
 * are reduced into it: coalescing, see `enqueue`); `write` never awaits (it queues a due flush and
 * `flush()` awaits them all). A
 * transaction that fails because the connection was lost rolled back, so it is replayed whole on
 * a new connection, up to `sink.max-retries` times with exponential backoff. Replaying after a
 * lost COMMIT acknowledgement is harmless in upsert mode (the writes are idempotent) and may
 * duplicate rows in append mode (at-least-once).
 */
export class PostgresSinkWriter implements SinkWriter {
  private readonly opts: PostgresOptions;
  private readonly connect: PgConnect;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly key: readonly number[] | null;
  private readonly version: number | null;
  /** Position of `'sink.final-column'` in the row, or null. */
  private readonly final: number | null;
  private ctx!: SinkWriterContext;
  private conn: PgConnection | null = null;
  private statements!: StatementBuilder;
  private tableName: string;
  private reducer: UpsertReducer | null = null;
  private appendRows: Row[] = [];
  private lastFlushAt = 0;
  /** The tail of the flush queue; never rejects (failures land in `failure`). */
  private chain: Promise<void> = Promise.resolve();
  private failure: Error | null = null;
  /** Exactly-once: the progress row (set at open), and the pre-committed epochs not yet committed. */
  private progress: SinkProgress | null = null;
  private staged: { readonly epoch: Epoch; readonly json: Json }[] = [];
  /** The quoted table name, for the row count. */
  private tableSql = "";
  /** Rows in the table as last counted (`SELECT count(*)`), and when the next count may run. */
  private rows: number | null = null;
  private nextCountAt = 0;
  /** A count deferred by the throttle, due at `nextCountAt`. */
  private countTimer: ReturnType<typeof setTimeout> | null = null;
  private closed = false;
  /** A write transaction is queued and has not started (it takes the buffer when it starts). */
  private writeQueued = false;
  /** The queued write transaction was asked for by flush(): it writes the buffer whatever it ends with. */
  private forceNext = false;
  /** The last change buffered is a -U (its +U has not arrived yet). */
  private endsInUpdateBefore = false;

  constructor(
    private readonly node: SinkNode,
    deps: PostgresSinkDeps,
    opts?: PostgresOptions,
  ) {
    ({ opts: this.opts, connect: this.connect } = pgEndpoint(node, deps.connect, opts));
    this.sleep = deps.sleep ?? ((ms) => new Promise((r) => setTimeout(r, ms)));
    this.key = node.primaryKey && node.primaryKey.length > 0 ? node.primaryKey : null;
    const t = this.opts.table;
    this.tableName = t.schema === null ? t.name : `${t.schema}.${t.name}`;
    const vc = this.opts.versionColumn;
    if (vc === null) {
      this.version = null;
    } else {
      const i = node.tableSchema.findIndex((f) => f.name === vc);
      const j = i >= 0 ? i : node.tableSchema.findIndex((f) => f.name.toLowerCase() === vc.toLowerCase());
      const where = `sink ${node.table}`;
      if (j < 0)
        throw new ConnectorError(
          `'sink.version-column' = '${vc}' is not a column of the sink table`,
          "user",
          where,
        );
      if (this.key === null) {
        throw new ConnectorError(
          "'sink.version-column' needs a PRIMARY KEY on the sink table",
          "user",
          where,
        );
      }
      const type = node.tableSchema[j].type;
      if (!VERSION_KINDS.has(type.kind)) {
        throw new ConnectorError(
          `'sink.version-column' '${vc}' is ${formatType(type)}; a version must be a number, DECIMAL, date, time or timestamp`,
          "user",
          where,
        );
      }
      this.version = j;
    }
    const fc = this.opts.finalColumn;
    if (fc === null) this.final = null;
    else {
      const where = `sink ${node.table}`;
      const j = node.tableSchema.findIndex((f) => f.name.toLowerCase() === fc.toLowerCase());
      if (j < 0)
        throw new ConnectorError(
          `'sink.final-column' = '${fc}' is not a column of the sink table`,
          "user",
          where,
        );
      if (node.tableSchema[j].type.kind !== "BOOLEAN")
        throw new ConnectorError(
          `'sink.final-column' '${fc}' is ${formatType(node.tableSchema[j].type)}; it must be BOOLEAN (TRUE = final)`,
          "user",
          where,
        );
      if (this.key === null || this.version === null)
        throw new ConnectorError(
          "'sink.final-column' needs a PRIMARY KEY and 'sink.version-column' on the sink table",
          "user",
          where,
        );
      this.final = j;
    }
  }

  /** Exactly-once: writes become visible only when their checkpoint commits. */
  get transactional(): boolean {
    return this.opts.deliveryGuarantee === "exactly-once";
  }

  async open(ctx: SinkWriterContext): Promise<void> {
    this.ctx = ctx;
    if (this.transactional && !((ctx.checkpointIntervalMs ?? 0) > 0 && ctx.jobId && ctx.sinkId)) {
      throw new ConnectorError(EXACTLY_ONCE_NEEDS_CHECKPOINTS, "user", `sink ${this.node.table}`);
    }
    let conn: PgConnection;
    for (let attempt = 0; ; attempt++) {
      try {
        conn = await this.connection();
        break;
      } catch (e) {
        // A server that refuses for a moment (too many connections, not accepting them yet) is
        // retried with the same bounded backoff as a lost flush.
        if (isConnectionError(e) && sqlState(e) !== undefined && attempt < this.opts.maxRetries) {
          ctx.metrics.set("retries", (ctx.metrics.get("retries") ?? 0) + 1);
          await this.sleep(backoffMs(attempt));
          continue;
        }
        const state = sqlState(e);
        throw new ConnectorError(
          `cannot connect to Postgres for table ${this.tableName}: ${(e as Error).message}${state ? ` [SQLSTATE ${state}]` : ""}${attempt > 0 ? ` (after ${attempt} ${attempt === 1 ? "retry" : "retries"})` : ""}`,
          "external",
          `sink ${this.node.table}`,
          true,
        );
      }
    }
    const fields = this.node.tableSchema;
    if (this.opts.createTable) await conn.query(createTableSql(this.opts.table, fields, this.key));
    const table = await bindTable(conn, this.opts.table, fields, this.key, true);
    this.tableName = table.display;
    this.tableSql = table.sql;
    this.statements = new StatementBuilder(table, this.key, this.version, this.final);
    if (this.transactional) {
      this.progress = new SinkProgress(table.schema, ctx.jobId!, ctx.sinkId!);
      await this.progress.ensureTable(conn);
    }
    if (this.key !== null)
      this.reducer = new UpsertReducer(
        keyCodec(
          this.key,
          fields.map((f) => f.type),
        ),
        this.version,
        this.final,
      );
    for (const m of ["rowsUpserted", "rowsDeleted", "rowsInserted", "flushes", "retries"]) {
      if (!ctx.metrics.has(m)) ctx.metrics.set(m, 0);
    }
    this.lastFlushAt = Date.now();
    await this.count();
  }

  /**
   * Rows in the target table as last counted: at open, at every checkpoint (after its flush, or
   * after its commit when exactly-once), after flushes (at most once a second, and at most 1/20
   * of the time: a count that takes 100 ms runs at most every 2 s; a flush within that time
   * defers the count to its end), and when the job's input ended. A `SELECT count(*)` in the
   * writer's queue, so it sees the writes before it; other writers of the same table count too
   * (it is what a reader of the table sees).
   */
  tableRows(): number | null {
    return this.rows;
  }

  async countTableRows(): Promise<void> {
    this.queueCount();
    await this.chain;
  }

  private queueCount(): void {
    this.chain = this.chain.then(() => this.count());
  }

  /** After a flush: counts now, or when the throttle allows (one deferred count at a time). */
  private countSoon(): void {
    const wait = this.nextCountAt - Date.now();
    if (wait <= 0) {
      this.queueCount();
      return;
    }
    if (this.countTimer !== null) return;
    this.countTimer = setTimeout(() => {
      this.countTimer = null;
      this.queueCount();
    }, wait);
    this.countTimer.unref?.();
  }

  /** Counts the table's rows; a failure keeps the last count (the writes report their own errors). */
  private async count(): Promise<void> {
    if (this.failure || this.tableSql === "" || this.closed) return;
    const t0 = Date.now();
    try {
      const r = await (await this.connection()).query(`SELECT count(*) FROM ${this.tableSql}`);
      const n = Number(r.rows[0]?.[0]);
      if (Number.isSafeInteger(n)) this.rows = n;
    } catch (e) {
      if (isConnectionError(e)) await this.dropConnection().catch(() => undefined);
    }
    const t1 = Date.now();
    this.nextCountAt = t1 + Math.max(MIN_COUNT_INTERVAL_MS, 20 * (t1 - t0));
  }

  write(batch: ChangeBatch): void {
    if (this.failure) throw this.failure;
    const max = this.opts.maxRows;
    const reducer = this.reducer;
    for (let i = 0; i < batch.length; i++) {
      const op = batch.ops[i] as Op;
      const row = batch.rows[i];
      if (reducer !== null) {
        reducer.add(op, row);
        // A flush never falls between a -U and its +U.
        if (max > 0 && reducer.changes >= max && op !== Op.UPDATE_BEFORE && this.progress === null)
          this.enqueue();
      } else {
        if (op !== Op.INSERT && op !== Op.UPDATE_AFTER) {
          throw new ConnectorError(
            `a ${op === Op.DELETE ? "-D" : "-U"} change reached the append-only Postgres sink ${this.tableName}, which has no primary key`,
            "internal",
            `sink ${this.node.table}`,
          );
        }
        this.appendRows.push(row);
        if (max > 0 && this.appendRows.length >= max && this.progress === null) this.enqueue();
      }
    }
    if (reducer !== null && batch.length > 0)
      this.endsInUpdateBefore = (batch.ops[batch.length - 1] as Op) === Op.UPDATE_BEFORE;
    if (this.progress !== null) return;
    const interval = this.opts.intervalMs;
    if (interval > 0 && Date.now() - this.lastFlushAt >= interval) this.enqueue();
  }

  /** Writes out the buffer (at-least-once); exactly-once keeps it for the checkpoint's epoch. */
  async flush(): Promise<void> {
    if (this.progress === null) this.enqueue(true);
    await this.chain;
    if (this.failure) throw this.failure;
  }

  /**
   * Exactly-once: the buffer becomes epoch `checkpointId`, staged in memory and — what this
   * returns — in the checkpoint, together with the epochs of aborted checkpoints not yet
   * committed, so that a restored job can commit them if the crash came before the commit.
   */
  async preCommit(checkpointId: number): Promise<Json> {
    if (this.progress === null) {
      // At-least-once: the barrier's flush wrote everything before it; count after it.
      this.queueCount();
      return null;
    }
    if (this.failure) throw this.failure;
    const changes = this.takeBuffer();
    if (changes !== null) {
      const epoch: Epoch = { id: checkpointId, changes };
      this.staged.push({ epoch, json: encodeEpoch(epoch) });
    }
    const pre: PreCommitted = { version: 1, epochs: this.staged.map((s) => s.json) };
    return pre as unknown as Json;
  }

  /**
   * Exactly-once: a restore of checkpoint `checkpointId` (its epochs are re-committed next). One
   * older than what the progress row says was committed is refused: the restored job's epochs
   * would not line up with the committed ones.
   */
  async restore(checkpointId: number, _preCommitted: Json): Promise<void> {
    if (this.progress === null) return;
    const last = await this.progress.read(await this.connection());
    if (last > checkpointId) {
      throw new ConnectorError(
        `cannot restore checkpoint ${checkpointId}: this exactly-once sink already committed checkpoint ${last} (${this.progress.display}, job ${this.progress.jobId}); restore the latest checkpoint, or start without --restore into an emptied table`,
        "user",
        `sink ${this.node.table}`,
      );
    }
  }

  /**
   * Exactly-once: checkpoint `checkpointId` is complete: its epochs (and those of earlier aborted
   * checkpoints) are written in one transaction with the progress row, skipping what the row says
   * was committed already (a restore re-commits its checkpoint).
   */
  async commit(checkpointId: number, preCommitted: Json): Promise<void> {
    if (this.progress === null) return;
    const pre = preCommitted as unknown as PreCommitted | null;
    const epochs = pre === null ? [] : pre.epochs.map(decodeEpoch).filter((e) => e.id <= checkpointId);
    this.chain = this.chain.then(async () => {
      if (this.failure) return;
      try {
        await this.writeBatch({ kind: "commit", checkpointId, epochs });
      } catch (e) {
        this.failure = e instanceof Error ? e : new Error(String(e));
      }
    });
    await this.chain;
    if (this.failure) throw this.failure;
    this.staged = this.staged.filter((s) => s.epoch.id > checkpointId);
    // Counted behind the commit, not awaited: the commit's latency is the transaction's.
    this.queueCount();
  }

  /** Waits for queued flushes and disconnects; changes buffered since the last flush are dropped (the job flushes before a normal close). */
  async close(): Promise<void> {
    this.closed = true;
    if (this.countTimer !== null) clearTimeout(this.countTimer);
    this.countTimer = null;
    await this.chain;
    const conn = this.conn;
    this.conn = null;
    if (conn) await conn.end();
  }

  /** The buffered changes, taken out of the buffer (null when it is empty). */
  private takeBuffer(): Epoch["changes"] | null {
    if (this.reducer !== null) {
      if (this.reducer.changes === 0) return null;
      return { kind: "upsert", reduced: this.reducer.take() };
    }
    if (this.appendRows.length === 0) return null;
    const rows = this.appendRows;
    this.appendRows = [];
    return { kind: "append", rows };
  }

  /**
   * Queues a write transaction behind the one in flight, unless one is queued already. The
   * queued transaction takes the buffer when it starts, not when it is queued: changes that
   * arrive while another transaction runs keep being reduced into the buffer and are written
   * together by the next one (coalescing), so under backpressure transactions grow instead of
   * queuing up. `force` (flush()): it writes whatever is buffered then; otherwise it waits for
   * the next change when the buffer ends with a -U, so a flush never falls between a -U and its
   * +U (that change queues it again).
   */
  private enqueue(force = false): void {
    if (force) this.forceNext = true;
    if (this.writeQueued) return;
    this.writeQueued = true;
    this.chain = this.chain.then(async () => {
      this.writeQueued = false;
      const forced = this.forceNext;
      this.forceNext = false;
      if (this.failure || (!forced && this.endsInUpdateBefore)) return;
      this.lastFlushAt = Date.now();
      const batch: FlushBatch | null = this.takeBuffer();
      if (batch === null) return;
      try {
        // A replay after a lost connection writes this same batch again (writeBatch).
        await this.writeBatch(batch);
      } catch (e) {
        this.failure =
          e instanceof ConnectorError
            ? e.ofTable(this.node.table)
            : e instanceof Error
              ? e
              : new Error(String(e));
      }
    });
  }

  private statementsOf(batch: Epoch["changes"]): Statement[] {
    return batch.kind === "upsert"
      ? [...this.statements.deletes(batch.reduced.deletes), ...this.statements.upserts(batch.reduced.upserts)]
      : this.statements.inserts(batch.rows);
  }

  private async writeBatch(batch: FlushBatch): Promise<void> {
    const stmts: Statement[] = batch.kind === "commit" ? [] : this.statementsOf(batch);
    const metrics = this.ctx.metrics;
    let written: readonly Epoch[] = [];
    for (let attempt = 0; ; attempt++) {
      try {
        if (batch.kind === "commit") written = await this.commitTransaction(batch.checkpointId, batch.epochs);
        else await this.transaction(stmts);
        break;
      } catch (e) {
        if (!isConnectionError(e)) throw this.statementError(e);
        await this.dropConnection();
        if (attempt >= this.opts.maxRetries) {
          throw new ConnectorError(
            `writing to Postgres table ${this.tableName} failed after ${attempt} ${attempt === 1 ? "retry" : "retries"}: ${(e as Error).message}`,
            "external",
            `sink ${this.node.table}`,
            true,
          );
        }
        metrics.set("retries", (metrics.get("retries") ?? 0) + 1);
        await this.sleep(backoffMs(attempt));
      }
    }
    metrics.set("flushes", (metrics.get("flushes") ?? 0) + 1);
    if (batch.kind !== "commit") this.countSoon();
    const counted = batch.kind === "commit" ? written.map((e) => e.changes) : [batch];
    for (const c of counted) {
      if (c.kind === "upsert") {
        metrics.set("rowsUpserted", (metrics.get("rowsUpserted") ?? 0) + c.reduced.upserts.length);
        metrics.set("rowsDeleted", (metrics.get("rowsDeleted") ?? 0) + c.reduced.deletes.length);
      } else {
        metrics.set("rowsInserted", (metrics.get("rowsInserted") ?? 0) + c.rows.length);
      }
    }
  }

  /**
   * One transaction: lock the progress row; write the epochs after the checkpoint it names; set
   * it to `checkpointId`; COMMIT. Returns the epochs written (none when already committed).
   * Replayed whole after a lost connection, it cannot write an epoch twice.
   */
  private async commitTransaction(checkpointId: number, epochs: readonly Epoch[]): Promise<readonly Epoch[]> {
    const progress = this.progress!;
    const conn = await this.connection();
    await conn.query("BEGIN");
    let todo: readonly Epoch[] = [];
    try {
      const last = await progress.lock(conn);
      if (last < checkpointId) {
        todo = epochs.filter((e) => e.id > last);
        for (const e of todo)
          for (const s of this.statementsOf(e.changes)) await conn.query(s.text, s.values, s.name);
        await progress.set(conn, checkpointId);
      }
    } catch (e) {
      if (!isConnectionError(e)) await conn.query("ROLLBACK").catch(() => undefined);
      throw e;
    }
    await conn.query("COMMIT");
    return todo;
  }

  private async transaction(stmts: readonly Statement[]): Promise<void> {
    const conn = await this.connection();
    await conn.query("BEGIN");
    try {
      for (const s of stmts) await conn.query(s.text, s.values, s.name);
    } catch (e) {
      if (!isConnectionError(e)) await conn.query("ROLLBACK").catch(() => undefined);
      throw e;
    }
    await conn.query("COMMIT");
  }

  private async connection(): Promise<PgConnection> {
    if (this.conn?.broken) await this.dropConnection();
    if (this.conn === null) this.conn = await this.connect();
    return this.conn;
  }

  private async dropConnection(): Promise<void> {
    const c = this.conn;
    this.conn = null;
    if (c) await c.end();
  }

  private statementError(e: unknown): ConnectorError {
    if (e instanceof ConnectorError) return e.ofTable(this.node.table);
    const state = sqlState(e);
    // Class 22 (data exception) and 23 (integrity constraint): the rows, not the server.
    const user = state !== undefined && (state.startsWith("22") || state.startsWith("23"));
    const detail = state ? ` [SQLSTATE ${state}]` : "";
    return new ConnectorError(
      `writing to Postgres table ${this.tableName} failed: ${(e as Error).message ?? String(e)}${detail}`,
      user ? "user" : "external",
      `sink ${this.node.table}`,
    );
  }
}

/** The table's rows are counted after flushes at most this often. */
const MIN_COUNT_INTERVAL_MS = 1000;

/** An epoch as checkpoint JSON (rows through the state codec: bigint, bytes, …). */
function encodeEpoch(e: Epoch): Json {
  const c = e.changes;
  if (c.kind === "append") return { id: e.id, kind: "append", rows: encodeJson(c.rows) };
  return {
    id: e.id,
    kind: "upsert",
    deletes: encodeJson(c.reduced.deletes.map((d) => [d.deleteRow, d.deleteVersion])),
    upserts: encodeJson(c.reduced.upserts),
    changes: c.reduced.changes,
  };
}

function decodeEpoch(j: Json): Epoch {
  const o = j as { id: number; kind: string; rows?: Json; deletes?: Json; upserts?: Json; changes?: number };
  if (o.kind === "append")
    return { id: o.id, changes: { kind: "append", rows: decodeJson(o.rows!) as Row[] } };
  const deletes = (decodeJson(o.deletes!) as [Row | null, unknown][]).map(
    ([deleteRow, deleteVersion]): PendingKey => ({ deleteRow, deleteVersion, upsert: null }),
  );
  return {
    id: o.id,
    changes: {
      kind: "upsert",
      reduced: { deletes, upserts: decodeJson(o.upserts!) as Row[], changes: o.changes ?? 0 },
    },
  };
}
