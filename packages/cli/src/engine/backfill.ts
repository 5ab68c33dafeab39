import { BACKFILL_COLUMNS, type BackfillTarget, stagingTableName } from "@weir/connectors";
import type { ConnectorCatalog, PhysicalDag, PhysicalNode, SinkNode, SourceNode } from "@weir/planner";
import { orList, T } from "@weir/planner";
import {
  type ChangeBatch,
  ChangeBatchBuilder,
  type ConnectorRegistry,
  type Op,
  type Row,
  type SinkWriter,
  type SinkWriterContext,
} from "@weir/runtime";

/**
 * Backfill as its own mode (`weir run FILE.sql --backfill REPLAY_ID`, seed 000 "Backfill은 별도
 * 모드로 설계하라"): the same script, but every source reads its replay input (`'backfill.path'`
 * files or `'backfill.topic'` with its own consumer group) instead of the realtime one, every
 * sink writes to a staging table (the target's columns + `replay_id`, `replayed_at`,
 * `original_event_time`), and after the job a merge moves the replay's rows into the target under
 * the version guard (see `mergeBackfill`). The realtime job, its topic, its consumer group and its
 * checkpoints are never touched.
 */
export class BackfillError extends Error {}

/** Marks a sink node whose writer appends the backfill columns (set by {@link backfillDag}). */
const REPLAY_ID = "weir.backfill.replay-id";
const REPLAYED_AT = "weir.backfill.replayed-at";

export interface BackfillPlan {
  readonly dag: PhysicalDag;
  readonly targets: readonly BackfillTarget[];
}

export function backfillDag(
  dag: PhysicalDag,
  replayId: string,
  replayedAtMs: number,
  connectors: ConnectorCatalog,
): BackfillPlan {
  if (!/^[A-Za-z0-9_.:-]{1,100}$/.test(replayId)) {
    throw new BackfillError(
      `--backfill '${replayId}': a replay id is 1 to 100 letters, digits, '_', '-', '.' or ':' (e.g. 2026-06-24-fix)`,
    );
  }
  const targets: BackfillTarget[] = [];
  const nodes = dag.nodes.map((n): PhysicalNode => {
    if (n.kind === "source") return replaySource(n, connectors);
    if (n.kind !== "sink") return n;
    // A side-output sink (quarantine, late rows) reads a side-output node: it is written as declared.
    if (n.inputs.every((i) => dag.nodes[i]?.kind === "side-output")) return n;
    const { node, target } = stagingSink(n, replayId, replayedAtMs, connectors);
    targets.push(target);
    return node;
  });
  if (targets.length === 0)
    throw new BackfillError("the script has no INSERT into a table: nothing to backfill");
  return { dag: { ...dag, nodes }, targets };
}

/** The source reading its replay input (its spec's `backfill.replay`) instead of the realtime one. */
function replaySource(n: SourceNode, connectors: ConnectorCatalog): SourceNode {
  const c = connectors.configureNode(n);
  const replay = c?.spec.backfill?.replay;
  if (c === undefined || replay === undefined) {
    const inputs = connectors.specs.flatMap((s) => (s.backfill?.replay ? [s.backfill.replay.describe] : []));
    throw new BackfillError(
      `source table '${n.table}' (connector '${n.connector}') cannot be replayed: a backfill reads ${orList(inputs)}`,
    );
  }
  const replayed = replay.options(c.config, n.options, n.table);
  if ("problem" in replayed) throw new BackfillError(replayed.problem);
  const options = replayed.options;
  // 'quality.max-age' is a rule for realtime input: a replay reads old events on purpose.
  const quality = n.quality && n.quality.maxAgeMs !== null ? { ...n.quality, maxAgeMs: null } : n.quality;
  return { ...n, options, ...(quality !== undefined ? { quality } : {}) };
}

