-- SESSION window aggregation, 'late.policy' drop (see expected.changelog).
CREATE TABLE ev (
  k STRING, v INT, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '1' MINUTE
) WITH ('connector' = 'filesystem', 'path' = 'events.jsonl', 'format' = 'json');

SELECT k, SUM(v) AS s, window_start, window_end
FROM TABLE(SESSION(TABLE ev PARTITION BY k, DESCRIPTOR(ts), INTERVAL '1' MINUTE))
GROUP BY k, window_start, window_end;
