-- HOP window aggregation, 'late.policy' update (see expected.changelog).
CREATE TABLE ev (
  k STRING, v INT, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '1' MINUTE
) WITH ('connector' = 'filesystem', 'path' = 'events.jsonl', 'format' = 'json',
  'late.policy' = 'update', 'late.allowed-lateness' = '2 min');

SELECT k, SUM(v) AS s, window_start, window_end
FROM TABLE(HOP(TABLE ev, DESCRIPTOR(ts), INTERVAL '1' MINUTE, INTERVAL '2' MINUTE))
GROUP BY k, window_start, window_end;
