-- CUMULATE (1 min steps up to 2 min) with early firing after every row
-- ('table.exec.emit.early-fire.delay' = '0 s'), 'retract' within 2 min, and the result metadata.
CREATE TABLE ev (
  k STRING, v INT, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '1' MINUTE
) WITH ('connector' = 'filesystem', 'path' = 'events.jsonl', 'format' = 'json',
  'late.policy' = 'retract', 'late.allowed-lateness' = '2 min');
SET 'table.exec.emit.early-fire.enabled' = 'true';
SET 'table.exec.emit.early-fire.delay' = '0 s';
SELECT k, SUM(v) AS s, window_start, window_end, WINDOW_IS_FINAL() AS is_final,
  WINDOW_VERSION() AS version, WINDOW_WATERMARK() AS watermark_at
FROM TABLE(CUMULATE(TABLE ev, DESCRIPTOR(ts), INTERVAL '1' MINUTE, INTERVAL '2' MINUTE))
GROUP BY k, window_start, window_end;
