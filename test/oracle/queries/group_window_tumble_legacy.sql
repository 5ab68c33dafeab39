-- legacy GROUP BY TUMBLE(ts, ...) with TUMBLE_START/END.
-- compare: changes
CREATE TABLE orders (
  order_id INT, customer STRING, product STRING, amount DECIMAL(10, 2), qty INT, ts TIMESTAMP(3),
  tags ARRAY<STRING>, attrs STRING,
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND
) WITH ('connector' = 'filesystem', 'path' = 'data/q_orders.jsonl', 'format' = 'json');
SELECT customer, TUMBLE_START(ts, INTERVAL '20' SECOND) AS ws, TUMBLE_END(ts, INTERVAL '20' SECOND) AS we, COUNT(*) AS n
FROM orders GROUP BY customer, TUMBLE(ts, INTERVAL '20' SECOND);
