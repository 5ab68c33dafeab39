-- unbounded Top-N: the two largest orders per customer (updates as the top changes).
-- compare: changes
CREATE TABLE orders (
  order_id INT, customer STRING, product STRING, amount DECIMAL(10, 2), qty INT, ts TIMESTAMP(3),
  tags ARRAY<STRING>, attrs STRING,
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND
) WITH ('connector' = 'filesystem', 'path' = 'data/q_orders.jsonl', 'format' = 'json');
SELECT * FROM (SELECT customer, order_id, amount, ROW_NUMBER() OVER (PARTITION BY customer ORDER BY amount DESC, order_id) AS rn FROM orders) WHERE rn <= 2;
