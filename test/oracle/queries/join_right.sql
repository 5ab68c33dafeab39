-- regular RIGHT join.
-- compare: result
CREATE TABLE orders (
  order_id INT, customer STRING, product STRING, amount DECIMAL(10, 2), qty INT, ts TIMESTAMP(3),
  tags ARRAY<STRING>, attrs STRING,
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND
) WITH ('connector' = 'filesystem', 'path' = 'data/q_orders.jsonl', 'format' = 'json');
CREATE TABLE customers (customer STRING, country STRING, tier STRING)
WITH ('connector' = 'filesystem', 'path' = 'data/q_customers.jsonl', 'format' = 'json');
SELECT o.order_id, c.customer, c.country FROM orders AS o RIGHT JOIN customers AS c ON o.customer = c.customer AND o.qty > 2;
