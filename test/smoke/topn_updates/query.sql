-- Top-N (top 2 items per category by total sales) over an updating input (a group aggregate),
-- without the row number in the output.
CREATE TABLE sales (category STRING, item STRING, qty INT)
WITH ('connector' = 'filesystem', 'path' = 'sales.jsonl', 'format' = 'json');

SELECT category, item, sales
FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY category ORDER BY sales DESC) AS rn
  FROM (SELECT category, item, SUM(qty) AS sales FROM sales GROUP BY category, item)
)
WHERE rn <= 2;
