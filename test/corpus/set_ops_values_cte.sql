-- Set operations, parenthesised queries, VALUES and WITH (CTEs).

(SELECT s FROM t1) UNION (SELECT s FROM t2);

(SELECT s FROM t1) UNION ALL (SELECT s FROM t2);

(SELECT s FROM t1) INTERSECT (SELECT s FROM t2);

(SELECT s FROM t1) INTERSECT ALL (SELECT s FROM t2);

(SELECT s FROM t1) EXCEPT (SELECT s FROM t2);

(SELECT s FROM t1) EXCEPT ALL (SELECT s FROM t2);

SELECT s FROM t1 UNION SELECT s FROM t2 UNION ALL SELECT s FROM t3;

SELECT s FROM t1 UNION ALL SELECT s FROM t2 INTERSECT SELECT s FROM t3;

SELECT s FROM t1 EXCEPT (SELECT s FROM t2 UNION SELECT s FROM t3);

((SELECT s FROM t1));

(SELECT s FROM t1 ORDER BY s LIMIT 2) UNION ALL (SELECT s FROM t2);

SELECT s FROM t1 UNION ALL SELECT s FROM t2 ORDER BY s LIMIT 5;

SELECT * FROM (SELECT s FROM t1 UNION ALL SELECT s FROM t2) AS u WHERE s <> 'a';

SELECT COUNT(*) FROM (SELECT a FROM x UNION SELECT b FROM y);

VALUES (1, 'a'), (2, 'b'), (3, 'c');

VALUES 1, 2, 3;

VALUES (1);

SELECT * FROM (VALUES (1, 'a'), (2, 'b')) AS t (id, name);

SELECT id FROM (VALUES (1), (2), (3)) t(id) WHERE id > 1;

SELECT * FROM (VALUES (CAST(1.10 AS DECIMAL(10, 2)), DATE '2024-01-01'), (0.20, DATE '2024-01-02')) AS v(amt, d);

VALUES ('x', ARRAY[1, 2], MAP['k', 'v'], ROW(1, 2));

WITH orders_with_total AS (
    SELECT order_id, price + tax AS total
    FROM Orders
)
SELECT order_id, SUM(total)
FROM orders_with_total
GROUP BY order_id;

WITH
  a AS (SELECT 1 AS x),
  b AS (SELECT x + 1 AS y FROM a)
SELECT * FROM a CROSS JOIN b;

WITH totals (product, total) AS (
  SELECT product, SUM(amount) FROM Orders GROUP BY product
)
SELECT product FROM totals WHERE total > 100;

WITH r AS (SELECT s FROM t1 UNION ALL SELECT s FROM t2)
SELECT s, COUNT(*) FROM r GROUP BY s;

WITH dedup AS (
  SELECT * FROM (
    SELECT *, ROW_NUMBER() OVER (PARTITION BY order_id ORDER BY proctime) AS rn FROM Orders
  ) WHERE rn = 1
),
agg AS (
  SELECT product, COUNT(*) AS cnt FROM dedup GROUP BY product
)
SELECT * FROM agg WHERE cnt > (SELECT AVG(cnt) FROM agg);

INSERT INTO print_sink
WITH src AS (SELECT 1 AS id, 'x' AS name)
SELECT id, name FROM src;

INSERT INTO print_sink
SELECT id, name FROM t_a
UNION ALL
SELECT id, name FROM t_b;

INSERT INTO print_sink
(SELECT id, name FROM t_a);
