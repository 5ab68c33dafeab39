-- Legacy group window aggregation: GROUP BY TUMBLE / HOP / SESSION with the auxiliary functions.

SELECT
  `user`,
  TUMBLE_START(order_time, INTERVAL '1' DAY) AS wStart,
  SUM(amount)
FROM Orders
GROUP BY
  TUMBLE(order_time, INTERVAL '1' DAY),
  `user`;

SELECT
  product,
  TUMBLE_START(order_time, INTERVAL '10' MINUTE) AS w_start,
  TUMBLE_END(order_time, INTERVAL '10' MINUTE) AS w_end,
  TUMBLE_ROWTIME(order_time, INTERVAL '10' MINUTE) AS w_rowtime,
  COUNT(*) AS cnt
FROM Orders
GROUP BY product, TUMBLE(order_time, INTERVAL '10' MINUTE);

SELECT
  TUMBLE_START(proctime, INTERVAL '1' MINUTE),
  TUMBLE_PROCTIME(proctime, INTERVAL '1' MINUTE),
  COUNT(DISTINCT product)
FROM Orders
GROUP BY TUMBLE(proctime, INTERVAL '1' MINUTE);

SELECT
  product,
  HOP_START(order_time, INTERVAL '5' MINUTE, INTERVAL '1' HOUR) AS w_start,
  HOP_END(order_time, INTERVAL '5' MINUTE, INTERVAL '1' HOUR) AS w_end,
  HOP_ROWTIME(order_time, INTERVAL '5' MINUTE, INTERVAL '1' HOUR) AS w_rowtime,
  SUM(amount) AS total
FROM Orders
GROUP BY HOP(order_time, INTERVAL '5' MINUTE, INTERVAL '1' HOUR), product;

SELECT
  B.bidder,
  COUNT(*) AS bid_count,
  SESSION_START(B.bidtime, INTERVAL '10' SECOND) AS starttime,
  SESSION_END(B.bidtime, INTERVAL '10' SECOND) AS endtime,
  SESSION_ROWTIME(B.bidtime, INTERVAL '10' SECOND) AS rowtime
FROM Bid B
GROUP BY B.bidder, SESSION(B.bidtime, INTERVAL '10' SECOND);

SELECT
  SESSION_START(proctime, INTERVAL '30' SECONDS),
  SESSION_PROCTIME(proctime, INTERVAL '30' SECONDS),
  COUNT(*)
FROM Orders
GROUP BY SESSION(proctime, INTERVAL '30' SECONDS);

SELECT
  product,
  TUMBLE_END(order_time, INTERVAL '1' MINUTE) AS w_end,
  SUM(amount) AS total
FROM Orders
WHERE currency = 'EUR'
GROUP BY TUMBLE(order_time, INTERVAL '1' MINUTE), product
HAVING SUM(amount) > 10;
