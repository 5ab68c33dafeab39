-- SELECT basics: projections, DISTINCT, WHERE, ORDER BY, LIMIT / OFFSET / FETCH, derived tables.

SELECT * FROM Orders;

SELECT order_id, price + 10 FROM Orders;

SELECT order_id, price * amount AS total, currency FROM Orders;

SELECT o.order_id, o.product AS p FROM Orders AS o;

SELECT o.* FROM Orders o;

SELECT DISTINCT product FROM Orders;

SELECT DISTINCT product, currency FROM Orders WHERE amount > 2;

SELECT 1;

SELECT 'hello' AS greeting, 42 AS answer;

SELECT order_id FROM Orders WHERE amount > 2 AND (currency = 'EUR' OR currency = 'USD');

SELECT order_id FROM Orders WHERE NOT (amount > 2);

SELECT * FROM Orders ORDER BY order_time, order_id;

SELECT * FROM Orders ORDER BY order_time DESC, order_id ASC LIMIT 3;

SELECT * FROM Orders ORDER BY price DESC NULLS LAST, order_id ASC NULLS FIRST;

SELECT * FROM Orders LIMIT 10;

SELECT * FROM Orders ORDER BY order_id LIMIT 10 OFFSET 20;

SELECT * FROM Orders ORDER BY order_id OFFSET 5 ROWS FETCH NEXT 10 ROWS ONLY;

SELECT * FROM Orders ORDER BY order_id FETCH FIRST 3 ROWS ONLY;

SELECT * FROM (SELECT order_id, amount FROM Orders) AS t WHERE t.amount > 1;

SELECT * FROM (SELECT order_id, amount FROM Orders) t (id, qty) WHERE qty > 1;

SELECT order_id FROM (SELECT * FROM Orders WHERE amount > 1) WHERE amount < 100;

SELECT product, cnt FROM (
  SELECT product, COUNT(*) AS cnt FROM Orders GROUP BY product
) WHERE cnt > 10;

SELECT * FROM my_catalog.my_db.qualified_table;

SELECT t.k, t.v FROM my_catalog.my_db.qualified_table AS t;

SELECT `select`, `from`, `where`, `timestamp`, `my column`, `back``tick` FROM `table`;

SELECT `user`, `value` AS `count` FROM Orders AS `order`;

SELECT product, SUM(amount) AS total
FROM Orders
GROUP BY product
HAVING SUM(amount) > 100;

SELECT product
FROM Orders
GROUP BY product
HAVING COUNT(*) > 1 AND MAX(price) < 1000
ORDER BY product;

SELECT
  order_id,
  amount,
  price,
  currency,
FROM_UNIXTIME(1700000000) AS t0
FROM Orders;

SELECT * FROM Orders /*+ OPTIONS('scan.startup.mode' = 'earliest-offset') */;
