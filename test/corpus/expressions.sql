-- Expressions: operators and precedence, predicates, CASE, special-syntax functions,
-- aggregates with DISTINCT / FILTER, field access, subscripts, constructors, subqueries.

SELECT 1 + 2 * 3 - 4 / 2 % 3 FROM Orders;

SELECT (1 + 2) * 3, -price, +amount, - -amount, -(price * 2) FROM Orders;

SELECT a || b || 'c', 'x' || CAST(amount AS STRING) FROM Orders;

SELECT price = 1, price <> 1, price < 1, price <= 1, price > 1, price >= 1 FROM Orders;

SELECT NOT a AND b OR c AND NOT d FROM flags;

SELECT a OR b AND c, (a OR b) AND c, NOT a = b FROM flags;

SELECT amount + 1 > 2 AND price * 2 < 10 OR currency = 'EUR' FROM Orders;

SELECT
  x IS NULL,
  x IS NOT NULL,
  b IS TRUE,
  b IS NOT TRUE,
  b IS FALSE,
  b IS NOT FALSE,
  b IS UNKNOWN,
  b IS NOT UNKNOWN
FROM t;

SELECT * FROM t WHERE a IS DISTINCT FROM b OR a IS NOT DISTINCT FROM c;

SELECT * FROM Orders WHERE amount BETWEEN 1 AND 10;

SELECT * FROM Orders WHERE amount NOT BETWEEN 1 AND 10;

SELECT * FROM Orders WHERE amount BETWEEN SYMMETRIC 10 AND 1;

SELECT * FROM Orders WHERE amount NOT BETWEEN SYMMETRIC 10 AND 1 AND price > 0;

SELECT * FROM Orders WHERE currency IN ('EUR', 'USD', 'KRW');

SELECT * FROM Orders WHERE amount NOT IN (1, 2, 3);

SELECT * FROM Orders WHERE product IN (SELECT product FROM NewProducts);

SELECT * FROM Orders WHERE product NOT IN (SELECT product FROM NewProducts WHERE discontinued);

SELECT * FROM Orders o WHERE EXISTS (SELECT 1 FROM NewProducts p WHERE p.product = o.product);

SELECT * FROM Orders o WHERE NOT EXISTS (SELECT * FROM NewProducts p WHERE p.product = o.product);

SELECT * FROM Orders WHERE product LIKE 'Wid%';

SELECT * FROM Orders WHERE product NOT LIKE '%\_x' ESCAPE '\';

SELECT * FROM Orders WHERE product LIKE 'a!%b%' ESCAPE '!';

SELECT * FROM Orders WHERE product SIMILAR TO '(Widget|Gadget)%';

SELECT * FROM Orders WHERE product NOT SIMILAR TO 'x#_%' ESCAPE '#';

SELECT
  CASE currency
    WHEN 'EUR' THEN 1
    WHEN 'USD' THEN 2
    ELSE 0
  END AS currency_code
FROM Orders;

SELECT
  CASE
    WHEN amount > 100 THEN 'large'
    WHEN amount > 10 THEN 'medium'
    WHEN amount IS NULL THEN NULL
  END AS size_class
FROM Orders;

SELECT CASE WHEN a THEN CASE b WHEN 1 THEN 'x' END ELSE 'y' END FROM t;

SELECT
  EXTRACT(YEAR FROM order_time),
  EXTRACT(MONTH FROM order_time),
  EXTRACT(DAY FROM order_time),
  EXTRACT(HOUR FROM order_time),
  EXTRACT(MINUTE FROM order_time),
  EXTRACT(SECOND FROM order_time),
  EXTRACT(MILLISECOND FROM order_time),
  EXTRACT(DOW FROM order_time),
  EXTRACT(WEEK FROM order_time)
FROM Orders;

SELECT
  FLOOR(order_time TO MINUTE),
  FLOOR(order_time TO HOUR),
  CEIL(order_time TO DAY),
  CEIL(order_time TO SECOND),
  FLOOR(price),
  CEIL(price),
  CEILING(price)
FROM Orders;

SELECT
  TRIM(BOTH ' ' FROM product),
  TRIM(LEADING '0' FROM order_id),
  TRIM(TRAILING '.' FROM product),
  TRIM(product)
