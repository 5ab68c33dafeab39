-- The join condition must cover the versioned table's primary key.
-- compare: message
CREATE TABLE orders (
  order_id INT, currency STRING, amount DECIMAL(10, 2), order_time TIMESTAMP(3),
  WATERMARK FOR order_time AS order_time - INTERVAL '5' SECOND
) WITH ('connector' = 'filesystem', 'path' = 'data/tj_orders.jsonl', 'format' = 'json');
CREATE TABLE rates (
  currency STRING, rate DECIMAL(10, 4), update_time TIMESTAMP(3),
  WATERMARK FOR update_time AS update_time - INTERVAL '5' SECOND,
  PRIMARY KEY (currency) NOT ENFORCED
) WITH ('connector' = 'filesystem', 'path' = 'data/tj_rates.debezium.jsonl', 'format' = 'debezium-json');
SELECT o.order_id, r.rate
FROM orders AS o
JOIN rates FOR SYSTEM_TIME AS OF o.order_time AS r ON o.amount = r.rate;
