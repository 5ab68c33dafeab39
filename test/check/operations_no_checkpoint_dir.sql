-- What: Operations. A checkpoint interval without a directory: weir run refuses it.
SET 'execution.checkpointing.interval' = '30 s';

CREATE TABLE events (event_id STRING, kind STRING, PRIMARY KEY (event_id) NOT ENFORCED)
WITH ('connector' = 'upsert-kafka', 'topic' = 'events', 'properties.bootstrap.servers' = '127.0.0.1:9',
  'key.format' = 'json', 'value.format' = 'json');

CREATE TABLE events_copy (event_id STRING, kind STRING, PRIMARY KEY (event_id) NOT ENFORCED)
WITH ('connector' = 'upsert-kafka', 'topic' = 'events-copy', 'properties.bootstrap.servers' = '127.0.0.1:9',
  'key.format' = 'json', 'value.format' = 'json');

INSERT INTO events_copy SELECT event_id, kind FROM events;

-- Expected findings of weir check (severity, code, line:column; '-' for a job-wide one):
-- expect: info source.primary-key 12:52
-- expect: warning state.unbounded 12:52
-- expect: info sink.idempotent 12:1
-- expect: error operations.no-checkpoint-dir 2:1
-- expect: info operations.metrics -
-- expect: info sink.no-trust-columns 8:1
