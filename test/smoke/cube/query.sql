-- CUBE (s, i): all four grouping sets.
CREATE TABLE bids (s STRING, i STRING, p INT)
WITH ('connector' = 'filesystem', 'path' = 'bids.jsonl', 'format' = 'json');

SELECT s, i, COUNT(*) AS n
FROM bids
GROUP BY CUBE (s, i);
