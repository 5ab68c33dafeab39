-- What: the demo. Order-paid events from scripts/demo/generate-orders.mjs (with producer-retry
--   duplicates, out-of-order and late events) are deduplicated by event_id and summed per
--   store and currency in 1-minute event-time windows (KST), into the materialised view
--   revenue_minute, kept in an embedded Postgres that psql can query.
-- Run: scripts/demo.sh   (or, with the data generated: weir run scripts/demo/revenue_mv.sql)

SET 'table.local-time-zone' = 'Asia/Seoul';
SET 'table.exec.state.ttl' = '24 h';

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
  'path' = 'out/demo/orders.jsonl',
  'format' = 'json'
);

-- A producer retry re-sends the same event_id: keep the first copy.
CREATE TEMPORARY VIEW order_paid_dedup AS
SELECT event_id, order_id, store_id, amount, currency, paid_time
FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY event_id ORDER BY proc_time ASC) AS row_num
  FROM order_paid
  WHERE event_type = 'OrderPaid'
)
WHERE row_num = 1;

-- Kept in a Postgres table of the same name, keyed by (window_start, window_end, store_id,
-- currency): the query's unique key.
CREATE MATERIALIZED VIEW revenue_minute AS
SELECT
  window_start,
  window_end,
  store_id,
  currency,
  COUNT(DISTINCT order_id) AS order_count,
  SUM(amount) AS revenue_amount,
  COUNT(*) AS source_event_count
FROM TABLE(TUMBLE(TABLE order_paid_dedup, DESCRIPTOR(paid_time), INTERVAL '1' MINUTE))
GROUP BY window_start, window_end, store_id, currency;

-- Reads the view's table once the job has consumed the (bounded) input (in key order).
SELECT * FROM revenue_minute;
