-- Top-N without the row number over an updating input (an aggregate).
-- compare: changes
CREATE TABLE orders (
  order_id INT, customer STRING, product STRING, amount DECIMAL(10, 2), qty INT, ts TIMESTAMP(3),
  tags ARRAY<STRING>, attrs STRING,
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND
) WITH ('connector' = 'filesystem', 'path' = 'data/q_orders.jsonl', 'format' = 'json');
SELECT customer, total FROM (SELECT customer, total, ROW_NUMBER() OVER (ORDER BY total DESC) AS rn FROM (SELECT customer, SUM(amount) AS total FROM orders GROUP BY customer)) WHERE rn <= 2;
