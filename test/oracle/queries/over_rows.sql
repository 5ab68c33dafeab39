-- OVER ROWS BETWEEN 2 PRECEDING AND CURRENT ROW per key; late rows dropped.
-- compare: changelog
CREATE TABLE orders (
  order_id INT, customer STRING, product STRING, amount DECIMAL(10, 2), qty INT, ts TIMESTAMP(3),
  tags ARRAY<STRING>, attrs STRING,
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND
) WITH ('connector' = 'filesystem', 'path' = 'data/q_orders.jsonl', 'format' = 'json');
SELECT order_id, customer, SUM(qty) OVER w AS qty3, COUNT(*) OVER w AS n FROM orders
WINDOW w AS (PARTITION BY customer ORDER BY ts ROWS BETWEEN 2 PRECEDING AND CURRENT ROW);
