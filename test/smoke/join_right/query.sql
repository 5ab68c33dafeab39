-- Regular RIGHT JOIN whose left input retracts (per-user click counts, -U/+U on every click).
-- Polling is round robin, 3 rows per poll, clicks first: clicks 1-3, users 1-3, clicks 4-6.
CREATE TABLE clicks (u STRING)
WITH ('connector' = 'filesystem', 'path' = 'clicks.jsonl', 'format' = 'json');

CREATE TABLE users (name STRING, city STRING)
WITH ('connector' = 'filesystem', 'path' = 'users.jsonl', 'format' = 'json');

SELECT c.u, c.cnt, s.city
FROM (SELECT u, COUNT(*) AS cnt FROM clicks GROUP BY u) AS c
RIGHT JOIN users AS s ON c.u = s.name;
