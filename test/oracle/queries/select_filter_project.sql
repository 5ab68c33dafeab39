-- projection, arithmetic, CASE, filter with NULLs.
-- compare: changelog
CREATE TABLE orders (
  order_id INT, customer STRING, product STRING, amount DECIMAL(10, 2), qty INT, ts TIMESTAMP(3),
  tags ARRAY<STRING>, attrs STRING,
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND
) WITH ('connector' = 'filesystem', 'path' = 'data/q_orders.jsonl', 'format' = 'json');
SELECT order_id, UPPER(customer) AS cust, amount * qty AS total, CASE WHEN qty > 2 THEN 'bulk' ELSE 'single' END AS kind, product IS NULL AS no_product
FROM orders WHERE amount > 7 OR customer IS NULL;
