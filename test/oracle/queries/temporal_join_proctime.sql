-- A processing-time temporal join against a table that is not a lookup source: refused.
-- compare: message
CREATE TABLE orders (
  order_id INT, currency STRING, amount DECIMAL(10, 2), order_time TIMESTAMP(3), proc AS PROCTIME()
) WITH ('connector' = 'filesystem', 'path' = 'data/tj_orders.jsonl', 'format' = 'json');
CREATE TABLE rates (
  currency STRING, rate DECIMAL(10, 4), update_time TIMESTAMP(3),
  WATERMARK FOR update_time AS update_time - INTERVAL '5' SECOND,
  PRIMARY KEY (currency) NOT ENFORCED
) WITH ('connector' = 'filesystem', 'path' = 'data/tj_rates.debezium.jsonl', 'format' = 'debezium-json');
SELECT o.order_id, r.rate
FROM orders AS o
JOIN rates FOR SYSTEM_TIME AS OF o.proc AS r ON o.currency = r.currency;
