-- WITH and a derived table.
-- compare: changes
CREATE TABLE orders (
  order_id INT, customer STRING, product STRING, amount DECIMAL(10, 2), qty INT, ts TIMESTAMP(3),
  tags ARRAY<STRING>, attrs STRING,
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND
) WITH ('connector' = 'filesystem', 'path' = 'data/q_orders.jsonl', 'format' = 'json');
WITH big AS (SELECT customer, amount FROM orders WHERE amount > 10)
SELECT customer, cnt FROM (SELECT customer, COUNT(*) AS cnt FROM big GROUP BY customer) WHERE cnt > 1;
