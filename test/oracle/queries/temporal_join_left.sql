-- LEFT temporal join with a residual condition: no version, a deleted version, a NULL key or a
-- failed condition pad the order with NULLs.
CREATE TABLE orders (
  order_id INT, currency STRING, amount DECIMAL(10, 2), order_time TIMESTAMP(3),
  WATERMARK FOR order_time AS order_time - INTERVAL '5' SECOND
) WITH ('connector' = 'filesystem', 'path' = 'data/tj_orders.jsonl', 'format' = 'json');
CREATE TABLE rates (
  currency STRING, rate DECIMAL(10, 4), update_time TIMESTAMP(3),
  WATERMARK FOR update_time AS update_time - INTERVAL '5' SECOND,
  PRIMARY KEY (currency) NOT ENFORCED
) WITH ('connector' = 'filesystem', 'path' = 'data/tj_rates.debezium.jsonl', 'format' = 'debezium-json');
SELECT o.order_id, o.currency, r.rate, o.amount * r.rate AS converted, o.order_time
FROM orders AS o
LEFT JOIN rates FOR SYSTEM_TIME AS OF o.order_time AS r
  ON o.currency = r.currency AND r.rate > 0.5;
