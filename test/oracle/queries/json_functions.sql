-- JSON_VALUE and JSON_EXISTS over a string column.
-- compare: changelog
CREATE TABLE orders (
  order_id INT, customer STRING, product STRING, amount DECIMAL(10, 2), qty INT, ts TIMESTAMP(3),
  tags ARRAY<STRING>, attrs STRING,
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND
) WITH ('connector' = 'filesystem', 'path' = 'data/q_orders.jsonl', 'format' = 'json');
SELECT order_id, JSON_VALUE(attrs, '$.channel') AS channel, JSON_VALUE(attrs, '$.score' RETURNING INT) + 1 AS score, JSON_EXISTS(attrs, '$.missing') AS has FROM orders WHERE order_id <= 6;
