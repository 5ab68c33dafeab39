-- a window aggregation over an updating input (Flink 2.3 takes it).
-- compare: changes
CREATE TABLE prices_ts (
  id INT, product STRING, category STRING, price DOUBLE, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND
) WITH ('connector' = 'filesystem', 'path' = 'data/q_prices_ts.debezium.jsonl', 'format' = 'debezium-json');
SELECT window_start, COUNT(*) AS n FROM TABLE(TUMBLE(TABLE prices_ts, DESCRIPTOR(ts), INTERVAL '10' SECOND)) GROUP BY window_start, window_end;
