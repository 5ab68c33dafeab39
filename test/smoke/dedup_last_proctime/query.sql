-- Deduplication keeping the last row per id in processing-time order: every row replaces the
-- previous one of its id (-U/+U), whatever its event-time column says.
CREATE TABLE events (
  id INT,
  v STRING,
  ts TIMESTAMP(3),
  pt AS PROCTIME()
) WITH ('connector' = 'filesystem', 'path' = 'events.jsonl', 'format' = 'json');

SELECT id, v
FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY id ORDER BY pt DESC) AS rn FROM events)
WHERE rn = 1;
