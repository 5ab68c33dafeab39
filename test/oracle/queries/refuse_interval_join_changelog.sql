-- an interval join with an updating input.
-- compare: changes
CREATE TABLE prices_ts (
  id INT, product STRING, category STRING, price DOUBLE, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND
) WITH ('connector' = 'filesystem', 'path' = 'data/q_prices_ts.debezium.jsonl', 'format' = 'debezium-json');
CREATE TABLE ontime (
  order_id INT, customer STRING, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND
) WITH ('connector' = 'filesystem', 'path' = 'data/q_ontime.jsonl', 'format' = 'json');
SELECT o.order_id, p.product FROM ontime AS o JOIN prices_ts AS p ON o.order_id = p.id AND p.ts BETWEEN o.ts AND o.ts + INTERVAL '5' SECOND;
