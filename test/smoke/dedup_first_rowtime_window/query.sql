-- Event-time first-row deduplication (Flink 2.1+) feeding an event-time window: the kept rows
-- leave the deduplication before the watermark that passes them, so ts is still a time
-- attribute and none of them is late for the window.
CREATE TABLE events (
  id INT,
  v STRING,
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '2' MINUTE
) WITH ('connector' = 'filesystem', 'path' = 'events.jsonl', 'format' = 'json');

CREATE TEMPORARY VIEW firsts AS
SELECT id, v, ts
FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY id ORDER BY ts ASC) AS rn FROM events)
WHERE rn = 1;

SELECT window_start, COUNT(*) AS n, LISTAGG(v) AS vs
FROM TABLE(TUMBLE(TABLE firsts, DESCRIPTOR(ts), INTERVAL '5' MINUTES))
GROUP BY window_start, window_end;
