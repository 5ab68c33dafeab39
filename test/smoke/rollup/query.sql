-- ROLLUP (s, i) = GROUPING SETS ((s, i), (s), ()), with MAX, COUNT and GROUPING_ID.
CREATE TABLE bids (s STRING, i STRING, p INT)
WITH ('connector' = 'filesystem', 'path' = 'bids.jsonl', 'format' = 'json');

SELECT s, i, MAX(p) AS mx, COUNT(*) AS n, GROUPING_ID(s, i) AS g
FROM bids
GROUP BY ROLLUP (s, i);
