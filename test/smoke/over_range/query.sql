-- OVER aggregation, RANGE frame (rows of the key within the 2 seconds up to the current row's
-- time, peers with the same time included).
CREATE TABLE events (
  k STRING,
  ts TIMESTAMP(3),
  amt INT,
  WATERMARK FOR ts AS ts - INTERVAL '2' SECOND
) WITH ('connector' = 'filesystem', 'path' = 'events.jsonl', 'format' = 'json');

SELECT k, ts, amt,
  SUM(amt) OVER w AS s,
  COUNT(*) OVER w AS c
FROM events
WINDOW w AS (PARTITION BY k ORDER BY ts RANGE BETWEEN INTERVAL '2' SECOND PRECEDING AND CURRENT ROW);