function stagingSink(
  n: SinkNode,
  replayId: string,
  replayedAtMs: number,
  connectors: ConnectorCatalog,
): { node: SinkNode; target: BackfillTarget } {
  const staging = connectors.spec(n.connector)?.backfill?.staging;
  if (staging === undefined) {
    const targets = connectors.specs.filter((s) => s.backfill?.staging);
    const what = [...new Set(targets.map((s) => s.backfill!.staging!.describe))];
    throw new BackfillError(
      `sink table '${n.table}' (connector '${n.connector}'): a backfill merges into ${orList(what)} (connector ${orList(targets.map((s) => `'${s.name}'`))}); other sinks have no staging table and merge`,
    );
  }
  if (n.primaryKey === null || n.primaryKey.length === 0) {
    throw new BackfillError(`sink table '${n.table}' has no PRIMARY KEY: the merge matches rows by it`);
  }
  for (const c of BACKFILL_COLUMNS) {
    if (n.tableSchema.some((f) => f.name === c)) {
      throw new BackfillError(
        `sink table '${n.table}' has a column '${c}': the backfill fills it in the staging table (and in the target when the target table has it); leave it out of the query`,
      );
    }
  }
  const cutover = n.options["backfill.cutover"];
  let cutoverMs: number | null = null;
  if (cutover !== undefined) {
    cutoverMs = Date.parse(cutover);
    if (!/(Z|[+-]\d{2}:?\d{2})$/.test(cutover.trim()) || Number.isNaN(cutoverMs)) {
      throw new BackfillError(
        `sink table '${n.table}': 'backfill.cutover' = '${cutover}' is not an ISO-8601 instant with a zone (e.g. 2026-06-25T00:00:00+09:00)`,
      );
    }
  }
  const stagingTable = stagingTableName(n);
  const width = n.tableSchema.length;
  const options: Record<string, string> = {
    ...staging.options(n.options, stagingTable),
    [REPLAY_ID]: replayId,
    [REPLAYED_AT]: String(replayedAtMs),
  };
  const node: SinkNode = {
    ...n,
    options,
    tableSchema: [
      ...n.tableSchema,
      { name: "replay_id", type: T.string(false) },
      { name: "replayed_at", type: T.timestampLtz(3, false) },
      { name: "original_event_time", type: T.timestampLtz(3, true) },
    ],
    primaryKey: [...n.primaryKey, width],
  };
  const target: BackfillTarget = {
    table: n.table,
    options: n.options,
    key: n.primaryKey.map((i) => n.tableSchema[i]!.name),
    staging: stagingTable,
    versionColumn: n.options["backfill.version-column"] ?? "version",
    cutoverMs,
  };
  return { node, target };
}

/** The engine's connectors, with staging sinks that append the backfill columns to each row. */
export function backfillConnectors(base: ConnectorRegistry): ConnectorRegistry {
  return {
    source: (n) => base.source(n),
    ...(base.lookup ? { lookup: base.lookup.bind(base) } : {}),
    sink: (n) => {
      const replayId = n.options[REPLAY_ID];
      const inner = base.sink(n);
      return replayId === undefined
        ? inner
        : new StagingWriter(inner, n, replayId, Number(n.options[REPLAYED_AT]));
    },
  };
}

/** Appends `replay_id`, `replayed_at` and `original_event_time` (the row's event time) to each row. */
class StagingWriter implements SinkWriter {
  readonly transactional: boolean;
  private readonly eventTime: number | null;
  readonly preCommit?: SinkWriter["preCommit"];
  readonly commit?: SinkWriter["commit"];
  readonly restore?: SinkWriter["restore"];

  constructor(
    private readonly inner: SinkWriter,
    node: SinkNode,
    private readonly replayId: string,
    private readonly replayedAt: number,
  ) {
    this.transactional = inner.transactional ?? false;
    this.eventTime = node.watermarkColumn;
    if (inner.preCommit) this.preCommit = (id) => inner.preCommit!(id);
    if (inner.commit) this.commit = (id, pre) => inner.commit!(id, pre);
    if (inner.restore) this.restore = (id, pre) => inner.restore!(id, pre);
  }

  open(ctx: SinkWriterContext): Promise<void> {
    return this.inner.open(ctx);
  }

  write(batch: ChangeBatch): void {
    const out = new ChangeBatchBuilder(batch.length);
    const t = this.eventTime;
    for (let i = 0; i < batch.length; i++) {
      const row: Row = batch.rows[i].slice();
      row.push(this.replayId, this.replayedAt, t === null ? null : (row[t] ?? null));
      out.push(batch.ops[i] as Op, row);
    }
    this.inner.write(out.finish());
  }

  flush(): Promise<void> {
    return this.inner.flush();
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}
