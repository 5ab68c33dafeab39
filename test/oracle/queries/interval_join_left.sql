-- LEFT interval join: unpaid orders padded when the watermark passes.
-- compare: result
CREATE TABLE ontime (
  order_id INT, customer STRING, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND
) WITH ('connector' = 'filesystem', 'path' = 'data/q_ontime.jsonl', 'format' = 'json');
CREATE TABLE payments (
  order_id INT, pay_method STRING, pay_ts TIMESTAMP(3),
  WATERMARK FOR pay_ts AS pay_ts - INTERVAL '5' SECOND
) WITH ('connector' = 'filesystem', 'path' = 'data/q_payments.jsonl', 'format' = 'json');
SELECT o.order_id, p.pay_method FROM ontime AS o LEFT JOIN payments AS p
ON o.order_id = p.order_id AND p.pay_ts BETWEEN o.ts - INTERVAL '1' SECOND AND o.ts + INTERVAL '3' SECOND;
