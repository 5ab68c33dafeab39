-- Top-N over a changelog.
-- compare: changes
CREATE TABLE prices (
  product STRING, category STRING, price DOUBLE, PRIMARY KEY (product) NOT ENFORCED
) WITH ('connector' = 'filesystem', 'path' = 'data/q_prices.debezium.jsonl', 'format' = 'debezium-json');
SELECT * FROM (SELECT category, product, price, ROW_NUMBER() OVER (PARTITION BY category ORDER BY price DESC) AS rn FROM prices) WHERE rn <= 1;
