-- OVER RANGE BETWEEN INTERVAL '20' SECOND PRECEDING.
-- compare: changelog
CREATE TABLE orders (
  order_id INT, customer STRING, product STRING, amount DECIMAL(10, 2), qty INT, ts TIMESTAMP(3),
  tags ARRAY<STRING>, attrs STRING,
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND
) WITH ('connector' = 'filesystem', 'path' = 'data/q_orders.jsonl', 'format' = 'json');
SELECT order_id, product, MAX(amount) OVER (PARTITION BY product ORDER BY ts RANGE BETWEEN INTERVAL '20' SECOND PRECEDING AND CURRENT ROW) AS max20 FROM orders;
