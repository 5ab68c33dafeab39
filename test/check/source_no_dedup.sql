-- What: Source. Order events from Kafka are summed per store without deduplication: a
--   producer retry that re-sends an event counts it twice.
CREATE TABLE orders (
  event_id STRING,
  store_id STRING,
  amount DECIMAL(18, 2),
  paid_at TIMESTAMP_LTZ(3),
  WATERMARK FOR paid_at AS paid_at - INTERVAL '1' MINUTE
) WITH (
  'connector' = 'kafka',
  'topic' = 'orders',
  'properties.bootstrap.servers' = '127.0.0.1:9',
  'scan.watermark.idle-timeout' = '30 s',
  'format' = 'json'
);

SET 'execution.checkpointing.interval' = '10 s';
SET 'execution.checkpointing.dir' = 'out/checkpoints/source_no_dedup';

CREATE TABLE revenue (
  window_start TIMESTAMP(3), store_id STRING, revenue DECIMAL(18, 2), updated_at TIMESTAMP_LTZ(3),
  PRIMARY KEY (window_start, store_id) NOT ENFORCED
) WITH (
  'connector' = 'jdbc', 'url' = 'jdbc:postgresql://127.0.0.1:5432/test', 'table-name' = 'revenue',
  'sink.version-column' = 'updated_at'
);

INSERT INTO revenue
SELECT window_start, store_id, CAST(SUM(amount) AS DECIMAL(18, 2)), MAX(paid_at)
FROM TABLE(TUMBLE(TABLE orders, DESCRIPTOR(paid_at), INTERVAL '1' MINUTE))
GROUP BY window_start, window_end, store_id;

-- Expected findings of weir check (severity, code, line:column; '-' for a job-wide one):
-- expect: warning source.no-dedup 30:25
-- expect: info time.watermark-delay 8:3
-- expect: info time.late-data-dropped 29:1
-- expect: info sink.idempotent 25:3
-- expect: info operations.checkpointing 17:1
-- expect: info operations.metrics -
-- expect: warning time.no-timestamp-rules 3:1
-- expect: info source.no-replay-topic 3:1
