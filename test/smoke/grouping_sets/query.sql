-- GROUPING SETS: per (supplier, item), per supplier, and the grand total.
CREATE TABLE bids (s STRING, i STRING, p INT)
WITH ('connector' = 'filesystem', 'path' = 'bids.jsonl', 'format' = 'json');

SELECT s, i, SUM(p) AS total
FROM bids
GROUP BY GROUPING SETS ((s, i), (s), ());
