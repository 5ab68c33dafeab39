-- State TTL on a group aggregation: a key whose state was last written more than 3 s (of
-- processing time) ago starts again from nothing; its old result is not retracted.
SET 'table.exec.state.ttl' = '3 s';

CREATE TABLE clicks (u STRING)
WITH ('connector' = 'filesystem', 'path' = 'clicks.jsonl', 'format' = 'json');

SELECT u, COUNT(*) AS cnt FROM clicks GROUP BY u;
