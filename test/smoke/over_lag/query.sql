-- LAG over an event-time OVER window (issue 16), as Flink's streaming LagAggFunction: per
-- partition, in timestamp order, the value offset rows back (NULL values count as rows), else
-- the default. The 00:00:02 row arrives out of order within the 2-second bound; the last row
-- (00:00:03 after the watermark reached 00:00:05) is late and dropped.
CREATE TABLE t (
  ts TIMESTAMP(3),
  k STRING,
  v INT,
  WATERMARK FOR ts AS ts - INTERVAL '2' SECOND
) WITH ('connector' = 'filesystem', 'path' = 't.jsonl', 'format' = 'json');

SELECT k, v,
  LAG(v) OVER w AS prev,
  LAG(v, 2, -1) OVER w AS prev2,
  v - LAG(v, 1, 0) OVER w AS delta,
  SUM(v) OVER w AS total
FROM t
WINDOW w AS (PARTITION BY k ORDER BY ts);
