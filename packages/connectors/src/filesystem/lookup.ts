import type { LookupJoinNode, SourceNode } from "@weir/planner";
import {
  ConnectorError,
  encodeKeyValues,
  type LookupSource,
  type LookupSourceContext,
  type Row,
  type SourceReader,
} from "@weir/runtime";
import { parseNodeConfig } from "../node-config.js";
import { ArrowFileSource } from "./arrow-source.js";
import { FilesystemSource } from "./source.js";
import { type FilesystemConfig, filesystemSpec } from "./spec.js";

const NO_ROWS: readonly Row[] = [];
/** Rows per poll of the file reader while the cache loads. */
const LOAD_BATCH = 8192;

export function createFilesystemLookup(
  node: LookupJoinNode,
  ctx: LookupSourceContext,
  config: FilesystemConfig = parseNodeConfig(filesystemSpec, node),
): LookupSource {
  return new FilesystemLookupSource(node, ctx, config);
}

/**
 * A `filesystem` table as a lookup join's dimension table, in a FULL cache (Flink's
 * `'lookup.cache'` = 'FULL'): `open` reads the table's files (the same reader and format as a
 * scan of the table, so a bad record fails with its file and line) into an index on the lookup
 * keys, and `lookupNow` answers from it. A row whose key has a NULL never matches and is not
 * indexed. With `'lookup.full-cache.periodic-reload.interval'` the files are read again in the
 * background every interval (FIXED_DELAY: from the end of a load; FIXED_RATE: from its start)
 * and the new index replaces the old one when complete, so lookups never see half a table. A
 * reload that fails makes the next lookup throw (the job fails), as Flink's full cache does.
 * Nothing is checkpointed: a restored job loads the files again when it opens.
 */
export class FilesystemLookupSource implements LookupSource {
  private index = new Map<unknown, Row[]>();
  private reloadFailure: Error | null = null;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private closed = false;
  /** Loads completed (the first one included). */
  loads = 0;

  constructor(
    private readonly node: LookupJoinNode,
    private readonly ctx: LookupSourceContext,
    private readonly config: FilesystemConfig,
  ) {}

  get cacheSize(): number {
    return this.index.size;
  }

  async open(): Promise<void> {
    const started = Date.now();
    this.index = await this.load();
    this.loads++;
    this.schedule(started);
  }

  lookupNow(key: readonly unknown[]): readonly Row[] {
    if (this.reloadFailure !== null) throw this.reloadFailure;
    return this.index.get(indexKey(key)) ?? NO_ROWS;
  }

  lookup(keys: readonly (readonly unknown[])[]): Promise<Row[][]> {
    return Promise.resolve(keys.map((k) => [...this.lookupNow(k)]));
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
  }

  /** The next reload, `interval` after the end of the last load (FIXED_DELAY) or its start (FIXED_RATE). */
  private schedule(lastStart: number): void {
    const full = this.node.lookup.full;
    if (this.closed || full == null || full.reloadIntervalMs === null) return;
    const interval = full.reloadIntervalMs;
    const wait = full.fixedRate ? Math.max(0, lastStart + interval - Date.now()) : interval;
    this.timer = setTimeout(() => {
      this.timer = null;
      const started = Date.now();
      this.load().then(
        (index) => {
          if (this.closed) return;
          this.index = index;
          this.loads++;
          this.schedule(started);
        },
        (e: unknown) => {
          if (this.closed) return;
          const message = e instanceof Error ? e.message : String(e);
          this.reloadFailure = new ConnectorError(
            `reloading the FULL lookup cache failed: ${message}`,
            e instanceof ConnectorError ? e.domain : "external",
          ).ofTable(this.node.table);
        },
      );
    }, wait);
    // A pending reload does not keep a finished job's process alive.
    this.timer.unref?.();
  }

  /** Reads the table's files into a new index (rows by their lookup key). */
  private async load(): Promise<Map<unknown, Row[]>> {
    const node = this.node;
    const scan: SourceNode = {
      kind: "source",
      id: node.id,
      inputs: [],
      schema: node.dimSchema,
      changelogMode: { kind: "insert-only" },
      streamKey: null,
      watermarkColumn: null,
      table: node.table,
      connector: node.connector,
      options: node.options,
      columns: node.dimSchema.map((f) => ({ kind: "physical", name: f.name })),
      watermark: null,
      idleTimeoutMs: 0,
      primaryKey: null,
      projectedColumns: null,
    };
    const reader: SourceReader =
      this.config.format === "arrow" ? new ArrowFileSource(this.config) : new FilesystemSource(this.config);
    const index = new Map<unknown, Row[]>();
    const keys = node.dimKeys;
    const key = new Array<unknown>(keys.length);
    try {
      await reader.open({ node: scan, metrics: new Map(), settings: this.ctx.settings, cwd: this.ctx.cwd });
      for (;;) {
        const r = await reader.poll(LOAD_BATCH);
        if (r.kind === "end") break;
        if (r.kind === "idle")
          throw new ConnectorError(
            "the files of a lookup table are read bounded, but the reader waits for more",
            "internal",
          );
        for (const split of r.splits) {
          const { ops, rows, length } = split.batch;
          for (let i = 0; i < length; i++) {
            if (ops[i] !== 0)
              throw new ConnectorError(
                `${reader.describe?.(split.split, split.origins?.at[i] ?? i) ?? split.split}: a lookup table's rows are inserts, not a changelog`,
                "user",
              );
            const row = rows[i];
            let nullKey = false;
            for (let k = 0; k < keys.length; k++) {
              const v = row[keys[k]];
              if (v === null || v === undefined) nullKey = true;
              key[k] = v;
            }
            if (nullKey) continue;
            const at = indexKey(key);
            const found = index.get(at);
            if (found === undefined) index.set(at, [row]);
            else found.push(row);
          }
        }
      }
    } catch (e) {
      throw e instanceof ConnectorError ? e.ofTable(node.table) : e;
    } finally {
      await reader.close();
    }
    return index;
  }
}

/**
 * The index's key for a lookup key: a single primitive value stands for itself (a `Map` tells
 * 5 from 5n and '5', and a BIGINT is a number exactly when it is a safe integer, so equal
 * values are equal keys); several values, or bytes and nested values, are the state encoding.
 */
function indexKey(key: readonly unknown[]): unknown {
  if (key.length === 1) {
    const v = key[0];
    if (typeof v !== "object") return v;
  }
  return encodeKeyValues(key);
}
