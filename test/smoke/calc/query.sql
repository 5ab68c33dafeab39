-- Calc over a source with a computed column and a watermark: filter, projection, CASE, interval
-- arithmetic. Rows stay in input order (a stateless operator); NULL price fails the filter.
CREATE TABLE orders (
  item STRING,
  price INT,
  qty INT,
  ts TIMESTAMP(3),
  total AS price * qty,
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND
) WITH ('connector' = 'filesystem', 'path' = 'orders.jsonl', 'format' = 'json');

SELECT item, UPPER(item) AS shout, total,
  CASE WHEN total >= 8 THEN 'big' ELSE 'low' END AS size,
  ts + INTERVAL '1' HOUR AS later
FROM orders
WHERE total > 5;
