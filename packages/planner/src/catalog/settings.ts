import { parseDuration } from "./durations.js";

/**
 * What `SET 'key' = 'value'` (and `--set key=value`) may change. A key Weir reads has a check of
 * its value, run at `SET` time so that a bad value is reported where it is written, not when a
 * later query fails. A Flink key whose feature Weir does not have is refused (for every value,
 * or for every value but the one Weir does: never accepted and ignored). Any other key is
 * accepted with a warning: it reaches the job's settings, but nothing reads it.
 */
export interface SettingProblem {
  readonly severity: "error" | "warning";
  readonly message: string;
  readonly hint?: string;
  /** Which half of the statement the problem is about (where the caret goes). */
  readonly at: "key" | "value";
}

type ValueCheck = (value: string) => string | undefined;

const duration: ValueCheck = (v) =>
  parseDuration(v) === undefined ? "expects a duration such as '10 s', '5 min' or '24 h'" : undefined;

const oneOf =
  (...values: string[]): ValueCheck =>
  (v) =>
    values.includes(v.trim().toLowerCase())
      ? undefined
      : `expects one of ${values.map((x) => `'${x}'`).join(", ")}`;

const boolean = oneOf("true", "false");

/** Flink's zone ids: `UTC`, an offset (`+09:00`, `GMT-5`), or an IANA name (`Asia/Seoul`). */
const timeZone: ValueCheck = (v) => {
  const id = v.trim();
  if (/^(?:UTC|GMT|UT|Z)?\s*[+-]\d{1,2}(?::?\d{2})?$/i.test(id) || /^(UTC|GMT|UT|Z|Etc\/UTC)$/i.test(id))
    return undefined;
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: id });
    return undefined;
  } catch {
    return "expects a time zone: an IANA name such as 'Asia/Seoul' or 'Europe/Berlin', 'UTC', or an offset such as '+09:00'";
  }
};

/** Only the value Weir implements (the key is Flink's; another value would be ignored). */
const only =
  (value: string, why: string): ValueCheck =>
  (v) =>
    v.trim().toLowerCase() === value.toLowerCase() ? undefined : `only '${value}' is supported: ${why}`;

const positiveInteger: ValueCheck = (v) =>
  /^\s*[1-9]\d*\s*$/.test(v) ? undefined : "expects a positive integer";

const port: ValueCheck = (v) => {
  const n = Number(v.trim());
  return v.trim() !== "" && Number.isInteger(n) && n >= 0 && n <= 65535
    ? undefined
    : "expects a port number (0..65535; 0 picks a free port)";
};

/** A fraction: 0 < value <= 1 (e.g. '0.01' for 1 %). */
const ratio: ValueCheck = (v) => {
  const n = Number(v.trim());
  return v.trim() !== "" && Number.isFinite(n) && n > 0 && n <= 1
    ? undefined
    : "expects a fraction above 0 and at most 1, such as '0.01' for 1 %";
};

const nonEmptyHost: ValueCheck = (v) =>
  /^[\w.:-]+$/.test(v.trim())
    ? undefined
    : "expects a host name or address to listen on, such as '127.0.0.1' or '0.0.0.0'";

const nonEmpty: ValueCheck = (v) => (v.trim() === "" ? "expects a path" : undefined);
const anything: ValueCheck = () => undefined;

