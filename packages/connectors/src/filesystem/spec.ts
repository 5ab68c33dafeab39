import {
  type ConnectorSpec,
  type DeliveryGuarantee,
  deliveryGuaranteeOption,
  fullCacheConfig,
  lookupCacheMode,
  OptionReader,
  type OptionSpec,
  type OptionType,
  readDeliveryGuarantee,
  SINK_PARALLELISM_OPTION,
  type SourceChangelog,
} from "@weir/planner";
import { isBigint, isMillisLtz, isString, metadataOf } from "../metadata-types.js";
import { exactlyOnceReport } from "../sink-specs.js";

/** A `filesystem` table's options as the source, the sink, the lookup and `weir check` read them. */
export interface FilesystemConfig {
  /** `'path'`: a file or a directory (required: the catalog refuses a table without it). */
  readonly path: string | undefined;
  /** `'format'`: a line format, or `arrow` (Arrow IPC files). */
  readonly format: string | undefined;
  /** `'source.monitor-interval'` as written; unset: the source is bounded. */
  readonly monitorInterval: string | undefined;
  /** Its milliseconds (undefined: unset or not a duration). */
  readonly monitorIntervalMs: number | undefined;
  /** What the format's records carry: rows, or changes (`changelog-json`, `debezium-json`). */
  readonly changelog: SourceChangelog;
  readonly delivery: DeliveryGuarantee;
  /** `'backfill.path'`: the files a backfill replays instead of `'path'`. */
  readonly backfillPath: string | undefined;
}

const str = { kind: "string" } as const;
const duration = { kind: "duration" } as const;
const oneOf = (...values: string[]): OptionType => ({ kind: "enum", values });

/** A `filesystem` table as the dimension of a lookup join: a FULL cache (Flink's LookupOptions). */
const fullCacheOptions: OptionSpec[] = [
  {
    key: "lookup.cache",
    type: oneOf("NONE", "PARTIAL", "FULL", "none", "partial", "full"),
    description:
      "as a lookup join's dimension table: FULL (the default; the file is loaded whole into an index on the lookup keys); NONE and PARTIAL are refused",
  },
  {
    key: "lookup.full-cache.reload-strategy",
    type: oneOf("PERIODIC", "TIMED", "periodic", "timed"),
    description: "PERIODIC (default); TIMED is refused",
  },
  {
    key: "lookup.full-cache.periodic-reload.interval",
    type: duration,
    description: "reload the file every interval while the job runs (default: load it once)",
  },
  {
    key: "lookup.full-cache.periodic-reload.schedule-mode",
    type: oneOf("FIXED_DELAY", "FIXED_RATE", "fixed_delay", "fixed_rate"),
    description:
      "FIXED_DELAY (default: the interval runs from the end of a load) or FIXED_RATE (from its start)",
  },
  {
    key: "lookup.full-cache.timed-reload.iso-time",
    type: str,
    description: "TIMED reloads: refused (Weir reloads PERIODIC only)",
  },
  {
    key: "lookup.full-cache.timed-reload.interval-in-days",
    type: { kind: "int", min: 1 },
    description: "TIMED reloads: refused (Weir reloads PERIODIC only)",
  },
];

