-- Temporal joins, lookup joins, LATERAL TABLE and UNNEST (Flink documentation examples).

-- event-time temporal join against a versioned table
SELECT
     order_id,
     price,
     orders.currency,
     conversion_rate,
     order_time
FROM orders
LEFT JOIN currency_rates FOR SYSTEM_TIME AS OF orders.order_time
ON orders.currency = currency_rates.currency;

SELECT o.order_id, o.price * r.conversion_rate AS converted
FROM orders AS o
JOIN currency_rates FOR SYSTEM_TIME AS OF o.order_time AS r
ON o.currency = r.currency;

-- versioned view built with deduplication
CREATE VIEW versioned_rates AS
SELECT currency, rate, currency_time
  FROM (
      SELECT *,
      ROW_NUMBER() OVER (PARTITION BY currency ORDER BY currency_time DESC) AS rownum
      FROM RatesHistory)
WHERE rownum = 1;

SELECT o.order_id, o.order_time, o.amount * r.rate AS amount, r.currency
FROM Orders AS o
JOIN versioned_rates FOR SYSTEM_TIME AS OF o.order_time AS r
ON o.currency = r.currency;

-- lookup join: enrich each order with customer information
SELECT o.order_id, o.total, c.country, c.zip
FROM Orders AS o
  JOIN Customers FOR SYSTEM_TIME AS OF o.proc_time AS c
    ON o.customer_id = c.id;

SELECT o.order_id, c.name
FROM Orders AS o
LEFT JOIN Customers FOR SYSTEM_TIME AS OF o.proc_time AS c
ON o.customer_id = c.id AND c.country = 'KR';

SELECT B.auction, B.bidder, B.price, S.`value`
FROM (SELECT *, PROCTIME() AS p_time FROM bid) B
JOIN side_input FOR SYSTEM_TIME AS OF B.p_time AS S
ON MOD(B.auction, 10000) = S.key;

-- processing-time temporal table function join
SELECT
  o_amount, r_rate
FROM
  Orders,
  LATERAL TABLE (Rates(o_proctime))
WHERE
  r_currency = o_currency;

-- table functions
SELECT order_id, res
FROM Orders,
LATERAL TABLE(table_func(order_id)) t(res);

SELECT order_id, res
FROM Orders,
LATERAL TABLE(table_func(order_id)) AS T(res);

SELECT order_id, word, len
FROM Orders,
LATERAL TABLE(split_words(product)) AS T(word, len);

SELECT order_id, res
FROM Orders
LEFT OUTER JOIN LATERAL TABLE(table_func(order_id)) t(res)
  ON TRUE;

SELECT order_id, res
FROM Orders
CROSS JOIN LATERAL TABLE(table_func(order_id, 'sep')) AS T(res);

SELECT o.order_id, s.tag
FROM Orders AS o
JOIN LATERAL TABLE(split_tags(o.tags)) AS s(tag) ON TRUE;

-- array expansion
SELECT order_id, tag
FROM Orders CROSS JOIN UNNEST(tags) AS t (tag);

SELECT order_id, tag
FROM Orders CROSS JOIN UNNEST(tags) AS t(tag)
WHERE tag <> '';

SELECT o.order_id, item.sku, item.qty
FROM Orders AS o
CROSS JOIN UNNEST(o.items) AS item(sku, qty);

SELECT k, v
FROM Orders CROSS JOIN UNNEST(attributes) AS a(k, v);

SELECT * FROM UNNEST(ARRAY[1, 2, 3]) AS t(x);
