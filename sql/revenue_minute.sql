-- What: the seeds' revenue pipeline, end to end on a checked-in file. Order-paid events
--   (sql/data/order_paid.jsonl: 3 stores, ~6 minutes, out of order, with producer-retry
--   duplicates and a few late events) are deduplicated by event_id, then summed per store and
--   currency in 1-minute event-time tumbling windows in Korean time (KST), and upserted by
--   (window_start, store_id, currency) into out/revenue_minute.jsonl.
--   Things to look for in the output:
--   - duplicates re-sent by a producer retry count once (source_event_count);
--   - a split payment (two events, one order) gives order_count < source_event_count;
--   - USD amounts such as 0.10 + 0.20 sum exactly to 0.30 (DECIMAL, not floating point);
--   - events that arrive after the watermark (max paid time - 2 minutes) has passed the end of
--     their window are late and are dropped by the window aggregation.
-- Run: weir run sql/revenue_minute.sql
-- The production form (Kafka in, Postgres out) is sql/revenue_minute_kafka_postgres.sql.

-- Windows and TIMESTAMP_LTZ values are interpreted in this zone: 1-minute windows in KST.
SET 'table.local-time-zone' = 'Asia/Seoul';

-- Deduplication keeps one row per event_id for this long. It is a correctness policy (how long
-- a producer retry can still be recognised), not a memory knob.
SET 'table.exec.state.ttl' = '24 h';

-- paid_at and produced_at arrive as ISO-8601 strings with an offset (+09:00); paid_time is the
-- instant they denote, and the event time of the pipeline.
CREATE TABLE order_paid (
  event_id STRING,
  event_type STRING,
  event_version INT,
  order_id STRING,
  store_id STRING,
  amount DECIMAL(18, 2),
  currency STRING,
  paid_at STRING,
  produced_at STRING,
  paid_time AS TO_TIMESTAMP_LTZ(UNIX_TIMESTAMP(paid_at, 'yyyy-MM-dd''T''HH:mm:ssXXX') * 1000, 3),
  proc_time AS PROCTIME(),
  WATERMARK FOR paid_time AS paid_time - INTERVAL '2' MINUTE
) WITH (
  'connector' = 'filesystem',
  'path' = 'sql/data/order_paid.jsonl',
  'format' = 'json'
);

-- Keep the first copy of each event (producer retries re-send the same event_id).
CREATE TEMPORARY VIEW order_paid_dedup AS
SELECT event_id, order_id, store_id, amount, currency, paid_time
FROM (
  SELECT *,
    ROW_NUMBER() OVER (PARTITION BY event_id ORDER BY proc_time ASC) AS row_num
  FROM order_paid
  WHERE event_type = 'OrderPaid'
)
WHERE row_num = 1;

CREATE TABLE revenue_minute (
  window_start TIMESTAMP(3) NOT NULL,
  window_end TIMESTAMP(3) NOT NULL,
  store_id STRING NOT NULL,
  currency STRING NOT NULL,
  order_count BIGINT NOT NULL,
  revenue_amount DECIMAL(18, 2) NOT NULL,
  source_event_count BIGINT NOT NULL,
  PRIMARY KEY (window_start, store_id, currency) NOT ENFORCED
) WITH (
  'connector' = 'filesystem',
  'path' = 'out/revenue_minute.jsonl',
  'format' = 'json'
);

INSERT INTO revenue_minute
SELECT
  window_start,
  window_end,
  store_id,
  currency,
  COUNT(DISTINCT order_id) AS order_count,
  CAST(SUM(amount) AS DECIMAL(18, 2)) AS revenue_amount,
  COUNT(*) AS source_event_count
FROM TABLE(
  TUMBLE(TABLE order_paid_dedup, DESCRIPTOR(paid_time), INTERVAL '1' MINUTE))
GROUP BY window_start, window_end, store_id, currency;
