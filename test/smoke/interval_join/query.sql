-- Interval join (Flink docs' Orders / Shipments example: shipped within 4 hours of the order).
-- Order 3 arrives out of order. Round robin, 3 rows per poll: orders 1-3, shipments 1-3,
-- (orders end), shipments 4-5.
CREATE TABLE orders (
  id INT,
  order_time TIMESTAMP(3),
  WATERMARK FOR order_time AS order_time - INTERVAL '5' HOUR
) WITH ('connector' = 'filesystem', 'path' = 'orders.jsonl', 'format' = 'json');

CREATE TABLE shipments (
  order_id INT,
  ship_time TIMESTAMP(3),
  WATERMARK FOR ship_time AS ship_time - INTERVAL '5' HOUR
) WITH ('connector' = 'filesystem', 'path' = 'shipments.jsonl', 'format' = 'json');

SELECT o.id, o.order_time, s.ship_time
FROM orders AS o, shipments AS s
WHERE o.id = s.order_id
  AND s.ship_time BETWEEN o.order_time AND o.order_time + INTERVAL '4' HOUR;