export const filesystemSpec: ConnectorSpec<FilesystemConfig> = {
  name: "filesystem",
  formats: { value: ["json", "csv", "raw", "changelog-json", "debezium-json", "arrow"] },
  options: [
    { key: "path", type: str, required: true, description: "file or directory" },
    { key: "format", type: str, required: true, description: "record format" },
    {
      key: "source.monitor-interval",
      type: duration,
      description: "unbounded: list the path again every interval and read the new files",
    },
    ...["file-size", "rollover-interval", "check-interval", "inactivity-interval"].map((k) => ({
      key: `sink.rolling-policy.${k}`,
      type: {
        kind: "refused",
        reason: "Weir's filesystem sink writes one file and does not roll part files; remove the option",
      } as const,
      description: "refused: the sink writes one file, with no rolling",
    })),
    SINK_PARALLELISM_OPTION,
    deliveryGuaranteeOption(
      "'exactly-once': output is written to a hidden in-progress file and becomes visible when its checkpoint commits",
    ),
    ...fullCacheOptions,
    { key: "backfill.path", type: str, description: "backfill: the files to replay instead of 'path'" },
  ],
  metadata: {
    "file.path": metadataOf("STRING", isString),
    "file.name": metadataOf("STRING", isString),
    "file.size": metadataOf("BIGINT", isBigint),
    "file.modification-time": metadataOf("TIMESTAMP_LTZ(3)", isMillisLtz),
  },

  parse(options, ctx) {
    const r = new OptionReader(options);
    const format = r.string("format");
    const config: FilesystemConfig = {
      path: r.string("path"),
      format,
      monitorInterval: r.string("source.monitor-interval"),
      monitorIntervalMs: r.duration("source.monitor-interval"),
      changelog: (format === undefined ? undefined : ctx.format(format)?.changelog) ?? "insert-only",
      delivery: readDeliveryGuarantee(options),
      backfillPath: r.string("backfill.path"),
    };
    const problems =
      format === "arrow" && config.monitorInterval !== undefined
        ? [
            {
              key: "source.monitor-interval",
              at: "key" as const,
              message:
                "'source.monitor-interval' is not supported with format 'arrow' (Arrow files are read bounded)",
              hint: "use a line format (json, csv, ...) to watch a directory, or leave the option out",
            },
          ]
        : [];
    return { config, problems };
  },

  source: {
    changelog: (c) => c.changelog,
    bounded: (c) => c.monitorInterval === undefined,
  },

  sink: {
    kind: "file",
    accepts: (c) =>
      c.changelog === "retract"
        ? { updates: true }
        : { updates: false, why: `format '${c.format ?? ""}' writes an append-only stream` },
    delivery: (c) => c.delivery,
    exactlyOnceProblem: (c) =>
      c.format === "arrow"
        ? "format 'arrow' has no exactly-once mode (its file is written as it goes and finished at close): use 'at-least-once' or a line format"
        : null,
    example: (table) => `'connector' = 'filesystem', 'path' = '${table}.jsonl', 'format' = 'json'`,
    report(c, ctx) {
      const lines = c.format ?? "lines";
      if (c.delivery === "exactly-once")
        return exactlyOnceReport(
          `${ctx.subject} receives ${ctx.receives} and writes them as ${lines}, exactly once: a line becomes visible when its checkpoint commits`,
          "A restore (weir run --restore) commits what the checkpoint staged and continues after the committed part, so the file never holds a line twice nor one a crash takes back. A run started without --restore truncates the file and writes it anew.",
          "Readers see output about one checkpoint interval late; keep weir run --restore for restarts (a fresh start rewrites the file).",
        );
      const arrow = c.format === "arrow";
      return {
        severity: ctx.unbounded ? "warning" : "info",
        code: "sink.file-rewritten",
        message: `${ctx.subject} receives ${ctx.receives} and writes them as ${lines}; a run started without --restore truncates the file`,
        why: arrow
          ? "A fresh run rewrites the file from the rows it processes, and a restore (weir run --restore) refuses an Arrow sink (it cannot continue the file); the file is readable only once the sink closes."
          : "A fresh run rewrites the file from the rows it processes. A restore (weir run --restore) cuts the file back to its length at the checkpoint and continues it, but until then a reader may see lines written after the last checkpoint that a crash takes back.",
        fix: arrow
          ? "For a long-running or restartable job, use a line format (with 'sink.delivery-guarantee' = 'exactly-once'), or upsert into Postgres with a PRIMARY KEY (and 'sink.version-column')."
          : "For a long-running job, set 'sink.delivery-guarantee' = 'exactly-once' (lines become visible when their checkpoint commits), or upsert into Postgres with a PRIMARY KEY (and 'sink.version-column').",
      };
    },
  },

  lookup: {
    describe: "a bounded 'filesystem' table",
    plan(c, options, fail) {
      if (c.monitorInterval !== undefined)
        fail(
          "a filesystem table with 'source.monitor-interval' is unbounded, and a lookup join loads its table whole",
          "leave 'source.monitor-interval' out; to read the files again while the job runs, set 'lookup.full-cache.periodic-reload.interval'",
        );
      if (c.changelog === "retract")
        fail(
          `format '${c.format}' reads a changelog, and a lookup join loads a table of rows`,
          "read the changelog as a versioned table (PRIMARY KEY and WATERMARK) and join it FOR SYSTEM_TIME AS OF an event-time column, or store the table's rows in a json / csv file",
        );
      // A file cannot be queried by key: it is loaded whole ('lookup.cache' may say so, or be left out).
      const mode = lookupCacheMode(options);
      if (mode !== "" && mode !== "FULL")
        fail(
          `'lookup.cache' = '${mode}' is not supported for a filesystem table: a file cannot be queried by key, so a lookup join loads it whole into a FULL cache`,
          "leave 'lookup.cache' out, or set it to 'FULL'",
        );
      return { cache: null, full: fullCacheConfig(options, fail) };
    },
  },

  backfill: {
    replay: {
      describe: "files ('backfill.path')",
      options(c, options, table) {
        if (c.backfillPath === undefined)
          return {
            problem: `source table '${table}' has no replay input: set 'backfill.path' to the files to replay (a backfill never reads the realtime input '${c.path}')`,
          };
        return { options: { ...options, path: c.backfillPath } };
      },
    },
  },
};
