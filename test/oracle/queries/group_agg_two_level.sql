-- an aggregate of an aggregate (retractions flow into the second).
-- compare: changes
CREATE TABLE orders (
  order_id INT, customer STRING, product STRING, amount DECIMAL(10, 2), qty INT, ts TIMESTAMP(3),
  tags ARRAY<STRING>, attrs STRING,
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND
) WITH ('connector' = 'filesystem', 'path' = 'data/q_orders.jsonl', 'format' = 'json');
SELECT n, COUNT(*) AS customers FROM (SELECT customer, COUNT(*) AS n FROM orders GROUP BY customer) GROUP BY n;
