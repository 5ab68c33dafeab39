-- What: Sink. A Postgres upsert sink without 'sink.version-column': a replay converges, but an
--   older write (a backfill, a restore from an older checkpoint) overwrites a newer row,
--   although the table has an updated_at column that could guard it.
SET 'table.exec.state.ttl' = '7 d';
SET 'execution.checkpointing.interval' = '1 min';
SET 'execution.checkpointing.dir' = 'out/checkpoints/sink_upsert_without_version';

CREATE TABLE balances (account STRING, delta DECIMAL(18, 2), PRIMARY KEY (account) NOT ENFORCED)
WITH ('connector' = 'upsert-kafka', 'topic' = 'balances', 'properties.bootstrap.servers' = '127.0.0.1:9',
  'key.format' = 'json', 'value.format' = 'json');

CREATE TABLE balance_copy (account STRING, delta DECIMAL(18, 2), updated_at TIMESTAMP_LTZ(3),
  PRIMARY KEY (account) NOT ENFORCED)
WITH ('connector' = 'jdbc', 'url' = 'jdbc:postgresql://127.0.0.1:5432/test', 'table-name' = 'balance_copy');

INSERT INTO balance_copy SELECT account, delta, CURRENT_TIMESTAMP FROM balances;

-- Expected findings of weir check (severity, code, line:column; '-' for a job-wide one):
-- expect: info source.primary-key 16:72
-- expect: info state.ttl 16:72
-- expect: warning sink.no-version-column 12:1
-- expect: info operations.checkpointing 5:1
-- expect: info operations.metrics -
