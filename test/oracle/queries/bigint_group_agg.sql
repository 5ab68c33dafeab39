-- BIGINT over the whole 64-bit range: group keys beyond ±2^53, SUM/AVG wrapping like a Java long.
-- compare: result
CREATE TABLE ev (id BIGINT, v BIGINT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '5' SECOND)
WITH ('connector' = 'filesystem', 'path' = 'data/q_bigint.jsonl', 'format' = 'json');
SELECT id, COUNT(*) AS n, SUM(v) AS s, AVG(v) AS a, MAX(v + 1) AS mx, MIN(v * 2) AS mn, SUM(v) / 3 AS d, MOD(SUM(v), 1000) AS m
FROM ev GROUP BY id;
