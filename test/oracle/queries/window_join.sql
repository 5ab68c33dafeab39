-- window join of two TUMBLE TVFs.
-- compare: changes
CREATE TABLE ontime (
  order_id INT, customer STRING, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND
) WITH ('connector' = 'filesystem', 'path' = 'data/q_ontime.jsonl', 'format' = 'json');
CREATE TABLE payments (
  order_id INT, pay_method STRING, pay_ts TIMESTAMP(3),
  WATERMARK FOR pay_ts AS pay_ts - INTERVAL '5' SECOND
) WITH ('connector' = 'filesystem', 'path' = 'data/q_payments.jsonl', 'format' = 'json');
SELECT o.window_start, o.order_id, p.pay_method FROM (SELECT * FROM TABLE(TUMBLE(TABLE ontime, DESCRIPTOR(ts), INTERVAL '10' SECOND))) AS o
JOIN (SELECT * FROM TABLE(TUMBLE(TABLE payments, DESCRIPTOR(pay_ts), INTERVAL '10' SECOND))) AS p
ON o.order_id = p.order_id AND o.window_start = p.window_start AND o.window_end = p.window_end;
