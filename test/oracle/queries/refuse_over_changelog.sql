-- an OVER aggregation over an updating input.
-- compare: changes
CREATE TABLE prices_ts (
  id INT, product STRING, category STRING, price DOUBLE, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND
) WITH ('connector' = 'filesystem', 'path' = 'data/q_prices_ts.debezium.jsonl', 'format' = 'debezium-json');
SELECT product, SUM(price) OVER (PARTITION BY category ORDER BY ts ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) AS s FROM prices_ts;
