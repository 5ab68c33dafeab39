-- Window TVF aggregation with ROLLUP (issue 16): planned as a window aggregation, as Flink
-- does, so each (window, grouping set) emits one final row when the watermark passes the window
-- end, and a late row is dropped (not counted as an update of an unbounded aggregate).
-- The watermark is 1 minute behind; the 10:09 row arrives after 10:12 (watermark 10:11, window
-- [10:00, 10:10) fired): it is late and dropped.
CREATE TABLE orders (
  paid_at TIMESTAMP(3),
  store_id STRING,
  amount INT,
  WATERMARK FOR paid_at AS paid_at - INTERVAL '1' MINUTE
) WITH ('connector' = 'filesystem', 'path' = 'orders.jsonl', 'format' = 'json');

SELECT window_start, store_id, COUNT(*) AS n, SUM(amount) AS total, GROUPING_ID(store_id) AS g
FROM TABLE(TUMBLE(TABLE orders, DESCRIPTOR(paid_at), INTERVAL '10' MINUTE))
GROUP BY window_start, window_end, ROLLUP (store_id);
