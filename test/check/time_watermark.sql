-- What: Time. A Kafka table whose watermark is the event time itself (zero delay: every
--   out-of-order row is late) and that has no idle timeout (an empty partition stalls it);
--   the window aggregation drops late rows.
SET 'execution.checkpointing.interval' = '10 s';
SET 'execution.checkpointing.dir' = 'out/checkpoints/time_watermark';

CREATE TABLE clicks (
  event_id STRING,
  url STRING,
  click_time TIMESTAMP(3),
  WATERMARK FOR click_time AS click_time
) WITH (
  'connector' = 'kafka',
  'topic' = 'clicks',
  'properties.bootstrap.servers' = '127.0.0.1:9',
  'format' = 'json'
);

CREATE TABLE clicks_per_url (window_start TIMESTAMP(3), url STRING, clicks BIGINT,
  PRIMARY KEY (window_start, url) NOT ENFORCED)
WITH ('connector' = 'upsert-kafka', 'topic' = 'clicks-per-url', 'properties.bootstrap.servers' = '127.0.0.1:9',
  'key.format' = 'json', 'value.format' = 'json');

INSERT INTO clicks_per_url
SELECT window_start, url, COUNT(*)
FROM TABLE(TUMBLE(TABLE clicks, DESCRIPTOR(click_time), INTERVAL '1' MINUTE))
GROUP BY window_start, window_end, url;

-- Expected findings of weir check (severity, code, line:column; '-' for a job-wide one):
-- expect: warning source.no-dedup 26:25
-- expect: warning time.watermark-zero-delay 11:3
-- expect: warning time.no-idle-timeout 7:1
-- expect: info time.late-data-dropped 25:1
-- expect: info sink.idempotent 24:1
-- expect: info operations.checkpointing 4:1
-- expect: info operations.metrics -
-- expect: info time.no-time-zone 11:3
-- expect: info sink.no-trust-columns 19:1
-- expect: warning time.no-timestamp-rules 7:1
-- expect: info source.no-replay-topic 7:1
