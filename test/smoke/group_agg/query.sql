-- Group aggregation over an append-only input: the first row of a key emits +I, every later row
-- -U (the previous result) then +U (the new one), as Flink's GroupAggFunction does one row at a
-- time. SUM/MAX ignore NULL; a group whose values are all NULL has SUM = NULL, COUNT(*) counts it.
CREATE TABLE orders (u STRING, amt INT)
WITH ('connector' = 'filesystem', 'path' = 'orders.jsonl', 'format' = 'json');

SELECT u, COUNT(*) AS cnt, SUM(amt) AS total, MAX(amt) AS mx, COUNT(amt) AS n
FROM orders
GROUP BY u;
