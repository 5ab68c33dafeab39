-- deduplication keep first on the rowtime (duplicates and late rows).
-- compare: changes
CREATE TABLE orders (
  order_id INT, customer STRING, product STRING, amount DECIMAL(10, 2), qty INT, ts TIMESTAMP(3),
  tags ARRAY<STRING>, attrs STRING,
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND
) WITH ('connector' = 'filesystem', 'path' = 'data/q_orders.jsonl', 'format' = 'json');
SELECT order_id, customer, ts FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY order_id ORDER BY ts) AS rn FROM orders) WHERE rn = 1;
