-- interval join: payments within 5 s of the order.
-- compare: changes
CREATE TABLE ontime (
  order_id INT, customer STRING, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND
) WITH ('connector' = 'filesystem', 'path' = 'data/q_ontime.jsonl', 'format' = 'json');
CREATE TABLE payments (
  order_id INT, pay_method STRING, pay_ts TIMESTAMP(3),
  WATERMARK FOR pay_ts AS pay_ts - INTERVAL '5' SECOND
) WITH ('connector' = 'filesystem', 'path' = 'data/q_payments.jsonl', 'format' = 'json');
SELECT o.order_id, p.pay_method, o.ts, p.pay_ts FROM ontime AS o, payments AS p
WHERE o.order_id = p.order_id AND p.pay_ts BETWEEN o.ts AND o.ts + INTERVAL '5' SECOND;
