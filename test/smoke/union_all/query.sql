-- UNION ALL of two inputs, one of them filtered: duplicates are kept.
CREATE TABLE a (id INT, v INT) WITH ('connector' = 'filesystem', 'path' = 'a.jsonl', 'format' = 'json');
CREATE TABLE b (id INT, v INT) WITH ('connector' = 'filesystem', 'path' = 'b.jsonl', 'format' = 'json');

SELECT id, v, 'a' AS src FROM a
UNION ALL
SELECT id, v, 'b' AS src FROM b WHERE v > 0;
