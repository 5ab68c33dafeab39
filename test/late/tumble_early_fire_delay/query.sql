-- TUMBLE with early firing every 2 s of processing time (the harness clock: 1 s per poll),
-- 'retract' within 2 min, and the result metadata (see expected.changelog).
CREATE TABLE ev (
  k STRING, v INT, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '1' MINUTE
) WITH ('connector' = 'filesystem', 'path' = 'events.jsonl', 'format' = 'json',
  'late.policy' = 'retract', 'late.allowed-lateness' = '2 min');
SET 'table.exec.emit.early-fire.enabled' = 'true';
SET 'table.exec.emit.early-fire.delay' = '2 s';
SELECT k, SUM(v) AS s, window_start, WINDOW_IS_FINAL() AS is_final, WINDOW_VERSION() AS version,
  WINDOW_WATERMARK() AS watermark_at
FROM TABLE(TUMBLE(TABLE ev, DESCRIPTOR(ts), INTERVAL '1' MINUTE))
GROUP BY k, window_start, window_end;
