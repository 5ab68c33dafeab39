-- Top-N with RANK (ties share a rank).
-- compare: result
CREATE TABLE orders (
  order_id INT, customer STRING, product STRING, amount DECIMAL(10, 2), qty INT, ts TIMESTAMP(3),
  tags ARRAY<STRING>, attrs STRING,
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND
) WITH ('connector' = 'filesystem', 'path' = 'data/q_orders.jsonl', 'format' = 'json');
SELECT * FROM (SELECT product, order_id, qty, RANK() OVER (PARTITION BY product ORDER BY qty DESC) AS rk FROM orders) WHERE rk <= 2;
