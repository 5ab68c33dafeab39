-- global Top-N without rank number in the output.
-- compare: changes
CREATE TABLE orders (
  order_id INT, customer STRING, product STRING, amount DECIMAL(10, 2), qty INT, ts TIMESTAMP(3),
  tags ARRAY<STRING>, attrs STRING,
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND
) WITH ('connector' = 'filesystem', 'path' = 'data/q_orders.jsonl', 'format' = 'json');
SELECT order_id, qty FROM (SELECT order_id, qty, ROW_NUMBER() OVER (ORDER BY qty DESC, order_id) AS rn FROM orders) WHERE rn <= 3;
