-- CUMULATE per key with MIN/MAX.
-- compare: changes
CREATE TABLE orders (
  order_id INT, customer STRING, product STRING, amount DECIMAL(10, 2), qty INT, ts TIMESTAMP(3),
  tags ARRAY<STRING>, attrs STRING,
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND
) WITH ('connector' = 'filesystem', 'path' = 'data/q_orders.jsonl', 'format' = 'json');
SELECT window_start, window_end, product, MIN(amount) AS lo, MAX(qty) AS hi FROM TABLE(CUMULATE(TABLE orders, DESCRIPTOR(ts), INTERVAL '15' SECOND, INTERVAL '45' SECOND)) GROUP BY window_start, window_end, product;
