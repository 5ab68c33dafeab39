-- VALUES and UNION ALL of constants.
-- compare: changes

SELECT * FROM (VALUES (1, 'a'), (2, CAST(NULL AS STRING))) AS t(id, s) UNION ALL SELECT 3, 'c';
