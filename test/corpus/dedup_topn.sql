-- Deduplication, Top-N, window Top-N and window deduplication (Flink documentation examples).

CREATE TABLE Orders_dedup (
  order_id STRING,
  `user` STRING,
  product STRING,
  num BIGINT,
  proctime AS PROCTIME()
) WITH (
  'connector' = 'datagen',
  'number-of-rows' = '100'
);

-- remove duplicate rows on order_id and keep the first occurrence row,
-- because there shouldn't be two orders with the same order_id.
SELECT order_id, `user`, product, num
FROM (
  SELECT *,
    ROW_NUMBER() OVER (PARTITION BY order_id ORDER BY proctime ASC) AS row_num
  FROM Orders_dedup)
WHERE row_num = 1;

-- keep the last row per key (by event time)
SELECT order_id, `user`, product, num
FROM (
  SELECT *,
    ROW_NUMBER() OVER (PARTITION BY order_id ORDER BY order_time DESC) AS row_num
  FROM Orders)
WHERE row_num = 1;

SELECT auction, bidder, price, channel, url, dateTime, extra
 FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY bidder, auction ORDER BY dateTime DESC) AS rank_number
       FROM bid)
 WHERE rank_number <= 1;

CREATE TABLE ShopSales (
  product_id   STRING,
  category     STRING,
  product_name STRING,
  sales        BIGINT
) WITH (
  'connector' = 'datagen',
  'number-of-rows' = '1000'
);

-- top 5 products per category which have the maximum sales in realtime
SELECT *
FROM (
  SELECT *,
    ROW_NUMBER() OVER (PARTITION BY category ORDER BY sales DESC) AS row_num
  FROM ShopSales)
WHERE row_num <= 5;

CREATE TABLE MySink (
  product_id STRING,
  category STRING,
  product_name STRING,
  sales BIGINT,
  PRIMARY KEY (category, product_id) NOT ENFORCED
) WITH ('connector' = 'print');

-- no ranking number in the output
INSERT INTO MySink
SELECT product_id, category, product_name, sales
FROM (
  SELECT *,
    ROW_NUMBER() OVER (PARTITION BY category ORDER BY sales DESC) AS row_num
  FROM ShopSales)
WHERE row_num <= 5;

SELECT * FROM (
  SELECT *, RANK() OVER (PARTITION BY category ORDER BY sales DESC) AS rk FROM ShopSales
) WHERE rk <= 3;

SELECT * FROM (
  SELECT *, DENSE_RANK() OVER (ORDER BY sales DESC) AS rk FROM ShopSales
) WHERE rk < 10 AND rk > 2;

SELECT * FROM
(SELECT *, ROW_NUMBER() OVER (PARTITION BY auction ORDER BY price DESC) AS rank_number FROM bid)
WHERE rank_number <= 10;

-- window Top-N following a window aggregation
SELECT *
  FROM (
    SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end ORDER BY price DESC) AS rownum
    FROM (
      SELECT window_start, window_end, supplier_id, SUM(price) AS price, COUNT(*) AS cnt
      FROM TABLE(
        TUMBLE(TABLE Bid, DESCRIPTOR(bidtime), INTERVAL '10' MINUTES))
      GROUP BY window_start, window_end, supplier_id
    )
  ) WHERE rownum <= 3;

-- window Top-N following a window TVF
SELECT *
  FROM (
    SELECT bidtime, price, item, supplier_id, window_start, window_end,
      ROW_NUMBER() OVER (PARTITION BY window_start, window_end ORDER BY price DESC) AS rownum
    FROM TABLE(
      TUMBLE(TABLE Bid, DESCRIPTOR(bidtime), INTERVAL '10' MINUTES))
  ) WHERE rownum <= 3;

-- window deduplication: keep the last row per window
SELECT *
  FROM (
    SELECT bidtime, price, item, supplier_id, window_start, window_end,
      ROW_NUMBER() OVER (PARTITION BY window_start, window_end ORDER BY bidtime DESC) AS rownum
    FROM TABLE(
      TUMBLE(TABLE Bid, DESCRIPTOR(bidtime), INTERVAL '10' MINUTES))
  ) WHERE rownum <= 1;

-- window deduplication: keep the first row per window and item
SELECT *
  FROM (
    SELECT *,
      ROW_NUMBER() OVER (PARTITION BY window_start, window_end, item ORDER BY bidtime ASC) AS rownum
    FROM TABLE(
      HOP(TABLE Bid, DESCRIPTOR(bidtime), INTERVAL '5' MINUTES, INTERVAL '10' MINUTES))
  ) WHERE rownum = 1;

SELECT id, itemName, description, initialBid, reserve, dateTime, expires, seller, category, extra,
    auction, bidder, price, bid_dateTime, bid_extra
FROM (
   SELECT A.*, B.auction, B.bidder, B.price, B.dateTime AS bid_dateTime, B.extra AS bid_extra,
     ROW_NUMBER() OVER (PARTITION BY A.id ORDER BY B.price DESC, B.dateTime ASC) AS rownum
   FROM auction A, bid B
   WHERE A.id = B.auction AND B.dateTime BETWEEN A.dateTime AND A.expires
)
WHERE rownum <= 1;
