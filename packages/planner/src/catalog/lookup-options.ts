import type { LookupConfig } from "../physical.js";
import type { LookupFail, Options } from "./connector-spec.js";
import { parseDuration } from "./durations.js";

/**
 * Flink's `LookupOptions` (`'lookup.cache'` and the `'lookup.partial-cache.*'` /
 * `'lookup.full-cache.*'` families), read for a lookup spec's `plan`: which cache a dimension
 * table gets is the connector's choice, what the options mean is Flink's. Names and value types
 * were checked with the table's other options; what is refused here is a combination that
 * would be ignored.
 */

/** `'lookup.cache'`, upper case ('' when unset). */
export function lookupCacheMode(o: Options): string {
  return (o["lookup.cache"] ?? "").trim().toUpperCase();
}

/**
 * A table queried by key (Flink's JDBC lookup source): `'lookup.cache'` = 'PARTIAL' with the
 * `'lookup.partial-cache.*'` options, NONE (the default: every probe row queries the table), or
 * Flink's deprecated `'lookup.cache.max-rows'` + `'lookup.cache.ttl'` (still a PARTIAL cache
 * when `'lookup.cache'` is not set). Partial-cache options without a PARTIAL cache would be
 * ignored, so they are refused. A 'FULL' mode is the caller's to refuse or to build.
 */
export function partialCacheConfig(o: Options, fail: LookupFail): LookupConfig["cache"] {
  const mode = lookupCacheMode(o);
  const partial = mode === "PARTIAL";
  const partialKeys = Object.keys(o).filter((k) => k.startsWith("lookup.partial-cache."));
  const legacyKeys = Object.keys(o).filter((k) => k.startsWith("lookup.cache."));
  if (!partial && partialKeys.length > 0)
    fail(
      `'${partialKeys[0]}' has no effect without a PARTIAL cache`,
      "add 'lookup.cache' = 'PARTIAL' to the table's options, or remove the option",
    );
  if (partial && legacyKeys.length > 0)
    fail(
      `'${legacyKeys[0]}' is Flink's deprecated spelling and cannot be mixed with 'lookup.cache' = 'PARTIAL'`,
      "use 'lookup.partial-cache.max-rows', 'lookup.partial-cache.expire-after-write' and 'lookup.partial-cache.cache-missing-key'",
    );
  // Without 'lookup.cache' = 'PARTIAL', the deprecated spelling: 'lookup.cache.max-rows' + 'lookup.cache.ttl'.
  const maxRows = lookupInt(o, partial ? "lookup.partial-cache.max-rows" : "lookup.cache.max-rows", 1, fail);
  const write = lookupMs(o, partial ? "lookup.partial-cache.expire-after-write" : "lookup.cache.ttl", fail);
  const access = partial ? lookupMs(o, "lookup.partial-cache.expire-after-access", fail) : null;
  if (partial && maxRows === null && write === null && access === null)
    fail(
      "a PARTIAL cache needs at least one of 'lookup.partial-cache.max-rows', 'lookup.partial-cache.expire-after-write', 'lookup.partial-cache.expire-after-access' (as in Flink)",
    );
  if (!partial && (mode !== "" || (maxRows === null && write === null))) {
    if (legacyKeys.length > 0)
      fail(
        `'${legacyKeys[0]}' has no effect with 'lookup.cache' = 'NONE'`,
        "remove the option, or use 'lookup.cache' = 'PARTIAL' with the 'lookup.partial-cache.*' options",
      );
    return null;
  }
  if (!partial && (maxRows === null || write === null))
    fail(
      "Flink's deprecated cache options need both 'lookup.cache.max-rows' and 'lookup.cache.ttl'",
      "better: 'lookup.cache' = 'PARTIAL' with 'lookup.partial-cache.max-rows' and 'lookup.partial-cache.expire-after-write'",
    );
  const missingKey =
    o[partial ? "lookup.partial-cache.cache-missing-key" : "lookup.cache.caching-missing-key"];
  return {
    maxRows,
    expireAfterWriteMs: write,
    expireAfterAccessMs: access,
    cacheMissingKey: missingKey === undefined ? true : missingKey.trim().toLowerCase() === "true",
  };
}

/**
 * A FULL cache (Flink's LookupOptions): the table is loaded whole into an index on the lookup
 * keys. Reloads: PERIODIC with `'lookup.full-cache.periodic-reload.interval'` (FIXED_DELAY or
 * FIXED_RATE); without an interval the table is loaded once (at open, and again on restore).
 * TIMED reloads are refused. `'lookup.cache'` is the caller's to check.
 */
export function fullCacheConfig(o: Options, fail: LookupFail): NonNullable<LookupConfig["full"]> {
  const strategy = (o["lookup.full-cache.reload-strategy"] ?? "PERIODIC").trim().toUpperCase();
  if (strategy === "TIMED")
    fail(
      "'lookup.full-cache.reload-strategy' = 'TIMED' is not supported: Weir reloads a FULL cache PERIODIC only",
      "use 'lookup.full-cache.periodic-reload.interval' (e.g. '1 h'), or leave the reload options out to load the file once",
    );
  const timed = Object.keys(o).find((key) => key.startsWith("lookup.full-cache.timed-reload."));
  if (timed !== undefined)
    fail(
      `'${timed}' has no effect without the TIMED reload strategy, which Weir does not support`,
      "use 'lookup.full-cache.periodic-reload.interval', or remove the option",
    );
  const interval = lookupMs(o, "lookup.full-cache.periodic-reload.interval", fail);
  if (interval !== null && interval <= 0)
    fail(
      `'lookup.full-cache.periodic-reload.interval' = '${o["lookup.full-cache.periodic-reload.interval"]}' is not a positive duration`,
    );
  const schedule = o["lookup.full-cache.periodic-reload.schedule-mode"];
  if (schedule !== undefined && interval === null)
    fail(
      "'lookup.full-cache.periodic-reload.schedule-mode' has no effect without 'lookup.full-cache.periodic-reload.interval'",
      "set the interval, or remove the option",
    );
  const fixedRate = (schedule ?? "FIXED_DELAY").trim().toUpperCase() === "FIXED_RATE";
  return { reloadIntervalMs: interval, fixedRate };
}

/** A duration option (or setting) in ms; null when unset. */
export function lookupMs(o: Options, key: string, fail: LookupFail): number | null {
  const text = o[key];
  if (text === undefined) return null;
  const v = parseDuration(text);
  if (v === undefined) fail(`'${key}' = '${text}' is not a duration`, "e.g. '10 min', '30 s'");
  return v!;
}

/** An integer option (or setting) of at least `min`; null when unset. */
export function lookupInt(o: Options, key: string, min: number, fail: LookupFail): number | null {
  const text = o[key];
  if (text === undefined) return null;
  const n = Number(text.trim());
  if (!Number.isInteger(n) || n < min) fail(`'${key}' = '${text}' is not an integer >= ${min}`);
  return n;
}
