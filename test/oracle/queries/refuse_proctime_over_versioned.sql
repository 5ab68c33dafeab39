-- a processing-time temporal join against a view.
-- compare: changes
CREATE TABLE orders (
  order_id INT, customer STRING, product STRING, amount DECIMAL(10, 2), qty INT, ts TIMESTAMP(3),
  tags ARRAY<STRING>, attrs STRING, pt AS PROCTIME(),
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND
) WITH ('connector' = 'filesystem', 'path' = 'data/q_orders.jsonl', 'format' = 'json');
CREATE TABLE customers (customer STRING, country STRING, tier STRING)
WITH ('connector' = 'filesystem', 'path' = 'data/q_customers.jsonl', 'format' = 'json');
CREATE VIEW gold AS SELECT * FROM customers WHERE tier = 'gold';
SELECT o.order_id, g.country FROM orders AS o JOIN gold FOR SYSTEM_TIME AS OF o.pt AS g ON o.customer = g.customer;
