-- What: a continuous Top-N. Sales (sql/data/sales.jsonl) are summed per product, and the three
--   best-selling products of each category are kept up to date. The result is a changelog:
--   when a product enters or leaves a category's top 3, the print sink shows the retraction
--   (-U / -D) and the new row (+U / +I).
-- Run: weir run sql/topn.sql

CREATE TABLE sales (
  product_id STRING,
  category STRING,
  product_name STRING,
  quantity INT,
  sold_at TIMESTAMP(3)
) WITH (
  'connector' = 'filesystem',
  'path' = 'sql/data/sales.jsonl',
  'format' = 'json'
);

CREATE TABLE top_products (
  category STRING,
  row_num BIGINT,
  product_id STRING,
  product_name STRING,
  total_quantity BIGINT,
  PRIMARY KEY (category, row_num) NOT ENFORCED
) WITH ('connector' = 'print');

INSERT INTO top_products
SELECT category, row_num, product_id, product_name, total_quantity
FROM (
  SELECT *,
    ROW_NUMBER() OVER (PARTITION BY category ORDER BY total_quantity DESC) AS row_num
  FROM (
    SELECT category, product_id, product_name, CAST(SUM(quantity) AS BIGINT) AS total_quantity
    FROM sales
    GROUP BY category, product_id, product_name
  )
)
WHERE row_num <= 3;
