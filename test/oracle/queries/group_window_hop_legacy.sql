-- legacy GROUP BY HOP.
-- compare: changes
CREATE TABLE orders (
  order_id INT, customer STRING, product STRING, amount DECIMAL(10, 2), qty INT, ts TIMESTAMP(3),
  tags ARRAY<STRING>, attrs STRING,
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND
) WITH ('connector' = 'filesystem', 'path' = 'data/q_orders.jsonl', 'format' = 'json');
SELECT HOP_START(ts, INTERVAL '10' SECOND, INTERVAL '20' SECOND) AS ws, SUM(qty) AS qty
FROM orders GROUP BY HOP(ts, INTERVAL '10' SECOND, INTERVAL '20' SECOND);
