-- Top-N of ranks 2 to 3 (rankStart > 1).
-- compare: changes
CREATE TABLE orders (
  order_id INT, customer STRING, product STRING, amount DECIMAL(10, 2), qty INT, ts TIMESTAMP(3),
  tags ARRAY<STRING>, attrs STRING,
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND
) WITH ('connector' = 'filesystem', 'path' = 'data/q_orders.jsonl', 'format' = 'json');
SELECT * FROM (SELECT customer, order_id, qty, ROW_NUMBER() OVER (PARTITION BY customer ORDER BY qty DESC, order_id) AS rn FROM orders) WHERE rn BETWEEN 2 AND 3;
