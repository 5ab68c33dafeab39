-- UNNEST WITH ORDINALITY, LEFT JOIN LATERAL-free form.
-- compare: changelog
CREATE TABLE orders (
  order_id INT, customer STRING, product STRING, amount DECIMAL(10, 2), qty INT, ts TIMESTAMP(3),
  tags ARRAY<STRING>, attrs STRING,
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND
) WITH ('connector' = 'filesystem', 'path' = 'data/q_orders.jsonl', 'format' = 'json');
SELECT order_id, tag, pos FROM orders CROSS JOIN UNNEST(tags) WITH ORDINALITY AS t(tag, pos) WHERE order_id < 10;
