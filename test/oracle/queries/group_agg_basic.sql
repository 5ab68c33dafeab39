-- unbounded GROUP BY: COUNT, SUM, MIN, MAX, AVG (updates per key).
-- compare: changelog
CREATE TABLE orders (
  order_id INT, customer STRING, product STRING, amount DECIMAL(10, 2), qty INT, ts TIMESTAMP(3),
  tags ARRAY<STRING>, attrs STRING,
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND
) WITH ('connector' = 'filesystem', 'path' = 'data/q_orders.jsonl', 'format' = 'json');
SELECT customer, COUNT(*) AS n, SUM(amount) AS total, MIN(qty) AS min_qty, MAX(amount) AS max_amount, AVG(qty) AS avg_qty
FROM orders GROUP BY customer;
