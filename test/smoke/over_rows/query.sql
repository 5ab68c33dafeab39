-- OVER aggregation, ROWS frame (the current row and the one before it, per key, in event-time
-- order). Rows are buffered until the watermark passes them, then emitted in rowtime order.
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
WINDOW w AS (PARTITION BY k ORDER BY ts ROWS BETWEEN 1 PRECEDING AND CURRENT ROW);
