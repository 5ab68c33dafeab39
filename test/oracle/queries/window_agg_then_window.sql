-- a window aggregation of a window aggregation (window_time stays a time attribute).
-- compare: changes
CREATE TABLE orders (
  order_id INT, customer STRING, product STRING, amount DECIMAL(10, 2), qty INT, ts TIMESTAMP(3),
  tags ARRAY<STRING>, attrs STRING,
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND
) WITH ('connector' = 'filesystem', 'path' = 'data/q_orders.jsonl', 'format' = 'json');
CREATE VIEW per10 AS SELECT window_time AS wt, COUNT(*) AS n FROM TABLE(TUMBLE(TABLE orders, DESCRIPTOR(ts), INTERVAL '10' SECOND)) GROUP BY window_start, window_end, window_time;
SELECT window_start, SUM(n) AS n FROM TABLE(TUMBLE(TABLE per10, DESCRIPTOR(wt), INTERVAL '30' SECOND)) GROUP BY window_start, window_end;
