-- SELECT DISTINCT: a group aggregation without aggregates; the first occurrence of a row emits
-- +I, repeats change nothing (NULLs are equal for grouping).
CREATE TABLE clicks (u STRING, url STRING)
WITH ('connector' = 'filesystem', 'path' = 'clicks.jsonl', 'format' = 'json');

SELECT DISTINCT u, url FROM clicks;
