-- a bare TUMBLE TVF: window columns added to each row.
-- compare: changelog
CREATE TABLE orders (
  order_id INT, customer STRING, product STRING, amount DECIMAL(10, 2), qty INT, ts TIMESTAMP(3),
  tags ARRAY<STRING>, attrs STRING,
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND
) WITH ('connector' = 'filesystem', 'path' = 'data/q_orders.jsonl', 'format' = 'json');
SELECT order_id, window_start, window_end, window_time FROM TABLE(TUMBLE(TABLE orders, DESCRIPTOR(ts), INTERVAL '10' SECOND));
