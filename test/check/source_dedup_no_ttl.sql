-- What: Source and State. Kafka events are deduplicated by event_id, but without
--   'table.exec.state.ttl': every event_id ever seen stays in state for the life of the job.
CREATE TABLE events (
  event_id STRING,
  user_id STRING,
  action STRING,
  event_time TIMESTAMP_LTZ(3),
  proc_time AS PROCTIME(),
  WATERMARK FOR event_time AS event_time - INTERVAL '30' SECOND
) WITH (
  'connector' = 'kafka',
  'topic' = 'events',
  'properties.bootstrap.servers' = '127.0.0.1:9',
  'scan.watermark.idle-timeout' = '30 s',
  'format' = 'json'
);

CREATE TABLE actions (user_id STRING, action STRING, event_time TIMESTAMP_LTZ(3),
  PRIMARY KEY (user_id) NOT ENFORCED)
WITH ('connector' = 'upsert-kafka', 'topic' = 'actions', 'properties.bootstrap.servers' = '127.0.0.1:9',
  'key.format' = 'json', 'value.format' = 'json');

INSERT INTO actions
SELECT user_id, action, event_time
FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY event_id ORDER BY proc_time ASC) AS rn
  FROM events
)
WHERE rn = 1;

-- Expected findings of weir check (severity, code, line:column; '-' for a job-wide one):
-- expect: info source.deduplicated 29:7
-- expect: info time.watermark-delay 9:3
-- expect: warning state.unbounded 29:7
-- expect: info sink.idempotent 23:1
-- expect: warning operations.no-checkpointing -
-- expect: info operations.metrics -
-- expect: info sink.no-trust-columns 18:1
-- expect: warning time.no-timestamp-rules 3:1
-- expect: info source.no-replay-topic 3:1