FROM Orders;

SELECT
  SUBSTRING(product FROM 2 FOR 3),
  SUBSTRING(product FROM 2),
  SUBSTRING(product, 1, 4),
  POSITION('dg' IN product),
  OVERLAY(product PLACING 'XX' FROM 2 FOR 2),
  OVERLAY(product PLACING 'XX' FROM 2)
FROM Orders;

SELECT
  TIMESTAMPADD(MINUTE, 5, order_time),
  TIMESTAMPADD(DAY, -1, order_time),
  TIMESTAMPDIFF(SECOND, order_time, CURRENT_TIMESTAMP),
  TIMESTAMPDIFF(HOUR, TIMESTAMP '2024-01-01 00:00:00', TIMESTAMP '2024-01-02 12:00:00')
FROM Orders;

SELECT
  CURRENT_TIMESTAMP,
  CURRENT_DATE,
  CURRENT_TIME,
  LOCALTIMESTAMP,
  LOCALTIME,
  NOW(),
  PROCTIME(),
  CURRENT_WATERMARK(order_time)
FROM Orders;

SELECT
  COUNT(*),
  COUNT(1),
  COUNT(order_id),
  COUNT(DISTINCT product),
  SUM(DISTINCT amount),
  AVG(price),
  MIN(price),
  MAX(price),
  STDDEV_POP(price),
  VAR_SAMP(price),
  LISTAGG(product, ',')
FROM Orders;

SELECT
  product,
  COUNT(*) FILTER (WHERE amount > 10) AS big,
  COUNT(DISTINCT `user`) FILTER (WHERE price >= 100 AND price < 1000) AS mid_users,
  SUM(amount) FILTER (WHERE currency = 'EUR') AS eur_amount
FROM Orders
GROUP BY product;

SELECT
  r.a,
  r.b.c,
  t.r.b.c,
  arr[1],
  arr[1 + 1],
  m['key'],
  m['outer']['inner'],
  nested[1].id,
  nested[2].tags[1],
  t.col.field[3]
FROM nested_things AS t;

SELECT
  ARRAY[1, 2, 3],
  ARRAY['a', 'b'],
  ARRAY[ARRAY[1], ARRAY[2, 3]],
  MAP['k1', 1, 'k2', 2],
  MAP['a', ARRAY[1, 2]],
  ROW(1, 'a', TRUE),
  ROW(order_id, ROW(product, amount))
FROM Orders;

SELECT
  order_id,
  (SELECT MAX(price) FROM Orders) AS max_price,
  (SELECT COUNT(*) FROM NewProducts p WHERE p.product = o.product) AS match_count
FROM Orders o;

SELECT * FROM Orders WHERE price > (SELECT AVG(price) FROM Orders);

SELECT
  COALESCE(a, b, 'none'),
  NULLIF(a, ''),
  IF(a IS NULL, 0, 1),
  GREATEST(1, 2, 3),
  LEAST(4, 5),
  ABS(-1),
  MOD(10, 3),
  POWER(2, 10),
  ROUND(3.14159, 2),
  UPPER(a),
  LOWER(b),
  CHAR_LENGTH(a),
  CONCAT(a, b, 'c'),
  CONCAT_WS('-', a, b),
  REGEXP_EXTRACT(a, '(\d+)', 1),
  REPLACE(a, 'x', 'y'),
  SPLIT_INDEX(a, '/', 3),
  DATE_FORMAT(order_time, 'yyyy-MM-dd HH:mm'),
  TO_TIMESTAMP('2024-01-01 00:00:00'),
  TO_TIMESTAMP_LTZ(1700000000000, 3),
  UNIX_TIMESTAMP(),
  UUID()
FROM t;

SELECT f(), g(1), h(a, b, c), my_db.my_func(a), `my-function`(a) FROM t;

SELECT a - b - c, a / b * c, a - (b - c), 2 * (3 + 4) * 5 FROM t;

SELECT -1 * -2, - (1), 1 - -1 FROM t;

SELECT price * 1.5E2 + 1e-3 FROM Orders WHERE price <> 0.5;

SELECT ((((1)))), ((a + b)) * ((c)) FROM t;
