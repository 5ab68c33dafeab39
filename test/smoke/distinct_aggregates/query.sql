-- DISTINCT aggregates next to plain ones: COUNT(DISTINCT) and SUM(DISTINCT) ignore NULLs and
-- repeated values.
CREATE TABLE clicks (u STRING, url STRING, n INT)
WITH ('connector' = 'filesystem', 'path' = 'clicks.jsonl', 'format' = 'json');

SELECT u, COUNT(DISTINCT url) AS urls, COUNT(*) AS clicks, SUM(DISTINCT n) AS ns
FROM clicks
GROUP BY u;