/** The settings Weir reads (or, with `only`, the Flink settings whose one value Weir implements). */
const KNOWN: Readonly<Record<string, ValueCheck>> = {
  "table.local-time-zone": timeZone,
  "table.exec.state.ttl": duration,
  "table.exec.source.idle-timeout": duration,
  "execution.checkpointing.interval": duration,
  "execution.checkpointing.dir": nonEmpty,
  "execution.checkpointing.num-retained": positiveInteger,
  "state.checkpoints.num-retained": positiveInteger,
  "state.checkpoints.dir": nonEmpty,
  "execution.checkpointing.savepoint-dir": nonEmpty,
  "state.savepoints.dir": nonEmpty,
  "execution.state-recovery.path": nonEmpty,
  "execution.savepoint.path": nonEmpty,
  "execution.state-recovery.claim-mode": only(
    "NO_CLAIM",
    "Weir never takes ownership of the checkpoint or savepoint it restores (it neither deletes nor changes it)",
  ),
  "execution.state-recovery.ignore-unclaimed-state": only(
    "false",
    "a restore whose checkpoint holds state that no operator of the job claims is refused (start the changed query without the checkpoint)",
  ),
  "execution.checkpointing.timeout": duration,
  "execution.checkpointing.min-pause": duration,
  "execution.checkpointing.mode": (v) =>
    ["EXACTLY_ONCE", "AT_LEAST_ONCE"].includes(v.trim())
      ? undefined
      : "expects 'EXACTLY_ONCE' (aligned barriers) or 'AT_LEAST_ONCE'",
  "execution.checkpointing.max-concurrent-checkpoints": only("1", "Weir takes one checkpoint at a time"),
  "state.backend.type": (v) =>
    ["hashmap", "memory", "rocksdb", "disk", "lmdb"].includes(v.trim().toLowerCase())
      ? undefined
      : "is not a state backend this Weir has: use 'hashmap' (state in memory; 'memory' is an alias) or 'rocksdb' (state on local disk, larger than memory; 'disk' and 'lmdb' are aliases)",
  "execution.checkpointing.incremental": boolean,
  "state.backend.incremental": boolean,
  "state.backend.rocksdb.localdir": nonEmpty,
  "weir.state.cache-entries": positiveInteger,
  "weir.state.cache-bytes": positiveInteger,
  "weir.state.incremental.max-deltas": positiveInteger,
  "sql-client.execution.result-mode": oneOf("table", "changelog", "tableau"),
  "execution.runtime-mode": only("streaming", "Weir runs every query as a streaming job"),
  "table.exec.mini-batch.enabled": only("false", "Weir has no mini-batch aggregation"),
  "table.exec.sink.not-null-enforcer": (v) =>
    ["ERROR", "DROP"].includes(v.trim().toUpperCase())
      ? undefined
      : "expects 'ERROR' (a NULL in a NOT NULL sink column fails the job) or 'DROP' (the change is dropped)",
  "table.exec.sink.upsert-materialize": only(
    "AUTO",
    "Weir has no setting to force or forbid an upsert materializer",
  ),
  "parallelism.default": only("1", "Weir runs each job in one thread (parallelism 1)"),
  "table.exec.resource.default-parallelism": (v) =>
    ["1", "-1"].includes(v.trim())
      ? undefined
      : "only '1' (or '-1', the default) is supported: Weir runs each job in one thread (parallelism 1)",
  "pipeline.name": anything,
  // Lookup joins: requests in flight, their timeout, and whether results keep the input order.
  "table.exec.async-lookup.buffer-capacity": positiveInteger,
  "table.exec.async-lookup.timeout": duration,
  "table.exec.async-lookup.output-mode": (v) =>
    ["ORDERED", "ALLOW_UNORDERED"].includes(v.trim().toUpperCase())
      ? undefined
      : "expects 'ORDERED' (results in input order, the default) or 'ALLOW_UNORDERED'",
  // Early firing of rowtime window aggregations: provisional results before the window closes.
  "table.exec.emit.early-fire.enabled": boolean,
  "table.exec.emit.early-fire.delay": duration,
  "weir.mv.serve": boolean,
  "weir.mv.port": port,
  "weir.metrics.port": port,
  "weir.metrics.host": nonEmptyHost,
  "weir.ui.port": port,
  "weir.ui.host": nonEmptyHost,
  "weir.alarm.watermark-lag": duration,
  "weir.alarm.late-ratio": ratio,
  "weir.alarm.checkpoint-failures": positiveInteger,
  "weir.alarm.split-idle": duration,
};

