-- Deduplication keeping the last row per id by event time (ORDER BY ts DESC): a row whose
-- rowtime is later than or equal to the kept one's replaces it (-U/+U).
CREATE TABLE events (
  id INT,
  v STRING,
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '1' HOUR
) WITH ('connector' = 'filesystem', 'path' = 'events.jsonl', 'format' = 'json');

SELECT id, v, ts
FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY id ORDER BY ts DESC) AS rn FROM events)
WHERE rn = 1;
