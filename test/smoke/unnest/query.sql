-- UNNEST of an array column (CROSS JOIN UNNEST): one output row per element, in element order;
-- an empty or NULL array gives no row; NULL and repeated elements are kept.
CREATE TABLE orders (id INT, tags ARRAY<STRING>)
WITH ('connector' = 'filesystem', 'path' = 'orders.jsonl', 'format' = 'json');

SELECT o.id, t.tag
FROM orders AS o CROSS JOIN UNNEST(o.tags) AS t (tag);
