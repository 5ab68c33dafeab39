import {
  type ConnectorSpec,
  deliveryGuaranteeOption,
  lookupCacheMode,
  type OptionSpec,
  type OptionType,
  partialCacheConfig,
  SINK_PARALLELISM_OPTION,
  type SinkSpec,
} from "@weir/planner";
import { exactlyOnceReport } from "../sink-specs.js";
import { type PostgresOptions, parsePostgresOptions } from "./options.js";

const str = { kind: "string" } as const;
const bool = { kind: "boolean" } as const;
const duration = { kind: "duration" } as const;
const int = (min: number): OptionType => ({ kind: "int", min });

const sinkOptions: readonly OptionSpec[] = [
  { key: "sink.version-column", type: str, description: "an older version never overwrites a newer" },
  {
    key: "sink.final-column",
    type: str,
    description:
      "a BOOLEAN column: a row stored with TRUE is never overwritten or deleted by a change with FALSE",
  },
  { key: "sink.create-table", type: bool, description: "create the target table if missing" },
  { key: "sink.buffer-flush.max-rows", type: int(0), description: "flush after this many rows" },
  { key: "sink.buffer-flush.interval", type: duration, description: "flush at least this often" },
  { key: "sink.max-retries", type: int(0), description: "retries of a failed flush" },
  SINK_PARALLELISM_OPTION,
  deliveryGuaranteeOption(
    "'exactly-once': each checkpoint's changes in one transaction with a progress row (weir_sink_progress), at commit",
  ),
  { key: "scan.fetch-size", type: int(1), description: "rows fetched per round trip" },
];

/** The table as the dimension of a lookup join (Flink's JDBC lookup options). */
const lookupOptions: readonly OptionSpec[] = [
  {
    key: "lookup.cache",
    type: { kind: "enum", values: ["NONE", "PARTIAL", "FULL", "none", "partial", "full"] },
    description:
      "NONE (default: every probe row queries the table) or PARTIAL (cache rows as they are looked up)",
  },
  {
    key: "lookup.partial-cache.max-rows",
    type: int(1),
    description: "PARTIAL: at most this many keys cached (least recently used evicted first)",
  },
  {
    key: "lookup.partial-cache.expire-after-write",
    type: duration,
    description: "PARTIAL: a cached key expires this long after it was looked up",
  },
  {
    key: "lookup.partial-cache.expire-after-access",
    type: duration,
    description: "PARTIAL: a cached key expires this long after it was last read",
  },
  {
    key: "lookup.partial-cache.cache-missing-key",
    type: bool,
    description: "PARTIAL: cache keys the table has no row for (default true)",
  },
  { key: "lookup.max-retries", type: int(0), description: "retries of a failed lookup query (default 3)" },
  {
    key: "lookup.cache.max-rows",
    type: int(1),
    description: "deprecated (Flink): 'lookup.partial-cache.max-rows' with 'lookup.cache' = 'PARTIAL'",
  },
  {
    key: "lookup.cache.ttl",
    type: duration,
    description: "deprecated (Flink): 'lookup.partial-cache.expire-after-write'",
  },
  {
    key: "lookup.cache.caching-missing-key",
    type: bool,
    description: "deprecated (Flink): 'lookup.partial-cache.cache-missing-key'",
  },
];

/** What `weir run --backfill` merges a sink under (docs/data-contracts.md). */
const backfillOptions: readonly OptionSpec[] = [
  {
    key: "backfill.staging-table",
    type: str,
    description: "backfill: the staging table (default: the target's table-name + '_staging')",
  },
  {
    key: "backfill.version-column",
    type: str,
    description: "backfill: the target's version column of the merge's guard (default 'version')",
  },
  {
    key: "backfill.cutover",
    type: str,
    description: "backfill: merge only rows whose event time is before this instant (ISO-8601 with a zone)",
  },
];

/** Flink's JDBC lookup source caches NONE or PARTIAL; Weir's too. */
const FULL_CACHE_HINT =
  "use 'PARTIAL' with 'lookup.partial-cache.expire-after-write' (or 'max-rows'), or 'NONE'";

