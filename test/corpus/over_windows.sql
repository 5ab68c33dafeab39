-- OVER aggregation, ranking functions and the WINDOW clause.

SELECT order_id, order_time, amount,
  SUM(amount) OVER (
    PARTITION BY product
    ORDER BY order_time
    RANGE BETWEEN INTERVAL '1' HOUR PRECEDING AND CURRENT ROW
  ) AS one_hour_prod_amount_sum
FROM Orders;

SELECT order_id, order_time, amount,
  SUM(amount) OVER w AS sum_amount,
  AVG(amount) OVER w AS avg_amount
FROM Orders
WINDOW w AS (
  PARTITION BY product
  ORDER BY order_time
  RANGE BETWEEN INTERVAL '1' HOUR PRECEDING AND CURRENT ROW);

SELECT order_id,
  COUNT(*) OVER (PARTITION BY product ORDER BY order_time ROWS BETWEEN 10 PRECEDING AND CURRENT ROW) AS last_11
FROM Orders;

SELECT order_id,
  MAX(price) OVER (PARTITION BY product ORDER BY order_time RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS running_max
FROM Orders;

SELECT order_id,
  MIN(price) OVER (PARTITION BY product ORDER BY order_time ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS running_min
FROM Orders;

SELECT order_id,
  SUM(amount) OVER (PARTITION BY product, currency ORDER BY proctime) AS running_total
FROM Orders;

SELECT order_id,
  SUM(amount) OVER (ORDER BY order_time) AS global_running_total
FROM Orders;

SELECT order_id,
  ROW_NUMBER() OVER (PARTITION BY product ORDER BY price DESC) AS rn,
  RANK() OVER (PARTITION BY product ORDER BY price DESC) AS rk,
  DENSE_RANK() OVER (PARTITION BY product ORDER BY price DESC) AS drk
FROM Orders;

SELECT order_id,
  LAG(price, 1) OVER (PARTITION BY product ORDER BY order_time) AS prev_price,
  LEAD(price) OVER (PARTITION BY product ORDER BY order_time) AS next_price
FROM Orders;

SELECT order_id,
  COUNT(*) OVER w1 AS c1,
  SUM(amount) OVER w2 AS s2
FROM Orders
WINDOW
  w1 AS (PARTITION BY product ORDER BY order_time ROWS BETWEEN 5 PRECEDING AND CURRENT ROW),
  w2 AS (PARTITION BY currency ORDER BY order_time RANGE BETWEEN INTERVAL '30' MINUTE PRECEDING AND CURRENT ROW);

SELECT Q.seller,
    AVG(Q.price) OVER
        (PARTITION BY Q.seller ORDER BY Q.dateTime ROWS BETWEEN 10 PRECEDING AND CURRENT ROW)
FROM Q;

SELECT `user`, amount,
  SUM(amount) OVER (PARTITION BY `user` ORDER BY order_time RANGE BETWEEN INTERVAL '1' DAY PRECEDING AND CURRENT ROW)
    - SUM(amount) OVER (PARTITION BY `user` ORDER BY order_time RANGE BETWEEN INTERVAL '1' HOUR PRECEDING AND CURRENT ROW)
    AS older_than_an_hour
FROM Orders;
