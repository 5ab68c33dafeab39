-- aggregation over a changelog (updates and deletes retract).
-- compare: changelog
CREATE TABLE prices (
  product STRING, category STRING, price DOUBLE, PRIMARY KEY (product) NOT ENFORCED
) WITH ('connector' = 'filesystem', 'path' = 'data/q_prices.debezium.jsonl', 'format' = 'debezium-json');
SELECT category, COUNT(*) AS n, SUM(price) AS total, MAX(price) AS top FROM prices GROUP BY category;
