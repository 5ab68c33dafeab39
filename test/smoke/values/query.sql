-- VALUES as a bounded, insert-only source, with a filter and an expression.
SELECT id, name, id * 10 AS tens
FROM (VALUES (1, 'a'), (2, 'b'), (3, CAST(NULL AS STRING)), (4, 'd')) AS t (id, name)
WHERE id > 1 AND id <> 4;