const postgresSink: SinkSpec<PostgresOptions> = {
  kind: "table",
  accepts: (_c, table) =>
    table.primaryKey
      ? { updates: true }
      : { updates: false, why: "a table without a PRIMARY KEY is written append-only" },
  upsertsByKey: true,
  delivery: (c) => c.deliveryGuarantee,
  report(c, ctx) {
    const pk = ctx.primaryKey;
    const exactlyOnce = c.deliveryGuarantee === "exactly-once";
    if (ctx.viewTable)
      return {
        severity: "info",
        code: "sink.view-table",
        message: `materialized view '${ctx.table}' upserts its own Postgres table by (${pk ?? "?"})`,
        why: "The view owns its table and is its only writer: a replay after a restore converges to the same rows.",
        fix: "Read the table as the view's current contents; write corrections elsewhere (the view rewrites its rows).",
      };
    if (pk === null && exactlyOnce)
      return exactlyOnceReport(
        `${ctx.subject} has no PRIMARY KEY: rows are INSERTed (append), exactly once`,
        "Each checkpoint's rows are inserted at its commit, in one transaction with the sink's progress row (weir_sink_progress): a restore (weir run --restore) never inserts them twice. A run started without --restore is a new job and inserts its rows again.",
        "Restart with weir run --restore; rows are visible about one checkpoint interval late.",
      );
    if (pk === null)
      return {
        severity: "warning",
        code: "sink.append-duplicates",
        message: `${ctx.subject} has no PRIMARY KEY: rows are INSERTed (append)`,
        why: "After a restart or restore the rows since the last checkpoint are inserted again: the table gets duplicate rows.",
        fix: "Declare a deterministic PRIMARY KEY (the result's grain, e.g. window_start + group keys) so that the sink upserts, or set 'sink.delivery-guarantee' = 'exactly-once' (with checkpointing).",
      };
    const version = c.versionColumn;
    if (version === null) {
      const candidates = ctx.columns.filter((col) =>
        /(^|_)(version|updated_at|event_time|watermark_at)$/i.test(col),
      );
      return {
        severity: "warning",
        code: "sink.no-version-column",
        message: `${ctx.subject} upserts by (${pk}) without 'sink.version-column'`,
        why: exactlyOnce
          ? "Exactly-once writes each checkpoint's changes once (and refuses a restore older than what it committed), but an older write from elsewhere (a backfill, a second writer) overwrites a newer row."
          : "A replay of the same changes converges, but an older write (a backfill, a restore from an older checkpoint, a second writer) overwrites a newer row.",
        fix:
          candidates.length > 0
            ? `Add 'sink.version-column' = '${candidates[0]}' to the WITH options: an older version then never overwrites a newer one.`
            : "Add a monotonic version column (an event time, a sequence) and name it in 'sink.version-column'.",
        at: "table",
      };
    }
    return {
      severity: "info",
      code: "sink.idempotent",
      message: `${ctx.subject} upserts by (${pk}), guarded by the version column '${version}'`,
      why: "A replayed or older write never overwrites a newer row: the table converges whatever is replayed.",
      fix: "Make sure the version is monotonic per key (an event time or sequence, not the wall clock of a replay).",
      at: { option: "sink.version-column", part: "key" },
    };
  },
};

/**
 * The spec of a PostgreSQL table: `postgres`, and Flink's JDBC connector name `jdbc` for the same
 * connector (with Flink's required `url` and `table-name`, and `driver` accepted).
 */
function postgresLikeSpec(name: "postgres" | "jdbc"): ConnectorSpec<PostgresOptions> {
  const jdbc = name === "jdbc";
  const urlHint = jdbc
    ? "Weir's jdbc connector speaks to PostgreSQL: jdbc:postgresql://host:port/database (or postgres://...)"
    : "postgres://user@host:port/database (or jdbc:postgresql://host:port/database)";
  return {
    name,
    ...(jdbc ? { aliasOf: "postgres" } : {}),
    options: [
      jdbc
        ? { key: "url", type: str, required: true, description: "jdbc:postgresql://host:port/db" }
        : { key: "url", type: str, description: "postgres://user@host:port/db (default: the PG* variables)" },
      jdbc
        ? { key: "table-name", type: str, required: true, description: "target table" }
        : {
            key: "table-name",
            type: str,
            description: "target table (schema.table); default the table name",
          },
      { key: "username", type: str, description: "user name" },
      { key: "password", type: str, description: "password" },
      ...(jdbc ? [{ key: "driver", type: str, description: "accepted for Flink compatibility" }] : []),
      ...sinkOptions,
      ...lookupOptions,
      ...backfillOptions,
    ],

    parse(options, ctx) {
      const { options: config, problems } = parsePostgresOptions(ctx.table.name, options, urlHint);
      // Both spellings work for both connector names (the Postgres client takes either).
      if (lookupCacheMode(options) === "FULL")
        problems.push({
          key: "lookup.cache",
          at: "value",
          message: `option 'lookup.cache' = 'FULL' is not supported for connector '${name}': Flink's JDBC lookup source caches NONE or PARTIAL, and so does Weir's`,
          hint: FULL_CACHE_HINT,
        });
      return { config, problems };
    },

    // A scan reads the table once: a bounded snapshot of its rows.
    source: { changelog: () => "insert-only", bounded: () => true },

    sink: jdbc
      ? postgresSink
      : {
          ...postgresSink,
          materializedView: {
            owned: ["sink.create-table", "sink.version-column"],
            hint: "a materialized view takes the postgres connector's 'url', 'table-name', 'username', 'password' and 'sink.buffer-flush.*' options",
            tableOptions: (view, tableName, defaultUrl) => {
              const url = view.url ?? defaultUrl;
              return {
                "table-name": view["table-name"] ?? tableName,
                "sink.create-table": "true",
                ...(url !== undefined ? { url } : {}),
              };
            },
          },
        },

    lookup: {
      describe: `'${name}'`,
      plan(_c, options, fail) {
        if (lookupCacheMode(options) === "FULL")
          fail(
            "'lookup.cache' = 'FULL' is not supported: Flink's JDBC lookup source caches NONE or PARTIAL, and so does Weir's",
            FULL_CACHE_HINT,
          );
        return { cache: partialCacheConfig(options, fail), full: null };
      },
    },

    backfill: {
      staging: {
        describe: "a Postgres table",
        options(o, table) {
          const options: Record<string, string> = { ...o, "table-name": table, "sink.create-table": "true" };
          delete options["sink.version-column"];
          // Without checkpoints (a replay runs from its start): the staging upserts converge on a re-run.
          options["sink.delivery-guarantee"] = "at-least-once";
          return options;
        },
      },
    },
  };
}

export const postgresSpec = postgresLikeSpec("postgres");
export const jdbcSpec = postgresLikeSpec("jdbc");
