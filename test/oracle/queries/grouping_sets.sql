-- GROUPING SETS with GROUPING().
-- compare: changes
CREATE TABLE orders (
  order_id INT, customer STRING, product STRING, amount DECIMAL(10, 2), qty INT, ts TIMESTAMP(3),
  tags ARRAY<STRING>, attrs STRING,
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND
) WITH ('connector' = 'filesystem', 'path' = 'data/q_orders.jsonl', 'format' = 'json');
SELECT customer, product, COUNT(*) AS n, GROUPING(customer) AS gc FROM orders GROUP BY GROUPING SETS ((customer), (product), ());
