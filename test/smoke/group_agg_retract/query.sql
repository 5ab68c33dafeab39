-- Group aggregation over a retracting input (a histogram of per-user click counts): the inner
-- aggregate's -U/+U move a user between buckets; a bucket that empties is deleted (-D).
CREATE TABLE clicks (u STRING)
WITH ('connector' = 'filesystem', 'path' = 'clicks.jsonl', 'format' = 'json');

SELECT cnt, COUNT(*) AS users
FROM (SELECT u, COUNT(*) AS cnt FROM clicks GROUP BY u)
GROUP BY cnt;
