-- BIGINT beyond ±2^53: a TUMBLE aggregate keyed by 64-bit ids (late rows dropped) joined on them.
-- compare: result
CREATE TABLE ev (id BIGINT, v BIGINT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '5' SECOND)
WITH ('connector' = 'filesystem', 'path' = 'data/q_bigint.jsonl', 'format' = 'json');
CREATE TABLE names (id BIGINT, name STRING)
WITH ('connector' = 'filesystem', 'path' = 'data/q_bigint_names.jsonl', 'format' = 'json');
SELECT w.window_start, n.name, w.id, w.cnt, w.s, w.mx
FROM (
  SELECT window_start, id, COUNT(*) AS cnt, SUM(v) AS s, MAX(v) AS mx
  FROM TABLE(TUMBLE(TABLE ev, DESCRIPTOR(ts), INTERVAL '10' SECOND)) GROUP BY window_start, window_end, id
) w JOIN names n ON w.id = n.id;
