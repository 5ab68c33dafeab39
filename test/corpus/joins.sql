-- Regular, outer, cross, comma, USING, interval and window joins (Flink documentation examples).

SELECT * FROM Orders
INNER JOIN Product
ON Orders.productId = Product.id;

SELECT * FROM Orders JOIN Product ON Orders.productId = Product.id;

SELECT *
FROM Orders
LEFT JOIN Product
ON Orders.product_id = Product.id;

SELECT *
FROM Orders
RIGHT JOIN Product
ON Orders.product_id = Product.id;

SELECT *
FROM Orders
FULL OUTER JOIN Product
ON Orders.product_id = Product.id;

SELECT * FROM Orders LEFT OUTER JOIN Product ON Orders.product_id = Product.id;

SELECT * FROM Orders RIGHT OUTER JOIN Product ON Orders.product_id = Product.id;

SELECT * FROM Orders FULL JOIN Product ON Orders.product_id = Product.id;

SELECT * FROM Orders CROSS JOIN Product;

SELECT * FROM Orders o JOIN Shipments s USING (order_id);

SELECT * FROM a JOIN b USING (k1, k2) LEFT JOIN c USING (k1);

SELECT * FROM Orders o, Product p WHERE o.product_id = p.id;

SELECT * FROM a, b, c WHERE a.id = b.id AND b.id = c.id;

SELECT P.name, P.city, P.state, A.id
FROM auction AS A INNER JOIN person AS P ON A.seller = P.id
WHERE A.category = 10 AND (P.state = 'OR' OR P.state = 'ID' OR P.state = 'CA');

SELECT *
FROM a
JOIN b ON a.id = b.a_id
LEFT JOIN c ON b.id = c.b_id AND c.active
JOIN (SELECT id, MAX(v) AS mv FROM d GROUP BY id) dd ON dd.id = a.id;

SELECT * FROM Orders o JOIN (SELECT * FROM Product WHERE price > 10) ON o.product_id = id;

-- interval joins
SELECT *
FROM Orders o, Shipments s
WHERE o.id = s.order_id
AND o.order_time BETWEEN s.ship_time - INTERVAL '4' HOUR AND s.ship_time;

SELECT * FROM L, R WHERE L.id = R.id AND ltime = rtime;

SELECT * FROM L, R WHERE L.id = R.id AND ltime >= rtime AND ltime < rtime + INTERVAL '10' MINUTE;

SELECT * FROM L, R
WHERE L.id = R.id AND ltime BETWEEN rtime - INTERVAL '10' SECOND AND rtime + INTERVAL '5' SECOND;

SELECT o.order_id, s.ship_time
FROM Orders o
JOIN Shipments s
ON o.order_id = s.order_id
AND s.ship_time BETWEEN o.order_time AND o.order_time + INTERVAL '1' DAY;

-- window join
SELECT L.num AS L_Num, L.id AS L_Id, R.num AS R_Num, R.id AS R_Id,
       COALESCE(L.window_start, R.window_start) AS window_start,
       COALESCE(L.window_end, R.window_end) AS window_end
FROM (
    SELECT * FROM TABLE(TUMBLE(TABLE LeftTable, DESCRIPTOR(row_time), INTERVAL '5' MINUTES))
) L
FULL JOIN (
    SELECT * FROM TABLE(TUMBLE(TABLE RightTable, DESCRIPTOR(row_time), INTERVAL '5' MINUTES))
) R
ON L.num = R.num AND L.window_start = R.window_start AND L.window_end = R.window_end;

SELECT L.num AS L_Num, L.id AS L_Id, R.num AS R_Num, R.id AS R_Id, L.window_start, L.window_end
FROM (
    SELECT * FROM TABLE(TUMBLE(TABLE LeftTable, DESCRIPTOR(row_time), INTERVAL '5' MINUTES))
) L
INNER JOIN (
    SELECT * FROM TABLE(TUMBLE(TABLE RightTable, DESCRIPTOR(row_time), INTERVAL '5' MINUTES))
) R
ON L.num = R.num AND L.window_start = R.window_start AND L.window_end = R.window_end;

-- window semi join (IN)
SELECT *
FROM (
    SELECT * FROM TABLE(TUMBLE(TABLE LeftTable, DESCRIPTOR(row_time), INTERVAL '5' MINUTES))
) L WHERE L.num IN (
  SELECT num FROM (
    SELECT * FROM TABLE(TUMBLE(TABLE RightTable, DESCRIPTOR(row_time), INTERVAL '5' MINUTES))
  ) R WHERE L.window_start = R.window_start AND L.window_end = R.window_end);

-- window semi join (EXISTS)
SELECT *
FROM (
    SELECT * FROM TABLE(TUMBLE(TABLE LeftTable, DESCRIPTOR(row_time), INTERVAL '5' MINUTES))
) L WHERE EXISTS (
  SELECT * FROM (
    SELECT * FROM TABLE(TUMBLE(TABLE RightTable, DESCRIPTOR(row_time), INTERVAL '5' MINUTES))
  ) R WHERE L.num = R.num AND L.window_start = R.window_start AND L.window_end = R.window_end);

-- window anti join (NOT IN)
SELECT *
FROM (
    SELECT * FROM TABLE(TUMBLE(TABLE LeftTable, DESCRIPTOR(row_time), INTERVAL '5' MINUTES))
) L WHERE L.num NOT IN (
  SELECT num FROM (
    SELECT * FROM TABLE(TUMBLE(TABLE RightTable, DESCRIPTOR(row_time), INTERVAL '5' MINUTES))
  ) R WHERE L.window_start = R.window_start AND L.window_end = R.window_end);

-- window anti join (NOT EXISTS)
SELECT *
FROM (
    SELECT * FROM TABLE(TUMBLE(TABLE LeftTable, DESCRIPTOR(row_time), INTERVAL '5' MINUTES))
) L WHERE NOT EXISTS (
  SELECT * FROM (
    SELECT * FROM TABLE(TUMBLE(TABLE RightTable, DESCRIPTOR(row_time), INTERVAL '5' MINUTES))
  ) R WHERE L.num = R.num AND L.window_start = R.window_start AND L.window_end = R.window_end);

-- window join after a window aggregation on both sides
SELECT l.window_start, l.window_end, l.item, l.cnt, r.cnt AS other_cnt
FROM (
  SELECT window_start, window_end, item, COUNT(*) AS cnt
  FROM TABLE(TUMBLE(TABLE Bid, DESCRIPTOR(bidtime), INTERVAL '10' MINUTES))
  GROUP BY window_start, window_end, item
) l
LEFT JOIN (
  SELECT window_start, window_end, item, COUNT(*) AS cnt
  FROM TABLE(TUMBLE(TABLE OtherBid, DESCRIPTOR(bidtime), INTERVAL '10' MINUTES))
  GROUP BY window_start, window_end, item
) r
ON l.item = r.item AND l.window_start = r.window_start AND l.window_end = r.window_end;
