-- What: Time. Order events from Kafka with the seeds' timestamp contract: rows dated more than a
--   day ahead, paid_at without a zone, or produced before they were paid go to a quarantine
--   topic. The producers' retries are not deduplicated (the warning of this script), and the
--   clicks table states rules but has no quarantine: a bad row fails the job.
CREATE TABLE orders (
  event_id STRING,
  store_id STRING,
  amount DECIMAL(18, 2),
  paid_at STRING,
  produced_at STRING,
  paid_time AS TO_TIMESTAMP_LTZ(UNIX_TIMESTAMP(paid_at, 'yyyy-MM-dd''T''HH:mm:ssXXX') * 1000, 3),
  WATERMARK FOR paid_time AS paid_time - INTERVAL '1' MINUTE
) WITH (
  'connector' = 'kafka',
  'topic' = 'orders',
  'properties.bootstrap.servers' = '127.0.0.1:9',
  'scan.watermark.idle-timeout' = '30 s',
  'format' = 'json',
  'quality.max-future-skew' = '24 h',
  'quality.require-zone' = 'true',
  'quality.check.produced_after_paid' = 'produced_at >= paid_at',
  'quality.quarantine' = 'orders_quarantine'
);

CREATE TABLE orders_quarantine (rule STRING, reason STRING, position STRING, raw STRING) WITH (
  'connector' = 'kafka', 'topic' = 'orders-quarantine', 'properties.bootstrap.servers' = '127.0.0.1:9',
  'format' = 'json'
);

CREATE TABLE clicks (
  click_id STRING,
  click_time TIMESTAMP_LTZ(3),
  WATERMARK FOR click_time AS click_time - INTERVAL '5' SECOND
) WITH (
  'connector' = 'filesystem', 'path' = 'clicks.jsonl', 'format' = 'json',
  'quality.max-future-skew' = '1 h'
);

SET 'execution.checkpointing.interval' = '10 s';
SET 'execution.checkpointing.dir' = 'out/checkpoints/time_quality';

CREATE TABLE revenue (
  window_start TIMESTAMP(3), store_id STRING, revenue DECIMAL(18, 2), updated_at TIMESTAMP_LTZ(3),
  PRIMARY KEY (window_start, store_id) NOT ENFORCED
) WITH (
  'connector' = 'jdbc', 'url' = 'jdbc:postgresql://127.0.0.1:5432/test', 'table-name' = 'revenue',
  'sink.version-column' = 'updated_at'
);

CREATE TABLE click_counts (window_start TIMESTAMP(3), n BIGINT) WITH ('connector' = 'print');

INSERT INTO revenue
SELECT window_start, store_id, CAST(SUM(amount) AS DECIMAL(18, 2)), MAX(paid_time)
FROM TABLE(TUMBLE(TABLE orders, DESCRIPTOR(paid_time), INTERVAL '1' MINUTE))
GROUP BY window_start, window_end, store_id;

INSERT INTO click_counts
SELECT window_start, COUNT(*)
FROM TABLE(TUMBLE(TABLE clicks, DESCRIPTOR(click_time), INTERVAL '1' MINUTE))
GROUP BY window_start, window_end;

-- Expected findings of weir check (severity, code, line:column; '-' for a job-wide one):
-- expect: warning source.no-dedup 54:25
-- expect: info time.watermark-delay 12:3
-- expect: info time.quality-quarantine 5:1
-- expect: info source.no-dedup 59:25
-- expect: info time.watermark-delay 33:3
-- expect: info time.quality-no-quarantine 30:1
-- expect: info time.late-data-dropped 53:1
-- expect: info sink.idempotent 47:3
-- expect: info time.late-data-dropped 58:1
-- expect: info sink.not-durable 57:1
-- expect: warning sink.at-least-once 25:1
-- expect: info operations.checkpointing 39:1
-- expect: info operations.metrics -
-- expect: info source.no-replay-topic 5:1
