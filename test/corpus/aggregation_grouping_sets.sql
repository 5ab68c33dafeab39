-- Group aggregation, DISTINCT aggregates, FILTER, HAVING, GROUPING SETS / ROLLUP / CUBE.

SELECT COUNT(*) FROM Orders;

SELECT product, COUNT(*) AS cnt, SUM(amount) AS total FROM Orders GROUP BY product;

SELECT COUNT(DISTINCT order_id) FROM Orders;

SELECT DATE_FORMAT(order_time, 'yyyy-MM-dd') AS `day`, COUNT(*) AS total
FROM Orders
GROUP BY DATE_FORMAT(order_time, 'yyyy-MM-dd');

SELECT supplier_id, rating, COUNT(*) AS total
FROM (VALUES
    ('supplier1', 'product1', 4),
    ('supplier1', 'product2', 3),
    ('supplier2', 'product3', 3),
    ('supplier2', 'product4', 4))
AS Products(supplier_id, product_id, rating)
GROUP BY GROUPING SETS ((supplier_id, rating), (supplier_id), ());

SELECT supplier_id, rating, COUNT(*)
FROM (VALUES
    ('supplier1', 'product1', 4),
    ('supplier1', 'product2', 3),
    ('supplier2', 'product3', 3),
    ('supplier2', 'product4', 4))
AS Products(supplier_id, product_id, rating)
GROUP BY ROLLUP (supplier_id, rating);

SELECT supplier_id, rating, product_id, COUNT(*)
FROM (VALUES
    ('supplier1', 'product1', 4),
    ('supplier1', 'product2', 3),
    ('supplier2', 'product3', 3),
    ('supplier2', 'product4', 4))
AS Products(supplier_id, product_id, rating)
GROUP BY CUBE (supplier_id, rating, product_id);

SELECT supplier_id, rating, product_id, COUNT(*)
FROM Products
GROUP BY GROUPING SETS (
    ( supplier_id, product_id, rating ),
    ( supplier_id, product_id         ),
    ( supplier_id,             rating ),
    ( supplier_id                     ),
    (              product_id, rating ),
    (              product_id         ),
    (                          rating ),
    (                                 )
);

SELECT supplier_id, rating, GROUPING(supplier_id) AS g, GROUPING_ID(supplier_id, rating) AS gid, COUNT(*)
FROM Products
GROUP BY supplier_id, ROLLUP (rating);

SELECT a, b, c, SUM(x)
FROM t
GROUP BY GROUPING SETS (a, (b, c), ());

SELECT product, AVG(price) AS avg_price
FROM Orders
GROUP BY product
HAVING AVG(price) > 10 OR COUNT(*) FILTER (WHERE currency = 'USD') > 3;

SELECT
  channel,
  DATE_FORMAT(dateTime, 'yyyy-MM-dd') AS `day`,
  MAX(DATE_FORMAT(dateTime, 'HH:mm')) AS `minute`,
  COUNT(*) AS total_bids,
  COUNT(*) FILTER (WHERE price < 10000) AS rank1_bids,
  COUNT(DISTINCT bidder) AS total_bidders,
  COUNT(DISTINCT bidder) FILTER (WHERE price >= 10000 AND price < 1000000) AS rank2_bidders
FROM bid
GROUP BY channel, DATE_FORMAT(dateTime, 'yyyy-MM-dd');

SELECT `user`, COUNT(DISTINCT product) AS products, MIN(order_time), MAX(order_time)
FROM Orders
GROUP BY `user`
HAVING COUNT(DISTINCT product) >= 2;

SELECT SUM(amount) FILTER (WHERE amount > 0) / COUNT(*) AS ratio FROM Orders;

SELECT COLLECT(product), LISTAGG(DISTINCT product), FIRST_VALUE(product), LAST_VALUE(product)
FROM Orders;
