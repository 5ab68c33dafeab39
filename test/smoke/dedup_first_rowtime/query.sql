-- Deduplication keeping the first row per id by event time (ORDER BY ts ASC), Flink 2.1+: the
-- row with the smallest rowtime per id (ties: the first to arrive) waits until the watermark
-- passes it and is emitted once (+I, insert-only); rows before the watermark are late.
CREATE TABLE events (
  id INT,
  v STRING,
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '2' MINUTE
) WITH ('connector' = 'filesystem', 'path' = 'events.jsonl', 'format' = 'json');

SELECT id, v, ts
FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY id ORDER BY ts ASC) AS rn FROM events)
WHERE rn = 1;
