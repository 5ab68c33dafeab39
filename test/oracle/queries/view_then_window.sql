-- a window aggregation over a filtering view.
-- compare: changes
CREATE TABLE orders (
  order_id INT, customer STRING, product STRING, amount DECIMAL(10, 2), qty INT, ts TIMESTAMP(3),
  tags ARRAY<STRING>, attrs STRING,
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND
) WITH ('connector' = 'filesystem', 'path' = 'data/q_orders.jsonl', 'format' = 'json');
CREATE VIEW widgets AS SELECT order_id, ts, qty FROM orders WHERE product = 'widget';
SELECT window_start, SUM(qty) AS qty FROM TABLE(TUMBLE(TABLE widgets, DESCRIPTOR(ts), INTERVAL '20' SECOND)) GROUP BY window_start, window_end;
