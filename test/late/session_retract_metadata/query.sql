-- SESSION gap 1 min, 'retract' within 2 min, with the result metadata (see expected.changelog).
CREATE TABLE ev (
  k STRING, v INT, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '1' MINUTE
) WITH ('connector' = 'filesystem', 'path' = 'events.jsonl', 'format' = 'json',
  'late.policy' = 'retract', 'late.allowed-lateness' = '2 min');
SELECT k, SUM(v) AS s, window_start, window_end, WINDOW_IS_FINAL() AS is_final, WINDOW_VERSION() AS version,
  WINDOW_WATERMARK() AS watermark_at
FROM TABLE(SESSION(TABLE ev PARTITION BY k, DESCRIPTOR(ts), INTERVAL '1' MINUTE))
GROUP BY k, window_start, window_end;
