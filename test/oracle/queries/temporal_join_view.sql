-- A versioned view: the latest rate per currency of an append-only log (deduplication on the
-- rowtime, keep last), joined as of each order's time.
CREATE TABLE orders (
  order_id INT, currency STRING, amount DECIMAL(10, 2), order_time TIMESTAMP(3),
  WATERMARK FOR order_time AS order_time - INTERVAL '5' SECOND
) WITH ('connector' = 'filesystem', 'path' = 'data/tj_orders.jsonl', 'format' = 'json');
CREATE TABLE rates_log (
  currency STRING, rate DECIMAL(10, 4), update_time TIMESTAMP(3),
  WATERMARK FOR update_time AS update_time - INTERVAL '5' SECOND
) WITH ('connector' = 'filesystem', 'path' = 'data/tj_rates_log.jsonl', 'format' = 'json');
CREATE VIEW versioned_rates AS
SELECT currency, rate, update_time FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY currency ORDER BY update_time DESC) AS rownum FROM rates_log
) WHERE rownum = 1;
SELECT o.order_id, o.currency, r.rate, o.order_time, r.update_time
FROM orders AS o
LEFT JOIN versioned_rates FOR SYSTEM_TIME AS OF o.order_time AS r ON o.currency = r.currency;
