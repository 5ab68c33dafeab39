-- What: Operations. An unbounded Kafka job with checkpointing off: a crash loses its state and
--   positions.
CREATE TABLE events (event_id STRING, kind STRING, PRIMARY KEY (event_id) NOT ENFORCED)
WITH ('connector' = 'upsert-kafka', 'topic' = 'events', 'properties.bootstrap.servers' = '127.0.0.1:9',
  'key.format' = 'json', 'value.format' = 'json');

CREATE TABLE events_copy (event_id STRING, kind STRING, PRIMARY KEY (event_id) NOT ENFORCED)
WITH ('connector' = 'upsert-kafka', 'topic' = 'events-copy', 'properties.bootstrap.servers' = '127.0.0.1:9',
  'key.format' = 'json', 'value.format' = 'json');

INSERT INTO events_copy SELECT event_id, kind FROM events;

-- Expected findings of weir check (severity, code, line:column; '-' for a job-wide one):
-- expect: info source.primary-key 11:52
-- expect: warning state.unbounded 11:52
-- expect: info sink.idempotent 11:1
-- expect: warning operations.no-checkpointing -
-- expect: info operations.metrics -
-- expect: info sink.no-trust-columns 7:1
