-- Deduplication keeping the first row per id by event time (ORDER BY ts ASC): a row with a
-- strictly earlier rowtime replaces the kept one (-U/+U), ties and later rows change nothing.
CREATE TABLE events (
  id INT,
  v STRING,
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '1' HOUR
) WITH ('connector' = 'filesystem', 'path' = 'events.jsonl', 'format' = 'json');

SELECT id, v, ts
FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY id ORDER BY ts ASC) AS rn FROM events)
WHERE rn = 1;
