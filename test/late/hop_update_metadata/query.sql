-- HOP 2 min / 1 min, 'update' within 2 min, with the result metadata: each window's result is
-- provisional (is_final FALSE) when it fires, corrected by late rows (version + 1), and final
-- (is_final TRUE) once the watermark passes its end + 2 min.
CREATE TABLE ev (
  k STRING, v INT, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '1' MINUTE
) WITH ('connector' = 'filesystem', 'path' = 'events.jsonl', 'format' = 'json',
  'late.policy' = 'update', 'late.allowed-lateness' = '2 min');
SELECT k, SUM(v) AS s, window_start, WINDOW_IS_FINAL() AS is_final, WINDOW_VERSION() AS version,
  WINDOW_WATERMARK() AS watermark_at
FROM TABLE(HOP(TABLE ev, DESCRIPTOR(ts), INTERVAL '1' MINUTE, INTERVAL '2' MINUTE))
GROUP BY k, window_start, window_end;
