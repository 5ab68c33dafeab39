-- a window over a UNION ALL view (the time attribute survives the union).
-- compare: changes
CREATE TABLE orders (
  order_id INT, customer STRING, product STRING, amount DECIMAL(10, 2), qty INT, ts TIMESTAMP(3),
  tags ARRAY<STRING>, attrs STRING,
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND
) WITH ('connector' = 'filesystem', 'path' = 'data/q_orders.jsonl', 'format' = 'json');
CREATE TABLE ontime (
  order_id INT, customer STRING, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND
) WITH ('connector' = 'filesystem', 'path' = 'data/q_ontime.jsonl', 'format' = 'json');
CREATE VIEW both_ts AS SELECT ts FROM orders WHERE order_id <= 8 UNION ALL SELECT ts FROM ontime WHERE order_id <= 10;
SELECT window_start, COUNT(*) AS n FROM TABLE(TUMBLE(TABLE both_ts, DESCRIPTOR(ts), INTERVAL '10' SECOND)) GROUP BY window_start, window_end;
