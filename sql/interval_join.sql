-- What: an event-time interval join. Each order (sql/data/orders.jsonl) is matched with its
--   shipment (sql/data/shipments.jsonl) if it shipped within 10 minutes of the order; orders
--   shipped later, or not at all, have no output row. The join keeps each side's rows only as
--   long as the interval allows, driven by the watermarks.
-- Run: weir run sql/interval_join.sql

CREATE TABLE orders (
  order_id BIGINT,
  user_name STRING,
  amount DECIMAL(10, 2),
  order_time TIMESTAMP(3),
  WATERMARK FOR order_time AS order_time - INTERVAL '5' SECOND
) WITH (
  'connector' = 'filesystem',
  'path' = 'sql/data/orders.jsonl',
  'format' = 'json'
);

CREATE TABLE shipments (
  order_id BIGINT,
  carrier STRING,
  ship_time TIMESTAMP(3),
  WATERMARK FOR ship_time AS ship_time - INTERVAL '5' SECOND
) WITH (
  'connector' = 'filesystem',
  'path' = 'sql/data/shipments.jsonl',
  'format' = 'json'
);

CREATE TABLE shipped_in_time (
  order_id BIGINT,
  user_name STRING,
  amount DECIMAL(10, 2),
  carrier STRING,
  order_time TIMESTAMP(3),
  ship_time TIMESTAMP(3),
  minutes_to_ship BIGINT
) WITH ('connector' = 'print');

INSERT INTO shipped_in_time
SELECT
  o.order_id,
  o.user_name,
  o.amount,
  s.carrier,
  o.order_time,
  s.ship_time,
  CAST(TIMESTAMPDIFF(MINUTE, o.order_time, s.ship_time) AS BIGINT) AS minutes_to_ship
FROM orders AS o, shipments AS s
WHERE o.order_id = s.order_id
  AND s.ship_time BETWEEN o.order_time AND o.order_time + INTERVAL '10' MINUTE;
