-- Top-N with DENSE_RANK.
-- compare: result
CREATE TABLE orders (
  order_id INT, customer STRING, product STRING, amount DECIMAL(10, 2), qty INT, ts TIMESTAMP(3),
  tags ARRAY<STRING>, attrs STRING,
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND
) WITH ('connector' = 'filesystem', 'path' = 'data/q_orders.jsonl', 'format' = 'json');
SELECT * FROM (SELECT product, order_id, amount, DENSE_RANK() OVER (PARTITION BY product ORDER BY amount) AS rk FROM orders) WHERE rk <= 1;
