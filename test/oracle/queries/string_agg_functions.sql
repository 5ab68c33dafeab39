-- LISTAGG and string functions in an aggregation.
-- compare: changes
CREATE TABLE orders (
  order_id INT, customer STRING, product STRING, amount DECIMAL(10, 2), qty INT, ts TIMESTAMP(3),
  tags ARRAY<STRING>, attrs STRING,
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND
) WITH ('connector' = 'filesystem', 'path' = 'data/q_orders.jsonl', 'format' = 'json');
SELECT product, LISTAGG(customer, '|') AS who, CHAR_LENGTH(MAX(customer)) AS len FROM orders WHERE order_id <= 8 GROUP BY product;
