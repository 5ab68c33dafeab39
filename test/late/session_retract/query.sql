-- SESSION window aggregation, 'late.policy' retract (see expected.changelog).
CREATE TABLE ev (
  k STRING, v INT, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '1' MINUTE
) WITH ('connector' = 'filesystem', 'path' = 'events.jsonl', 'format' = 'json',
  'late.policy' = 'retract', 'late.allowed-lateness' = '2 min', 'late.side-output' = 'late_ev');

CREATE TABLE late_ev (
  k STRING, v INT, ts TIMESTAMP(3),
  observed_at TIMESTAMP_LTZ(3), current_watermark TIMESTAMP_LTZ(3), lateness_ms BIGINT, reason STRING
) WITH ('connector' = 'filesystem', 'path' = 'late.jsonl', 'format' = 'json');

SELECT k, SUM(v) AS s, window_start, window_end
FROM TABLE(SESSION(TABLE ev PARTITION BY k, DESCRIPTOR(ts), INTERVAL '1' MINUTE))
GROUP BY k, window_start, window_end;
