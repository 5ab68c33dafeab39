-- LAG over an event-time OVER window.
-- compare: changelog
CREATE TABLE orders (
  order_id INT, customer STRING, product STRING, amount DECIMAL(10, 2), qty INT, ts TIMESTAMP(3),
  tags ARRAY<STRING>, attrs STRING,
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND
) WITH ('connector' = 'filesystem', 'path' = 'data/q_orders.jsonl', 'format' = 'json');
SELECT order_id, customer, LAG(amount) OVER (PARTITION BY customer ORDER BY ts) AS prev_amount, LAG(qty, 2, -1) OVER (PARTITION BY customer ORDER BY ts) AS qty2 FROM orders;
