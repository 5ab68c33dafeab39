-- grouping on an expression (COALESCE, CASE).
-- compare: changelog
CREATE TABLE orders (
  order_id INT, customer STRING, product STRING, amount DECIMAL(10, 2), qty INT, ts TIMESTAMP(3),
  tags ARRAY<STRING>, attrs STRING,
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND
) WITH ('connector' = 'filesystem', 'path' = 'data/q_orders.jsonl', 'format' = 'json');
SELECT COALESCE(product, 'none') AS p, CASE WHEN amount >= 12 THEN 'high' ELSE 'low' END AS band, COUNT(*) AS n
FROM orders GROUP BY COALESCE(product, 'none'), CASE WHEN amount >= 12 THEN 'high' ELSE 'low' END;