/** Flink settings of features Weir does not have: refused for any value. */
const UNSUPPORTED: readonly {
  readonly match: (key: string) => boolean;
  readonly why: string;
  readonly hint?: string;
}[] = [
  {
    match: (k) => k.startsWith("state.backend"),
    why: "Weir's state backends read 'state.backend.type', 'state.backend.incremental' and 'state.backend.rocksdb.localdir' only (Weir's on-disk backend is LMDB, not RocksDB: its tuning options do not apply)",
  },
  {
    match: (k) => k === "sink.parallelism",
    why: "it is a table option in Flink, and Weir runs each job with parallelism 1",
  },
  {
    match: (k) =>
      k === "execution.checkpointing.tolerable-failed-checkpoints" ||
      k === "execution.checkpointing.unaligned" ||
      k === "execution.checkpointing.unaligned.enabled",
    why: "Weir's checkpoints are aligned; a checkpoint that times out is aborted and the next one is tried",
  },
  {
    // Flink's emit strategy of group windows: allowed lateness and late firing.
    match: (k) => k === "table.exec.emit.allow-lateness" || k.startsWith("table.exec.emit.late-fire."),
    why: "Weir chooses how late rows are handled per source table, not per job: 'late.policy' = 'update' or 'retract' with 'late.allowed-lateness' keeps a window's state that long after its end and corrects the result for each late row",
    hint: "add WITH ('late.policy' = 'update', 'late.allowed-lateness' = '3 min') to the source table (see docs/time-and-watermarks.md, Late data)",
  },
  {
    match: (k) => k.startsWith("table.exec.emit."),
    why: "it is not implemented yet: a window's result is emitted once, when the watermark passes the window's end",
    hint: "for corrected results after the window's end, see the table option 'late.policy' (docs/time-and-watermarks.md, Late data)",
  },
  {
    match: (k) => k.startsWith("restart-strategy"),
    why: "Weir does not restart a failed job (restart it with weir run --restore)",
  },
];

/** The keys Weir reads, for completion and did-you-mean hints. */
export const KNOWN_SETTINGS: readonly string[] = Object.keys(KNOWN).sort();

/** The problem with `SET 'key' = 'value'`, or undefined when Weir honours it. */
export function checkSetting(key: string, value: string): SettingProblem | undefined {
  const check = KNOWN[key];
  if (check !== undefined) {
    const why = check(value);
    return why === undefined
      ? undefined
      : { severity: "error", message: `'${key}' ${why}, got '${value}'`, at: "value" };
  }
  for (const u of UNSUPPORTED) {
    if (u.match(key))
      return {
        severity: "error",
        message: `setting '${key}' is not supported: ${u.why}`,
        at: "key",
        ...(u.hint ? { hint: u.hint } : {}),
      };
  }
  const near = closest(key, KNOWN_SETTINGS);
  return {
    severity: "warning",
    message: `unknown setting '${key}': Weir does not read it (it is kept, and shown by SET;)`,
    at: "key",
    hint: near
      ? `did you mean '${near}'?`
      : "the settings Weir reads are listed in docs/reference/sql.md (SET and RESET)",
  };
}

function closest(word: string, candidates: readonly string[]): string | undefined {
  const { best, distance } = nearest(word, candidates);
  return distance <= Math.max(1, Math.floor(word.length / 6)) ? best : undefined;
}

/**
 * The candidate nearest to `word` by edit distance, ignoring case (the first of equals), and
 * its distance: what did-you-mean hints offer when the distance is small for the word.
 */
export function nearest(word: string, candidates: readonly string[]): { best?: string; distance: number } {
  let best: string | undefined;
  let distance = Number.POSITIVE_INFINITY;
  const w = word.toLowerCase();
  for (const c of candidates) {
    const d = editDistance(w, c.toLowerCase());
    if (d < distance) {
      distance = d;
      best = c;
    }
  }
  return best === undefined ? { distance } : { best, distance };
}

/** Levenshtein distance between `a` and `b` (for did-you-mean hints). */
export function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++)
      cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = cur;
  }
  return prev[b.length]!;
}
