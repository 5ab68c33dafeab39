-- legacy GROUP BY SESSION.
-- compare: changes
CREATE TABLE orders (
  order_id INT, customer STRING, product STRING, amount DECIMAL(10, 2), qty INT, ts TIMESTAMP(3),
  tags ARRAY<STRING>, attrs STRING,
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND
) WITH ('connector' = 'filesystem', 'path' = 'data/q_orders.jsonl', 'format' = 'json');
SELECT customer, SESSION_START(ts, INTERVAL '10' SECOND) AS ws, SESSION_END(ts, INTERVAL '10' SECOND) AS we, COUNT(*) AS n
FROM orders GROUP BY customer, SESSION(ts, INTERVAL '10' SECOND);
