-- FULL interval join.
-- compare: result
CREATE TABLE ontime (
  order_id INT, customer STRING, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND
) WITH ('connector' = 'filesystem', 'path' = 'data/q_ontime.jsonl', 'format' = 'json');
CREATE TABLE payments (
  order_id INT, pay_method STRING, pay_ts TIMESTAMP(3),
  WATERMARK FOR pay_ts AS pay_ts - INTERVAL '5' SECOND
) WITH ('connector' = 'filesystem', 'path' = 'data/q_payments.jsonl', 'format' = 'json');
SELECT o.order_id, p.order_id AS paid FROM ontime AS o FULL JOIN payments AS p
ON o.order_id = p.order_id AND p.pay_ts BETWEEN o.ts AND o.ts + INTERVAL '2' SECOND;
