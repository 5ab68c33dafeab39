export {
  BACKFILL_COLUMNS,
  type BackfillTarget,
  backfillMergedAt,
  MERGE_LOG_TABLE,
  type MergeResult,
  mergeBackfill,
  stagingTableName,
} from "./backfill.js";
export { connectPg, type PgConnect, type PgConnection, type PgParam, type PgResult } from "./client.js";
export { jdbcConnector, postgresConnector } from "./definition.js";
export {
  createPostgresLookup,
  LOOKUP_KEYS_PER_QUERY,
  type PostgresLookupDeps,
  PostgresLookupSource,
} from "./lookup.js";
export {
  formatQualifiedName,
  type PgConnectionSettings,
  type PostgresOptions,
  parsePostgresOptions,
  parseQualifiedName,
  type QualifiedName,
  readPostgresOptions,
} from "./options.js";
export { type PendingKey, type ReducedChanges, UpsertReducer } from "./reduce.js";
export { createPostgresSink, type PostgresSinkDeps, PostgresSinkWriter } from "./sink.js";
export { createPostgresSource, type PostgresSourceDeps, PostgresSourceReader } from "./source.js";
export { jdbcSpec, postgresSpec } from "./spec.js";
